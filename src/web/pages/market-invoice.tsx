/** @jsxImportSource @kitajs/html */
// A Lightning invoice the person must pay, as every marketplace page shows it: its status, the
// QR code a wallet scans (drawn on the server: market-qr.tsx), the BOLT11 text to copy, when it
// lapses, and the "Check payment" form that asks the wallet now. While the invoice waits, the
// marketplace's script (assets/market.js) asks the status address every few seconds and reloads
// the page once the payment is seen; without the script, "Refresh" and the form do the same.
import { CsrfField, escapeHtml } from "../account-layout";
import { Time } from "../components";
import { InvoiceQr } from "./market-qr";
import { sats } from "./market";
import { MARKET_SCRIPT } from "../market-assets";

export type InvoiceState = "pending" | "paid" | "expired" | "failed";

const STATE_TEXT: Record<InvoiceState, string> = {
  pending: "Waiting for payment",
  paid: "Paid",
  expired: "Expired: this invoice can no longer be paid",
  failed: "Failed: the wallet refused this invoice",
};

export interface InvoiceView {
  bolt11: string;
  amountSats: number;
  state: InvoiceState;
  expiresAt: number;
  /** The form that asks the wallet now (the API's check route), or none. */
  checkAction: string | null;
  /** Where the script asks for the status while the invoice waits. */
  pollUrl: string;
  /** This page, for "Refresh". */
  self: string;
  csrf: string;
}

/** The invoice box; `title` is its heading ("Pay the invoice"). */
export function InvoiceBox({ v, title }: { v: InvoiceView; title: string }) {
  const waiting = v.state === "pending";
  return (
    <section class="invoice" aria-labelledby="invoice-h">
      <h2 id="invoice-h">{escapeHtml(title)}</h2>
      <p class="invoice-state" role="status" data-invoice-state={v.state} data-invoice-poll={waiting ? escapeHtml(v.pollUrl) : undefined}>
        <strong>{escapeHtml(STATE_TEXT[v.state])}</strong>
        {escapeHtml(` · ${sats(v.amountSats)}`)}
      </p>
      {waiting ? (
        <>
          <div class="invoice-pay">
            <InvoiceQr bolt11={v.bolt11} label={`QR code of the Lightning invoice for ${sats(v.amountSats)}`} />
            <div class="invoice-text">
              <label for="invoice-bolt11">Lightning invoice (BOLT11): scan the code with your wallet, or copy this text into it</label>
              <textarea id="invoice-bolt11" class="bolt11" readonly rows="5" spellcheck="false">
                {escapeHtml(v.bolt11)}
              </textarea>
              <p class="meta">
                Expires <Time at={v.expiresAt} />. This page notices the payment by itself.
              </p>
              <div class="buttons">
                {v.checkAction ? (
                  <form method="post" action={escapeHtml(v.checkAction)} class="inline">
                    <CsrfField csrf={v.csrf} />
                    <button type="submit">Check payment</button>
                  </form>
                ) : (
                  ""
                )}{" "}
                <a href={escapeHtml(v.self)}>Refresh</a>
              </div>
            </div>
          </div>
          <script type="module" src={MARKET_SCRIPT.path}></script>
        </>
      ) : (
        ""
      )}
    </section>
  );
}
