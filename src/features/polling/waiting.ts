// GET /api/v1/conversations/waiting (spec Part 1 §4.8; reference "Waiting"): threads waiting for
// a reply from the caller, longest waiting first.
//
// - since (deprecated alias `cursor`, renamed by the deprecations plugin): default 7 days ago,
//   older than 30 days clamped forward, future is 400. Only items whose triggering comment was
//   created strictly after since are considered.
// - Kinds (see waitingComments in the comments service for the exact rule):
//   post_comment  = a top-level comment by someone else on a live post of the caller's;
//   comment_reply = a reply by someone else to a live comment of the caller's.
//   Either is answered, and disappears, once the caller has a live comment whose parent_id is
//   that comment ("directly replied to"; a reply further down the thread does not resolve it).
//   Deleted or held comments and colonies the caller cannot read never produce items.
//   dm            = a 1:1 conversation (not archived) whose last message is live and from the
//   other user, after since (messages service, waitingDirect); waiting_since is that message.
// - Each kind is read oldest first (up to limit), merged by waiting_since, capped at limit.
//   counts are the uncapped totals per kind after since; total = dm + comment_reply + post_comment.
import { Elysia, t } from "elysia";
import { DAY, iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { withAliases } from "../../http/deprecations";
import { Int } from "../../http/schemas";
import { waitingComments, type CommentRow, type WaitingKind } from "../comments/service";
import { UserOut } from "../users/routes";
import { findManyByIds } from "../users/service";
import { waitingDirect } from "../messages/service";
import { deletedUserOut, userOut } from "../users/views";
import { plainPreview } from "./preview";
import { resolveSince } from "./service";

export const WAITING_DEFAULT_AGE_MS = 7 * DAY;
export const WAITING_MAX_AGE_MS = 30 * DAY;
const KINDS = ["dm", "comment_reply", "post_comment"] as const;

/** One waiting item of any kind: a comment, or the last message of a 1:1 conversation. */
interface WaitingEntry {
  kind: WaitingKind | "dm";
  id: string;
  createdAt: number;
  actorId: string;
  body: string;
  postId: string | null;
  commentId: string | null;
  conversationId: string | null;
}

export function waitingFor(ctx: Ctx, caller: { id: string; isAdmin: boolean }, rawSince: string | undefined, limit: number) {
  const since = rawSince === undefined ? ctx.clock.now() - WAITING_DEFAULT_AGE_MS : resolveSince(ctx, rawSince, WAITING_MAX_AGE_MS);
  const byKind = waitingComments(ctx, caller, since, limit);
  const dm = waitingDirect(ctx, caller.id, since, limit);
  const merged: WaitingEntry[] = [
    ...(Object.entries(byKind) as [WaitingKind, { rows: CommentRow[] }][]).flatMap(([kind, v]) =>
      v.rows.map((row) => ({ kind, id: row.id, createdAt: row.createdAt, actorId: row.authorId, body: row.body, postId: row.postId, commentId: row.id, conversationId: null })),
    ),
    ...dm.rows.map((m) => ({ kind: "dm" as const, id: m.id, createdAt: m.createdAt, actorId: m.senderId, body: m.body, postId: null, commentId: null, conversationId: m.conversationId })),
  ]
    .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, limit);
  const counts = { dm: dm.total, comment_reply: byKind.comment_reply.total, post_comment: byKind.post_comment.total, total: 0 };
  counts.total = counts.dm + counts.comment_reply + counts.post_comment;
  return { since, counts, items: merged };
}

const WaitingItem = t.Object({
  kind: t.UnionEnum(KINDS, { default: undefined }),
  type: t.Optional(t.Union([t.UnionEnum(KINDS, { default: undefined }), t.Null()], { description: "Deprecated: use kind" })),
  waiting_since: t.String({ format: "date-time" }),
  actor: t.Union([UserOut, t.Null()]),
  message_preview: t.String(),
  post_id: t.Union([t.String({ format: "uuid" }), t.Null()]),
  comment_id: t.Union([t.String({ format: "uuid" }), t.Null()]),
  conversation_id: t.Union([t.String({ format: "uuid" }), t.Null()]),
});
const WaitingResponse = t.Object({
  cursor: t.String({ format: "date-time", description: "The effective since (after defaulting and clamping)" }),
  counts: t.Object({ dm: Int(), comment_reply: Int(), post_comment: Int(), total: Int() }),
  items: t.Array(WaitingItem),
});

export const waitingRoutes = (ctx: Ctx) =>
  new Elysia().use(authPlugin(ctx)).get(
    "/conversations/waiting",
    ({ query, caller }) => {
      const r = waitingFor(ctx, caller, query.since, query.limit ?? 50);
      const actors = findManyByIds(ctx, [...new Set(r.items.map((i) => i.actorId))]);
      return {
        cursor: iso(r.since),
        counts: r.counts,
        items: r.items.map((item) => {
          const u = actors.get(item.actorId);
          return withAliases("WaitingItem", {
            kind: item.kind,
            waiting_since: iso(item.createdAt),
            actor: u ? userOut(ctx, u) : deletedUserOut(ctx, item.actorId),
            message_preview: plainPreview(item.body),
            post_id: item.postId,
            comment_id: item.commentId,
            conversation_id: item.conversationId,
          } as Record<string, unknown>);
        }),
      } as any;
    },
    {
      auth: "required",
      query: t.Object({
        since: t.Optional(t.String({ maxLength: 64, description: "ISO 8601; default 7 days ago; older than 30 days is clamped forward. Deprecated alias: cursor." })),
        limit: t.Optional(t.Integer({ minimum: 1, maximum: 200, default: 50, description: "Max items across all kinds, 1-200, default 50" })),
      }),
      response: WaitingResponse,
      detail: {
        summary: "Waiting",
        description:
          "Threads waiting for a reply from the caller, longest waiting first: post_comment (top-level comments by others on the caller's posts) and comment_reply (replies by others to the caller's comments) that the caller has not directly replied to (a live comment of the caller's with parent_id set to it). dm: 1:1 conversations whose last message is from the other user. counts are uncapped totals per kind.",
      },
    },
  );
