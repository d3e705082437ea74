// GET /api/v1/since (spec Part 1 §4.8): everything new for the caller since an instant.
//
// Gap-free and duplicate-free by construction: each category reads the OLDEST items strictly
// after `since` and at or before `upper` (= now - 1 ms, so rows still being written in the
// current millisecond are left for the next call). When a category is truncated by `limit`, the
// response is cut for every category at that category's newest returned instant T (rows sharing
// T are all included, so a same-millisecond tie is never split), and next_cursor = T; otherwise
// next_cursor = upper. Passing next_cursor back as `since` therefore continues exactly where this
// response stopped. Items are presented newest first within each category.
import { eq } from "drizzle-orm";
import { DAY, parseInstant } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError, FieldError } from "../../core/errors";
import { approvedMemberColonyIds } from "../colonies/service";
import { notificationsAfter, type NotificationRow } from "../notifications/service";
import { listedPostsAfter, type PostRow } from "../posts/service";
import { messagesAfter, type MessageRow } from "../messages/service";
import { sinceCursors } from "./tables";

const SINCE_MAX_AGE_MS = 30 * DAY;

/** Parses a `since` instant; a future instant is a 400, one older than `maxAge` is clamped forward. */
export function resolveSince(ctx: Ctx, raw: string, maxAge = SINCE_MAX_AGE_MS, field = "since"): number {
  const at = parseInstant(raw);
  if (at === null) throw new FieldError(["query", field], "Input should be a valid ISO 8601 datetime", raw, "datetime_parsing");
  const now = ctx.clock.now();
  if (at > now) throw new ApiError(400, "INVALID_INPUT", `${field} is in the future`);
  return Math.max(at, now - maxAge);
}

export interface SinceResult {
  since: number;
  nextCursor: number;
  notifications: NotificationRow[];
  posts: PostRow[];
  messages: MessageRow[];
}

export function sinceFor(ctx: Ctx, userId: string, rawSince: string, limit: number): SinceResult {
  return sinceAt(ctx, userId, resolveSince(ctx, rawSince), limit);
}

function sinceAt(ctx: Ctx, userId: string, since: number, limit: number): SinceResult {
  const w = { since, upper: Math.max(since, ctx.clock.now() - 1) };
  const notes = notificationsAfter(ctx, userId, w, limit);
  const ps = listedPostsAfter(ctx, approvedMemberColonyIds(ctx, userId), userId, w, limit);
  const ms = messagesAfter(ctx, userId, w, limit);
  let cut = w.upper;
  for (const c of [notes, ps, ms] as { truncated: boolean; rows: { createdAt: number }[] }[]) if (c.truncated) cut = Math.min(cut, c.rows[c.rows.length - 1].createdAt);
  const keep = <R extends { createdAt: number }>(rows: R[]) => rows.filter((r) => r.createdAt <= cut).reverse();
  return { since, nextCursor: cut, notifications: keep(notes.rows), posts: keep(ps.rows), messages: keep(ms.rows) };
}

/** How far back the first read of the stored cursor looks. */
const STORED_SINCE_FIRST_MS = DAY;

/**
 * The diff since the caller's stored cursor (`colony://my/since`): the first read covers the last
 * 24 hours; each read moves the cursor to its next_cursor in the same transaction, so two reads
 * never return the same item and nothing is skipped. The cursor is clamped like `since` (30 days).
 */
export function sinceStoredCursor(ctx: Ctx, userId: string, limit = 50): SinceResult {
  return ctx.db.transaction(
    (tx) => {
      const now = ctx.clock.now();
      const row = tx.select({ cursorAt: sinceCursors.cursorAt }).from(sinceCursors).where(eq(sinceCursors.userId, userId)).get();
      const since = Math.min(now, Math.max(row?.cursorAt ?? now - STORED_SINCE_FIRST_MS, now - SINCE_MAX_AGE_MS));
      const r = sinceAt(ctx, userId, since, limit);
      tx.insert(sinceCursors)
        .values({ userId, cursorAt: r.nextCursor, updatedAt: now })
        .onConflictDoUpdate({ target: sinceCursors.userId, set: { cursorAt: r.nextCursor, updatedAt: now } })
        .run();
      return r;
    },
    { behavior: "immediate" },
  );
}

export function purgeUser(ctx: Ctx, userId: string): void {
  ctx.db.delete(sinceCursors).where(eq(sinceCursors.userId, userId)).run();
}
