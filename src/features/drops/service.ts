// Dead drops (spec Part 3 §4.11): anonymous messages. The author is stored to let them delete
// their drop and to refuse their own signal, and is never returned, logged or emitted; the
// answers are the same for every caller (docs/decisions.md §79).
import { and, count, desc, eq, gt, isNull, lte, or, sql, type SQL } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { DAY } from "../../core/clock";
import { ApiError, notFound } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import type { Page } from "../../core/paging";
import { inTransaction } from "../../db/client";
import type { Caller } from "../auth/service";
import { normaliseTags, tagsUpTo } from "../posts/content";
import { deadDropSignals, deadDrops } from "./tables";

export type DropRow = typeof deadDrops.$inferSelect;
export const MIN_KARMA = 10;
export const DURATIONS = { "24h": DAY, "48h": 2 * DAY, "7d": 7 * DAY } as const;
export type Duration = keyof typeof DURATIONS;
export const SORTS = ["newest", "signals"] as const;
export const MAX_TAGS = 5;

const live = (now: number) => or(isNull(deadDrops.expiresAt), gt(deadDrops.expiresAt, now));
const missing = () => notFound("Dead drop not found");

export function createDrop(ctx: Ctx, caller: Caller, input: { body: string; tags?: string[] | null; duration?: Duration | null }): DropRow {
  if (caller.karma < MIN_KARMA) throw new ApiError(403, "KARMA_TOO_LOW", `Leaving a dead drop needs at least ${MIN_KARMA} karma (you have ${caller.karma})`);
  if (!input.body.trim()) throw new ApiError(400, "INVALID_INPUT", "A dead drop needs a body");
  const tags = tagsUpTo(MAX_TAGS, input.tags);
  const now = ctx.clock.now();
  const expiresAt = input.duration ? now + DURATIONS[input.duration] : null;
  return ctx.db.insert(deadDrops).values({ id: uuidv7(now), authorId: caller.id, body: input.body, tags, expiresAt, createdAt: now }).returning().get();
}

/** Live drops, newest first or by signals; expired ones are left out. */
export function listDrops(ctx: Ctx, q: { tag?: string; sort?: (typeof SORTS)[number] }, page: Page): { items: DropRow[]; total: number } {
  const where: (SQL | undefined)[] = [live(ctx.clock.now())];
  if (q.tag !== undefined) where.push(sql`exists (select 1 from json_each(${deadDrops.tags}) where value = ${normaliseTags([q.tag])[0] ?? ""})`);
  const cond = and(...where);
  const order = q.sort === "signals" ? [desc(deadDrops.signalCount), desc(deadDrops.createdAt), desc(deadDrops.id)] : [desc(deadDrops.createdAt), desc(deadDrops.id)];
  const total = ctx.db.select({ n: count() }).from(deadDrops).where(cond).get()!.n;
  const items = ctx.db.select().from(deadDrops).where(cond).orderBy(...order).limit(page.limit).offset(page.offset).all();
  return { items, total };
}

/** A live drop; a missing and an expired one are the same 404. */
export function getDrop(ctx: Ctx, id: string): DropRow {
  const row = ctx.db.select().from(deadDrops).where(and(eq(deadDrops.id, id), live(ctx.clock.now()))).get();
  if (!row) throw missing();
  return row;
}

/** Signals a drop, or takes the signal back; not on your own drop (400 INVALID_INPUT). */
export function toggleSignal(ctx: Ctx, caller: Caller, id: string): { drop: DropRow; signaled: boolean } {
  return inTransaction(ctx.db, (tx) => {
    const drop = getDrop(ctx, id);
    if (drop.authorId === caller.id) throw new ApiError(400, "INVALID_INPUT", "You cannot signal your own dead drop");
    const removed = tx
      .delete(deadDropSignals)
      .where(and(eq(deadDropSignals.dropId, id), eq(deadDropSignals.userId, caller.id)))
      .returning({ d: deadDropSignals.dropId })
      .get();
    if (!removed) tx.insert(deadDropSignals).values({ dropId: id, userId: caller.id, createdAt: ctx.clock.now() }).run();
    const row = tx
      .update(deadDrops)
      .set({ signalCount: sql`${deadDrops.signalCount} + ${removed ? -1 : 1}` })
      .where(eq(deadDrops.id, id))
      .returning()
      .get()!;
    return { drop: row, signaled: !removed };
  });
}

/** Deletes the caller's drop; a missing one and someone else's are the same 404 (spec §4.11). */
export function deleteDrop(ctx: Ctx, caller: Caller, id: string): void {
  inTransaction(ctx.db, (tx) => {
    const gone = tx
      .delete(deadDrops)
      .where(and(eq(deadDrops.id, id), eq(deadDrops.authorId, caller.id)))
      .returning({ id: deadDrops.id })
      .get();
    if (!gone) throw missing();
    tx.delete(deadDropSignals).where(eq(deadDropSignals.dropId, id)).run();
  });
}

/** The hourly sweep: expired drops and their signals are deleted for good. */
export function purgeExpired(ctx: Ctx): number {
  const now = ctx.clock.now();
  return inTransaction(ctx.db, (tx) => {
    tx.delete(deadDropSignals)
      .where(sql`${deadDropSignals.dropId} in (select id from dead_drops where expires_at <= ${now})`)
      .run();
    return tx.delete(deadDrops).where(lte(deadDrops.expiresAt, now)).returning({ id: deadDrops.id }).all().length;
  });
}

/** A deleted account's drops and signals go (the counts of drops it signalled drop with them). */
export function purgeUser(ctx: Ctx, userId: string): void {
  inTransaction(ctx.db, (tx) => {
    tx.update(deadDrops)
      .set({ signalCount: sql`${deadDrops.signalCount} - 1` })
      .where(sql`${deadDrops.id} in (select drop_id from dead_drop_signals where user_id = ${userId})`)
      .run();
    tx.delete(deadDropSignals).where(eq(deadDropSignals.userId, userId)).run();
    tx.delete(deadDropSignals)
      .where(sql`${deadDropSignals.dropId} in (select id from dead_drops where author_id = ${userId})`)
      .run();
    tx.delete(deadDrops).where(eq(deadDrops.authorId, userId)).run();
  });
}
