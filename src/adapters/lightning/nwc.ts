// Nostr Wallet Connect (NIP-47) through @getalby/sdk: one connection string
// (nostr+walletconnect://…, COLONY_NWC_URL) reaches any wallet that speaks it (Alby Hub, Coinos,
// Primal, …) over its relay. Amounts are millisatoshis on this wire.
import { NWCClient, Nip47NetworkError, Nip47TimeoutError, Nip47WalletError } from "@getalby/sdk/nwc";
import { payViaLnurl, type LnurlOptions } from "./lnurl";
import { WalletError, type CreatedInvoice, type InvoiceRequest, type InvoiceStatus, type PaymentStatus, type Wallet } from "./types";

type Client = Pick<NWCClient, "makeInvoice" | "lookupInvoice" | "payInvoice" | "close">;

/** NIP-47's NOT_FOUND: the wallet has no such payment. */
const notFound = (err: unknown) => err instanceof Nip47WalletError && err.code === "NOT_FOUND";
const uncertain = (err: unknown) => err instanceof Nip47TimeoutError || err instanceof Nip47NetworkError;

function walletError(what: string, err: unknown): WalletError {
  return new WalletError(`NWC ${what}: ${err instanceof Error ? err.message : String(err)}`, uncertain(err));
}

export class NwcWallet implements Wallet {
  readonly name = "nwc" as const;

  constructor(
    private client: Client,
    private lnurl: LnurlOptions,
  ) {}

  static fromUrl(url: string, lnurl: LnurlOptions): NwcWallet {
    return new NwcWallet(new NWCClient({ nostrWalletConnectUrl: url }), lnurl);
  }

  async createInvoice(req: InvoiceRequest): Promise<CreatedInvoice> {
    try {
      const t = await this.client.makeInvoice({ amount: req.amountSats * 1000, description: req.memo, expiry: req.expirySeconds });
      return { paymentRequest: t.invoice, paymentHash: t.payment_hash, expiresAt: t.expires_at * 1000 };
    } catch (err) {
      throw walletError("make_invoice", err);
    }
  }

  async lookupInvoice(paymentHash: string): Promise<InvoiceStatus> {
    try {
      const t = await this.client.lookupInvoice({ payment_hash: paymentHash });
      if (t.state === "settled") return { state: "paid", preimage: t.preimage || null, paidAt: t.settled_at ? t.settled_at * 1000 : null };
      if (t.state === "failed") return { state: "failed", reason: "failed" };
      return t.expires_at && t.expires_at * 1000 <= Date.now() ? { state: "expired" } : { state: "pending" };
    } catch (err) {
      throw walletError("lookup_invoice", err);
    }
  }

  async payInvoice(paymentRequest: string): Promise<PaymentStatus> {
    try {
      const r = await this.client.payInvoice({ invoice: paymentRequest });
      return { state: "succeeded", preimage: r.preimage || null, feeSats: Math.ceil((r.fees_paid ?? 0) / 1000) };
    } catch (err) {
      if (err instanceof Nip47WalletError) return { state: "failed", reason: `${err.code}: ${err.message}` };
      throw walletError("pay_invoice", err);
    }
  }

  async lookupPayment(paymentHash: string): Promise<PaymentStatus> {
    try {
      const t = await this.client.lookupInvoice({ payment_hash: paymentHash });
      if (t.state === "settled") return { state: "succeeded", preimage: t.preimage || null, feeSats: Math.ceil((t.fees_paid ?? 0) / 1000) };
      return t.state === "failed" ? { state: "failed", reason: "failed" } : { state: "pending" };
    } catch (err) {
      if (notFound(err)) return { state: "unknown" };
      throw walletError("lookup_invoice", err);
    }
  }

  payLightningAddress(address: string, amountSats: number, comment: string, record: (paymentHash: string) => void): Promise<PaymentStatus> {
    return payViaLnurl(this, address, amountSats, comment, record, this.lnurl);
  }

  close(): void {
    this.client.close();
  }
}
