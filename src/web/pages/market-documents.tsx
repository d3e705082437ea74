/** @jsxImportSource @kitajs/html */
// A document for sale (/marketplace/documents/<id>): what it is, its free preview, buying it (a
// new invoice per purchase, as the API has it) and, once a purchase is paid, its download; the
// person's purchases (/marketplace/purchases) and one purchase with its invoice
// (/marketplace/purchases/<id>).
import type { DocumentRow, PurchaseRow } from "../../features/documents/service";
import type { UserRow } from "../../features/users/service";
import { CsrfField, escapeHtml } from "../account-layout";
import { Author, count, Pager, Time } from "../components";
import type { Visit } from "../visit";
import { documentHref, Flash, marketPage, purchaseHref, sats, SignInTo, words, type FlashView } from "./market";
import { InvoiceBox } from "./market-invoice";

export const downloadHref = (docId: string) => `${documentHref(docId)}/download`;

const PURCHASE_TEXT: Record<string, string> = {
  pending: "Waiting for payment",
  paid: "Paid: the document is yours",
  expired: "Expired: the invoice was not paid in time",
  failed: "Failed: the wallet refused the invoice",
  payout_pending: "Paid: the document is yours",
  payout_completed: "Paid: the document is yours",
  payout_failed: "Paid: the document is yours",
  payout_abandoned: "Paid: the document is yours",
};

export interface DocumentView {
  doc: DocumentRow;
  seller: UserRow | undefined;
  isTruncated: boolean;
  /** The reader's own purchases of it, newest first. */
  purchases: PurchaseRow[];
  /** Whether the reader may download it (its seller, or a buyer with a paid purchase). */
  owned: boolean;
}

export function DocumentPage(visit: Visit, v: DocumentView, flash: FlashView = {}): string {
  const d = v.doc;
  const isSeller = visit.caller?.id === d.sellerId;
  const pending = v.purchases.filter((p) => p.status === "pending");
  return marketPage(
    visit,
    d.title,
    "documents",
    <article class="listing" aria-labelledby="doc-title">
      <h1 id="doc-title" safe>
        {d.title}
      </h1>
      <p class="meta">
        Document by <Author user={v.seller} avatar={20} /> · <Time at={d.createdAt} />
        {d.status !== "active" ? " · no longer for sale" : ""}
      </p>
      <dl class="facts">
        <div>
          <dt>Price</dt>
          <dd safe>{sats(d.priceSats)}</dd>
        </div>
        <div>
          <dt>File</dt>
          <dd safe>{d.filename}</dd>
        </div>
        <div>
          <dt>Size</dt>
          <dd safe>{`${count(d.contentSize)} bytes`}</dd>
        </div>
        <div>
          <dt>Downloads</dt>
          <dd safe>{count(d.downloadCount)}</dd>
        </div>
      </dl>
      {d.description ? (
        <p class="plain" safe>
          {d.description}
        </p>
      ) : (
        ""
      )}
      <p class="meta hash">
        SHA-256 of the content: <code safe>{d.contentHash}</code>
      </p>
      <Flash notice={flash.notice} error={flash.error} />
      {v.owned ? (
        <p>
          <a class="btn" href={downloadHref(d.id)} download={escapeHtml(d.filename)}>
            Download {escapeHtml(d.filename)}
          </a>
          {isSeller ? " This is your document." : ""}
        </p>
      ) : d.status === "active" && visit.csrf && !isSeller ? (
        <form method="post" action={`${documentHref(d.id)}/buy`} class="stack" aria-labelledby="buy-h">
          <h2 id="buy-h">Buy it</h2>
          <CsrfField csrf={visit.csrf} />
          <p>{escapeHtml(`Buying issues a Lightning invoice of ${sats(d.priceSats)}; once it is paid the download is yours.`)}</p>
          <p>
            <button type="submit">{escapeHtml(`Buy for ${sats(d.priceSats)}`)}</button>
          </p>
        </form>
      ) : (
        ""
      )}
      {!visit.caller && d.status === "active" ? <SignInTo back={documentHref(d.id)} to="to buy this document." /> : ""}
      {pending.length && !v.owned ? (
        <p class="note">
          {"You have an invoice waiting: "}
          <a href={purchaseHref(pending[0].id)}>{escapeHtml(`pay ${sats(pending[0].amountSats)}`)}</a>.
        </p>
      ) : (
        ""
      )}
      <section aria-labelledby="preview-h">
        <h2 id="preview-h">{v.isTruncated ? "Free preview" : "The whole document"}</h2>
        {d.preview ? (
          <pre class="preview plain" tabindex="0" safe>
            {d.preview}
          </pre>
        ) : (
          <p class="empty">The seller shows no preview.</p>
        )}
      </section>
    </article>,
  );
}

export function PurchasesPage(visit: Visit, v: { items: { purchase: PurchaseRow; title: string | null }[]; page: number; hasMore: boolean }): string {
  return marketPage(
    visit,
    "My purchases",
    "purchases",
    <>
      <h1>My purchases</h1>
      {v.items.length ? (
        <ol class="rows purchases">
          {v.items.map(({ purchase: p, title }) => (
            <li>
              <h2>
                <a href={purchaseHref(p.id)} safe>
                  {title ?? "[a document no longer listed]"}
                </a>
              </h2>
              <p class="meta">
                <span class="b">{escapeHtml(words(p.status))}</span> {escapeHtml(sats(p.amountSats))} · <Time at={p.createdAt} />
              </p>
            </li>
          ))}
        </ol>
      ) : (
        <p class="empty">
          No purchase yet. Browse the <a href="/marketplace/documents">documents for sale</a>.
        </p>
      )}
      <Pager page={v.page} hasMore={v.hasMore} href={(n) => (n > 1 ? `/marketplace/purchases?page=${n}` : "/marketplace/purchases")} />
    </>,
  );
}

export function PurchasePage(visit: Visit, v: { purchase: PurchaseRow; doc: DocumentRow | null; paid: boolean }, flash: FlashView = {}): string {
  const p = v.purchase;
  const base = purchaseHref(p.id);
  return marketPage(
    visit,
    `Purchase: ${v.doc?.title ?? "a document"}`,
    "purchases",
    <article class="purchase" aria-labelledby="purchase-title">
      <h1 id="purchase-title">
        {"Purchase: "}
        {v.doc ? (
          <a href={documentHref(p.documentId)} safe>
            {v.doc.title}
          </a>
        ) : (
          "a document no longer listed"
        )}
      </h1>
      <p class="step">
        <span class="b">{escapeHtml(words(p.status))}</span> {escapeHtml(PURCHASE_TEXT[p.status] ?? "")} · started <Time at={p.createdAt} />
      </p>
      <Flash notice={flash.notice} error={flash.error} />
      {p.status === "pending" && visit.csrf ? (
        <InvoiceBox
          title="Pay the invoice"
          v={{
            bolt11: p.paymentRequest,
            amountSats: p.amountSats,
            state: "pending",
            expiresAt: p.expiresAt,
            checkAction: `${base}/check`,
            pollUrl: `/marketplace/status/purchase/${p.id}`,
            self: base,
            csrf: visit.csrf,
          }}
        />
      ) : (
        ""
      )}
      {v.paid ? (
        <p>
          <a class="btn" href={downloadHref(p.documentId)} download={v.doc ? escapeHtml(v.doc.filename) : undefined}>
            {escapeHtml(`Download ${v.doc?.filename ?? "the document"}`)}
          </a>
        </p>
      ) : (
        ""
      )}
      {p.status === "expired" || p.status === "failed" ? (
        <p>
          <a href={documentHref(p.documentId)}>Back to the document</a> to buy it with a new invoice.
        </p>
      ) : (
        ""
      )}
    </article>,
  );
}
