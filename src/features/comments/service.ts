// Comments (spec Part 1 §2.4, §3, §4.5): create (with preview), read, list per post and per
// author, edit, tombstone delete, reparent, and the score counters the votes feature maintains.
//
// Visibility: a comment is visible when its post is (posts.canSee: not deleted, readable colony,
// published, held posts only to author and moderators), the comment is not deleted, and — when
// the colony's banned-words policy held it — the caller is its author or a colony moderator.
//
// Tombstones: a deleted comment keeps its row (body replaced by "[deleted]", author hidden on the
// wire). Thread reads (flat list, conversation, context) keep a tombstone while it has replies,
// so every shown comment's parent is shown too; a deleted leaf disappears. Single reads
// (GET /comments/{id}) and author lists never show tombstones.
//
// Deleted posts: every read checks the post (so comments of a deleted post are unreachable at
// once), and the post_deleted event also cascades: the post's comments are marked deleted.
import { and, asc, count, desc, eq, gt, gte, inArray, isNotNull, isNull, ne, notExists, notInArray, or, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { MINUTE, parseInstant } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError, FieldError, conflict, forbidden, invalid, notFound } from "../../core/errors";
import { isUuid, uuidv7 } from "../../core/ids";
import { changes, inGroupCommit, inTransaction, type Db, type Tx } from "../../db/client";
import { oldestAfter, type Window } from "../../db/window";
import type { Page } from "../../core/paging";
import type { Caller } from "../auth/service";
import { evaluateAutomod, hiddenExplanation, hides, NO_OUTCOME, recordModeration, type AutomodOutcome } from "../colonies/automod";
import { resolveQueueForTarget } from "../colonies/mod-queue";
import * as colonies from "../colonies/service";
import type { ColonyRow } from "../colonies/service";
import { renderBody } from "../posts/body";
import { renderMarkdown, scanMarkdown } from "../posts/content";
import { listedPostFilter } from "../posts/queries";
import * as posts from "../posts/service";
import type { PostRow } from "../posts/service";
import { prepared, preparedSql, rowMapper } from "../../db/statements";
import * as users from "../users/service";
import type { UserRow } from "../users/service";
import { assertNotFrozen } from "../notarisation/freeze";
import { comments } from "./tables";

const replies = alias(comments, "replies");

export type CommentRow = typeof comments.$inferSelect;
const mapComment = rowMapper<CommentRow>(comments);

export const EDIT_WINDOW_MS = 15 * MINUTE;
export const DELETE_WINDOW_MS = 15 * MINUTE;
export const REPARENT_WINDOW_MS = 15 * MINUTE;
export const REPARENT_MIN_KARMA = 10;
export const TOMBSTONE_BODY = "[deleted]";
/** Thread reads (context, conversation) return at most this many comments, oldest first. */
export const THREAD_MAX = 1000;

const commentNotFound = () => notFound("Comment not found");

// ---------------------------------------------------------------------------------------------
// Scores (called by the votes feature inside its write transaction)

/** Wilson score lower bound at 95% confidence of `up` positive out of `up + down`; 0 without votes. */
export function wilsonLowerBound(up: number, down: number): number {
  const n = up + down;
  if (n <= 0) return 0;
  const z = 1.959963984540054;
  const p = up / n;
  const z2 = z * z;
  return (p + z2 / (2 * n) - z * Math.sqrt((p * (1 - p) + z2 / (4 * n)) / n)) / (1 + z2 / n);
}

/**
 * Moves a comment's score, upvotes and downvotes by the given deltas and recomputes its best-sort
 * key, inside the caller's transaction. Returns the new score, or null when the comment does not exist.
 */
export function applyCommentScoreDelta(tx: Tx, commentId: string, delta: { score: number; up: number; down: number }): number | null {
  const row = tx.select({ score: comments.score, up: comments.upvotes, down: comments.downvotes }).from(comments).where(eq(comments.id, commentId)).get();
  if (!row) return null;
  const up = Math.max(0, row.up + delta.up);
  const down = Math.max(0, row.down + delta.down);
  const score = row.score + delta.score;
  tx.update(comments).set({ score, upvotes: up, downvotes: down, wilson: wilsonLowerBound(up, down) }).where(eq(comments.id, commentId)).run();
  return score;
}

/** Marks a comment notarised (Part 3 §4.15): frozen for good. False when it already was. */
export function markCommentNotarised(tx: Tx, commentId: string, at: number): boolean {
  return changes(tx.update(comments).set({ notarisedAt: at }).where(and(eq(comments.id, commentId), isNull(comments.notarisedAt))).run()) > 0;
}

/** Marks a comment as scanned by the sentinel (the sentinel_scanned filter). */
export function markCommentSentinelScanned(tx: Tx, commentId: string, at: number): void {
  tx.update(comments).set({ sentinelScannedAt: at }).where(eq(comments.id, commentId)).run();
}

// ---------------------------------------------------------------------------------------------
// Reading one comment

export function findComment(ctx: Ctx | { db: Tx }, id: string): CommentRow | null {
  if (!isUuid(id)) return null;
  return ctx.db.select().from(comments).where(eq(comments.id, id.toLowerCase())).get() ?? null;
}

const isModerator = (ctx: Ctx, colony: ColonyRow, caller: Caller | null) => !!caller && colonies.canModerate(ctx, colony, caller);

/** Whether a held comment may be shown: to its author and the colony's moderators. */
const heldVisible = (ctx: Ctx, caller: Caller | null, c: CommentRow, colony: ColonyRow) => !c.held || caller?.id === c.authorId || isModerator(ctx, colony, caller);

export interface VisibleComment {
  comment: CommentRow;
  post: PostRow;
  colony: ColonyRow;
}

/**
 * A live comment the caller may see, with its post and colony; anything else (missing, deleted,
 * on a deleted or unreadable post, held from this caller) is 404 NOT_FOUND without saying which.
 */
export function getVisibleComment(ctx: Ctx, caller: Caller | null, commentId: string): VisibleComment {
  const comment = findComment(ctx, commentId);
  if (!comment || comment.deletedAt !== null) throw commentNotFound();
  let seen: { post: PostRow; colony: ColonyRow };
  try {
    seen = posts.getVisiblePost(ctx, caller, comment.postId);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) throw commentNotFound();
    throw err;
  }
  if (!heldVisible(ctx, caller, comment, seen.colony)) throw commentNotFound();
  return { comment, ...seen };
}

// ---------------------------------------------------------------------------------------------
// Create and preview

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

/**
 * The checks of the colony's settings and automod that apply on create and edit: 403
 * KARMA_TOO_LOW below min_karma_to_comment, then the banned words and the rules (never for the
 * colony's moderators). Returns the hold, if any, and what automod did.
 */
function moderateBody(ctx: Ctx, caller: Caller, post: PostRow, colony: ColonyRow, body: string): { hold: string | null; settingsHold: string | null; automod: AutomodOutcome } {
  const moderator = colonies.canModerate(ctx, colony, caller);
  const floor = colonies.settingsOf(colony).min_karma_to_comment;
  if (floor !== undefined && floor !== null && caller.karma < floor && !moderator) {
    throw new ApiError(403, "KARMA_TOO_LOW", `Commenting in this colony needs at least ${floor} karma (you have ${caller.karma})`);
  }
  const settingsHold = bannedWordsPolicy(ctx, colony, caller, body);
  const automod = moderator
    ? NO_OUTCOME
    : evaluateAutomod(ctx, colony, { kind: "comment", title: post.title, body, postType: post.postType, author: { id: caller.id, username: caller.username, karma: caller.karma, userType: caller.userType, createdAt: caller.createdAt } });
  const hold = hides(automod, "comment") ? hiddenExplanation(automod, "comment") : automod.approvedBy ? null : settingsHold;
  return { hold, settingsHold, automod };
}

const moderationTarget = (c: CommentRow) => ({ colonyId: c.colonyId, type: "comment" as const, id: c.id, postId: c.postId, authorId: c.authorId, excerpt: c.body });

/** Resolves @mention candidates to active accounts, never the author (the rule posts apply). */

/**
 * The colony's banned-words policy applied to a comment body: `reject` is 400
 * CONTENT_BLOCKED_PHRASE for everyone; `quarantine` (the default) holds the comment for the
 * moderators unless the author moderates the colony. Returns the hold explanation or null.
 */
function bannedWordsPolicy(ctx: Ctx, colony: ColonyRow, caller: Caller, body: string): string | null {
  const word = posts.bannedWordIn(colony, body);
  if (!word) return null;
  if (colonies.settingsOf(colony).banned_words_action === "reject") {
    throw new ApiError(400, "CONTENT_BLOCKED_PHRASE", `This colony does not accept comments containing "${word}"`);
  }
  if (colonies.canModerate(ctx, colony, caller)) return null;
  return `Your comment contains a phrase ("${word}") that this colony's moderators review before it appears.`;
}

/** The parent named by `parentId`: a live comment the caller can see (else 404) on `post` (else 400). */
function resolveParent(ctx: Ctx, caller: Caller, post: PostRow, colony: ColonyRow, parentId: string): CommentRow {
  const parent = findComment(ctx, parentId);
  if (!parent || parent.deletedAt !== null) throw notFound("Parent comment not found");
  if (parent.postId !== post.id) {
    // A parent on a post the caller cannot see is as missing as one that does not exist.
    const other = posts.findPost(ctx, parent.postId);
    const otherColony = other ? colonies.findColony(ctx, other.colonyId) : null;
    if (!other || !posts.canSee(ctx, caller, other, otherColony)) throw notFound("Parent comment not found");
    throw invalid("parent_id names a comment on a different post");
  }
  if (!heldVisible(ctx, caller, parent, colony)) throw notFound("Parent comment not found");
  return parent;
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
function emitCreated(ctx: Ctx, tx: Tx, c: CommentRow, author: { username: string }, post: PostRow, colony: ColonyRow, parent: CommentRow | null, mentionIds: string[]): void {
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

// ---------------------------------------------------------------------------------------------
// Edit, delete, reparent

/**
 * PUT /comments/{id}: the author replaces the body within 15 minutes of posting (403 FORBIDDEN
 * otherwise, and for a notarised comment). An identical body changes nothing. The colony's banned-words policy applies again.
 */
export function updateComment(ctx: Ctx, caller: Caller, commentId: string, input: { body: string }): CommentRow {
  const { comment, colony, post } = getVisibleComment(ctx, caller, commentId);
  if (comment.authorId !== caller.id) throw forbidden("Only the author can edit this comment");
  assertNotFrozen("comment", comment, "edit");
  if (ctx.clock.now() - comment.createdAt > EDIT_WINDOW_MS) throw forbidden("Comments can only be edited within 15 minutes of posting");
  const body = input.body.trim();
  if (!body) throw invalid("body must not be empty");
  if (body === comment.body) return comment;
  const { hold, settingsHold, automod } = moderateBody(ctx, caller, post, colony, body);
  const bodyHtml = renderBody(ctx, caller.id, body).html;
  const now = ctx.clock.now();
  const holdNow = hold !== null && !comment.held;
  return ctx.db.transaction((tx) => {
    const row = tx
      .update(comments)
      .set({ body, bodyHtml, updatedAt: now, ...(holdNow ? { held: true, heldExplanation: hold } : {}) })
      .where(eq(comments.id, comment.id))
      .returning()
      .get();
    if (holdNow || automod.fired.length) recordModeration(ctx, tx, moderationTarget(row), automod, holdNow ? settingsHold : null);
    if (automod.lock) posts.lockPost(ctx, row.postId, true);
    if (holdNow) {
      posts.adjustCommentCount(tx, comment.postId, -1);
      ctx.events.emit(tx, { type: "comment_held", actorId: caller.id, subject: { type: "comment", id: row.id }, payload: { post_id: row.postId, comment_id: row.id, colony_id: row.colonyId, reason: hold } });
    }
    ctx.events.emit(tx, { type: "comment_updated", actorId: caller.id, subject: { type: "comment", id: row.id }, payload: { post_id: row.postId, comment_id: row.id } });
    return row;
  });
}

/**
 * DELETE /comments/{id}: tombstones the comment (body replaced, author hidden, replies kept). Its
 * author may delete within 15 minutes of posting unless it is notarised, a moderator of the colony
 * at any time (docs/decisions.md §91); anyone else is 403 FORBIDDEN.
 */
export function deleteComment(ctx: Ctx, caller: Caller, commentId: string): void {
  const { comment, colony } = getVisibleComment(ctx, caller, commentId);
  const moderator = colonies.canModerate(ctx, colony, caller);
  if (comment.authorId === caller.id) {
    assertNotFrozen("comment", comment, "delete");
    if (!moderator && ctx.clock.now() - comment.createdAt > DELETE_WINDOW_MS) throw forbidden("Comments can only be deleted by their author within 15 minutes of posting");
  } else if (!moderator) {
    throw forbidden("Only the author or a moderator of this colony can delete this comment");
  }
  const now = ctx.clock.now();
  ctx.db.transaction((tx) => {
    tx.update(comments).set({ deletedAt: now, updatedAt: now, body: TOMBSTONE_BODY, bodyHtml: `<p>${TOMBSTONE_BODY}</p>` }).where(eq(comments.id, comment.id)).run();
    if (!comment.held) posts.adjustCommentCount(tx, comment.postId, -1);
    resolveQueueForTarget(ctx, comment.id, "content_deleted", caller.id);
    ctx.events.emit(tx, {
      type: "comment_deleted",
      actorId: caller.id,
      subject: { type: "comment", id: comment.id },
      payload: { post_id: comment.postId, comment_id: comment.id, author_id: comment.authorId, by_moderator: comment.authorId !== caller.id },
    });
  });
}

const hasReplies = (ctx: Ctx, id: string) => !!ctx.db.select({ id: comments.id }).from(comments).where(eq(comments.parentId, id)).limit(1).get();

/** Whether `candidate` is `ancestorId` or lies below it (walks up from the candidate). */
function isSelfOrDescendant(ctx: Ctx, candidate: CommentRow, ancestorId: string): boolean {
  let cur: CommentRow | null = candidate;
  for (let hops = 0; cur && hops < 10_000; hops++) {
    if (cur.id === ancestorId) return true;
    cur = cur.parentId ? findComment(ctx, cur.parentId) : null;
  }
  return false;
}

/**
 * POST /comments/{id}/reparent: the author (403 FORBIDDEN) of a comment that is not notarised
 * (403 FORBIDDEN), with at least 10 karma (403 KARMA_TOO_LOW), within 15 minutes (403
 * FORBIDDEN) moves a comment without replies (409 CONFLICT) under another live comment of the same post (404 when missing, 400 INVALID_INPUT
 * for another post, itself or a descendant), or to the top level with null. Nobody is notified.
 */
export function reparentComment(ctx: Ctx, caller: Caller, commentId: string, parentId: string | null): CommentRow {
  const { comment, post, colony } = getVisibleComment(ctx, caller, commentId);
  if (comment.authorId !== caller.id) throw forbidden("Only the author can move this comment");
  assertNotFrozen("comment", comment, "reparent");
  if (caller.karma < REPARENT_MIN_KARMA) throw new ApiError(403, "KARMA_TOO_LOW", `Moving a comment needs at least ${REPARENT_MIN_KARMA} karma (you have ${caller.karma})`);
  if (ctx.clock.now() - comment.createdAt > REPARENT_WINDOW_MS) throw forbidden("Comments can only be moved within 15 minutes of posting");
  if (hasReplies(ctx, comment.id)) throw conflict("This comment has replies; moving it would move them too. Ask a moderator.");
  let target: string | null = null;
  if (parentId !== null) {
    if (parentId.toLowerCase() === comment.id) throw invalid("A comment cannot be its own parent");
    const parent = resolveParent(ctx, caller, post, colony, parentId);
    if (isSelfOrDescendant(ctx, parent, comment.id)) throw invalid("The new parent is one of this comment's own replies");
    target = parent.id;
  }
  if (target === comment.parentId) return comment;
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    const row = tx.update(comments).set({ parentId: target, updatedAt: now }).where(eq(comments.id, comment.id)).returning().get();
    ctx.events.emit(tx, { type: "comment_reparented", actorId: caller.id, subject: { type: "comment", id: row.id }, payload: { post_id: row.postId, comment_id: row.id, from_parent_id: comment.parentId, to_parent_id: target } });
    return row;
  });
}

// ---------------------------------------------------------------------------------------------
// Thread reads

export const COMMENT_SORTS = ["oldest", "newest", "best", "top"] as const;
export type CommentSort = (typeof COMMENT_SORTS)[number];

/** Thread membership: live comments, plus tombstones that still have replies (see the header). */
function threadMember(): SQL {
  const reply = sql`exists (select 1 from ${comments} as r where r.parent_id = ${comments.id})`;
  return or(isNull(comments.deletedAt), reply)!;
}

/** Held comments are shown to their author and the colony's moderators only. */
function heldFilter(ctx: Ctx, caller: Caller | null, colony: ColonyRow): SQL | undefined {
  if (isModerator(ctx, colony, caller)) return undefined;
  return caller ? or(eq(comments.held, false), eq(comments.authorId, caller.id)) : eq(comments.held, false);
}

export interface ListCommentsFilters {
  sort?: CommentSort;
  since?: string;
  sentinel_scanned?: boolean;
}

/** The WHERE and ORDER BY of GET /posts/{id}/comments for a post the caller can see. */
export function postCommentsQuery(ctx: Ctx, caller: Caller | null, post: PostRow, colony: ColonyRow, f: ListCommentsFilters): { where: SQL; order: SQL[] } {
  const conds: (SQL | undefined)[] = [eq(comments.postId, post.id), threadMember(), heldFilter(ctx, caller, colony)];
  if (f.since !== undefined && f.since !== "") {
    const at = parseInstant(f.since);
    if (at === null) throw new FieldError(["query", "since"], "Input should be a valid datetime (ISO 8601, e.g. 2026-07-01T00:00:00Z)", f.since, "datetime_parsing");
    conds.push(gt(comments.createdAt, at));
  }
  if (f.sentinel_scanned !== undefined) conds.push(f.sentinel_scanned ? isNotNull(comments.sentinelScannedAt) : isNull(comments.sentinelScannedAt));
  const sort = f.sort ?? "oldest";
  const order =
    sort === "newest"
      ? [desc(comments.createdAt), desc(comments.id)]
      : sort === "top"
        ? [desc(comments.score), asc(comments.createdAt), asc(comments.id)]
        : sort === "best"
          ? [desc(comments.wilson), asc(comments.createdAt), asc(comments.id)]
          : [asc(comments.createdAt), asc(comments.id)];
  return { where: and(...conds.filter((c) => c !== undefined))!, order };
}

/** GET /posts/{id}/comments: the flat stream of a post's comments, sorted and paged. */
export function listPostComments(ctx: Ctx, caller: Caller | null, postId: string, f: ListCommentsFilters, page: Page): { items: CommentRow[]; total: number; has_more: boolean } {
  const { post, colony } = posts.getVisiblePost(ctx, caller, postId);
  const { where, order } = postCommentsQuery(ctx, caller, post, colony, f);
  const items = ctx.db.select().from(comments).where(where).orderBy(...order).limit(page.limit).offset(page.offset).all();
  const total = ctx.db.select({ n: count() }).from(comments).where(where).get()!.n;
  return { items, total, has_more: page.offset + items.length < total };
}

/**
 * Every thread member of a visible post, oldest first (at most THREAD_MAX), for trees. The same
 * WHERE as postCommentsQuery without filters, as one statement per audience (threadAudience)
 * prepared once: the context pack and the conversation read it every time.
 */
export function threadOf(ctx: Ctx, caller: Caller | null, post: PostRow, colony: ColonyRow, audience?: ThreadAudience): { items: CommentRow[]; truncated: boolean } {
  // Without an audience, any signed-in caller reads as a possible author (no query to find out).
  audience ??= !caller ? "public" : isModerator(ctx, colony, caller) ? "moderator" : "author";
  const db = ctx.db;
  // Raw rows mapped by mapComment: drizzle's own row mapping cost more than the query itself.
  const stmt = preparedSql(db, `comments.thread.${audience}`, () => {
    const held = audience === "moderator" ? undefined : audience === "author" ? or(eq(comments.held, false), eq(comments.authorId, sql.placeholder("viewer"))) : eq(comments.held, false);
    return db
      .select()
      .from(comments)
      .where(and(eq(comments.postId, sql.placeholder("post")), threadMember(), held))
      .orderBy(asc(comments.createdAt), asc(comments.id))
      .limit(THREAD_MAX + 1)
      .getSQL();
  });
  const rows = stmt.all({ post: post.id, viewer: caller?.id ?? null }).map(mapComment);
  return { items: rows.slice(0, THREAD_MAX), truncated: rows.length > THREAD_MAX };
}

/**
 * Which of a thread's comments a caller sees: every one (the colony's moderators), the unheld ones
 * and their own held ones (an author with a held comment on the post), or the unheld ones (anyone
 * else, who all see the same list).
 */
export type ThreadAudience = "moderator" | "author" | "public";

export function threadAudience(ctx: Ctx, caller: Caller | null, post: PostRow, colony: ColonyRow): ThreadAudience {
  if (!caller) return "public";
  if (isModerator(ctx, colony, caller)) return "moderator";
  const stmt = preparedSql(ctx.db, "comments.heldBy", () => sql`select 1 from ${comments} where ${comments.postId} = ${sql.placeholder("post")} and ${comments.authorId} = ${sql.placeholder("author")} and ${comments.held} = 1 limit 1`);
  return stmt.get({ post: post.id, author: caller.id }) ? "author" : "public";
}

/** How many live comments `userId` has on `postId` (the context pack's your_comment_count). */
export function commentCountBy(ctx: Ctx, postId: string, userId: string): number {
  const db = ctx.db;
  const stmt = prepared(db, "comments.countBy", () =>
    db
      .select({ n: count() })
      .from(comments)
      .where(and(eq(comments.postId, sql.placeholder("post")), eq(comments.authorId, sql.placeholder("author")), isNull(comments.deletedAt)))
      .prepare(),
  );
  return stmt.get({ post: postId, author: userId })!.n;
}

// ---------------------------------------------------------------------------------------------
// Per-author lists

/**
 * The WHERE of GET /users/{id}/comments: the author's live comments on listed posts (not deleted,
 * draft, scheduled or held) in colonies the caller may read; held comments only to their author.
 */
export function userCommentsWhere(ctx: Ctx, caller: Caller | null, authorId: string): SQL {
  return and(
    eq(comments.authorId, authorId),
    isNull(comments.deletedAt),
    caller?.id === authorId ? undefined : eq(comments.held, false),
    listedPostFilter(comments.postId),
    colonies.readableColonyFilter(ctx, caller, comments.colonyId),
  )!;
}

/** GET /users/{user_id}/comments (id or username) and /users/by-username/{username}/comments. */
export function listUserComments(ctx: Ctx, caller: Caller | null, ref: users.AuthorRef, page: Page): { items: CommentRow[]; total: number; has_more: boolean } {
  const author = users.getListedAuthor(ctx, ref);
  const where = userCommentsWhere(ctx, caller, author.id);
  const items = ctx.db.select().from(comments).where(where).orderBy(desc(comments.createdAt), desc(comments.id)).limit(page.limit).offset(page.offset).all();
  const total = ctx.db.select({ n: count() }).from(comments).where(where).get()!.n;
  return { items, total, has_more: page.offset + items.length < total };
}

// ---------------------------------------------------------------------------------------------
// Moderation (the queue's actions; each runs in the caller's transaction when there is one)

/** Releases a held comment: it counts on its post and notifies as a new comment would. False when not held. */
export function releaseHeldComment(ctx: Ctx, commentId: string): boolean {
  const c = findComment(ctx, commentId);
  if (!c || !c.held || c.deletedAt !== null) return false;
  const post = posts.findPost(ctx, c.postId);
  const colony = post ? colonies.findColony(ctx, post.colonyId) : null;
  const author = users.findById(ctx, c.authorId);
  if (!post || !colony || !author) return false;
  const parent = c.parentId ? findComment(ctx, c.parentId) : null;
  const mentions = users.resolveMentions(ctx, c.authorId, scanMarkdown(c.body).mentionCandidates).found.map((u) => u.id);
  const now = ctx.clock.now();
  ctx.db.transaction((tx) => {
    const row = tx.update(comments).set({ held: false, heldExplanation: null, updatedAt: now }).where(eq(comments.id, c.id)).returning().get();
    posts.adjustCommentCount(tx, c.postId, 1, now);
    emitCreated(ctx, tx, row, author, post, colony, parent, mentions);
  });
  return true;
}

/** A moderator's removal of a comment: the tombstone of deleteComment, without the windows. False when already deleted. */
export function removeCommentByModerator(ctx: Ctx, actorId: string, commentId: string): boolean {
  const c = findComment(ctx, commentId);
  if (!c || c.deletedAt !== null) return false;
  const now = ctx.clock.now();
  ctx.db.transaction((tx) => {
    tx.update(comments).set({ deletedAt: now, updatedAt: now, body: TOMBSTONE_BODY, bodyHtml: `<p>${TOMBSTONE_BODY}</p>` }).where(eq(comments.id, c.id)).run();
    if (!c.held) posts.adjustCommentCount(tx, c.postId, -1);
    ctx.events.emit(tx, {
      type: "comment_deleted",
      actorId,
      subject: { type: "comment", id: c.id },
      payload: { post_id: c.postId, comment_id: c.id, author_id: c.authorId, by_moderator: true },
    });
  });
  return true;
}

/**
 * An automod rule's reply_with_comment: a comment by `authorId` (the rule's author) on the post,
 * under the comment the rule fired on when there is one. `marker` (the firing event) makes a
 * redelivery a no-op. Skips a deleted post or parent.
 */
export function postAutomodReply(ctx: Ctx, authorId: string, postId: string, parentId: string | null, body: string, marker: string): CommentRow | null {
  const client = `automod:${marker}`;
  if (ctx.db.select({ id: comments.id }).from(comments).where(and(eq(comments.postId, postId), eq(comments.client, client))).get()) return null;
  const post = posts.findPost(ctx, postId);
  const colony = post ? colonies.findColony(ctx, post.colonyId) : null;
  const author = users.findById(ctx, authorId);
  const parent = parentId ? findComment(ctx, parentId) : null;
  if (!post || post.deletedAt !== null || !colony || !author || (parentId && (!parent || parent.deletedAt !== null))) return null;
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    const row = tx
      .insert(comments)
      .values({ id: uuidv7(now), postId, colonyId: post.colonyId, authorId, parentId, body, bodyHtml: renderMarkdown(body, [], ctx.config.publicUrl), held: false, client, createdAt: now, updatedAt: now })
      .returning()
      .get();
    posts.adjustCommentCount(tx, postId, 1, now);
    emitCreated(ctx, tx, row, author, post, colony, parent, []);
    return row;
  });
}

/** The newest live comments on the given posts (held ones included), for the automod dry run. */
export function recentCommentsOnPosts(ctx: Ctx, postIds: readonly string[], limit: number): CommentRow[] {
  if (!postIds.length) return [];
  return ctx.db
    .select()
    .from(comments)
    .where(and(inArray(comments.postId, [...postIds]), isNull(comments.deletedAt)))
    .orderBy(desc(comments.createdAt))
    .limit(limit)
    .all();
}

// ---------------------------------------------------------------------------------------------
// Cascade

/** Marks every live comment of a deleted post deleted (bodies are kept; the post is gone anyway). */
export function cascadePostDeleted(ctx: Ctx, postId: string): number {
  return changes(
    ctx.db
      .update(comments)
      .set({ deletedAt: ctx.clock.now(), deletedWithPost: true })
      .where(and(eq(comments.postId, postId), isNull(comments.deletedAt)))
      .run(),
  );
}

/** Comments by id in one query (no visibility check). */
export function commentsByIds(ctx: Ctx, ids: readonly string[]): Map<string, CommentRow> {
  const unique = [...new Set(ids)];
  if (!unique.length) return new Map();
  return new Map(ctx.db.select().from(comments).where(inArray(comments.id, unique)).all().map((c) => [c.id, c]));
}

/** Whether the user has ever written a comment (any row, tombstones included). */
export function hasCommented(db: Pick<Db, "select">, userId: string): boolean {
  return !!db.select({ id: comments.id }).from(comments).where(eq(comments.authorId, userId)).limit(1).get();
}

/** The author's live (not deleted) comments: achievements. */
export function liveCommentCount(ctx: Ctx, userId: string): number {
  return ctx.db.select({ n: count() }).from(comments).where(and(eq(comments.authorId, userId), isNull(comments.deletedAt))).get()?.n ?? 0;
}

// ---------------------------------------------------------------------------------------------
// Polling (GET /delta's comment stream, GET /conversations/waiting)

/**
 * GET /delta's comment stream: the oldest live, unheld comments in (since, upper] on listed posts
 * in public (non-private) colonies, excluding `excludeAuthor`'s own when given.
 */
export function publicCommentsAfter(ctx: Ctx, excludeAuthor: string | null, w: Window, limit: number): { rows: CommentRow[]; truncated: boolean } {
  const where = and(
    isNull(comments.deletedAt),
    eq(comments.held, false),
    colonies.readableColonyFilter(ctx, null, comments.colonyId),
    listedPostFilter(comments.postId),
    excludeAuthor ? ne(comments.authorId, excludeAuthor) : undefined,
  );
  return oldestAfter<CommentRow>(ctx.db, comments, comments.createdAt, comments.id, where, w, limit);
}

export type WaitingKind = "post_comment" | "comment_reply";

/**
 * Comments waiting for `caller`'s reply, created after `since`, oldest first (at most `limit`
 * per kind), plus the uncapped total per kind. A comment waits when it is live, not held, in a
 * colony the caller can read, written by someone else, and the caller has no live comment whose
 * parent_id is that comment ("directly replied to"); kinds:
 * - post_comment: a top-level comment on a live post of the caller's;
 * - comment_reply: a reply whose parent comment is the caller's (on anyone's post).
 */
export function waitingComments(
  ctx: Ctx,
  caller: { id: string; isAdmin: boolean },
  since: number,
  limit: number,
): Record<WaitingKind, { rows: CommentRow[]; total: number }> {
  const mine = alias(comments, "mine");
  const parent = alias(comments, "parent");
  const base = and(
    gt(comments.createdAt, since),
    isNull(comments.deletedAt),
    eq(comments.held, false),
    ne(comments.authorId, caller.id),
    colonies.readableColonyFilter(ctx, caller, comments.colonyId),
    notExists(ctx.db.select({ one: sql`1` }).from(mine).where(and(eq(mine.parentId, comments.id), eq(mine.authorId, caller.id), isNull(mine.deletedAt)))),
  );
  const kinds: Record<WaitingKind, SQL> = {
    post_comment: and(base, isNull(comments.parentId), inArray(comments.postId, posts.livePostIdsBy(ctx, caller.id)))!,
    comment_reply: and(
      base,
      inArray(comments.parentId, ctx.db.select({ id: parent.id }).from(parent).where(and(eq(parent.authorId, caller.id), isNull(parent.deletedAt)))),
    )!,
  };
  const out = {} as Record<WaitingKind, { rows: CommentRow[]; total: number }>;
  for (const [kind, where] of Object.entries(kinds) as [WaitingKind, SQL][]) {
    const rows = ctx.db.select().from(comments).where(where).orderBy(asc(comments.createdAt), asc(comments.id)).limit(limit).all();
    const total = rows.length < limit ? rows.length : ctx.db.select({ n: count() }).from(comments).where(where).get()!.n;
    out[kind] = { rows, total };
  }
  return out;
}

/** Of `postIds`, those the user has a live comment on (feed demotion). */
export function commentedPostIds(ctx: Ctx, userId: string, postIds: readonly string[]): Set<string> {
  const ids = [...new Set(postIds)];
  if (!ids.length) return new Set();
  // One statement for any number of ids (feeds ask about hundreds at once).
  const stmt = prepared(ctx.db, "comments.commentedPostIds", () =>
    ctx.db.$client.prepare("select distinct post_id as postId from comments where author_id = ? and deleted_at is null and post_id in (select value from json_each(?))"),
  );
  return new Set((stmt.all(userId, JSON.stringify(ids)) as { postId: string }[]).map((r) => r.postId));
}

/** Live, not held comments by any of `authorIds` since `since`, newest first (feed comment items; post visibility is the caller's check). */
export function recentCommentsBy(ctx: Ctx, authorIds: readonly string[], since: number, limit: number): CommentRow[] {
  if (!authorIds.length) return [];
  return ctx.db
    .select()
    .from(comments)
    .where(and(inArray(comments.authorId, [...authorIds]), gte(comments.createdAt, since), isNull(comments.deletedAt), eq(comments.held, false)))
    .orderBy(desc(comments.createdAt), desc(comments.id))
    .limit(limit)
    .all();
}

/**
 * Live comments by others on the user's live posts since `since` that the user has not replied to
 * (no live child comment by the user), newest first: reply suggestions.
 */
export function unansweredCommentsOnPostsOf(ctx: Ctx, userId: string, since: number, limit: number): CommentRow[] {
  const own = posts.livePostIdsOfQuery(ctx, userId);
  const replied = ctx.db.select({ id: sql`${replies.parentId}` }).from(replies).where(and(eq(replies.authorId, userId), isNull(replies.deletedAt), isNotNull(replies.parentId)));
  return ctx.db
    .select()
    .from(comments)
    .where(and(inArray(comments.postId, own), ne(comments.authorId, userId), gte(comments.createdAt, since), isNull(comments.deletedAt), eq(comments.held, false), notInArray(comments.id, replied)))
    .orderBy(desc(comments.createdAt), desc(comments.id))
    .limit(limit)
    .all();
}

/** Files every comment of a post under the post's new colony (moderation's move-out), in the caller's transaction. */
export function setPostCommentsColony(tx: Tx, postId: string, colonyId: string): void {
  tx.update(comments).set({ colonyId }).where(eq(comments.postId, postId)).run();
}
