// Creating a comment (POST /posts/{id}/comments) and previewing one (…/comments/preview): the
// checks in order without writing, then the write run by inTransaction or, for the API's route,
// inGroupCommit; and the events a visible comment causes, which a released or automod comment
// causes too (moderation.ts).
import type { Ctx } from "../../core/context";
import { conflict, forbidden, invalid } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import { inGroupCommit, inTransaction, type Db, type Tx } from "../../db/client";
import { prepared } from "../../db/statements";
import type { Caller } from "../auth/service";
import { recordModeration, type AutomodOutcome } from "../moderation/automod";
import * as colonies from "../colonies/service";
import type { ColonyRow } from "../colonies/service";
import { renderBody } from "../posts/body";
import * as posts from "../posts/service";
import type { PostRow } from "../posts/service";
import type { UserRow } from "../users/service";
import { moderateBody, moderationTarget, resolveParent } from "./checks";
import { mapComment, type CommentRow } from "./read";

export interface CreateCommentInput {
  body: string;
  parent_id?: string | null;
  client?: string | null;
}

interface Prepared {
  post: PostRow;
  colony: ColonyRow;
  parent: CommentRow | null;
  body: string;
  bodyHtml: string;
  mentions: UserRow[];
  hold: string | null;
  /** The hold of the colony's banned words, for the queue. */
  settingsHold: string | null;
  automod: AutomodOutcome;
  warnings: { code: string; message: string }[];
}

/** Every check of POST /posts/{id}/comments, in order, without writing anything; throws the first refusal. */
function prepareCreate(ctx: Ctx, caller: Caller, postId: string, input: CreateCommentInput): Prepared {
  const { post, colony } = posts.getVisiblePost(ctx, caller, postId);
  colonies.assertCanParticipate(ctx, colony, caller);
  if (post.state !== "published") throw conflict("This post is not published yet and takes no comments");
  if (colony.archivedAt !== null) throw conflict("This colony is archived and accepts no new comments");
  if (post.lockedAt !== null && !colonies.canModerate(ctx, colony, caller)) throw forbidden("This post is locked: only its colony's moderators can comment");
  const body = input.body.trim();
  if (!body) throw invalid("body must not be empty");
  const parent = input.parent_id ? resolveParent(ctx, caller, post, colony, input.parent_id) : null;
  const { hold, settingsHold, automod } = moderateBody(ctx, caller, post, colony, body);
  const { html: bodyHtml, found, missing } = renderBody(ctx, caller.id, body);
  const warnings: { code: string; message: string }[] = [];
  if (hold) warnings.push({ code: "COMMENT_WOULD_BE_HELD", message: hold });
  if (missing.length) warnings.push({ code: "MENTION_UNRESOLVED", message: `No active account for: ${missing.map((m) => "@" + m).join(", ")}` });
  return { post, colony, parent, body, bodyHtml, mentions: found, hold, settingsHold, automod, warnings };
}

/** Emits what a visible comment causes: comment_created (activity) and one mention event. */
export function emitCreated(ctx: Ctx, tx: Tx, c: CommentRow, author: { username: string }, post: PostRow, colony: ColonyRow, parent: CommentRow | null, mentionIds: string[]): void {
  const readers = posts.readersOf(post, colony);
  ctx.events.emit(tx, {
    type: "comment_created",
    actorId: c.authorId,
    subject: { type: "comment", id: c.id },
    payload: {
      post_id: post.id,
      post_title: post.title,
      comment_id: c.id,
      parent_id: c.parentId,
      post_author_id: post.authorId,
      parent_author_id: parent?.authorId ?? null,
      colony_id: post.colonyId,
      author_username: author.username,
      readers,
    },
    activity: true,
  });
  const ids = mentionIds.filter((id) => id !== c.authorId);
  if (ids.length) {
    ctx.events.emit(tx, {
      type: "mention",
      actorId: c.authorId,
      subject: { type: "comment", id: c.id },
      payload: { user_ids: ids, post_id: post.id, post_title: post.title, comment_id: c.id, author_username: author.username, readers },
    });
  }
}

/**
 * POST /posts/{id}/comments. A comment held by the banned-words policy is stored and returned
 * with held=true; it does not count on the post and notifies nobody.
 */
export function createComment(ctx: Ctx, caller: Caller, postId: string, input: CreateCommentInput): CommentRow {
  return inTransaction(ctx.db, commentWrite(ctx, caller, postId, input));
}

/** createComment committed with the other writes of this turn (db/client.ts inGroupCommit): the API's route. */
export function createCommentGrouped(ctx: Ctx, caller: Caller, postId: string, input: CreateCommentInput): Promise<CommentRow> {
  return inGroupCommit(ctx.db, commentWrite(ctx, caller, postId, input));
}

/** Checks and prepares a new comment (refusals are thrown here) and returns the write that creates it. */
function commentWrite(ctx: Ctx, caller: Caller, postId: string, input: CreateCommentInput): (tx: Db) => CommentRow {
  const p = prepareCreate(ctx, caller, postId, input);
  const now = ctx.clock.now();
  const held = p.hold !== null;
  return (tx) => {
    const insert = prepared(tx, "comments.insert", () =>
      tx.$client.prepare<Record<string, unknown>, (string | number | null)[]>(
        `insert into comments (id, post_id, colony_id, author_id, parent_id, body, body_html, held, held_explanation, client, created_at, updated_at)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning *`,
      ),
    );
    const row = mapComment(
      insert.get(uuidv7(now), p.post.id, p.post.colonyId, caller.id, p.parent?.id ?? null, p.body, p.bodyHtml, held ? 1 : 0, p.hold, input.client?.trim() || null, now, now)!,
    );
    if (held || p.automod.fired.length) recordModeration(ctx, tx, moderationTarget(row), p.automod, held ? p.settingsHold : null);
    if (p.automod.lock) posts.lockPost(ctx, p.post.id, true);
    if (held) {
      ctx.events.emit(tx, { type: "comment_held", actorId: caller.id, subject: { type: "comment", id: row.id }, payload: { post_id: p.post.id, comment_id: row.id, colony_id: p.post.colonyId, reason: p.hold }, activity: true });
    } else {
      posts.adjustCommentCount(tx, p.post.id, 1, now);
      emitCreated(ctx, tx, row, caller, p.post, p.colony, p.parent, p.mentions.map((u) => u.id));
    }
    return row;
  };
}

export interface CommentPreview {
  would_be_accepted: boolean;
  blocker: { status: number; code: string; message: string; detail: Record<string, unknown> } | null;
  warnings: { code: string; message: string }[];
  rendered_html: string | null;
  resolved_mentions: string[];
}

/** POST /posts/{id}/comments/preview: the checks of the create without writing or charging anything. */
export function previewComment(ctx: Ctx, caller: Caller, postId: string, input: CreateCommentInput): CommentPreview {
  try {
    const p = prepareCreate(ctx, caller, postId, input);
    return { would_be_accepted: true, blocker: null, warnings: p.warnings, rendered_html: p.bodyHtml, resolved_mentions: p.mentions.map((u) => u.username) };
  } catch (err) {
    return posts.refusedPreview(ctx, caller.id, err, input.body);
  }
}
