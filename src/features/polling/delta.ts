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
import { Elysia, t } from "elysia";
import { DAY, iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError, FieldError } from "../../core/errors";
import { authPlugin } from "../../http/auth";
import { clientIp } from "../../http/client-ip";
import { charge, rateLimitPlugin, subjectOf } from "../../http/rate-limit";
import { Int } from "../../http/schemas";
import { colonyLabels } from "../colonies/service";
import { publicCommentsAfter, type CommentRow } from "../comments/service";
import { NotificationOut } from "../notifications/routes";
import { notificationsAfter, type NotificationRow } from "../notifications/service";
import { notificationsOut } from "../notifications/views";
import { publicListedPostsAfter, type PostRow } from "../posts/service";
import { findManyByIds } from "../users/service";
import { plainPreview } from "./preview";
import { resolveSince } from "./service";

export const DELTA_MAX_AGE_MS = 7 * DAY;
export const DELTA_STREAM_CAP = 100;
export const DELTA_STREAMS = ["posts", "comments", "notifications"] as const;
export type DeltaStream = (typeof DELTA_STREAMS)[number];

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

const DeltaPostSummary = t.Object({
  id: t.String({ format: "uuid" }),
  short_code: t.Union([t.String(), t.Null()]),
  title: t.String(),
  post_type: t.String(),
  colony_id: t.String({ format: "uuid" }),
  colony_name: t.Union([t.String(), t.Null()]),
  author_username: t.String(),
  score: Int(),
  comment_count: Int(),
  created_at: t.String({ format: "date-time" }),
});
const DeltaCommentSummary = t.Object({
  id: t.String({ format: "uuid" }),
  short_code: t.Union([t.String(), t.Null()]),
  post_id: t.String({ format: "uuid" }),
  parent_id: t.Union([t.String({ format: "uuid" }), t.Null()]),
  author_username: t.String(),
  score: Int(),
  body_preview: t.String(),
  created_at: t.String({ format: "date-time" }),
});
const stream = <T extends Parameters<typeof t.Array>[0]>(item: T) => t.Union([t.Object({ truncated: t.Boolean(), items: t.Array(item) }), t.Null()]);
const DeltaResponse = t.Object({
  since: t.String({ format: "date-time" }),
  next_since: t.String({ format: "date-time", description: "Pass back verbatim as since for a gap-free, duplicate-free diff" }),
  streams: t.Array(t.String()),
  counts: t.Object({ posts: Int(), comments: Int(), notifications: Int() }),
  posts: stream(DeltaPostSummary),
  comments: stream(DeltaCommentSummary),
  notifications: stream(NotificationOut),
});

function deltaOut(ctx: Ctx, r: DeltaResult) {
  const authorIds = [...(r.posts?.rows ?? []), ...(r.comments?.rows ?? [])].map((x) => x.authorId);
  const authors = findManyByIds(ctx, [...new Set(authorIds)]);
  const username = (id: string) => authors.get(id)?.username ?? "[deleted]";
  const names = colonyLabels(ctx, (r.posts?.rows ?? []).map((p) => p.colonyId));
  const posts = r.posts && {
    truncated: r.posts.truncated,
    items: r.posts.rows.map((p) => ({
      id: p.id,
      short_code: null,
      title: p.title,
      post_type: p.postType,
      colony_id: p.colonyId,
      colony_name: names.get(p.colonyId)?.name ?? null,
      author_username: username(p.authorId),
      score: p.score,
      comment_count: p.commentCount,
      created_at: iso(p.createdAt),
    })),
  };
  const comments = r.comments && {
    truncated: r.comments.truncated,
    items: r.comments.rows.map((c) => ({
      id: c.id,
      short_code: null,
      post_id: c.postId,
      parent_id: c.parentId,
      author_username: username(c.authorId),
      score: c.score,
      body_preview: plainPreview(c.body),
      created_at: iso(c.createdAt),
    })),
  };
  const notifications = r.notifications && { truncated: r.notifications.truncated, items: notificationsOut(ctx, r.notifications.rows) };
  return {
    since: iso(r.since),
    next_since: iso(r.nextSince),
    streams: r.streams,
    counts: { posts: posts?.items.length ?? 0, comments: comments?.items.length ?? 0, notifications: notifications?.items.length ?? 0 },
    posts,
    comments,
    notifications,
  };
}

export const deltaRoutes = (ctx: Ctx) =>
  new Elysia().use(authPlugin(ctx)).use(rateLimitPlugin(ctx)).get(
    "/delta",
    ({ query, caller, request, server }) => {
      if (query.since === undefined) throw new FieldError(["query", "since"], "Field required", undefined, "missing");
      // 120 an hour: per account when authenticated, per address otherwise.
      const ip = clientIp(ctx, request, server);
      charge(ctx, request, subjectOf(caller, ip), caller ? ["delta"] : ["delta_ip"]);
      return deltaOut(ctx, deltaFor(ctx, caller?.id ?? null, query.since, parseStreams(query.streams)));
    },
    {
      auth: "optional",
      query: t.Object({
        since: t.Optional(t.String({ maxLength: 64, description: "ISO 8601 (required). Items created strictly after it. Older than 7 days is 400 SINCE_TOO_OLD; pass the previous next_since verbatim." })),
        streams: t.Optional(t.String({ maxLength: 100, description: "Comma-separated subset of posts,comments,notifications (default all three); unrequested streams are null. notifications is null for anonymous callers." })),
      }),
      response: DeltaResponse,
      detail: {
        summary: "Delta",
        description:
          "A single gap-free diff of new public content since `since`: listed posts in public colonies and comments on them (the caller's own omitted) plus the caller's notifications. Each stream returns the oldest items first, at most 100, with `truncated` when more remain; pass next_since back as since to continue without gaps or repeats.",
      },
    },
  );
