// Time capsules (spec Part 3 §4.10): a title and tags in public, a body sealed until reveal_at
// (24 hours to 365 days ahead). Sealed or revealed follows the clock; a job queued at reveal_at
// tells the author, once (docs/decisions.md §78).
import { and, count, desc, asc, eq, gt, lte, sql, type SQL } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { DAY, HOUR, parseInstant } from "../../core/clock";
import { ApiError, notFound } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import type { Page } from "../../core/paging";
import { inTransaction } from "../../db/client";
import type { Caller } from "../auth/service";
import { normaliseTags, tagsUpTo } from "../posts/content";
import { timeCapsules } from "./tables";

export type CapsuleRow = typeof timeCapsules.$inferSelect;
export const REVEAL_JOB = "time_capsule_reveal";
const MIN_AHEAD_MS = 24 * HOUR;
const MAX_AHEAD_MS = 365 * DAY;
export const MAX_TAGS = 5;
export const STATUSES = ["all", "sealed", "revealed"] as const;
export const SORTS = ["newest", "revealing-soon", "recently-revealed"] as const;

export const isRevealed = (ctx: Ctx, c: CapsuleRow) => c.revealAt <= ctx.clock.now();

export function createCapsule(ctx: Ctx, caller: Caller, input: { title: string; body: string; tags?: string[] | null; reveal_at: string }): CapsuleRow {
  if (caller.karma < 0) throw new ApiError(403, "KARMA_TOO_LOW", `Sealing a time capsule needs karma of at least 0 (you have ${caller.karma})`);
  const title = input.title.trim();
  if ([...title].length < 3) throw new ApiError(400, "INVALID_INPUT", "A capsule's title is 3 to 200 characters");
  if (!input.body.trim()) throw new ApiError(400, "INVALID_INPUT", "A capsule needs a body");
  const now = ctx.clock.now();
  const revealAt = parseInstant(input.reveal_at);
  if (revealAt === null) throw new ApiError(400, "INVALID_INPUT", "reveal_at is not a date-time");
  if (revealAt < now + MIN_AHEAD_MS || revealAt > now + MAX_AHEAD_MS) throw new ApiError(400, "INVALID_INPUT", "reveal_at must be between 24 hours and 365 days from now");
  const tags = tagsUpTo(MAX_TAGS, input.tags);
  return inTransaction(ctx.db, (tx) => {
    const row = tx.insert(timeCapsules).values({ id: uuidv7(now), userId: caller.id, title, body: input.body, tags, revealAt, createdAt: now }).returning().get();
    ctx.jobs.schedule(REVEAL_JOB, revealAt, { capsule_id: row.id }, tx);
    return row;
  });
}

interface ListQuery {
  status?: (typeof STATUSES)[number];
  tag?: string;
  sort?: (typeof SORTS)[number];
}

/**
 * The public list. `revealing-soon` lists sealed capsules, the next to open first;
 * `recently-revealed` lists revealed ones, the latest first; `newest` (default) both kinds.
 */
export function listCapsules(ctx: Ctx, q: ListQuery, page: Page): { items: CapsuleRow[]; total: number } {
  const now = ctx.clock.now();
  const sort = q.sort ?? "newest";
  const status = q.status ?? "all";
  // Each sort that names a kind lists only that kind; with a status of the other kind, nothing.
  const sealed = status !== "revealed" && sort !== "recently-revealed";
  const revealed = status !== "sealed" && sort !== "revealing-soon";
  const where: (SQL | undefined)[] = [];
  if (!sealed) where.push(lte(timeCapsules.revealAt, now));
  if (!revealed) where.push(gt(timeCapsules.revealAt, now));
  if (q.tag !== undefined) {
    const tag = normaliseTags([q.tag])[0] ?? "";
    where.push(sql`exists (select 1 from json_each(${timeCapsules.tags}) where value = ${tag})`);
  }
  const cond = and(...where);
  const order =
    sort === "revealing-soon"
      ? [asc(timeCapsules.revealAt), asc(timeCapsules.id)]
      : sort === "recently-revealed"
        ? [desc(timeCapsules.revealAt), desc(timeCapsules.id)]
        : [desc(timeCapsules.createdAt), desc(timeCapsules.id)];
  const total = ctx.db.select({ n: count() }).from(timeCapsules).where(cond).get()!.n;
  const items = ctx.db.select().from(timeCapsules).where(cond).orderBy(...order).limit(page.limit).offset(page.offset).all();
  return { items, total };
}

export function listMine(ctx: Ctx, caller: Caller, page: Page): { items: CapsuleRow[]; total: number } {
  const mine = eq(timeCapsules.userId, caller.id);
  const total = ctx.db.select({ n: count() }).from(timeCapsules).where(mine).get()!.n;
  const items = ctx.db.select().from(timeCapsules).where(mine).orderBy(desc(timeCapsules.createdAt), desc(timeCapsules.id)).limit(page.limit).offset(page.offset).all();
  return { items, total };
}

export function getCapsule(ctx: Ctx, id: string): CapsuleRow {
  const row = ctx.db.select().from(timeCapsules).where(eq(timeCapsules.id, id)).get();
  if (!row) throw notFound("Time capsule not found");
  return row;
}

/** Deletes the caller's capsule, sealed or not; someone else's is 404 like a missing one (spec §7). */
export function deleteCapsule(ctx: Ctx, caller: Caller, id: string): void {
  const gone = ctx.db
    .delete(timeCapsules)
    .where(and(eq(timeCapsules.id, id), eq(timeCapsules.userId, caller.id)))
    .returning({ id: timeCapsules.id })
    .get();
  if (!gone) throw notFound("Time capsule not found");
  ctx.jobs.cancel(REVEAL_JOB, { capsule_id: id });
}

/**
 * The reveal job: tells the author their capsule opened, once (a compare-and-set on notified_at,
 * so a job retried or run twice tells them once). A capsule deleted meanwhile is skipped.
 */
export function revealCapsule(ctx: Ctx, id: string): void {
  inTransaction(ctx.db, (tx) => {
    const now = ctx.clock.now();
    const row = tx
      .update(timeCapsules)
      .set({ notifiedAt: now })
      .where(and(eq(timeCapsules.id, id), sql`${timeCapsules.notifiedAt} is null`, lte(timeCapsules.revealAt, now)))
      .returning()
      .get();
    if (!row) return;
    ctx.events.emit(tx, {
      type: "time_capsule_revealed",
      actorId: null,
      subject: { type: "time_capsule", id: row.id },
      payload: { capsule_id: row.id, author_id: row.userId, title: row.title, reveal_at: row.revealAt },
    });
  });
}

export function purgeUser(ctx: Ctx, userId: string): void {
  ctx.db.delete(timeCapsules).where(eq(timeCapsules.userId, userId)).run();
}
