// LND's REST API (lnd's `restlisten`, port 8080 by default): a macaroon in the
// Grpc-Metadata-macaroon header (an invoice macaroon suffices for invoices; paying needs one that
// may send, e.g. admin.macaroon) and the node's self-signed TLS certificate trusted for this
// connection only. Settings: COLONY_LND_REST_URL, COLONY_LND_MACAROON (hex, or a file path),
// COLONY_LND_TLS_CERT (a PEM file path).
import { requestJson } from "./http-json";
import { payViaLnurl, type LnurlOptions } from "./lnurl";
import { WalletError, type CreatedInvoice, type InvoiceRequest, type InvoiceStatus, type PaymentStatus, type Wallet } from "./types";

interface LndSettings {
  url: string;
  macaroonHex: string;
  tlsCertPem: string | null;
  timeoutMs: number;
}

const b64ToHex = (s: string | undefined | null) => (s ? Buffer.from(s, "base64").toString("hex") : null);
const hexToB64Url = (hex: string) => Buffer.from(hex, "hex").toString("base64url");

export class LndWallet implements Wallet {
  readonly name = "lnd" as const;

  constructor(
    private s: LndSettings,
    private lnurl: LnurlOptions,
  ) {}

  private call(method: "GET" | "POST", path: string, body?: unknown, timeoutMs = this.s.timeoutMs) {
    return requestJson({
      method,
      url: `${this.s.url.replace(/\/+$/, "")}${path}`,
      headers: { "Grpc-Metadata-macaroon": this.s.macaroonHex },
      body,
      timeoutMs,
      ...(this.s.tlsCertPem ? { tls: { ca: this.s.tlsCertPem } } : {}),
    });
  }

  async createInvoice(req: InvoiceRequest): Promise<CreatedInvoice> {
    const { status, json } = await this.call("POST", "/v1/invoices", { value: String(req.amountSats), memo: req.memo, expiry: String(req.expirySeconds) });
    const hash = b64ToHex(json?.r_hash);
    if (status >= 300 || !hash || typeof json?.payment_request !== "string") throw new WalletError(`LND refused the invoice (${status}: ${json?.message ?? "no invoice"})`);
    return { paymentRequest: json.payment_request, paymentHash: hash, expiresAt: Date.now() + req.expirySeconds * 1000 };
  }

  async lookupInvoice(paymentHash: string): Promise<InvoiceStatus> {
    const { status, json } = await this.call("GET", `/v1/invoice/${paymentHash}`);
    if (status >= 300 || !json) throw new WalletError(`LND answered ${status} for invoice ${paymentHash}`);
    if (json.state === "SETTLED") return { state: "paid", preimage: b64ToHex(json.r_preimage), paidAt: json.settle_date ? Number(json.settle_date) * 1000 : null };
    if (json.state === "CANCELED") return { state: "expired" };
    return { state: "pending" };
  }

  async payInvoice(paymentRequest: string, opts: { maxFeeSats: number }): Promise<PaymentStatus> {
    // The synchronous send: answers once the payment succeeded or failed.
    const { status, json } = await this.call("POST", "/v1/channels/transactions", { payment_request: paymentRequest, fee_limit: { fixed: String(opts.maxFeeSats) } }, Math.max(this.s.timeoutMs, 60_000));
    if (status >= 300) return { state: "failed", reason: String(json?.message ?? status) };
    if (json?.payment_error) return { state: "failed", reason: String(json.payment_error) };
    return { state: "succeeded", preimage: b64ToHex(json?.payment_preimage), feeSats: Number(json?.payment_route?.total_fees ?? 0) };
  }

  async lookupPayment(paymentHash: string): Promise<PaymentStatus> {
    // The router's tracking stream: its first line is the payment's current state.
    const { status, json } = await this.call("GET", `/v2/router/track/${hexToB64Url(paymentHash)}?no_inflight_updates=true`);
    if (status === 404 || (json?.error?.message ?? json?.message ?? "").includes("not found")) return { state: "unknown" };
    if (status >= 300) throw new WalletError(`LND answered ${status} for payment ${paymentHash}`);
    const r = json?.result ?? json;
    if (r?.status === "SUCCEEDED") return { state: "succeeded", preimage: r.payment_preimage ?? null, feeSats: Number(r.fee_sat ?? 0) };
    if (r?.status === "FAILED") return { state: "failed", reason: String(r.failure_reason ?? "failed") };
    return { state: "pending" };
  }

  payLightningAddress(address: string, amountSats: number, comment: string, record: (paymentHash: string) => void): Promise<PaymentStatus> {
    return payViaLnurl(this, address, amountSats, comment, record, this.lnurl);
  }
}
