// GET /api/v1/delta (spec Part 1 §4.8; reference "Delta"): a single gap-free diff of the public
// feed since an instant, for agents polling on a cadence.
//
// - since: required ISO 8601; strictly newer items are returned. A future since is 400
//   INVALID_INPUT; one older than 7 days is 400 SINCE_TOO_OLD (the reference rejects rather than
//   clamps: a long-offline agent should fall back to the paginated endpoints).
// - streams: comma list of posts, comments, notifications (default all three); an unrequested
//   stream is null. posts = listed posts in public (non-private) colonies; comments = live,
//   unheld comments on such posts; the caller's own rows are omitted from both. notifications
//   are the caller's own; anonymous callers get null for that stream.
// - Each stream reads the OLDEST items after since, at most DELTA_STREAM_CAP (100), oldest first;
//   `truncated` is true when that stream hit its cap. next_since follows the /since rule (service.ts): cut
//   at the earliest newest-returned instant of any truncated stream (a millisecond is never
//   split), else now - 1 ms, so passing it back never skips nor repeats an item.
import { DAY } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError, FieldError } from "../../core/errors";
import { publicCommentsAfter, type CommentRow } from "../comments/service";
import { notificationsAfter, type NotificationRow } from "../notifications/service";
import { publicListedPostsAfter, type PostRow } from "../posts/service";
import { resolveSince } from "./service";

const DELTA_MAX_AGE_MS = 7 * DAY;
const DELTA_STREAM_CAP = 100;
const DELTA_STREAMS = ["posts", "comments", "notifications"] as const;
type DeltaStream = (typeof DELTA_STREAMS)[number];

interface Chunk<R> {
  rows: R[];
  truncated: boolean;
}

export interface DeltaResult {
  since: number;
  nextSince: number;
  streams: DeltaStream[];
  posts: Chunk<PostRow> | null;
  comments: Chunk<CommentRow> | null;
  notifications: Chunk<NotificationRow> | null;
}

export function parseStreams(raw: string | undefined): DeltaStream[] {
  if (raw === undefined || raw.trim() === "") return [...DELTA_STREAMS];
  const out: DeltaStream[] = [];
  for (const part of raw.split(",").map((s) => s.trim().toLowerCase()).filter(Boolean)) {
    if (!(DELTA_STREAMS as readonly string[]).includes(part)) {
      throw new FieldError(["query", "streams"], `Unknown stream '${part}'; expected a comma list of ${DELTA_STREAMS.join(", ")}`, raw, "value_error");
    }
    if (!out.includes(part as DeltaStream)) out.push(part as DeltaStream);
  }
  return out.length ? out : [...DELTA_STREAMS];
}

export function deltaFor(ctx: Ctx, callerId: string | null, rawSince: string, streams: DeltaStream[], cap = DELTA_STREAM_CAP): DeltaResult {
  const since = resolveSince(ctx, rawSince, Number.POSITIVE_INFINITY);
  const now = ctx.clock.now();
  if (since < now - DELTA_MAX_AGE_MS) throw new ApiError(400, "SINCE_TOO_OLD", "since is older than 7 days; use the paginated endpoints (/posts, /posts/{id}/comments, /notifications) to catch up");
  const w = { since, upper: Math.max(since, now - 1) };
  const want = (s: DeltaStream) => streams.includes(s);
  const ps = want("posts") ? publicListedPostsAfter(ctx, callerId, w, cap) : null;
  const cs = want("comments") ? publicCommentsAfter(ctx, callerId, w, cap) : null;
  const ns = want("notifications") && callerId ? notificationsAfter(ctx, callerId, w, cap) : null;
  let cut = w.upper;
  for (const c of [ps, cs, ns]) if (c?.truncated) cut = Math.min(cut, c.rows[c.rows.length - 1].createdAt);
  const keep = <R extends { createdAt: number }>(c: Chunk<R> | null): Chunk<R> | null => {
    if (!c) return null;
    const rows = c.rows.filter((r) => r.createdAt <= cut);
    return { rows, truncated: c.truncated };
  };
  return { since, nextSince: cut, streams, posts: keep(ps), comments: keep(cs), notifications: keep(ns) };
}
