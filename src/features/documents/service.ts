// Documents for sale (spec Part 3 §4.5): sellers list UTF-8 text documents at a price; buyers pay
// a Lightning invoice (payments' `document_purchase` purpose) per purchase; a paid purchase
// unlocks the download and queues the seller's payout of 95 %. Downloads are authorised in the
// spec's order: the seller's bearer token, a buyer's with a paid purchase, an L402 credential
// (l402.ts), else a 402 challenge that mints a new invoice. Decisions: docs/decisions.md §123-§126.
import { and, count, desc, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import { iso } from "../../core/clock";
import { createHash } from "node:crypto";
import type { Ctx } from "../../core/context";
import { ApiError, invalid, notFound } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import type { Page } from "../../core/paging";
import { inTransaction, type Tx } from "../../db/client";
import type { Caller } from "../auth/service";
import * as payments from "../payments/service";
import * as users from "../users/service";
import { ALLOWED_EXTENSIONS, checkExtension, escapeLike } from "../vault/service";
import { challengeHeader, mintMacaroon, parseL402, verifyMacaroon } from "./l402";
import { documentContents, documentPurchases, documents, type DOCUMENT_VISIBILITIES } from "./tables";

export type DocumentRow = typeof documents.$inferSelect;
export type PurchaseRow = typeof documentPurchases.$inferSelect;
type Visibility = (typeof DOCUMENT_VISIBILITIES)[number];

export const PURPOSE = "document_purchase";
export const MIN_PRICE_SATS = 100;
export const MAX_PRICE_SATS = 1_000_000;
/** 1 MB of UTF-8, where MB means MiB (docs/decisions.md §12). */
export const MAX_CONTENT_BYTES = 1024 * 1024;
export const MAX_TITLE = 150;
export const MAX_FILENAME = 255;
export const MAX_DESCRIPTION = 500;
export const MAX_PREVIEW = 2000;
export const MAX_PREVIEW_AUTO = 500;
const DEFAULT_PREVIEW_AUTO = 300;
/** How long a purchase's invoice can be paid. */
const PURCHASE_TTL_SECONDS = 15 * 60;
/** Statuses that mean the buyer paid: the download is theirs. */
const PAID_STATUSES = ["paid", "payout_pending", "payout_completed", "payout_failed", "payout_abandoned"] as const;

/** The media type served with a download, by extension (the vault's list). */
const CONTENT_TYPES: Record<(typeof ALLOWED_EXTENSIONS)[number], string> = {
  ".cfg": "text/plain",
  ".conf": "text/plain",
  ".csv": "text/csv",
  ".env": "text/plain",
  ".html": "text/html",
  ".ini": "text/plain",
  ".json": "application/json",
  ".log": "text/plain",
  ".md": "text/markdown",
  ".py": "text/x-python",
  ".toml": "application/toml",
  ".txt": "text/plain",
  ".xml": "application/xml",
  ".yaml": "application/yaml",
  ".yml": "application/yaml",
};

const utf8 = new TextEncoder();
const sha256Hex = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");
const chars = (s: string) => [...s].length;

// ---------------------------------------------------------------------------------------------
// Content rules (docs/decisions.md §123)

function extensionOf(filename: string): (typeof ALLOWED_EXTENSIONS)[number] {
  const lower = filename.toLowerCase();
  return ALLOWED_EXTENSIONS.find((ext) => lower.endsWith(ext))!;
}

/** A single file name (no folders), NFC, 1..255 characters, no control characters, an allowed extension. */
function normaliseFilename(raw: string): string {
  const name = raw.normalize("NFC").trim();
  if (!name) throw invalid("The filename is empty");
  if (chars(name) > MAX_FILENAME) throw invalid(`The filename is longer than ${MAX_FILENAME} characters`);
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) throw invalid("The filename contains control characters");
  if (/[/\\]/.test(name)) throw invalid("The filename is a name, not a path: no / or \\");
  if (name === "." || name === "..") throw invalid("The filename is not a name");
  checkExtension(name);
  return name;
}

/**
 * UTF-8 text that is what its extension says: refused with 400 INVALID_INPUT when empty, over
 * 1 MiB of UTF-8, not well-formed (lone surrogates), holding control characters other than tab,
 * line feed, form feed and carriage return, or U+FFFD (bytes that were not UTF-8), when it starts
 * like a binary format, is a bare base64 blob, or does not parse as its extension's format
 * (.json must parse, .html and .xml must open with markup).
 */
function checkContent(filename: string, content: string): void {
  if (!content.length) throw invalid("The content is empty");
  const bytes = utf8.encode(content).length;
  if (bytes > MAX_CONTENT_BYTES) throw invalid(`The content is ${bytes} bytes of UTF-8; at most ${MAX_CONTENT_BYTES} (1 MiB)`);
  if (!content.isWellFormed()) throw invalid("The content is not valid Unicode text (it holds lone surrogates): only UTF-8 text documents can be sold");
  if (/[\u0000-\u0008\u000b\u000e-\u001f\u007f-\u009f]/.test(content)) throw invalid("The content holds control characters: binary files cannot be sold, only UTF-8 text");
  if (content.includes("\ufffd")) throw invalid("The content holds U+FFFD replacement characters: it was decoded from bytes that are not UTF-8 text");
  const head = content.replace(/^\ufeff/, "").trimStart();
  if (/^(%PDF-|GIF8[79]a|PK\u0003\u0004|\{\\rtf)/.test(head)) throw invalid("The content is a binary or rich-text format, not plain text");
  const compact = head.trimEnd();
  if (compact.length >= 1024 && /^[A-Za-z0-9+/=\r\n]+$/.test(compact) && /[A-Z]/.test(compact) && /[a-z]/.test(compact) && /[0-9]/.test(compact)) throw invalid("The content is a base64-encoded blob: binary files cannot be sold, only text");
  const ext = extensionOf(filename);
  if (ext === ".json") {
    try {
      JSON.parse(head);
    } catch {
      throw invalid("The content of a .json document must be valid JSON");
    }
  }
  if ((ext === ".html" || ext === ".xml") && !head.startsWith("<")) throw invalid(`The content of a ${ext} document must be ${ext === ".html" ? "HTML" : "XML"} markup`);
}

/** The free preview: the seller's text, else the first `autoChars` characters (none at 0). */
function previewOf(content: string, previewText: string | null, autoChars: number): { preview: string | null; previewType: "manual" | "auto" | null } {
  if (previewText) return { preview: previewText, previewType: "manual" };
  if (autoChars > 0) return { preview: [...content].slice(0, autoChars).join(""), previewType: "auto" };
  return { preview: null, previewType: null };
}

function contentOf(ctx: Ctx, documentId: string): string {
  return ctx.db.select({ content: documentContents.content }).from(documentContents).where(eq(documentContents.documentId, documentId)).get()!.content;
}

// ---------------------------------------------------------------------------------------------
// Create, read, change, delist

interface CreateDocumentInput {
  title: string;
  filename: string;
  content: string;
  price_sats: number;
  description?: string | null;
  visibility?: Visibility;
  preview_text?: string | null;
  preview_auto_chars?: number;
}

interface DuplicateWarning {
  message: string;
  content_hash: string;
  documents: { id: string; title: string; seller_username: string }[];
}

/**
 * POST /market/documents. The seller's lightning address is checked first (sales are paid out to
 * it), then the fields and the content. Identical bytes already listed (active public listings,
 * or the seller's own) do not refuse the listing; they come back as `duplicate_warning`.
 */
export function createDocument(ctx: Ctx, caller: Caller, input: CreateDocumentInput): { doc: DocumentRow; duplicateWarning: DuplicateWarning | null } {
  const seller = users.findById(ctx, caller.id)!;
  if (!seller.lightningAddress) throw invalid("Set a lightning_address on your profile (PUT /api/v1/users/me) before listing a document: sales are paid out to it");
  const title = input.title.trim();
  if (!title) throw invalid("The title is empty");
  const filename = normaliseFilename(input.filename);
  checkContent(filename, input.content);
  const previewText = input.preview_text?.trim() ? input.preview_text : null;
  const autoChars = input.preview_auto_chars ?? DEFAULT_PREVIEW_AUTO;
  const hash = sha256Hex(input.content);
  const now = ctx.clock.now();
  const id = uuidv7(now);
  const duplicates = ctx.db
    .select({ id: documents.id, title: documents.title, sellerId: documents.sellerId })
    .from(documents)
    .where(and(eq(documents.contentHash, hash), eq(documents.status, "active"), or(eq(documents.visibility, "public"), eq(documents.sellerId, caller.id))))
    .orderBy(documents.createdAt)
    .limit(10)
    .all();
  const doc = inTransaction(ctx.db, (tx) => {
    const row = tx
      .insert(documents)
      .values({
        id,
        sellerId: caller.id,
        title,
        description: input.description?.trim() ? input.description : null,
        filename,
        contentType: CONTENT_TYPES[extensionOf(filename)],
        contentSize: utf8.encode(input.content).length,
        contentChars: chars(input.content),
        contentHash: hash,
        priceSats: input.price_sats,
        visibility: input.visibility ?? "public",
        previewText,
        previewAutoChars: autoChars,
        ...previewOf(input.content, previewText, autoChars),
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    tx.insert(documentContents).values({ documentId: id, content: input.content }).run();
    return row;
  });
  let duplicateWarning: DuplicateWarning | null = null;
  if (duplicates.length) {
    const names = users.findManyByIds(ctx, [...new Set(duplicates.map((d) => d.sellerId))]);
    duplicateWarning = {
      message: `Identical content (SHA-256 ${hash}) is already listed ${duplicates.length === 1 ? "once" : `${duplicates.length} times`}; buyers can find it by hash.`,
      content_hash: hash,
      documents: duplicates.map((d) => ({ id: d.id, title: d.title, seller_username: names.get(d.sellerId)?.username ?? "[deleted]" })),
    };
  }
  return { doc, duplicateWarning };
}

function findDocument(ctx: Ctx, id: string): DocumentRow | null {
  return ctx.db.select().from(documents).where(eq(documents.id, id.toLowerCase())).get() ?? null;
}

/** Whether the user holds a paid purchase of the document. */
function hasPaid(ctx: Ctx, userId: string, documentId: string): boolean {
  return !!ctx.db
    .select({ id: documentPurchases.id })
    .from(documentPurchases)
    .where(and(eq(documentPurchases.buyerId, userId), eq(documentPurchases.documentId, documentId), inArray(documentPurchases.status, PAID_STATUSES)))
    .limit(1)
    .get();
}

/**
 * A document the caller may see, else 404: an active one (public, or invite-only to whoever
 * holds its id: docs/decisions.md §124), a delisted one only to its seller and its buyers.
 */
export function getDocument(ctx: Ctx, caller: Caller | null, id: string): DocumentRow {
  const doc = findDocument(ctx, id);
  if (!doc) throw notFound("Document not found");
  if (doc.status === "active" || (caller && (caller.id === doc.sellerId || hasPaid(ctx, caller.id, doc.id)))) return doc;
  throw notFound("Document not found");
}

/** The caller's own document, else 404 (another seller's is as missing). */
function ownDocument(ctx: Ctx, caller: Caller, id: string): DocumentRow {
  const doc = findDocument(ctx, id);
  if (!doc || doc.sellerId !== caller.id) throw notFound("Document not found");
  return doc;
}

interface ListDocumentsFilters {
  q?: string;
  hash?: string;
}

/** The public catalogue: active public documents, newest first; `q` in the title or description, `hash` the exact SHA-256. */
export function listDocuments(ctx: Ctx, f: ListDocumentsFilters, page: Page): { items: DocumentRow[]; total: number } {
  const conds: SQL[] = [eq(documents.status, "active"), eq(documents.visibility, "public")];
  const q = f.q?.trim();
  if (q) {
    const like = `%${escapeLike(q)}%`;
    conds.push(or(sql`${documents.title} LIKE ${like} ESCAPE '\\'`, sql`${documents.description} LIKE ${like} ESCAPE '\\'`)!);
  }
  if (f.hash?.trim()) conds.push(eq(documents.contentHash, f.hash.trim().toLowerCase()));
  const where = and(...conds);
  const items = ctx.db.select().from(documents).where(where).orderBy(desc(documents.createdAt), desc(documents.id)).limit(page.limit).offset(page.offset).all();
  const total = ctx.db.select({ n: count() }).from(documents).where(where).get()!.n;
  return { items, total };
}

/** The seller's own listings (delisted ones too), newest first. */
export function myDocuments(ctx: Ctx, caller: Caller, page: Page): { items: DocumentRow[]; total: number } {
  const where = eq(documents.sellerId, caller.id);
  const items = ctx.db.select().from(documents).where(where).orderBy(desc(documents.createdAt), desc(documents.id)).limit(page.limit).offset(page.offset).all();
  return { items, total: ctx.db.select({ n: count() }).from(documents).where(where).get()!.n };
}

interface UpdateDocumentInput {
  title?: string | null;
  description?: string | null;
  price_sats?: number | null;
  visibility?: Visibility | null;
  preview_text?: string | null;
  preview_auto_chars?: number | null;
  content?: unknown;
  filename?: unknown;
}

/**
 * PATCH: the seller changes any of title, description, price, visibility and the preview
 * settings. A null or empty description or preview_text clears it (the preview falls back to the
 * automatic one); null leaves the other fields as they are. Content and filename are not
 * editable: sending them is 400 INVALID_INPUT (docs/decisions.md §124).
 */
export function updateDocument(ctx: Ctx, caller: Caller, id: string, input: UpdateDocumentInput): DocumentRow {
  const doc = ownDocument(ctx, caller, id);
  if (input.content !== undefined) throw invalid("A document's content is not editable: list a new document instead");
  if (input.filename !== undefined) throw invalid("A document's filename is not editable");
  const set: Partial<DocumentRow> = {};
  if (input.title !== undefined && input.title !== null) {
    const title = input.title.trim();
    if (!title) throw invalid("The title is empty");
    set.title = title;
  }
  if (input.description !== undefined) set.description = input.description?.trim() ? input.description : null;
  if (input.price_sats !== undefined && input.price_sats !== null) set.priceSats = input.price_sats;
  if (input.visibility !== undefined && input.visibility !== null) set.visibility = input.visibility;
  let previewChanged = false;
  if (input.preview_text !== undefined) {
    set.previewText = input.preview_text?.trim() ? input.preview_text : null;
    previewChanged = true;
  }
  if (input.preview_auto_chars !== undefined && input.preview_auto_chars !== null) {
    set.previewAutoChars = input.preview_auto_chars;
    previewChanged = true;
  }
  if (previewChanged) Object.assign(set, previewOf(contentOf(ctx, doc.id), set.previewText !== undefined ? set.previewText : doc.previewText, set.previewAutoChars ?? doc.previewAutoChars));
  if (!Object.keys(set).length) return doc;
  return ctx.db
    .update(documents)
    .set({ ...set, updatedAt: ctx.clock.now() })
    .where(eq(documents.id, doc.id))
    .returning()
    .get()!;
}

/** DELETE: delists the seller's document (idempotent); buyers keep their downloads. */
export function delistDocument(ctx: Ctx, caller: Caller, id: string): void {
  const doc = ownDocument(ctx, caller, id);
  if (doc.status === "delisted") return;
  const now = ctx.clock.now();
  ctx.db.update(documents).set({ status: "delisted", delistedAt: now, updatedAt: now }).where(eq(documents.id, doc.id)).run();
}

/** GET …/preview: the free preview and whether it is less than the whole document. */
export function previewDocument(ctx: Ctx, caller: Caller | null, id: string): { doc: DocumentRow; isTruncated: boolean } {
  const doc = getDocument(ctx, caller, id);
  return { doc, isTruncated: doc.preview === null || doc.preview !== contentOf(ctx, doc.id) };
}

// ---------------------------------------------------------------------------------------------
// Purchases

/**
 * The wallet's invoice (outside any transaction: a failure is 502 UPSTREAM_FAILURE and records
 * nothing), then the purchase and its invoice in one transaction. `buyerId` null: an anonymous
 * L402 purchase.
 */
async function openPurchase(ctx: Ctx, doc: DocumentRow, buyerId: string | null): Promise<PurchaseRow> {
  const now = ctx.clock.now();
  const memo = `Colony document: ${doc.title}`.slice(0, 200);
  return payments.openInvoice(ctx, { purpose: PURPOSE, amountSats: doc.priceSats, memo, ttlSeconds: PURCHASE_TTL_SECONDS }, (tx, invoice) =>
    tx
      .insert(documentPurchases)
      .values({
        id: uuidv7(now),
        documentId: doc.id,
        buyerId,
        amountSats: doc.priceSats,
        paymentHash: invoice.paymentHash,
        paymentRequest: invoice.paymentRequest,
        expiresAt: invoice.expiresAt,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get(),
  );
}

/** POST …/purchase: a new invoice on every call (not idempotent). The seller buying is 400; a delisted document cannot be bought. */
export async function purchaseDocument(ctx: Ctx, caller: Caller, id: string): Promise<PurchaseRow> {
  const doc = getDocument(ctx, caller, id);
  if (doc.sellerId === caller.id) throw invalid("You cannot buy your own document");
  if (doc.status !== "active") throw invalid("This document is no longer for sale");
  return openPurchase(ctx, doc, caller.id);
}

function findPurchase(ctx: Ctx, id: string): PurchaseRow | null {
  return ctx.db.select().from(documentPurchases).where(eq(documentPurchases.id, id.toLowerCase())).get() ?? null;
}

/** POST /market/purchases/{id}/check: the buyer's purchase (others 404); a pending one asks the wallet (502 when it does not answer). */
export async function checkPurchase(ctx: Ctx, caller: Caller, id: string): Promise<PurchaseRow> {
  const p = findPurchase(ctx, id);
  if (!p || p.buyerId !== caller.id) throw notFound("Purchase not found");
  if (p.status !== "pending") return p;
  const invoice = payments.invoiceOf(ctx, PURPOSE, p.id);
  if (invoice) await payments.checkInvoice(ctx, invoice.id, { strict: true });
  return findPurchase(ctx, p.id)!;
}

interface MyPurchase {
  purchase: PurchaseRow;
  title: string | null;
}

/** Every purchase of the caller, pending invoices included, newest first. */
export function myPurchases(ctx: Ctx, caller: Caller, page: Page): { items: MyPurchase[]; total: number } {
  const where = eq(documentPurchases.buyerId, caller.id);
  const items = ctx.db
    .select({ purchase: documentPurchases, title: documents.title })
    .from(documentPurchases)
    .leftJoin(documents, eq(documents.id, documentPurchases.documentId))
    .where(where)
    .orderBy(desc(documentPurchases.createdAt), desc(documentPurchases.id))
    .limit(page.limit)
    .offset(page.offset)
    .all();
  return { items, total: ctx.db.select({ n: count() }).from(documentPurchases).where(where).get()!.n };
}

export const isPaid = (p: Pick<PurchaseRow, "status">) => (PAID_STATUSES as readonly string[]).includes(p.status);

// ---------------------------------------------------------------------------------------------
// Settlement (payments calls these in the transaction that moved the invoice or the payout)

/** Paid: the purchase unlocks, the seller's payout is queued and the seller told. */
export function onPurchasePaid(ctx: Ctx, tx: Tx, invoice: payments.InvoiceRow): void {
  const p = tx
    .update(documentPurchases)
    .set({ status: "paid", paidAt: invoice.paidAt ?? ctx.clock.now(), updatedAt: ctx.clock.now() })
    .where(and(eq(documentPurchases.id, invoice.subjectId), eq(documentPurchases.status, "pending")))
    .returning()
    .get();
  if (!p) return;
  const doc = tx.select().from(documents).where(eq(documents.id, p.documentId)).get()!;
  const { feeSats, amountSats } = payments.split(p.amountSats);
  tx.update(documents)
    .set({ totalEarnedSats: sql`${documents.totalEarnedSats} + ${amountSats}` })
    .where(eq(documents.id, doc.id))
    .run();
  payments.queuePayout(ctx, tx, { purpose: PURPOSE, subjectId: p.id, recipientId: doc.sellerId, grossSats: p.amountSats });
  const buyer = p.buyerId ? users.findById(ctx, p.buyerId) : null;
  ctx.events.emit(tx, {
    type: "market_purchase_received",
    actorId: p.buyerId,
    subject: { type: "document_purchase", id: p.id },
    payload: {
      recipient_ids: [doc.sellerId],
      purchase_id: p.id,
      document_id: doc.id,
      document_title: doc.title,
      buyer: buyer?.username ?? "Anonymous",
      amount_sats: p.amountSats,
      platform_fee_sats: feeSats,
      seller_payout_sats: amountSats,
    },
  });
}

/** The invoice expired or the wallet failed it. */
export function onPurchaseLapsed(ctx: Ctx, tx: Tx, invoice: payments.InvoiceRow): void {
  tx.update(documentPurchases)
    .set({ status: invoice.status === "failed" ? "failed" : "expired", updatedAt: ctx.clock.now() })
    .where(and(eq(documentPurchases.id, invoice.subjectId), eq(documentPurchases.status, "pending")))
    .run();
}

const PAYOUT_STATUS: Record<payments.PayoutRow["status"], PurchaseRow["status"]> = {
  pending: "payout_pending",
  in_flight: "payout_pending",
  completed: "payout_completed",
  failed: "payout_failed",
  abandoned: "payout_abandoned",
};

/** The seller's payout moved: the purchase mirrors it. */
export function onPurchasePayout(ctx: Ctx, tx: Tx, payout: payments.PayoutRow): void {
  tx.update(documentPurchases)
    .set({ status: PAYOUT_STATUS[payout.status], updatedAt: ctx.clock.now() })
    .where(and(eq(documentPurchases.id, payout.subjectId), inArray(documentPurchases.status, PAID_STATUSES)))
    .run();
}

// ---------------------------------------------------------------------------------------------
// Download

type DownloadResult = { kind: "file"; doc: DocumentRow; content: string };

/** Rate-limit subject of an L402 challenge: the caller, or the client address. */
interface Requester {
  caller: Caller | null;
  ip: string;
  authorization: string | null;
}

function served(ctx: Ctx, doc: DocumentRow, byId: string | null): DownloadResult {
  if (byId !== doc.sellerId) {
    ctx.db
      .update(documents)
      .set({ downloadCount: sql`${documents.downloadCount} + 1` })
      .where(eq(documents.id, doc.id))
      .run();
  }
  return { kind: "file", doc, content: contentOf(ctx, doc.id) };
}

/**
 * The L402 credential's purchase, when it proves payment for this document: the macaroon
 * verifies and is scoped to it, the preimage hashes to the bound payment hash, and that
 * invoice is this document's and paid, or pending and now settled by the preimage itself.
 */
function l402Purchase(ctx: Ctx, doc: DocumentRow, authorization: string | null): PurchaseRow | null {
  const cred = parseL402(authorization);
  if (!cred) return null;
  const hash = verifyMacaroon(ctx, cred.macaroon, doc.id);
  if (!hash || !payments.preimageMatches(hash, cred.preimage)) return null;
  const invoice = payments.findInvoiceByHash(ctx, hash);
  if (!invoice || invoice.purpose !== PURPOSE) return null;
  const purchase = findPurchase(ctx, invoice.subjectId);
  if (!purchase || purchase.documentId !== doc.id) return null;
  if (invoice.status === "pending") payments.settleWithPreimage(ctx, invoice.id, cred.preimage);
  const now = findPurchase(ctx, purchase.id)!;
  return isPaid(now) ? now : null;
}

/**
 * GET …/download, resolved in the spec's order: (1) the seller's bearer token, (2) a buyer's
 * with a paid purchase, (3) an L402 credential for this document, (4) a 402 challenge carrying a
 * new macaroon and invoice (a new purchase; the buyer is the caller when signed in). A document
 * the caller may not see, or a delisted one without a credential, is 404.
 */
export async function download(ctx: Ctx, r: Requester, id: string): Promise<DownloadResult> {
  const doc = findDocument(ctx, id);
  if (!doc) throw notFound("Document not found");
  if (r.caller && r.caller.id === doc.sellerId) return served(ctx, doc, r.caller.id);
  if (r.caller && hasPaid(ctx, r.caller.id, doc.id)) return served(ctx, doc, r.caller.id);
  const viaL402 = l402Purchase(ctx, doc, r.authorization);
  if (viaL402) return served(ctx, doc, viaL402.buyerId);
  if (doc.status !== "active") throw notFound("Document not found");
  // Minting an invoice costs a wallet call: bounded per client (docs/decisions.md §125).
  ctx.limits.consume(["document_l402_challenge"], { userId: r.caller?.id ?? null, ip: r.ip, karma: r.caller?.karma, isAdmin: r.caller?.isAdmin, createdAt: r.caller?.createdAt });
  const purchase = await openPurchase(ctx, doc, r.caller?.id ?? null);
  const macaroon = mintMacaroon(ctx, doc.id, purchase.paymentHash);
  throw new ApiError(
    402,
    "PAYMENT_REQUIRED",
    `Pay the invoice (${purchase.amountSats} sats), then send Authorization: L402 <macaroon>:<preimage>, or your bearer token once the purchase is paid.`,
    {
      macaroon,
      invoice: purchase.paymentRequest,
      payment_hash: purchase.paymentHash,
      purchase_id: purchase.id,
      amount_sats: purchase.amountSats,
      expires_at: iso(purchase.expiresAt),
    },
    { "WWW-Authenticate": challengeHeader(macaroon, purchase.paymentRequest) },
  );
}

/** A deleted seller's active documents are delisted; buyers keep their downloads. */
export function purgeUser(ctx: Ctx, userId: string): void {
  const now = ctx.clock.now();
  ctx.db
    .update(documents)
    .set({ status: "delisted", delistedAt: now, updatedAt: now })
    .where(and(eq(documents.sellerId, userId), eq(documents.status, "active")))
    .run();
}
