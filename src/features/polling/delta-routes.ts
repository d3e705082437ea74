// GET /api/v1/delta: the route and its answer's shape (the rules are in delta.ts).
import { Elysia, t } from "elysia";
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { FieldError } from "../../core/errors";
import { authPlugin } from "../../http/auth";
import { clientIp } from "../../http/client-ip";
import { charge, rateLimitPlugin, subjectOf } from "../../http/rate-limit";
import { Int } from "../../http/schemas";
import { colonyLabels } from "../colonies/service";
import { NotificationOut } from "../notifications/schemas";
import { notificationsOut } from "../notifications/views";
import { findManyByIds } from "../users/service";
import { deltaFor, parseStreams, type DeltaResult } from "./delta";
import { plainPreview } from "./preview";

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
    ({ query, caller, request }) => {
      if (query.since === undefined) throw new FieldError(["query", "since"], "Field required", undefined, "missing");
      // 120 an hour: per account when authenticated, per address otherwise.
      const ip = clientIp(ctx, request);
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
