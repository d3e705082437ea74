// The wallet the marketplace talks to: create and look up invoices it is paid through, pay
// invoices (payouts to sellers' Lightning addresses), look payments up. One interface, four
// backends chosen by configuration: LNbits, Nostr Wallet Connect, LND's REST API, and the
// development wallet that is the offline default.

export type WalletName = "development" | "lnbits" | "nwc" | "lnd";

export interface InvoiceRequest {
  amountSats: number;
  memo: string;
  expirySeconds: number;
}

export interface CreatedInvoice {
  paymentRequest: string;
  /** Hex SHA-256 of the preimage. */
  paymentHash: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

export type InvoiceStatus =
  | { state: "pending" }
  | { state: "paid"; preimage: string | null; paidAt: number | null }
  | { state: "expired" }
  | { state: "failed"; reason: string };

export type PaymentStatus =
  | { state: "pending" }
  | { state: "succeeded"; preimage: string | null; feeSats: number }
  | { state: "failed"; reason: string }
  /** The wallet has no record of the payment: it was never sent. */
  | { state: "unknown" };

/** A wallet call that did not get an answer it could use (network, timeout, 5xx, nonsense). */
export class WalletError extends Error {
  constructor(
    message: string,
    /** True when the wallet may not have acted (a timeout after sending): look the payment up before retrying. */
    readonly uncertain = false,
  ) {
    super(message);
  }
}

export interface Wallet {
  readonly name: WalletName;
  createInvoice(req: InvoiceRequest): Promise<CreatedInvoice>;
  lookupInvoice(paymentHash: string): Promise<InvoiceStatus>;
  /** Pays a BOLT11 invoice with at most `maxFeeSats` of routing fees. */
  payInvoice(paymentRequest: string, opts: { maxFeeSats: number }): Promise<PaymentStatus>;
  lookupPayment(paymentHash: string): Promise<PaymentStatus>;
  /**
   * Pays `amountSats` to a Lightning address. Real backends resolve it with LNURL-pay
   * (lnurl.ts) and pay the invoice it returns; the development wallet books it in its ledger.
   * Answers the payment hash it paid (recorded before paying, so a crash can be reconciled).
   */
  payLightningAddress?(address: string, amountSats: number, comment: string, onInvoice: (paymentHash: string) => void): Promise<PaymentStatus>;
}
