// Comment rows to wire JSON: the reference service's CommentOut, plus body_html (the sanitised
// rendering) and is_deleted (tombstones). Pages load their authors in one query.
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import * as users from "../users/service";
import type { UserRow } from "../users/service";
import { deletedUserOut, userOut } from "../users/views";
import type { CommentRow } from "./read";


/** An all-zero id, so a tombstone does not reveal its author. */
const NO_ID = "00000000-0000-0000-0000-000000000000";

/** Each author's UserOut once per page (a thread repeats its authors; npub and the avatar URL cost). */
type AuthorOuts = Map<string, ReturnType<typeof userOut>>;

function authorOut(ctx: Ctx, author: UserRow, viewerId: string | null, outs?: AuthorOuts) {
  let out = outs?.get(author.id);
  if (!out) {
    out = userOut(ctx, author, { self: viewerId === author.id });
    outs?.set(author.id, out);
  }
  return out;
}

export function commentOut(ctx: Ctx, c: CommentRow, authors: Map<string, UserRow>, viewerId: string | null, outs?: AuthorOuts) {
  const deleted = c.deletedAt !== null;
  const author = deleted ? undefined : authors.get(c.authorId);
  return {
    id: c.id,
    post_id: c.postId,
    author: author ? authorOut(ctx, author, viewerId, outs) : deletedUserOut(ctx, deleted ? NO_ID : c.authorId),
    parent_id: c.parentId,
    body: c.body,
    body_html: c.bodyHtml,
    safe_text: null,
    content_warnings: [] as string[],
    score: c.score,
    source: c.source,
    client: deleted ? null : c.client,
    created_at: iso(c.createdAt),
    updated_at: iso(c.updatedAt),
    notarised_at: iso(c.notarisedAt),
    held: c.held,
    held_explanation: c.heldExplanation,
    cognition: null,
    is_deleted: deleted,
  };
}

export type CommentOutT = ReturnType<typeof commentOut>;

export function commentsOut(ctx: Ctx, rows: readonly CommentRow[], viewerId: string | null = null) {
  const authors = users.findManyByIds(ctx, rows.filter((r) => r.deletedAt === null).map((r) => r.authorId));
  const outs: AuthorOuts = new Map();
  return rows.map((r) => commentOut(ctx, r, authors, viewerId, outs));
}

export const oneCommentOut = (ctx: Ctx, row: CommentRow, viewerId: string | null = null) => commentsOut(ctx, [row], viewerId)[0];

/** A comment whose author the caller already holds (one it has just written): nothing is read. */
export const commentOutWith = (ctx: Ctx, row: CommentRow, author: UserRow, viewerId: string | null) => commentOut(ctx, row, new Map([[author.id, author]]), viewerId);

export type CommentNode = CommentOutT & { replies: CommentNode[] };

/**
 * Nests a thread (rows oldest first, every row's parent present or null) into trees with
 * `replies` arrays, oldest first at every level. A row whose parent is absent (beyond a
 * truncated thread) is placed at the top level.
 */
export function commentTree(ctx: Ctx, rows: readonly CommentRow[], viewerId: string | null = null): CommentNode[] {
  const nodes = new Map<string, CommentNode>();
  for (const out of commentsOut(ctx, rows, viewerId)) nodes.set(out.id, { ...out, replies: [] });
  const roots: CommentNode[] = [];
  for (const r of rows) {
    const node = nodes.get(r.id)!;
    const parent = r.parentId ? nodes.get(r.parentId) : undefined;
    (parent ? parent.replies : roots).push(node);
  }
  return roots;
}

export type ConversationNode = CommentOutT & { author_username: string; replies: ConversationNode[] };

/** A comment tree in the conversation's shape: each node also carries `author_username` (what the official SDKs read). */
export function conversationTree(nodes: readonly CommentNode[]): ConversationNode[] {
  return nodes.map((n) => ({ ...n, author_username: n.author.username, replies: conversationTree(n.replies) }));
}
