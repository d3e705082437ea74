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
import { DAY } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { waitingComments, type CommentRow, type WaitingKind } from "../comments/service";
import { waitingDirect } from "../messages/service";
import { resolveSince } from "./service";

const WAITING_DEFAULT_AGE_MS = 7 * DAY;
const WAITING_MAX_AGE_MS = 30 * DAY;
export const KINDS = ["dm", "comment_reply", "post_comment"] as const;

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
