// LNbits (https://lnbits.com), the most common self-hosted wallet: its payments API with a
// wallet's invoice/read key for invoices and its admin key for paying. Settings:
// COLONY_LNBITS_URL and COLONY_LNBITS_ADMIN_KEY (COLONY_LNBITS_INVOICE_KEY optional: invoices and
// look-ups then use the narrower key).
import { requestJson } from "./http-json";
import { payViaLnurl, type LnurlOptions } from "./lnurl";
import { WalletError, type CreatedInvoice, type InvoiceRequest, type InvoiceStatus, type PaymentStatus, type Wallet } from "./types";

interface LnbitsSettings {
  url: string;
  adminKey: string;
  invoiceKey?: string | null;
  timeoutMs: number;
}

export class LnbitsWallet implements Wallet {
  readonly name = "lnbits" as const;

  constructor(
    private s: LnbitsSettings,
    private lnurl: LnurlOptions,
    private now: () => number,
  ) {}

  private call(method: "GET" | "POST", path: string, key: string, body?: unknown) {
    return requestJson({ method, url: `${this.s.url.replace(/\/+$/, "")}${path}`, headers: { "X-Api-Key": key }, body, timeoutMs: this.s.timeoutMs });
  }

  async createInvoice(req: InvoiceRequest): Promise<CreatedInvoice> {
    const { status, json } = await this.call("POST", "/api/v1/payments", this.s.invoiceKey || this.s.adminKey, { out: false, amount: req.amountSats, memo: req.memo, expiry: req.expirySeconds, unit: "sat" });
    const pr = json?.payment_request ?? json?.bolt11;
    if (status >= 300 || typeof pr !== "string" || typeof json?.payment_hash !== "string") throw new WalletError(`LNbits refused the invoice (${status}: ${json?.detail ?? "no invoice"})`);
    return { paymentRequest: pr, paymentHash: json.payment_hash, expiresAt: this.now() + req.expirySeconds * 1000 };
  }

  async lookupInvoice(paymentHash: string): Promise<InvoiceStatus> {
    const { status, json } = await this.call("GET", `/api/v1/payments/${paymentHash}`, this.s.invoiceKey || this.s.adminKey);
    if (status === 404) throw new WalletError(`LNbits has no invoice ${paymentHash}`);
    if (status >= 300 || !json) throw new WalletError(`LNbits answered ${status}`);
    if (json.paid === true) return { state: "paid", preimage: json.preimage ?? null, paidAt: null };
    const s = json.status ?? json.details?.status;
    if (s === "failed") return { state: "failed", reason: "failed" };
    if (s === "expired" || json.details?.expired === true) return { state: "expired" };
    return { state: "pending" };
  }

  async payInvoice(paymentRequest: string): Promise<PaymentStatus> {
    const { status, json } = await this.call("POST", "/api/v1/payments", this.s.adminKey, { out: true, bolt11: paymentRequest });
    if (status >= 300) return { state: "failed", reason: String(json?.detail ?? status) };
    if (typeof json?.payment_hash !== "string") throw new WalletError("LNbits answered a payment without its hash", true);
    return this.lookupPayment(json.payment_hash);
  }

  async lookupPayment(paymentHash: string): Promise<PaymentStatus> {
    const { status, json } = await this.call("GET", `/api/v1/payments/${paymentHash}`, this.s.adminKey);
    if (status === 404) return { state: "unknown" };
    if (status >= 300 || !json) throw new WalletError(`LNbits answered ${status}`);
    if (json.paid === true) return { state: "succeeded", preimage: json.preimage ?? null, feeSats: Math.ceil(Math.abs(Number(json.details?.fee ?? 0)) / 1000) };
    const s = json.status ?? json.details?.status;
    return s === "failed" ? { state: "failed", reason: "failed" } : { state: "pending" };
  }

  payLightningAddress(address: string, amountSats: number, comment: string, record: (paymentHash: string) => void): Promise<PaymentStatus> {
    return payViaLnurl(this, address, amountSats, comment, record, this.lnurl);
  }
}
