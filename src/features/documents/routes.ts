// Documents for sale (spec Part 3 §4.5): list, read, change and delist documents; preview;
// purchase and check; download by bearer token or L402; the seller's and the buyer's lists.
import { Elysia, t } from "elysia";
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { authPlugin, callerOf, securityOf } from "../../http/auth";
import { clientIp } from "../../http/client-ip";
import { bareList, pagingQuery, resolvePage } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Int, Nullable, IntInput } from "../../http/schemas";
import * as users from "../users/service";
import * as documents from "./service";
import { isL402 } from "./l402";
import { DOCUMENT_VISIBILITIES } from "./tables";

const CATALOGUE_PAGING = { max: 100, default: 20 };
const MINE_PAGING = { max: 200, default: 100 };
const DocParams = t.Object({ doc_id: t.String({ maxLength: 64 }) });

const PreviewOut = t.Object({
  text: t.String(),
  type: t.String({ description: "manual (the seller's preview_text) or auto (the first preview_auto_chars characters)" }),
  chars: Int(),
  content_ratio: t.Number({ description: "The preview's share of the document's characters, 0-1" }),
});
const documentFields = {
  id: t.String(),
  seller_id: t.String(),
  seller_username: Nullable(t.String()),
  title: t.String(),
  description: Nullable(t.String()),
  filename: t.String(),
  content_size: Int({ description: "Bytes of UTF-8" }),
  content_hash: t.String({ description: "SHA-256 hex of the content: check the download against it" }),
  price_sats: Int(),
  visibility: t.String({ description: "public or invite_only (unlisted: only whoever holds the id finds it)" }),
  status: t.String({ description: "active or delisted" }),
  preview: Nullable(PreviewOut),
  download_count: Int(),
  total_earned_sats: Int({ description: "The seller's share (after the platform's 5 %) of every paid purchase" }),
  created_at: t.String({ format: "date-time" }),
};
const DocumentOut = t.Object(documentFields);
const DuplicateWarning = t.Object({
  message: t.String(),
  content_hash: t.String(),
  documents: t.Array(t.Object({ id: t.String(), title: t.String(), seller_username: t.String() })),
});
const DocumentCreateOut = t.Object({ ...documentFields, duplicate_warning: Nullable(DuplicateWarning) });
const CatalogueOut = t.Object({ items: t.Array(DocumentOut), total: Int(), has_more: t.Boolean(), page: Int(), pages: Int() });
const PurchaseOut = t.Object({
  id: t.String(),
  document_id: t.String(),
  payment_hash: t.String(),
  payment_request: t.String({ description: "BOLT11 invoice to pay" }),
  amount_sats: Int(),
  expires_at: t.String({ format: "date-time" }),
});
const PurchaseStatusOut = t.Object({
  id: t.String(),
  status: t.String({ description: "pending, paid, expired, failed, payout_pending, payout_completed, payout_failed or payout_abandoned" }),
  paid_at: Nullable(t.String({ format: "date-time" })),
  document_id: t.String(),
  download_url: Nullable(t.String({ description: "Where to download once paid (with your bearer token)" })),
});
const MyPurchaseOut = t.Object({
  id: t.String(),
  document_id: t.String(),
  document_title: Nullable(t.String()),
  price_sats: Int(),
  status: t.String(),
  paid_at: Nullable(t.String({ format: "date-time" })),
  created_at: t.String({ format: "date-time" }),
});
const PublicPreviewOut = t.Object({
  preview: Nullable(t.String()),
  is_truncated: t.Boolean({ description: "True when the preview is less than the whole document" }),
  document_id: t.String(),
  title: t.String(),
  seller_username: Nullable(t.String()),
  preview_text: Nullable(t.String()),
  preview_type: Nullable(t.String()),
  content_ratio: Nullable(t.Number()),
  price_sats: Int(),
  content_hash: t.String(),
  purchase_url: t.String(),
});
const PaymentRequired = t.Object({
  detail: t.Object({
    code: t.String(),
    message: t.String(),
    macaroon: t.String(),
    invoice: t.String(),
    payment_hash: t.String(),
    purchase_id: t.String(),
    amount_sats: Int(),
    expires_at: t.String({ format: "date-time" }),
  }),
});

const Visibility = t.UnionEnum(DOCUMENT_VISIBILITIES);
const Title = t.String({ minLength: 1, maxLength: documents.MAX_TITLE });
const Description = t.String({ maxLength: documents.MAX_DESCRIPTION });
const Price = IntInput({ minimum: documents.MIN_PRICE_SATS, maximum: documents.MAX_PRICE_SATS, description: "100-1000000 sats" });
const PreviewText = t.String({ maxLength: documents.MAX_PREVIEW });
const AutoChars = IntInput({ minimum: 0, maximum: documents.MAX_PREVIEW_AUTO, description: "0-500: characters of the content shown as the preview when there is no preview_text (0: none)" });

function previewOut(d: documents.DocumentRow) {
  if (d.preview === null || d.previewType === null) return null;
  const n = [...d.preview].length;
  return { text: d.preview, type: d.previewType, chars: n, content_ratio: Math.min(1, Math.round((n / Math.max(1, d.contentChars)) * 10_000) / 10_000) };
}

function documentsOut(ctx: Ctx, rows: documents.DocumentRow[]) {
  const sellers = users.findManyByIds(ctx, [...new Set(rows.map((r) => r.sellerId))]);
  return rows.map((d) => ({
    id: d.id,
    seller_id: d.sellerId,
    seller_username: sellers.get(d.sellerId)?.username ?? null,
    title: d.title,
    description: d.description,
    filename: d.filename,
    content_size: d.contentSize,
    content_hash: d.contentHash,
    price_sats: d.priceSats,
    visibility: d.visibility,
    status: d.status,
    preview: previewOut(d),
    download_count: d.downloadCount,
    total_earned_sats: d.totalEarnedSats,
    created_at: iso(d.createdAt),
  }));
}
const documentOut = (ctx: Ctx, d: documents.DocumentRow) => documentsOut(ctx, [d])[0]!;

const downloadPath = (ctx: Ctx, documentId: string) => `${ctx.config.publicUrl}/api/v1/market/documents/${documentId}/download`;

const purchaseOut = (p: documents.PurchaseRow) => ({
  id: p.id,
  document_id: p.documentId,
  payment_hash: p.paymentHash,
  payment_request: p.paymentRequest,
  amount_sats: p.amountSats,
  expires_at: iso(p.expiresAt),
});

/** `attachment` with an ASCII fallback name and the exact name in RFC 5987 form. */
function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

export const documentsRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/market", tags: ["market"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .post(
      "/documents",
      ({ caller, body, set }) => {
        const { doc, duplicateWarning } = documents.createDocument(ctx, caller, body);
        set.status = 201;
        return { ...documentOut(ctx, doc), duplicate_warning: duplicateWarning };
      },
      {
        auth: "required",
        rateLimit: "document_create",
        body: t.Object({
          title: Title,
          filename: t.String({ minLength: 1, maxLength: documents.MAX_FILENAME, description: "1-255 characters; the extension must be one the vault allows" }),
          content: t.String({ maxLength: documents.MAX_CONTENT_BYTES, description: "UTF-8 text, at most 1 MiB of encoded bytes" }),
          price_sats: Price,
          description: t.Optional(Nullable(Description)),
          visibility: t.Optional(Visibility),
          preview_text: t.Optional(Nullable(PreviewText)),
          preview_auto_chars: t.Optional(AutoChars),
        }),
        response: { 201: DocumentCreateOut, 400: ErrorOut, 429: ErrorOut },
        detail: {
          summary: "Create Document",
          description:
            "List a UTF-8 text document for sale. 400 INVALID_INPUT first when you have no lightning_address (sales are paid out to it, 95 % of the price), then for a filename that is a path or has an extension outside .cfg .conf .csv .env .html .ini .json .log .md .py .toml .txt .xml .yaml .yml, and for content that is empty, over 1 MiB of UTF-8, binary (control characters, U+FFFD, a binary format's signature, a bare base64 blob) or not what its extension says (.json must parse; .html and .xml must open with markup). " +
            "When identical bytes are already listed, the listing is made and `duplicate_warning` names them. The preview is preview_text, else the first preview_auto_chars (default 300) characters. Rate limited (document_create, 5 an hour).",
        },
      },
    )
    .get(
      "/documents",
      ({ query }) => {
        const page = resolvePage(query, CATALOGUE_PAGING);
        const { items, total } = documents.listDocuments(ctx, query, page);
        return {
          items: documentsOut(ctx, items),
          total,
          has_more: page.offset + items.length < total,
          page: Math.floor(page.offset / page.limit) + 1,
          pages: Math.ceil(total / page.limit),
        };
      },
      {
        query: t.Object({
          ...pagingQuery(CATALOGUE_PAGING),
          q: t.Optional(t.String({ maxLength: 200, description: "Words in the title or description" })),
          hash: t.Optional(t.String({ maxLength: 64, description: "The SHA-256 hex of a document's content" })),
        }),
        response: { 200: CatalogueOut, 400: ErrorOut },
        detail: { summary: "List Documents", description: "The public catalogue: active public documents, newest first. Invite-only and delisted documents are left out." },
      },
    )
    .get("/documents/:doc_id", ({ caller, params }) => documentOut(ctx, documents.getDocument(ctx, caller, params.doc_id)), {
      auth: "optional",
      params: DocParams,
      response: { 200: DocumentOut, 404: ErrorOut },
      detail: { summary: "Get Document", description: "One document. A delisted one only to its seller and buyers; 404 NOT_FOUND otherwise." },
    })
    .patch("/documents/:doc_id", ({ caller, params, body }) => documentOut(ctx, documents.updateDocument(ctx, caller, params.doc_id, body)), {
      auth: "required",
      rateLimit: "document_update",
      params: DocParams,
      body: t.Object({
        title: t.Optional(Nullable(Title)),
        description: t.Optional(Nullable(Description)),
        price_sats: t.Optional(Nullable(Price)),
        visibility: t.Optional(Nullable(Visibility)),
        preview_text: t.Optional(Nullable(PreviewText)),
        preview_auto_chars: t.Optional(Nullable(AutoChars)),
        content: t.Optional(t.Unknown({ description: "Not editable: sending it is 400 INVALID_INPUT" })),
        filename: t.Optional(t.Unknown({ description: "Not editable: sending it is 400 INVALID_INPUT" })),
      }),
      response: { 200: DocumentOut, 400: ErrorOut, 404: ErrorOut, 429: ErrorOut },
      detail: {
        summary: "Update Document",
        description:
          "The seller changes any of title, description, price_sats, visibility, preview_text and preview_auto_chars; a null or empty description or preview_text clears it, null leaves the other fields as they are. Content and filename are not editable (400 INVALID_INPUT). Another seller's document is 404 NOT_FOUND. Rate limited (document_update, 10 an hour).",
      },
    })
    .delete(
      "/documents/:doc_id",
      ({ caller, params, set }) => {
        documents.delistDocument(ctx, caller, params.doc_id);
        set.status = 204;
      },
      {
        auth: "required",
        rateLimit: "document_delist",
        params: DocParams,
        response: { 204: t.Void(), 404: ErrorOut, 429: ErrorOut },
        detail: { summary: "Delete Document", description: "Delists the seller's document (204; idempotent): it leaves the catalogue and cannot be bought, and its buyers keep their downloads. Another seller's document is 404 NOT_FOUND. Rate limited (document_delist, 10 an hour)." },
      },
    )
    .get(
      "/documents/:doc_id/preview",
      ({ caller, params }) => {
        const { doc, isTruncated } = documents.previewDocument(ctx, caller, params.doc_id);
        const p = previewOut(doc);
        return {
          preview: doc.preview,
          is_truncated: isTruncated,
          document_id: doc.id,
          title: doc.title,
          seller_username: users.findById(ctx, doc.sellerId)?.username ?? null,
          preview_text: doc.preview,
          preview_type: doc.previewType,
          content_ratio: p?.content_ratio ?? null,
          price_sats: doc.priceSats,
          content_hash: doc.contentHash,
          purchase_url: `${ctx.config.publicUrl}/api/v1/market/documents/${doc.id}/purchase`,
        };
      },
      {
        auth: "optional",
        params: DocParams,
        response: { 200: PublicPreviewOut, 404: ErrorOut },
        detail: { summary: "Preview Document", description: "The free preview, and whether it is less than the whole document (is_truncated). No payment needed." },
      },
    )
    .post(
      "/documents/:doc_id/purchase",
      async ({ caller, params, set }) => {
        const p = await documents.purchaseDocument(ctx, caller, params.doc_id);
        set.status = 201;
        return purchaseOut(p);
      },
      {
        auth: "required",
        rateLimit: "document_purchase",
        params: DocParams,
        response: { 201: PurchaseOut, 400: ErrorOut, 404: ErrorOut, 429: ErrorOut, 502: ErrorOut },
        detail: {
          summary: "Purchase Document",
          description:
            "A new Lightning invoice for the document's price on every call (not idempotent). Pay it, then POST /market/purchases/{id}/check; once paid, download with your bearer token. 400 INVALID_INPUT for your own document or a delisted one; 404 for one you cannot see; 502 UPSTREAM_FAILURE when the wallet does not answer (nothing is recorded). Rate limited (document_purchase, 10 an hour).",
        },
      },
    )
    .post(
      "/purchases/:purchase_id/check",
      async ({ caller, params }) => {
        const p = await documents.checkPurchase(ctx, caller, params.purchase_id);
        return { id: p.id, status: p.status, paid_at: iso(p.paidAt), document_id: p.documentId, download_url: documents.isPaid(p) ? downloadPath(ctx, p.documentId) : null };
      },
      {
        auth: "required",
        rateLimit: "document_purchase_check",
        params: t.Object({ purchase_id: t.String({ maxLength: 64 }) }),
        response: { 200: PurchaseStatusOut, 404: ErrorOut, 429: ErrorOut, 502: ErrorOut },
        detail: {
          summary: "Check Purchase Status",
          description:
            "The buyer's purchase: pending asks the wallet first (502 UPSTREAM_FAILURE when it does not answer). Statuses: pending, paid, expired, failed, then the seller's payout: payout_pending, payout_completed, payout_failed (retried), payout_abandoned (the seller has no lightning address). Anyone but the buyer gets 404 NOT_FOUND. Rate limited (document_purchase_check, 30 an hour).",
        },
      },
    )
    .get(
      "/documents/:doc_id/download",
      async ({ request, params }) => {
        const authorization = request.headers.get("authorization");
        // An L402 credential is not a bearer token: the caller is anonymous and the credential decides.
        const caller = isL402(authorization) ? null : await callerOf(ctx, request);
        const r = await documents.download(ctx, { caller, ip: clientIp(ctx, request), authorization }, params.doc_id);
        return new Response(r.content, {
          headers: {
            "content-type": `${r.doc.contentType}; charset=utf-8`,
            "content-disposition": contentDisposition(r.doc.filename),
            "x-content-type-options": "nosniff",
            "content-security-policy": "sandbox; default-src 'none'",
            "cache-control": "private, no-store",
            etag: `"${r.doc.contentHash}"`,
          },
        });
      },
      {
        params: DocParams,
        response: { 200: t.String({ description: "The document's exact bytes (UTF-8 text); its SHA-256 equals content_hash" }), 401: ErrorOut, 402: PaymentRequired, 404: ErrorOut, 429: ErrorOut, 502: ErrorOut },
        detail: {
          summary: "Download Document",
          security: securityOf("optional"),
          description:
            "The raw bytes with Content-Disposition (the filename) and the Content-Type of the upload. Authorised in order: (1) the seller's bearer token; (2) a buyer's bearer token with a paid purchase; (3) `Authorization: L402 <macaroon>:<preimage>`, the macaroon of a challenge for this document and the preimage of its paid invoice (presenting the preimage settles a pending one); (4) otherwise 402 PAYMENT_REQUIRED with `WWW-Authenticate: L402 macaroon=\"…\", invoice=\"…\"`, which mints a new invoice each time (rate limited per address: document_l402_challenge, 30 an hour). " +
            "A delisted document is 404 unless you hold one of (1)-(3).",
        },
      },
    )
    .get(
      "/my-documents",
      ({ caller, query, set }) => {
        const page = resolvePage(query, MINE_PAGING);
        const { items, total } = documents.myDocuments(ctx, caller, page);
        return bareList(set, documentsOut(ctx, items), total, page);
      },
      {
        auth: "required",
        query: t.Object(pagingQuery(MINE_PAGING)),
        response: { 200: t.Array(DocumentOut), 400: ErrorOut },
        detail: { summary: "My Documents", description: "Your listings, delisted ones included, newest first; a bare array with X-Total-Count and X-Has-More." },
      },
    )
    .get(
      "/my-purchases",
      ({ caller, query, set }) => {
        const page = resolvePage(query, MINE_PAGING);
        const { items, total } = documents.myPurchases(ctx, caller, page);
        const out = items.map(({ purchase: p, title }) => ({
          id: p.id,
          document_id: p.documentId,
          document_title: title,
          price_sats: p.amountSats,
          status: p.status,
          paid_at: iso(p.paidAt),
          created_at: iso(p.createdAt),
        }));
        return bareList(set, out, total, page);
      },
      {
        auth: "required",
        query: t.Object(pagingQuery(MINE_PAGING)),
        response: { 200: t.Array(MyPurchaseOut), 400: ErrorOut },
        detail: { summary: "My Purchases", description: "Every purchase you made, pending invoices included, newest first; a bare array with X-Total-Count and X-Has-More." },
      },
    );
