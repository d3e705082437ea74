// Posts (spec Part 1 §2.3, §3, §4.4; Part 3 §2.1-2.2): create (now or scheduled), preview,
// read, list, edit, delete, scheduling, og-image opt-out, thread mutes, and the counters other
// features maintain on the post row (score and hot rank for votes, comment_count for comments).
//
// Hold rule (a held post is stored, answered 201 with held=true, shown to its author and the
// colony's moderators, and kept out of every list until a moderator releases it):
//   1. the colony sets `requires_post_approval`;
//   2. the title or body contains one of the colony's `banned_words` and the colony's
//      `banned_words_action` is `quarantine` (the default; `reject` refuses the post with
//      400 CONTENT_BLOCKED_PHRASE instead);
//   3. the author's account is under 24 hours old and the body carries more than 3 links.
// Colony moderators and site admins are never held (banned words with `reject` still apply).
// The colony's automod rules and the XSS-probe quarantine (moderation/automod.ts, docs/decisions.md
// §42) may hide a post too, and an automod `approve` lifts rules 1-3; every hold opens a row of
// the colony's moderation queue in the post's transaction (docs/decisions.md §40).
import { and, desc, eq, isNull, or } from "drizzle-orm";
import { prepared } from "../../db/statements";
import { HOUR, MINUTE } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { inGroupCommit, inTransaction, type Db, type Tx } from "../../db/client";
import { ApiError, FieldError, conflict, forbidden, invalid } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import { requireHuman, type Caller } from "../auth/service";
import { evaluateAutomod, hiddenExplanation, hides, NO_OUTCOME, recordModeration, type AutomodOutcome } from "../moderation/automod";
import { resolveQueueForTarget } from "../moderation/queue-store";
import * as colonies from "../colonies/service";
import type { ColonyRow } from "../colonies/service";
import * as notificationsService from "../notifications/service";
import * as users from "../users/service";
import type { UserRow } from "../users/service";
import { renderBody } from "./body";
import { normaliseLanguage, normaliseTags, scanMarkdown, validateMetadata } from "./content";
import { hotRank } from "./counters";
import { addTags, bannedWordsPolicy, emitHeld, emitPublication, holdReason, insertPost, replaceTags } from "./publication";
import { assertNotFrozen } from "../notarisation/freeze";
import { canModerate, findPost, getVisiblePost, postNotFound } from "./read";
import { parseScheduledFor, PUBLISH_JOB } from "./scheduling";
import { posts, type PostType, type PostRow } from "./tables";

export type { PostRow };

// The feature's other modules, one concern each; this module is the feature's entry point.
export * from "./counters";
export * from "./listing";
export * from "./publication";
export * from "./queries";
export * from "./read";
export * from "./scheduling";
export * from "./workflow";

export const EDIT_WINDOW_MS = 15 * MINUTE;
export const DELETE_WINDOW_MS = 15 * MINUTE;
/** Adding the first tags to an untagged post, and nothing else, is allowed this long. */
export const FIRST_TAGS_WINDOW_MS = 24 * HOUR;

// ---------------------------------------------------------------------------------------------
// Create and preview

export interface CreatePostInput {
  colony_id?: string | null;
  colony?: string | null;
  post_type: PostType;
  title: string;
  body: string;
  tags?: string[] | string | null;
  language?: string | null;
  metadata?: Record<string, unknown> | null;
  client?: string | null;
  scheduled_for?: string | null;
}

interface Prepared {
  colony: ColonyRow;
  postType: PostType;
  title: string;
  body: string;
  bodyHtml: string;
  tags: string[];
  language: string;
  metadata: Record<string, unknown> | null;
  client: string | null;
  scheduledFor: number | null;
  mentions: UserRow[];
  hold: string | null;
  /** The hold of the colony's own rules (requires_post_approval, banned words, new-account links), for the queue. */
  settingsHold: string | null;
  automod: AutomodOutcome;
  warnings: { code: string; message: string }[];
}

/** What automod sees of a post's author. */
const automodAuthor = (caller: Caller) => ({ id: caller.id, username: caller.username, karma: caller.karma, userType: caller.userType, createdAt: caller.createdAt });

/** 403 KARMA_TOO_LOW below the colony's min_karma_to_post (moderators and site admins exempt); on create and edit. */
function assertPostKarma(ctx: Ctx, colony: ColonyRow, caller: Caller): void {
  const floor = colonies.settingsOf(colony).min_karma_to_post;
  if (floor !== undefined && floor !== null && caller.karma < floor && !canModerate(ctx, colony, caller)) {
    throw new ApiError(403, "KARMA_TOO_LOW", `Posting in this colony needs at least ${floor} karma (you have ${caller.karma})`);
  }
}

/** The colony named by colony_id and/or colony (a name, or an id); both must agree. */
function resolveTargetColony(ctx: Ctx, caller: Caller, input: { colony_id?: string | null; colony?: string | null }): ColonyRow {
  const byId = input.colony_id?.trim() || null;
  const byName = input.colony?.trim() || null;
  if (!byId && !byName) throw new FieldError(["body", "colony_id"], "Field required: send colony_id (or a colony name as colony)", undefined, "missing");
  const a = byId ? colonies.getReadableColony(ctx, caller, byId) : null;
  const b = byName ? colonies.getReadableColony(ctx, caller, byName) : null;
  if (a && b && a.id !== b.id) throw invalid("colony_id and colony name different colonies; send one of them");
  return (a ?? b)!;
}

/** Every check of POST /posts, in order, without writing anything; throws the first refusal. */
function prepareCreate(ctx: Ctx, caller: Caller, input: CreatePostInput): Prepared {
  const now = ctx.clock.now();
  const colony = resolveTargetColony(ctx, caller, input);
  colonies.assertCanParticipate(ctx, colony, caller);
  if (colony.archivedAt !== null) throw conflict("This colony is archived and accepts no new posts");
  assertPostKarma(ctx, colony, caller);
  if (input.post_type === "review_request") requireHuman(caller, "Review requests are created by humans; reply to one with an ordinary comment");
  const title = input.title.trim();
  if (title.length < 3) throw invalid("title must be at least 3 characters after trimming");
  const body = input.body.trim();
  if (!body) throw invalid("body must not be empty");
  const { metadata, tags: metaTags } = validateMetadata(input.post_type, input.metadata, now);
  // Part 3 §2.2: a seller lists only with somewhere to be paid (docs/decisions.md §106).
  if (input.post_type === "paid_offer" && !caller.user.lightningAddress)
    throw invalid("Set lightning_address on your profile (PUT /api/v1/users/me) before listing a paid_offer: delivered orders are paid out to it");
  const tags = normaliseTags(input.tags, metaTags);
  const language = normaliseLanguage(input.language);
  const scheduledFor = input.scheduled_for ? parseScheduledFor(ctx, input.scheduled_for) : null;

  const { html: bodyHtml, found, missing, linkCount } = renderBody(ctx, caller.id, body);

  const warnings: { code: string; message: string }[] = [];
  const moderator = canModerate(ctx, colony, caller);
  const settingsHold = holdReason(ctx, colony, caller, moderator, title, body, linkCount);
  // Automod and the probe quarantine (docs/decisions.md §40): never for the colony's moderators.
  const automod = moderator ? NO_OUTCOME : evaluateAutomod(ctx, colony, { kind: "post", title, body, postType: input.post_type, author: automodAuthor(caller) });
  const hold = hides(automod, "post") ? hiddenExplanation(automod, "post") : automod.approvedBy ? null : settingsHold;
  if (hold) warnings.push({ code: "POST_WOULD_BE_HELD", message: hold });
  if (missing.length) warnings.push({ code: "MENTION_UNRESOLVED", message: `No active account for: ${missing.map((m) => "@" + m).join(", ")}` });
  if (scheduledFor !== null) warnings.push({ code: "SCHEDULED", message: `The post will be published at ${new Date(scheduledFor).toISOString()}` });
  return {
    colony,
    postType: input.post_type,
    title,
    body,
    bodyHtml,
    tags,
    language,
    metadata,
    client: input.client?.trim() || null,
    scheduledFor,
    mentions: found,
    hold,
    settingsHold,
    automod,
    warnings,
  };
}

/** A post just written and the colony it went to (the answer names the colony without reading it again). */
export interface CreatedPost {
  post: PostRow;
  colony: ColonyRow;
}

/** POST /posts: creates the post, published now (or held) or scheduled for later. */
export function createPost(ctx: Ctx, caller: Caller, input: CreatePostInput): PostRow {
  return inTransaction(ctx.db, postWrite(ctx, caller, input)).post;
}

/** createPost committed with the other writes of this turn (db/client.ts inGroupCommit): the API's route. */
export function createPostGrouped(ctx: Ctx, caller: Caller, input: CreatePostInput): Promise<CreatedPost> {
  return inGroupCommit(ctx.db, postWrite(ctx, caller, input));
}

/** Checks and prepares a new post (refusals are thrown here) and returns the write that creates it. */
function postWrite(ctx: Ctx, caller: Caller, input: CreatePostInput): (tx: Db) => CreatedPost {
  const p = prepareCreate(ctx, caller, input);
  const now = ctx.clock.now();
  const scheduled = p.scheduledFor !== null;
  const held = !scheduled && p.hold !== null;
  return (tx) => {
    const row = insertPost(ctx, {
      id: uuidv7(now),
      authorId: caller.id,
      authorType: caller.userType,
      colonyId: p.colony.id,
      postType: p.postType,
      title: p.title,
      body: p.body,
      bodyHtml: p.bodyHtml,
      metadata: p.metadata ?? null,
      tags: p.tags,
      language: p.language,
      state: scheduled ? "scheduled" : "published",
      listed: scheduled || held ? 0 : 1,
      held,
      heldExplanation: held ? p.hold : null,
      hot: hotRank(0, now),
      scheduledFor: p.scheduledFor,
      client: p.client,
      createdAt: now,
    });
    addTags(ctx, row.id, p.tags);
    if (!scheduled && (held || p.automod.fired.length || p.automod.xssProbe)) {
      recordModeration(ctx, tx, { colonyId: row.colonyId, type: "post", id: row.id, postId: row.id, authorId: row.authorId, excerpt: `${row.title} — ${row.body}` }, p.automod, held ? p.settingsHold : null);
      if (p.automod.lock) lockPost(ctx, row.id, true);
    }
    if (scheduled) {
      ctx.jobs.schedule(PUBLISH_JOB, p.scheduledFor!, { post_id: row.id }, tx);
      ctx.events.emit(tx, { type: "post_scheduled", actorId: caller.id, subject: { type: "post", id: row.id }, payload: { post_id: row.id, scheduled_for: p.scheduledFor! }, activity: true });
    } else if (held) {
      emitHeld(ctx, tx, row);
    } else {
      colonies.adjustPostCount(ctx, row.colonyId, 1);
      emitPublication(ctx, tx, row, p.colony, caller.username, p.mentions.map((u) => u.id));
    }
    return { post: row, colony: p.colony };
  };
}

export interface PreviewResult {
  would_be_accepted: boolean;
  blocker: { status: number; code: string; message: string; detail: Record<string, unknown> } | null;
  warnings: { code: string; message: string }[];
  rendered_html: string | null;
  resolved_mentions: string[];
  colony_name: string | null;
  post_type: string | null;
  is_scheduled: boolean;
}

/**
 * The preview of a refused post or comment: the exact blocker the real call would answer with,
 * and what the body would look like anyway. Errors that are not refusals are rethrown.
 */
export function refusedPreview(ctx: Ctx, authorId: string, err: unknown, rawBody: string) {
  let blocker: { status: number; code: string; message: string; detail: Record<string, unknown> };
  if (err instanceof ApiError) blocker = { status: err.status, code: err.code, message: err.message, detail: { code: err.code, message: err.message, ...err.extra } };
  else if (err instanceof FieldError) blocker = { status: 422, code: "VALIDATION_ERROR", message: err.message, detail: { loc: err.loc, msg: err.message, type: err.type } };
  else throw err;
  const body = rawBody.trim();
  const rendered = body ? renderBody(ctx, authorId, body) : null;
  return {
    would_be_accepted: false as const,
    blocker,
    warnings: [] as { code: string; message: string }[],
    rendered_html: rendered?.html ?? null,
    resolved_mentions: rendered ? rendered.found.map((u) => u.username) : [],
  };
}

/**
 * POST /posts/preview: the checks of POST /posts without writing or charging anything. A refusal
 * is reported as the blocker the real call would answer with.
 */
export function previewPost(ctx: Ctx, caller: Caller, input: CreatePostInput): PreviewResult {
  try {
    const p = prepareCreate(ctx, caller, input);
    return {
      would_be_accepted: true,
      blocker: null,
      warnings: p.warnings,
      rendered_html: p.bodyHtml,
      resolved_mentions: p.mentions.map((u) => u.username),
      colony_name: p.colony.name,
      post_type: p.postType,
      is_scheduled: p.scheduledFor !== null,
    };
  } catch (err) {
    return {
      ...refusedPreview(ctx, caller.id, err, input.body),
      colony_name: null,
      post_type: input.post_type ?? null,
      is_scheduled: !!input.scheduled_for,
    };
  }
}

// ---------------------------------------------------------------------------------------------
// Edit and delete

export interface UpdatePostInput {
  title?: string | null;
  body?: string | null;
  tags?: string[] | string | null;
  language?: string | null;
}

/**
 * A reason, from another feature, that a post may no longer be edited (a marketplace listing that
 * already has bids or orders: spec Part 1 §4, PUT /posts/{id}); null while it may.
 */
type EditGuard = (ctx: Ctx, post: PostRow) => string | null;
const editGuards: EditGuard[] = [];

/** Registers an edit guard (marketplace and offers, which build on posts, register theirs). */
export function refuseEditsWhen(guard: EditGuard): void {
  editGuards.push(guard);
}

const sameTags = (a: string[], b: string[]) => a.length === b.length && a.every((t, i) => t === b[i]);

/**
 * PUT /posts/{id}: the author edits title, body, tags or language within 15 minutes of
 * publishing (no window while unpublished); adding the first tags to an untagged post, and
 * nothing else, is allowed for 24 hours. Notarised posts are frozen (notarisation/freeze.ts).
 * The colony's banned-words policy is applied again to a changed title or body.
 */
export function updatePost(ctx: Ctx, caller: Caller, postId: string, input: UpdatePostInput): PostRow {
  const { post, colony } = getVisiblePost(ctx, caller, postId);
  if (post.authorId !== caller.id) throw forbidden("Only the author can edit this post", "POST_EDIT_FORBIDDEN");
  assertNotFrozen("post", post, "edit");
  for (const guard of editGuards) {
    const why = guard(ctx, post);
    if (why) throw new ApiError(400, "CONFLICT", why);
  }

  const title = input.title != null ? input.title.trim() : post.title;
  if (title.length < 3) throw invalid("title must be at least 3 characters after trimming");
  const body = input.body != null ? input.body.trim() : post.body;
  if (!body) throw invalid("body must not be empty");
  const tags = input.tags != null ? normaliseTags(input.tags) : post.tags;
  const language = input.language != null ? normaliseLanguage(input.language) : post.language;
  const changed = { title: title !== post.title, body: body !== post.body, tags: !sameTags(tags, post.tags), language: language !== post.language };

  if (post.state === "published") {
    const age = ctx.clock.now() - post.createdAt;
    const firstTagsOnly = changed.tags && post.tags.length === 0 && !changed.title && !changed.body && !changed.language;
    const allowed = age <= EDIT_WINDOW_MS || (firstTagsOnly && age <= FIRST_TAGS_WINDOW_MS);
    if (!allowed) {
      throw forbidden(
        firstTagsOnly ? "Tags can be added to an untagged post only within 24 hours of publishing" : "Posts can only be edited within 15 minutes of publishing",
        "POST_EDIT_FORBIDDEN",
      );
    }
  }
  if (!changed.title && !changed.body && !changed.tags && !changed.language) return post;

  if (changed.title || changed.body) assertPostKarma(ctx, colony, caller);
  let hold: string | null = null;
  let settingsHold: string | null = null;
  let automod = NO_OUTCOME;
  if (changed.title || changed.body) {
    settingsHold = bannedWordsPolicy(colony, `${title}\n${body}`);
    if (canModerate(ctx, colony, caller)) settingsHold = null;
    else automod = evaluateAutomod(ctx, colony, { kind: "post", title, body, postType: post.postType, author: automodAuthor(caller) });
    hold = hides(automod, "post") ? hiddenExplanation(automod, "post") : automod.approvedBy ? null : settingsHold;
  }
  let bodyHtml = post.bodyHtml;
  if (changed.body) {
    bodyHtml = renderBody(ctx, caller.id, body).html;
  }
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    const holdNow = hold !== null && post.state === "published" && !post.held;
    const row = tx
      .update(posts)
      .set({
        title,
        body,
        bodyHtml,
        tags,
        language,
        updatedAt: now,
        ...(holdNow ? { held: true, heldExplanation: hold, listed: 0 } : {}),
      })
      .where(eq(posts.id, post.id))
      .returning()
      .get();
    if (changed.tags) replaceTags(ctx, post.id, tags);
    if (holdNow) {
      if (post.listed) colonies.adjustPostCount(ctx, post.colonyId, -1);
      emitHeld(ctx, tx, row);
    }
    if (holdNow || automod.fired.length || automod.xssProbe) {
      recordModeration(ctx, tx, { colonyId: row.colonyId, type: "post", id: row.id, postId: row.id, authorId: row.authorId, excerpt: `${row.title} — ${row.body}` }, automod, holdNow ? settingsHold : null);
      if (automod.lock) lockPost(ctx, row.id, true);
    }
    ctx.events.emit(tx, {
      type: "post_updated",
      actorId: caller.id,
      subject: { type: "post", id: post.id },
      payload: { post_id: post.id, colony_id: post.colonyId, fields: Object.entries(changed).filter(([, v]) => v).map(([k]) => k) },
    });
    return row;
  });
}

/**
 * DELETE /posts/{id}: a soft delete. The author may delete within 15 minutes of publishing (an
 * unpublished draft at any time) unless the post is notarised; a colony moderator (or site
 * admin) at any time, notarised or not (docs/decisions.md §91). Emits post_deleted so comments
 * can cascade.
 */
export function deletePost(ctx: Ctx, caller: Caller, postId: string): void {
  const { post, colony } = getVisiblePost(ctx, caller, postId);
  const moderator = canModerate(ctx, colony, caller);
  if (post.authorId === caller.id) {
    // A notarised post is never deleted by its author, even one who moderates the colony.
    assertNotFrozen("post", post, "delete");
    // Nor a paid task whose bid was accepted: its invoice or the worker's payout hangs on it (§127).
    if (post.postType === "paid_task" && (post.status === "accepted" || post.status === "paid"))
      throw conflict(`This paid task is ${post.status}: complete it (which pays its worker) instead of deleting it`);
    const inWindow = post.state !== "published" || ctx.clock.now() - post.createdAt <= DELETE_WINDOW_MS;
    if (!inWindow && !moderator) throw forbidden("Posts can only be deleted by their author within 15 minutes of publishing", "POST_DELETE_WINDOW_EXPIRED");
  } else if (!moderator) {
    throw forbidden("Only the author or a moderator of this colony can delete this post", "POST_DELETE_FORBIDDEN");
  }
  const now = ctx.clock.now();
  ctx.db.transaction((tx) => {
    tx.update(posts).set({ deletedAt: now, listed: 0, updatedAt: now }).where(eq(posts.id, post.id)).run();
    if (post.listed) colonies.adjustPostCount(ctx, post.colonyId, -1);
    if (post.state === "scheduled") ctx.jobs.cancel(PUBLISH_JOB, { post_id: post.id });
    resolveQueueForTarget(ctx, post.id, "content_deleted", caller.id);
    ctx.events.emit(tx, {
      type: "post_deleted",
      actorId: caller.id,
      subject: { type: "post", id: post.id },
      payload: { post_id: post.id, colony_id: post.colonyId, author_id: post.authorId, by_moderator: post.authorId !== caller.id },
    });
  });
}

/**
 * Releases a held post (the moderation queue's approve): it becomes listed and gets the
 * publication fan-out it was held back from.
 */
export function releaseHeldPost(ctx: Ctx, postId: string): PostRow | null {
  const post = findPost(ctx, postId);
  if (!post || !post.held || post.deletedAt !== null || post.state !== "published") return null;
  const found = users.resolveMentions(ctx, post.authorId, scanMarkdown(post.body).mentionCandidates).found;
  const colony = colonies.findColony(ctx, post.colonyId);
  const author = users.findById(ctx, post.authorId);
  if (!colony || !author) return null;
  return ctx.db.transaction((tx) => {
    const row = tx.update(posts).set({ held: false, heldExplanation: null, listed: 1, updatedAt: ctx.clock.now() }).where(eq(posts.id, post.id)).returning().get();
    colonies.adjustPostCount(ctx, row.colonyId, 1);
    emitPublication(ctx, tx, row, colony, author.username, found.map((u) => u.id));
    return row;
  });
}

/**
 * A moderator's removal of a post (the moderation queue's remove, reject and confirm_removal): a
 * soft delete like deletePost, without the author's windows, in the caller's transaction when
 * there is one. Returns false when the post was already deleted.
 */
export function removePostByModerator(ctx: Ctx, actorId: string, postId: string): boolean {
  const post = findPost(ctx, postId);
  if (!post || post.deletedAt !== null) return false;
  const now = ctx.clock.now();
  ctx.db.transaction((tx) => {
    tx.update(posts).set({ deletedAt: now, listed: 0, updatedAt: now }).where(eq(posts.id, post.id)).run();
    if (post.listed) colonies.adjustPostCount(ctx, post.colonyId, -1);
    if (post.state === "scheduled") ctx.jobs.cancel(PUBLISH_JOB, { post_id: post.id });
    ctx.events.emit(tx, {
      type: "post_deleted",
      actorId,
      subject: { type: "post", id: post.id },
      payload: { post_id: post.id, colony_id: post.colonyId, author_id: post.authorId, by_moderator: true },
    });
  });
  return true;
}

/** Locks a post (no new comments but a moderator's) or unlocks it; on the caller's connection. */
export function lockPost(ctx: Ctx, postId: string, locked: boolean): void {
  const stmt = prepared(ctx.db, "posts.lock", () => ctx.db.$client.prepare<unknown, [number | null, string]>("update posts set locked_at = ? where id = ?"));
  stmt.run(locked ? ctx.clock.now() : null, postId);
}

/** The colony's newest posts that are not deleted (held ones included), for the automod dry run. */
export function recentColonyPosts(ctx: Ctx, colonyId: string, limit: number): PostRow[] {
  // Listed and unlisted (held) posts separately, each newest first along posts_colony_new_idx,
  // then merged: one query over both would sort every post of the colony.
  const newest = (listed: 0 | 1) =>
    ctx.db
      .select()
      .from(posts)
      .where(and(eq(posts.colonyId, colonyId), eq(posts.listed, listed), isNull(posts.deletedAt), eq(posts.state, "published")))
      .orderBy(desc(posts.createdAt), desc(posts.id))
      .limit(limit)
      .all();
  return [...newest(1), ...newest(0)].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1)).slice(0, limit);
}

// ---------------------------------------------------------------------------------------------
// og-image and thread mutes

/**
 * POST /posts/{id}/og-image/disable: the author or a colony moderator turns preview-image
 * generation off for good and drops the current image. Anyone else, like an unknown id, is 404.
 */
export function disableOgImage(ctx: Ctx, caller: Caller, postId: string): { post_id: string; og_image_disabled: true; detached: boolean } {
  const { post, colony } = getVisiblePost(ctx, caller, postId);
  if (post.authorId !== caller.id && !canModerate(ctx, colony, caller)) throw postNotFound();
  const detached = post.ogImagePath !== null;
  if (detached || !post.ogImageDisabled) {
    ctx.db.update(posts).set({ ogImageDisabled: true, ogImagePath: null }).where(eq(posts.id, post.id)).run();
  }
  return { post_id: post.id, og_image_disabled: true, detached };
}

export function mutePost(ctx: Ctx, caller: Caller, postId: string): { status: "muted" | "already_muted" } {
  const { post } = getVisiblePost(ctx, caller, postId);
  const r = notificationsService.muteThread(ctx, caller.id, post.id);
  return { status: r.already_muted ? "already_muted" : "muted" };
}

export function unmutePost(ctx: Ctx, caller: Caller, postId: string): { status: "unmuted" | "not_muted" } {
  const { post } = getVisiblePost(ctx, caller, postId);
  return { status: notificationsService.unmuteThread(ctx, caller.id, post.id).was_muted ? "unmuted" : "not_muted" };
}

// ---------------------------------------------------------------------------------------------
// Moving between colonies

/**
 * Files a post under another colony, inside the caller's transaction (moderation's move-out):
 * the post keeps its comments, score and author; when it is listed, the post counts of both
 * colonies follow it. The caller checks authority and moves the comments' colony too; emits
 * nothing (the caller's event marks the move). A notarised post never moves (403 FORBIDDEN).
 */
export function setPostColony(ctx: Ctx, tx: Tx, post: PostRow, toColonyId: string): PostRow {
  assertNotFrozen("post", post, "move");
  const row = tx.update(posts).set({ colonyId: toColonyId, updatedAt: ctx.clock.now() }).where(eq(posts.id, post.id)).returning().get();
  if (post.listed) {
    colonies.adjustPostCount(ctx, post.colonyId, -1);
    colonies.adjustPostCount(ctx, toColonyId, 1);
  }
  return row;
}
