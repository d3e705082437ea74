// Paying a Lightning address (LUD-16): LNURL-pay over the SSRF-guarded outbound HTTP (a seller's
// address names a host the seller chose). @getalby/lightning-tools checks the pay-request
// document and reads the invoice; the invoice must be for exactly the amount asked, and its
// payment hash is recorded (by `record`) before the wallet pays it, so a payout interrupted by a
// crash can be looked up instead of paid again.
import { decodeInvoice } from "@getalby/lightning-tools/bolt11";
import { LN_ADDRESS_REGEX, parseLnUrlPayResponse, type LnUrlRawData } from "@getalby/lightning-tools/lnurl";
import { guardedGet, type GuardOptions } from "../http-out";
import { WalletError, type PaymentStatus, type Wallet } from "./types";

export interface LnurlOptions extends GuardOptions {
  timeoutMs: number;
  /** The pay-request document's URL for an address (tests point it at a local server). */
  urlFor?: (user: string, domain: string) => string;
}

const wellKnown = (user: string, domain: string) => `https://${domain}/.well-known/lnurlp/${encodeURIComponent(user)}`;

async function getJson(url: string, opts: LnurlOptions): Promise<Record<string, unknown>> {
  const r = await guardedGet(url, { allowPrivate: opts.allowPrivate, resolver: opts.resolver, timeoutMs: opts.timeoutMs, maxResponseBytes: 65_536, headers: { accept: "application/json" } });
  if (!r.ok || r.body === null) throw new WalletError(`LNURL-pay: ${url} answered ${r.status ?? r.error}`);
  try {
    const json = JSON.parse(r.body);
    if (json && typeof json === "object" && (json as { status?: unknown }).status === "ERROR") throw new WalletError(`LNURL-pay: ${String((json as { reason?: unknown }).reason ?? "error")}`);
    return json as Record<string, unknown>;
  } catch (err) {
    if (err instanceof WalletError) throw err;
    throw new WalletError(`LNURL-pay: ${url} did not answer JSON`);
  }
}

/** An invoice for exactly `amountSats` from the address's LNURL-pay service. */
async function invoiceFromAddress(address: string, amountSats: number, comment: string, opts: LnurlOptions): Promise<{ paymentRequest: string; paymentHash: string }> {
  const m = LN_ADDRESS_REGEX.exec(address.toLowerCase());
  if (!m) throw new WalletError(`${address} is not a Lightning address`);
  const [, user, domain] = m as unknown as [string, string, string];
  const data = await parseLnUrlPayResponse((await getJson((opts.urlFor ?? wellKnown)(user, domain), opts)) as unknown as LnUrlRawData).catch((err: unknown) => {
    throw err instanceof WalletError ? err : new WalletError(`LNURL-pay: ${address}'s pay request is not valid (${err instanceof Error ? err.message : err})`);
  });
  const msat = amountSats * 1000;
  if (msat < data.min || msat > data.max) throw new WalletError(`LNURL-pay: ${address} takes ${data.min / 1000}-${data.max / 1000} sats, not ${amountSats}`);
  const url = new URL(data.callback);
  url.searchParams.set("amount", String(msat));
  if (comment && data.commentAllowed) url.searchParams.set("comment", comment.slice(0, data.commentAllowed));
  const answer = await getJson(url.toString(), opts);
  const pr = typeof answer.pr === "string" ? answer.pr : null;
  const decoded = pr ? decodeInvoice(pr) : null;
  if (!pr || !decoded) throw new WalletError(`LNURL-pay: ${address} returned no invoice`);
  if (decoded.millisatoshi !== msat) throw new WalletError(`LNURL-pay: ${address} returned an invoice for ${decoded.millisatoshi} msat, not ${msat}`);
  return { paymentRequest: pr, paymentHash: decoded.paymentHash };
}

/** Routing fees a payout may spend: 1 % of the amount, at least 10 sats. */
const maxFeeFor = (amountSats: number) => Math.max(10, Math.ceil(amountSats / 100));

/** The real backends' payLightningAddress: resolve, record the hash, then pay (fees capped by maxFeeFor). */
export async function payViaLnurl(
  wallet: Wallet,
  address: string,
  amountSats: number,
  comment: string,
  record: (paymentHash: string) => void,
  opts: LnurlOptions,
): Promise<PaymentStatus> {
  const invoice = await invoiceFromAddress(address, amountSats, comment, opts);
  record(invoice.paymentHash);
  return wallet.payInvoice(invoice.paymentRequest, { maxFeeSats: maxFeeFor(amountSats) });
}
