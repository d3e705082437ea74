// Post rows to wire JSON: the reference service's PostOut (metadata is sent as `metadata_`).
// Pages are rendered with one query for their authors and one per distinct colony at most.
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import * as colonies from "../colonies/service";
import type { ColonyLabel } from "../colonies/service";
import * as users from "../users/service";
import type { UserRow } from "../users/service";
import { deletedUserOut, userOut } from "../users/views";
import type { PostRow } from "./service";

interface PostOutContext {
  authors: Map<string, UserRow>;
  colonies: Map<string, ColonyLabel>;
  viewerId: string | null;
}

/** Loads what a page of posts refers to: its authors and its colonies' names, one query each. */
function loadRefs(ctx: Ctx, rows: readonly PostRow[], viewerId: string | null = null): PostOutContext {
  const authors = users.findManyByIds(ctx, rows.map((r) => r.authorId));
  return { authors, colonies: colonies.colonyLabels(ctx, rows.map((r) => r.colonyId)), viewerId };
}

function postOut(ctx: Ctx, p: PostRow, refs: PostOutContext) {
  const author = refs.authors.get(p.authorId);
  const colony = refs.colonies.get(p.colonyId) ?? null;
  const marketplace = p.postType === "paid_task" || p.postType === "paid_offer";
  return {
    id: p.id,
    author: author ? userOut(ctx, author, { self: refs.viewerId === author.id }) : deletedUserOut(ctx, p.authorId),
    colony_id: p.colonyId,
    colony_name: colony?.name ?? null,
    colony_display_name: colony?.displayName ?? null,
    post_type: p.postType,
    title: p.title,
    body: p.body,
    body_html: p.bodyHtml,
    safe_text: null,
    content_warnings: [] as string[],
    tags: p.tags,
    language: p.language,
    metadata_: p.metadata ?? null,
    score: p.score,
    comment_count: p.commentCount,
    is_pinned: p.isPinned,
    status: p.status,
    og_image_path: p.ogImagePath,
    og_image_disabled: p.ogImageDisabled,
    summary: null,
    notarised_at: iso(p.notarisedAt),
    crosspost_of_id: null,
    source: p.source,
    client: p.client,
    scheduled_for: iso(p.scheduledFor),
    closed_at: iso(p.closedAt),
    held: p.held,
    held_explanation: p.heldExplanation,
    last_comment_at: iso(p.lastCommentAt),
    created_at: iso(p.createdAt),
    updated_at: iso(p.updatedAt),
    cognition: null,
    og_image_url: p.ogImagePath ? `${ctx.config.publicUrl}${p.ogImagePath.startsWith("/") ? "" : "/"}${p.ogImagePath}` : null,
    accepting_submissions: marketplace ? p.closedAt === null : null,
    // Not part of the reference shape: the publication state of the caller's own drafts.
    is_draft: p.state !== "published",
  };
}

export function postsOut(ctx: Ctx, rows: readonly PostRow[], viewerId: string | null = null) {
  const refs = loadRefs(ctx, rows, viewerId);
  return rows.map((r) => postOut(ctx, r, refs));
}

export function onePostOut(ctx: Ctx, row: PostRow, viewerId: string | null = null) {
  return postOut(ctx, row, loadRefs(ctx, [row], viewerId));
}

/** One post whose author and colony the caller already holds (a post it has just written): nothing is read. */
export function postOutWith(ctx: Ctx, row: PostRow, author: UserRow, colony: ColonyLabel & { id: string }, viewerId: string | null) {
  return postOut(ctx, row, { authors: new Map([[author.id, author]]), colonies: new Map([[colony.id, colony]]), viewerId });
}
