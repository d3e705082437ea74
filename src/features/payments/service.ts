// Payments (spec Part 3 §2-§5): the invoices buyers pay and the payouts sellers receive, for
// every marketplace feature (tasks, orders, tips, document purchases). A feature opens an invoice
// (the wallet first, outside any transaction), records it in the transaction of its own state
// change, and registers what happens when it is paid or expires; payments detects settlement
// (the poller and explicit checks) and runs those side effects exactly once, in the transaction
// of a compare-and-set. Payouts: 95 % (platform_fee_bps 500) to the seller's Lightning address,
// at most one per subject, the attempt recorded before paying (docs/decisions.md §82).
import { createHash, timingSafeEqual } from "node:crypto";
import { and, asc, eq, inArray, lte, sql } from "drizzle-orm";
import { WalletError, type CreatedInvoice, type PaymentStatus } from "../../adapters/lightning";
import type { Ctx } from "../../core/context";
import { ApiError } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import { inTransaction, type Tx } from "../../db/client";
import * as users from "../users/service";
import { invoices, payouts } from "./tables";

export type InvoiceRow = typeof invoices.$inferSelect;
export type PayoutRow = typeof payouts.$inferSelect;

const PLATFORM_FEE_BPS = 500;
/** How long after its expiry an unpaid invoice is still asked about (a payment in flight at the deadline). */
const EXPIRY_GRACE_MS = 60_000;
/** The poller's first wait, doubled per check up to the cap. */
const FIRST_CHECK_MS = 10_000;
const CHECK_CAP_MS = 5 * 60_000;
/** Payout retries: 1 min doubling up to 6 hours. */
const PAYOUT_RETRY_MS = 60_000;
const PAYOUT_RETRY_CAP_MS = 6 * 3_600_000;

interface PurposeHandlers {
  /** In the transaction that marked the invoice paid: the feature's state change and events. */
  onPaid(ctx: Ctx, tx: Tx, invoice: InvoiceRow): void;
  /** In the transaction that marked it expired or failed. */
  onLapsed?(ctx: Ctx, tx: Tx, invoice: InvoiceRow): void;
  /** In the transaction of each payout state change (pending → in_flight → completed / failed / abandoned). */
  onPayout?(ctx: Ctx, tx: Tx, payout: PayoutRow): void;
}

const purposes = new Map<string, PurposeHandlers>();

/**
 * A feature declares what its invoices and payouts mean (its handlers.ts, at start-up). The
 * handlers are told the context of the settlement, so one registration serves every context of
 * the process (the server's, the admin commands', each test file's).
 */
export function registerPurpose(purpose: string, handlers: PurposeHandlers): void {
  purposes.set(purpose, handlers);
}

const upstream = (err: unknown) =>
  new ApiError(502, "UPSTREAM_FAILURE", `The Lightning wallet did not answer: ${err instanceof Error ? err.message : String(err)}. Nothing was changed; try again.`);

/** Asks the wallet for an invoice; a wallet failure is 502 UPSTREAM_FAILURE (and nothing was recorded). */
export async function requestInvoice(ctx: Ctx, input: { amountSats: number; memo: string; ttlSeconds: number }): Promise<CreatedInvoice> {
  try {
    return await ctx.wallet.createInvoice({ amountSats: input.amountSats, memo: input.memo, expirySeconds: input.ttlSeconds });
  } catch (err) {
    if (err instanceof WalletError) throw upstream(err);
    throw err;
  }
}

/** Records an invoice the wallet issued, in the transaction of the feature's own change. */
export function recordInvoice(ctx: Ctx, tx: Tx, input: { purpose: string; subjectId: string; amountSats: number; invoice: CreatedInvoice }): InvoiceRow {
  const now = ctx.clock.now();
  return tx
    .insert(invoices)
    .values({
      id: uuidv7(now),
      purpose: input.purpose,
      subjectId: input.subjectId,
      paymentHash: input.invoice.paymentHash,
      paymentRequest: input.invoice.paymentRequest,
      amountSats: input.amountSats,
      expiresAt: input.invoice.expiresAt,
      nextCheckAt: now + FIRST_CHECK_MS,
      createdAt: now,
    })
    .returning()
    .get();
}

/**
 * A payment's usual opening: the wallet's invoice first (outside any transaction: a failure is
 * 502 UPSTREAM_FAILURE and records nothing), then in one transaction the subject `write` makes
 * (a tip, a purchase) and the invoice recorded against it.
 */
export async function openInvoice<T extends { id: string }>(
  ctx: Ctx,
  input: { purpose: string; amountSats: number; memo: string; ttlSeconds: number },
  write: (tx: Tx, invoice: CreatedInvoice) => T,
): Promise<T> {
  const invoice = await requestInvoice(ctx, input);
  return inTransaction(ctx.db, (tx) => {
    const subject = write(tx, invoice);
    recordInvoice(ctx, tx, { purpose: input.purpose, subjectId: subject.id, amountSats: input.amountSats, invoice });
    return subject;
  });
}

export function findInvoice(ctx: Ctx, id: string): InvoiceRow | null {
  return ctx.db.select().from(invoices).where(eq(invoices.id, id)).get() ?? null;
}

export function findInvoiceByHash(ctx: Ctx, paymentHash: string): InvoiceRow | null {
  return ctx.db.select().from(invoices).where(eq(invoices.paymentHash, paymentHash)).get() ?? null;
}

/** The newest invoice of a subject (a task's or an order's). */
export function invoiceOf(ctx: Ctx, purpose: string, subjectId: string): InvoiceRow | null {
  return ctx.db.select().from(invoices).where(and(eq(invoices.purpose, purpose), eq(invoices.subjectId, subjectId))).orderBy(sql`${invoices.createdAt} desc`).get() ?? null;
}

/** Moves a pending invoice to `status` once; runs the purpose's side effects in the same transaction. */
function transition(ctx: Ctx, id: string, status: "paid" | "expired" | "failed", paid?: { preimage: string | null; paidAt: number | null }): InvoiceRow | null {
  return inTransaction(ctx.db, (tx) => {
    const row = tx
      .update(invoices)
      .set(status === "paid" ? { status, paidAt: paid?.paidAt ?? ctx.clock.now(), preimage: paid?.preimage ?? null } : { status })
      .where(and(eq(invoices.id, id), eq(invoices.status, "pending")))
      .returning()
      .get();
    if (!row) return null;
    const h = purposes.get(row.purpose);
    if (status === "paid") h?.onPaid(ctx, tx, row);
    else h?.onLapsed?.(ctx, tx, row);
    return row;
  });
}

/**
 * Asks the wallet about a pending invoice and applies the answer (the …/check routes and the
 * poller). Settled twice, or by the poller and a check at once, its side effects still run once.
 * `strict`: a wallet failure is 502 UPSTREAM_FAILURE (a caller asked) rather than a later retry.
 */
export async function checkInvoice(ctx: Ctx, id: string, opts: { strict?: boolean } = {}): Promise<InvoiceRow> {
  const before = findInvoice(ctx, id);
  if (!before) throw new ApiError(404, "NOT_FOUND", "Invoice not found");
  if (before.status !== "pending") return before;
  const now = ctx.clock.now();
  let answer;
  try {
    answer = await ctx.wallet.lookupInvoice(before.paymentHash);
  } catch (err) {
    if (opts.strict && err instanceof WalletError) throw upstream(err);
    if (!(err instanceof WalletError)) throw err;
    answer = { state: "pending" as const };
  }
  if (answer.state === "paid") transition(ctx, id, "paid", answer);
  else if (answer.state === "failed") transition(ctx, id, "failed");
  else if (answer.state === "expired" || now >= before.expiresAt + EXPIRY_GRACE_MS) transition(ctx, id, "expired");
  else {
    const wait = Math.min(CHECK_CAP_MS, FIRST_CHECK_MS * 2 ** (before.checks + 1));
    ctx.db
      .update(invoices)
      .set({ checks: before.checks + 1, nextCheckAt: now + wait })
      .where(and(eq(invoices.id, id), eq(invoices.status, "pending")))
      .run();
  }
  return findInvoice(ctx, id)!;
}

/** Whether `preimageHex` is the preimage of `paymentHashHex` (its SHA-256), compared in constant time. */
export function preimageMatches(paymentHashHex: string, preimageHex: string): boolean {
  if (!/^[0-9a-f]{64}$/i.test(preimageHex) || !/^[0-9a-f]{64}$/i.test(paymentHashHex)) return false;
  const digest = createHash("sha256").update(Buffer.from(preimageHex, "hex")).digest();
  return timingSafeEqual(digest, Buffer.from(paymentHashHex, "hex"));
}

/**
 * Marks a pending invoice paid on the strength of its preimage, which only a payer receives (an
 * L402 proof of payment), running its purpose's side effects once, as a check seeing the payment
 * would. Null when the preimage is not that of the invoice; an invoice no longer pending is
 * answered as it is.
 */
export function settleWithPreimage(ctx: Ctx, id: string, preimageHex: string): InvoiceRow | null {
  const inv = findInvoice(ctx, id);
  if (!inv || !preimageMatches(inv.paymentHash, preimageHex)) return null;
  if (inv.status === "pending") transition(ctx, id, "paid", { preimage: preimageHex.toLowerCase(), paidAt: ctx.clock.now() });
  return findInvoice(ctx, id);
}

/** The poller: every pending invoice whose next check is due. */
export async function pollInvoices(ctx: Ctx, limit = 50): Promise<number> {
  const due = ctx.db
    .select({ id: invoices.id })
    .from(invoices)
    .where(and(eq(invoices.status, "pending"), lte(invoices.nextCheckAt, ctx.clock.now())))
    .orderBy(asc(invoices.nextCheckAt))
    .limit(limit)
    .all();
  for (const { id } of due) await checkInvoice(ctx, id);
  return due.length;
}

// ---------------------------------------------------------------------------------------------
// Payouts

/** The seller's share of `grossSats`: the platform keeps platform_fee_bps, rounded down. */
export function split(grossSats: number): { feeSats: number; amountSats: number } {
  const feeSats = Math.floor((grossSats * PLATFORM_FEE_BPS) / 10_000);
  return { feeSats, amountSats: grossSats - feeSats };
}

/**
 * Queues the payout of a subject, in the transaction that earned it (mark-delivered, a paid
 * purchase). A second call for the same subject changes nothing and answers the first.
 */
export function queuePayout(ctx: Ctx, tx: Tx, input: { purpose: string; subjectId: string; recipientId: string; grossSats: number }): PayoutRow {
  const now = ctx.clock.now();
  const { feeSats, amountSats } = split(input.grossSats);
  tx.insert(payouts)
    .values({ id: uuidv7(now), purpose: input.purpose, subjectId: input.subjectId, recipientId: input.recipientId, grossSats: input.grossSats, feeSats, amountSats, nextAttemptAt: now, createdAt: now, updatedAt: now })
    .onConflictDoNothing()
    .run();
  return tx.select().from(payouts).where(and(eq(payouts.purpose, input.purpose), eq(payouts.subjectId, input.subjectId))).get()!;
}

export function payoutOf(ctx: Ctx, purpose: string, subjectId: string): PayoutRow | null {
  return ctx.db.select().from(payouts).where(and(eq(payouts.purpose, purpose), eq(payouts.subjectId, subjectId))).get() ?? null;
}

/** Moves a payout from one of `from` to a new state with `set`; runs the purpose's handler. Null when it was not in `from`. */
function movePayout(ctx: Ctx, id: string, from: PayoutRow["status"][], set: Partial<PayoutRow>): PayoutRow | null {
  return inTransaction(ctx.db, (tx) => {
    const row = tx
      .update(payouts)
      .set({ ...set, updatedAt: ctx.clock.now() })
      .where(and(eq(payouts.id, id), inArray(payouts.status, from)))
      .returning()
      .get();
    if (row) purposes.get(row.purpose)?.onPayout?.(ctx, tx, row);
    return row ?? null;
  });
}

const retryAt = (ctx: Ctx, attempts: number) => ctx.clock.now() + Math.min(PAYOUT_RETRY_CAP_MS, PAYOUT_RETRY_MS * 2 ** Math.max(0, attempts - 1));

/** Payouts being paid by this process right now (reconciliation leaves them alone). */
const active = new Set<string>();

/** Applies a wallet's answer about a payout in flight. */
function settlePayout(ctx: Ctx, p: PayoutRow, result: PaymentStatus): void {
  if (result.state === "succeeded") movePayout(ctx, p.id, ["in_flight"], { status: "completed", preimage: result.preimage, routingFeeSats: result.feeSats, completedAt: ctx.clock.now(), lastError: null });
  else if (result.state === "failed" || result.state === "unknown")
    movePayout(ctx, p.id, ["in_flight"], { status: "failed", nextAttemptAt: retryAt(ctx, p.attempts), lastError: result.state === "failed" ? result.reason : "the wallet never sent it", paymentHash: null });
  // pending: stays in flight; reconciliation asks again.
}

/** One attempt at a due payout. */
async function attempt(ctx: Ctx, p: PayoutRow): Promise<void> {
  const seller = users.findById(ctx, p.recipientId);
  const address = seller?.lightningAddress ?? null;
  if (!address) {
    movePayout(ctx, p.id, ["pending", "failed"], { status: "abandoned", lastError: "the seller has no lightning address" });
    return;
  }
  // The attempt is on record before the wallet hears of it.
  const flying = movePayout(ctx, p.id, ["pending", "failed"], { status: "in_flight", attempts: p.attempts + 1, lightningAddress: address, paymentHash: null });
  if (!flying) return;
  active.add(p.id);
  try {
    const record = (paymentHash: string) => void ctx.db.update(payouts).set({ paymentHash, updatedAt: ctx.clock.now() }).where(and(eq(payouts.id, p.id), eq(payouts.status, "in_flight"))).run();
    let result: PaymentStatus;
    try {
      result = await ctx.wallet.payLightningAddress(address, flying.amountSats, `Colony payout ${p.purpose} ${p.subjectId}`, record);
    } catch (err) {
      const now = payoutById(ctx, p.id)!;
      // Once the invoice is recorded the wallet may have paid it, whatever failed afterwards (a
      // timeout, a 500, the status look-up after a successful pay call, an unexpected error):
      // reconciliation looks it up rather than paying a fresh invoice.
      if (now.paymentHash) return;
      movePayout(ctx, p.id, ["in_flight"], { status: "failed", nextAttemptAt: retryAt(ctx, flying.attempts), lastError: err instanceof Error ? err.message : String(err), paymentHash: null });
      return;
    }
    settlePayout(ctx, payoutById(ctx, p.id)!, result);
  } finally {
    active.delete(p.id);
  }
}

function payoutById(ctx: Ctx, id: string): PayoutRow | null {
  return ctx.db.select().from(payouts).where(eq(payouts.id, id)).get() ?? null;
}

/**
 * Payouts interrupted in flight (a crash, an uncertain answer): with no recorded invoice nothing
 * was paid, so it is tried again; with one, the wallet is asked what became of it.
 */
async function reconcilePayouts(ctx: Ctx): Promise<void> {
  const flying = ctx.db.select().from(payouts).where(eq(payouts.status, "in_flight")).all();
  for (const p of flying) {
    if (active.has(p.id)) continue;
    if (!p.paymentHash) {
      movePayout(ctx, p.id, ["in_flight"], { status: "failed", nextAttemptAt: ctx.clock.now(), lastError: "interrupted before paying" });
      continue;
    }
    try {
      settlePayout(ctx, p, await ctx.wallet.lookupPayment(p.paymentHash));
    } catch (err) {
      if (!(err instanceof WalletError)) throw err;
    }
  }
}

/** The payout runner (a recurring job, and after each delivery): reconcile, then every due payout. */
export async function runPayouts(ctx: Ctx, limit = 20): Promise<void> {
  await reconcilePayouts(ctx);
  const due = ctx.db
    .select()
    .from(payouts)
    .where(and(inArray(payouts.status, ["pending", "failed"]), lte(payouts.nextAttemptAt, ctx.clock.now())))
    .orderBy(asc(payouts.nextAttemptAt))
    .limit(limit)
    .all();
  for (const p of due) if (!active.has(p.id)) await attempt(ctx, p);
}

/** In flight this long without an answer, or failed this often, a payout needs an operator's look. */
const PAYOUT_STUCK_MS = 3_600_000;
export const PAYOUT_FAILING_ATTEMPTS = 5;

/**
 * Payouts that need an operator (/health): in flight for over an hour (the wallet keeps answering
 * "pending", so it is neither paid again nor given up) or failed PAYOUT_FAILING_ATTEMPTS times.
 */
export function stuckPayouts(ctx: Ctx): { inFlight: number; failing: number } {
  // /health reads this on every poll: one cached statement (bun:sqlite's query cache), no query building.
  const row = ctx.db.$client
    .query(
      "select coalesce(sum(status = 'in_flight' and updated_at <= ?1), 0) as inFlight, coalesce(sum(status = 'failed' and attempts >= ?2), 0) as failing from payouts where status in ('in_flight', 'failed')",
    )
    .get(ctx.clock.now() - PAYOUT_STUCK_MS, PAYOUT_FAILING_ATTEMPTS) as { inFlight: number; failing: number };
  return { inFlight: row.inFlight, failing: row.failing };
}
