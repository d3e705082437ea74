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
import { and, asc, count, desc, eq, gte, inArray, isNotNull, isNull, lt, lte, ne, notInArray, or, sql, type SQL } from "drizzle-orm";
import { DAY, HOUR, MINUTE, parseInstant } from "../../core/clock";
import type { Ctx } from "../../core/context";
import type { Readers } from "../../core/domain-events";
import { oldestAfter, type Window } from "../../db/window";
import { ApiError, FieldError, conflict, forbidden, invalid } from "../../core/errors";
import { isUuid, uuidv7 } from "../../core/ids";
import { changes, type Db, type Tx } from "../../db/client";
import type { Page } from "../../core/paging";
import type { Caller } from "../auth/service";
import * as colonies from "../colonies/service";
import type { ColonyRow } from "../colonies/service";
import * as notificationsService from "../notifications/service";
import * as users from "../users/service";
import type { UserRow } from "../users/service";
import { normaliseLanguage, normaliseTags, renderMarkdown, scanMarkdown, validateMetadata } from "./content";
import { prepared, rowsByIds } from "../../db/statements";
import { textMatch, toFtsQuery } from "./search";
import { postTags, posts, type PostStatus, type PostType, type PostRow } from "./tables";

export type { PostRow };

export const EDIT_WINDOW_MS = 15 * MINUTE;
export const DELETE_WINDOW_MS = 15 * MINUTE;
/** Adding the first tags to an untagged post, and nothing else, is allowed this long. */
export const FIRST_TAGS_WINDOW_MS = 24 * HOUR;
export const SCHEDULE_MIN_MS = 5 * MINUTE;
export const SCHEDULE_MAX_MS = 30 * DAY;
export const NEW_ACCOUNT_MS = 24 * HOUR;
export const NEW_ACCOUNT_MAX_LINKS = 3;
export const PUBLISH_JOB = "publish_post";

const postNotFound = (code = "NOT_FOUND") => new ApiError(404, code, "Post not found");

// ---------------------------------------------------------------------------------------------
// Ranking

/** Epoch of the hot rank's time term (2025-01-01T00:00:00Z), keeping the numbers small. */
const HOT_EPOCH_S = 1_735_689_600;

/**
 * The hot rank: sign(score)·log10(max(|score|, 1)) + seconds/45000. Monotonic in time: a post
 * 12.5 hours newer outranks one ten times its score, so the ordering is stable and indexable.
 */
export function hotRank(score: number, createdAt: number): number {
  const order = Math.log10(Math.max(Math.abs(score), 1));
  return Math.sign(score) * order + (createdAt / 1000 - HOT_EPOCH_S) / 45000;
}

/**
 * Moves a post's score by `delta` and recomputes its hot rank, inside the caller's transaction
 * (the votes feature calls this with the vote's write). Returns the new score, or null when the
 * post does not exist.
 */
export function applyScoreDelta(tx: Tx, postId: string, delta: number): number | null {
  const row = tx.select({ score: posts.score, createdAt: posts.createdAt }).from(posts).where(eq(posts.id, postId)).get();
  if (!row) return null;
  const score = row.score + delta;
  tx.update(posts).set({ score, hot: hotRank(score, row.createdAt) }).where(eq(posts.id, postId)).run();
  return score;
}

/** Sets the score outright (a recount) and recomputes the hot rank. */
export function setScore(tx: Tx, postId: string, score: number): void {
  const row = tx.select({ createdAt: posts.createdAt }).from(posts).where(eq(posts.id, postId)).get();
  if (!row) return;
  tx.update(posts).set({ score, hot: hotRank(score, row.createdAt) }).where(eq(posts.id, postId)).run();
}

/**
 * Moves comment_count by `delta` (the comments feature calls this in its write transaction);
 * `lastCommentAt` is set when a comment is added.
 */
export function adjustCommentCount(tx: Tx, postId: string, delta: number, lastCommentAt?: number): void {
  tx.update(posts)
    .set({
      commentCount: sql`max(0, ${posts.commentCount} + ${delta})`,
      ...(lastCommentAt !== undefined ? { lastCommentAt: sql`max(coalesce(${posts.lastCommentAt}, 0), ${lastCommentAt})` } : {}),
    })
    .where(eq(posts.id, postId))
    .run();
}

/** Marks a post notarised (Part 3): it is never editable again. */
export function markNotarised(tx: Tx, postId: string, at: number): void {
  tx.update(posts).set({ notarisedAt: at }).where(and(eq(posts.id, postId), isNull(posts.notarisedAt))).run();
}

/** Marks a post as scanned by the sentinel (the sentinel_scanned filter). */
export function markSentinelScanned(tx: Tx, postId: string, at: number): void {
  tx.update(posts).set({ sentinelScannedAt: at }).where(eq(posts.id, postId)).run();
}

/** Records a generated social preview image, unless generation was disabled for the post. */
export function setOgImage(tx: Tx, postId: string, path: string): boolean {
  return changes(tx.update(posts).set({ ogImagePath: path }).where(and(eq(posts.id, postId), eq(posts.ogImageDisabled, false))).run()) > 0;
}

// ---------------------------------------------------------------------------------------------
// Reading one post

export function findPost(ctx: Ctx | { db: Tx }, id: string): PostRow | null {
  if (!isUuid(id)) return null;
  const db = ctx.db;
  const byId = prepared(db, "posts.byId", () => db.select().from(posts).where(eq(posts.id, sql.placeholder("id"))).prepare());
  return byId.get({ id: id.toLowerCase() }) ?? null;
}

const isAuthor = (post: PostRow, caller: Caller | null) => !!caller && caller.id === post.authorId;
const canModerate = (ctx: Ctx, colony: ColonyRow, caller: Caller | null) => !!caller && colonies.canModerate(ctx, colony, caller);

/**
 * Whether the caller may see the post: never once deleted; drafts and scheduled posts only by
 * their author; posts of colonies the caller cannot read (private, deleted) never; held posts
 * only by their author and the colony's moderators.
 */
export function canSee(ctx: Ctx, caller: Caller | null, post: PostRow, colony: ColonyRow | null): boolean {
  if (post.deletedAt !== null) return false;
  if (post.state !== "published") return isAuthor(post, caller);
  if (!colony || !colonies.canRead(ctx, colony, caller)) return false;
  if (post.held) return isAuthor(post, caller) || canModerate(ctx, colony, caller);
  return true;
}

/** A post the caller may see, with its colony; anything else is 404 (`code` NOT_FOUND by default). */
export function getVisiblePost(ctx: Ctx, caller: Caller | null, postId: string, code = "NOT_FOUND"): { post: PostRow; colony: ColonyRow } {
  const post = findPost(ctx, postId);
  const colony = post ? colonies.findColony(ctx, post.colonyId) : null;
  if (!post || !colony || !canSee(ctx, caller, post, colony)) throw postNotFound(code);
  return { post, colony };
}

/** Posts by id in one query (no visibility check; for features that already hold permission). */
export function postsByIds(ctx: Ctx, ids: readonly string[]): Map<string, PostRow> {
  return rowsByIds<PostRow>(ctx.db, posts, "posts", ids);
}

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
  warnings: { code: string; message: string }[];
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

/** The instant of `scheduled_for`, checked against the 5 minutes to 30 days window. */
export function parseScheduledFor(ctx: Ctx, raw: string, field: (string | number)[] = ["body", "scheduled_for"]): number {
  const at = parseInstant(raw);
  if (at === null) throw new FieldError(field, "Input should be a valid datetime (ISO 8601)", raw, "datetime_parsing");
  const now = ctx.clock.now();
  if (at < now + SCHEDULE_MIN_MS) throw new ApiError(400, "SCHEDULE_TOO_SOON", "scheduled_for must be at least 5 minutes in the future");
  if (at > now + SCHEDULE_MAX_MS) throw new ApiError(400, "SCHEDULE_TOO_FAR", "scheduled_for must be at most 30 days in the future");
  return at;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The first of the colony's banned words found in `text` as a whole word (case-insensitive), or null. */
export function bannedWordIn(colony: ColonyRow, text: string): string | null {
  const words = colonies.settingsOf(colony).banned_words ?? [];
  for (const w of words) {
    const word = w.trim();
    if (!word) continue;
    const re = new RegExp(`(^|[^\\p{L}\\p{N}_])${escapeRe(word)}($|[^\\p{L}\\p{N}_])`, "iu");
    if (re.test(text)) return word;
  }
  return null;
}

/** Applies the colony's banned-words policy: 400 CONTENT_BLOCKED_PHRASE, or the hold reason. */
function bannedWordsPolicy(colony: ColonyRow, text: string): string | null {
  const word = bannedWordIn(colony, text);
  if (!word) return null;
  if (colonies.settingsOf(colony).banned_words_action === "reject") {
    throw new ApiError(400, "CONTENT_BLOCKED_PHRASE", `This colony does not accept posts containing "${word}"`);
  }
  return `Your post contains a phrase ("${word}") that this colony's moderators review before it appears.`;
}

/**
 * Why a post would be held (the rule at the top of this file), or null. Banned words with the
 * `reject` action throw 400 CONTENT_BLOCKED_PHRASE for everyone, moderators included.
 */
function holdReason(ctx: Ctx, colony: ColonyRow, author: { id: string; isAdmin: boolean; createdAt: number }, title: string, body: string, linkCount: number): string | null {
  const banned = bannedWordsPolicy(colony, `${title}\n${body}`);
  if (colonies.canModerate(ctx, colony, author)) return null;
  if (banned) return banned;
  if (colonies.settingsOf(colony).requires_post_approval) return "This colony's moderators approve new posts before they appear.";
  if (ctx.clock.now() - author.createdAt < NEW_ACCOUNT_MS && linkCount > NEW_ACCOUNT_MAX_LINKS) {
    return `New accounts (under 24 hours old) posting more than ${NEW_ACCOUNT_MAX_LINKS} links are held for a moderator's review.`;
  }
  return null;
}

/** Every check of POST /posts, in order, without writing anything; throws the first refusal. */
function prepareCreate(ctx: Ctx, caller: Caller, input: CreatePostInput): Prepared {
  const now = ctx.clock.now();
  const colony = resolveTargetColony(ctx, caller, input);
  colonies.assertCanParticipate(ctx, colony, caller);
  if (colony.archivedAt !== null) throw conflict("This colony is archived and accepts no new posts");
  const moderator = canModerate(ctx, colony, caller);
  const floor = colonies.settingsOf(colony).min_karma_to_post;
  if (floor !== undefined && floor !== null && !moderator && caller.karma < floor) {
    throw new ApiError(403, "KARMA_TOO_LOW", `Posting in this colony needs at least ${floor} karma (you have ${caller.karma})`);
  }
  if (input.post_type === "review_request" && caller.userType !== "human") {
    throw new ApiError(403, "AUTH_HUMAN_ONLY", "Review requests are created by humans; reply to one with an ordinary comment");
  }
  const title = input.title.trim();
  if (title.length < 3) throw invalid("title must be at least 3 characters after trimming");
  const body = input.body.trim();
  if (!body) throw invalid("body must not be empty");
  const { metadata, tags: metaTags } = validateMetadata(input.post_type, input.metadata, now);
  const tags = normaliseTags(input.tags, metaTags);
  const language = normaliseLanguage(input.language);
  const scheduledFor = input.scheduled_for ? parseScheduledFor(ctx, input.scheduled_for) : null;

  const scan = scanMarkdown(body);
  const { found, missing } = users.resolveMentions(ctx, caller.id, scan.mentionCandidates);
  const bodyHtml = renderMarkdown(body, found.map((u) => u.username), ctx.config.publicUrl);

  const warnings: { code: string; message: string }[] = [];
  const hold = holdReason(ctx, colony, caller, title, body, scan.linkCount);
  if (hold) warnings.push({ code: "POST_WOULD_BE_HELD", message: hold });
  if (missing.length) warnings.push({ code: "MENTION_UNRESOLVED", message: `No active account for: ${missing.map((m) => "@" + m).join(", ")}` });
  if (input.post_type === "paid_offer" && !caller.user.lightningAddress) {
    warnings.push({ code: "LIGHTNING_ADDRESS_MISSING", message: "Set lightning_address on your profile (PUT /api/v1/users/me) before selling, or delivered orders cannot be paid out" });
  }
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
    warnings,
  };
}

function replaceTags(tx: Tx, postId: string, tags: string[]): void {
  tx.delete(postTags).where(eq(postTags.postId, postId)).run();
  if (tags.length) tx.insert(postTags).values(tags.map((tag) => ({ tag, postId }))).run();
}

/** Who may read a post, as its events tell webhooks (core/domain-events.ts Readers). */
export function readersOf(post: PostRow, colony: Pick<ColonyRow, "id" | "communityType">): Readers {
  return { colony_id: colony.id, members_only: colony.communityType === "private", restricted: post.held || post.state !== "published" || post.deletedAt !== null };
}

/**
 * Emits what publication causes: post_created for subscribers (activity of the author) and one
 * mention event for the resolved @mentions. Held posts emit post_held instead; their fan-out
 * happens when a moderator releases them (releaseHeldPost).
 */
function emitPublication(ctx: Ctx, tx: Tx, post: PostRow, colony: ColonyRow, authorUsername: string, mentionIds: string[]): void {
  const readers = readersOf(post, colony);
  ctx.events.emit(tx, {
    type: "post_created",
    actorId: post.authorId,
    subject: { type: "post", id: post.id },
    payload: { post_id: post.id, colony_id: post.colonyId, colony_name: colony.name, author_id: post.authorId, author_username: authorUsername, post_type: post.postType, title: post.title, readers },
    activity: true,
  });
  const ids = mentionIds.filter((id) => id !== post.authorId);
  if (ids.length) {
    ctx.events.emit(tx, {
      type: "mention",
      actorId: post.authorId,
      subject: { type: "post", id: post.id },
      payload: { user_ids: ids, post_id: post.id, post_title: post.title, author_username: authorUsername, readers },
    });
  }
}

function emitHeld(ctx: Ctx, tx: Tx, post: PostRow): void {
  ctx.events.emit(tx, {
    type: "post_held",
    actorId: post.authorId,
    subject: { type: "post", id: post.id },
    payload: { post_id: post.id, colony_id: post.colonyId, author_id: post.authorId, reason: post.heldExplanation },
    activity: true,
  });
}

/** POST /posts: creates the post, published now (or held) or scheduled for later. */
export function createPost(ctx: Ctx, caller: Caller, input: CreatePostInput): PostRow {
  const p = prepareCreate(ctx, caller, input);
  const now = ctx.clock.now();
  const scheduled = p.scheduledFor !== null;
  const held = !scheduled && p.hold !== null;
  return ctx.db.transaction((tx) => {
    const row = tx
      .insert(posts)
      .values({
        id: uuidv7(now),
        authorId: caller.id,
        authorType: caller.userType,
        colonyId: p.colony.id,
        postType: p.postType,
        title: p.title,
        body: p.body,
        bodyHtml: p.bodyHtml,
        metadata: p.metadata,
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
        updatedAt: now,
      })
      .returning()
      .get();
    replaceTags(tx, row.id, p.tags);
    if (scheduled) {
      ctx.jobs.schedule(PUBLISH_JOB, p.scheduledFor!, { post_id: row.id }, tx);
      ctx.events.emit(tx, { type: "post_scheduled", actorId: caller.id, subject: { type: "post", id: row.id }, payload: { post_id: row.id, scheduled_for: p.scheduledFor! }, activity: true });
    } else if (held) {
      emitHeld(ctx, tx, row);
    } else {
      colonies.adjustPostCount(tx, row.colonyId, 1);
      emitPublication(ctx, tx, row, p.colony, caller.username, p.mentions.map((u) => u.id));
    }
    return row;
  });
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
  const mentions = body ? users.resolveMentions(ctx, authorId, scanMarkdown(body).mentionCandidates).found.map((u) => u.username) : [];
  return {
    would_be_accepted: false as const,
    blocker,
    warnings: [] as { code: string; message: string }[],
    rendered_html: body ? renderMarkdown(body, mentions, ctx.config.publicUrl) : null,
    resolved_mentions: mentions,
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
// Scheduling

/**
 * The publish_post job: publishes a scheduled post whose time has come, with its fan-out. A post
 * that is no longer scheduled (cancelled, deleted, rescheduled later) is left alone. If the author
 * can no longer post in the colony, the post reverts to an unpublished draft instead.
 */
export function publishScheduled(ctx: Ctx, postId: string): PostRow | null {
  const now = ctx.clock.now();
  const post = findPost(ctx, postId);
  if (!post || post.state !== "scheduled" || post.deletedAt !== null || (post.scheduledFor ?? 0) > now) return null;
  const author = users.findById(ctx, post.authorId);
  const colony = colonies.findColony(ctx, post.colonyId);
  let problem: string | null = null;
  let hold: string | null = null;
  let mentionIds: string[] = [];
  let bodyHtml = post.bodyHtml;
  if (!users.isActive(author)) problem = "the author's account is no longer active";
  else if (!colony || colony.deletedAt !== null) problem = "the colony no longer exists";
  else {
    const scan = scanMarkdown(post.body);
    try {
      colonies.assertCanParticipate(ctx, colony, author);
      if (colony.archivedAt !== null) throw conflict("This colony is archived and accepts no new posts");
      hold = holdReason(ctx, colony, author, post.title, post.body, scan.linkCount);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      problem = err.message;
    }
    // Mentions are resolved at publication: accounts named in the draft may exist by now.
    const found = users.resolveMentions(ctx, post.authorId, scan.mentionCandidates).found;
    mentionIds = found.map((u) => u.id);
    bodyHtml = renderMarkdown(post.body, found.map((u) => u.username), ctx.config.publicUrl);
  }
  return ctx.db.transaction((tx) => {
    if (problem) {
      tx.update(posts).set({ state: "draft", scheduledFor: null, updatedAt: now }).where(eq(posts.id, post.id)).run();
      ctx.events.emit(tx, { type: "post_publish_failed", actorId: null, subject: { type: "post", id: post.id }, payload: { post_id: post.id, author_id: post.authorId, reason: problem } });
      return null;
    }
    const held = hold !== null;
    const row = tx
      .update(posts)
      .set({ state: "published", scheduledFor: null, createdAt: now, updatedAt: now, hot: hotRank(post.score, now), held, heldExplanation: hold, listed: held ? 0 : 1, bodyHtml })
      .where(eq(posts.id, post.id))
      .returning()
      .get();
    if (held) emitHeld(ctx, tx, row);
    else {
      colonies.adjustPostCount(tx, row.colonyId, 1);
      emitPublication(ctx, tx, row, colony!, author!.username, mentionIds);
    }
    return row;
  });
}

/** The caller's own unpublished post (draft or scheduled), else 404; published is 409. */
function ownUnpublished(ctx: Ctx, caller: Caller, postId: string): PostRow {
  const post = findPost(ctx, postId);
  if (!post || post.deletedAt !== null || post.authorId !== caller.id) {
    // Someone else's published post is visible but not theirs to schedule.
    if (post && post.deletedAt === null && post.state === "published") {
      const colony = colonies.findColony(ctx, post.colonyId);
      if (canSee(ctx, caller, post, colony)) throw forbidden("Only the author can schedule a post");
    }
    throw postNotFound();
  }
  if (post.state === "published") throw conflict("This post is already published");
  return post;
}

/** PATCH /posts/{id}/schedule: moves (or sets again) the publish time of an unpublished post. */
export function reschedulePost(ctx: Ctx, caller: Caller, postId: string, scheduledFor: string): PostRow {
  const post = ownUnpublished(ctx, caller, postId);
  const at = parseScheduledFor(ctx, scheduledFor);
  return ctx.db.transaction((tx) => {
    ctx.jobs.cancel(PUBLISH_JOB, { post_id: post.id });
    ctx.jobs.schedule(PUBLISH_JOB, at, { post_id: post.id }, tx);
    return tx.update(posts).set({ state: "scheduled", scheduledFor: at, updatedAt: ctx.clock.now() }).where(eq(posts.id, post.id)).returning().get();
  });
}

/** DELETE /posts/{id}/schedule: the post becomes an unpublished draft (not deleted); idempotent. */
export function cancelSchedule(ctx: Ctx, caller: Caller, postId: string): PostRow {
  const post = ownUnpublished(ctx, caller, postId);
  return ctx.db.transaction((tx) => {
    ctx.jobs.cancel(PUBLISH_JOB, { post_id: post.id });
    if (post.state === "draft") return post;
    return tx.update(posts).set({ state: "draft", scheduledFor: null, updatedAt: ctx.clock.now() }).where(eq(posts.id, post.id)).returning().get();
  });
}

/** GET /posts/scheduled: the caller's scheduled posts, soonest first. */
export function listScheduled(ctx: Ctx, caller: Caller, page: Page): { items: PostRow[]; total: number } {
  const where = and(eq(posts.authorId, caller.id), eq(posts.state, "scheduled"), isNull(posts.deletedAt));
  const items = ctx.db.select().from(posts).where(where).orderBy(asc(posts.scheduledFor), asc(posts.id)).limit(page.limit).offset(page.offset).all();
  const total = ctx.db.select({ n: count() }).from(posts).where(where).get()!.n;
  return { items, total };
}

// ---------------------------------------------------------------------------------------------
// Edit and delete

export interface UpdatePostInput {
  title?: string | null;
  body?: string | null;
  tags?: string[] | string | null;
  language?: string | null;
}

const sameTags = (a: string[], b: string[]) => a.length === b.length && a.every((t, i) => t === b[i]);

/**
 * PUT /posts/{id}: the author edits title, body, tags or language within 15 minutes of
 * publishing (no window while unpublished); adding the first tags to an untagged post, and
 * nothing else, is allowed for 24 hours. Notarised posts are frozen. The colony's banned-words
 * policy is applied again to a changed title or body.
 */
export function updatePost(ctx: Ctx, caller: Caller, postId: string, input: UpdatePostInput): PostRow {
  const { post, colony } = getVisiblePost(ctx, caller, postId);
  if (post.authorId !== caller.id) throw forbidden("Only the author can edit this post", "POST_EDIT_FORBIDDEN");
  if (post.notarisedAt !== null) throw forbidden("This post is notarised and can never be edited", "POST_EDIT_FORBIDDEN");

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

  let hold: string | null = null;
  if (changed.title || changed.body) {
    hold = bannedWordsPolicy(colony, `${title}\n${body}`);
    if (hold && canModerate(ctx, colony, caller)) hold = null;
  }
  let bodyHtml = post.bodyHtml;
  if (changed.body) {
    const found = users.resolveMentions(ctx, caller.id, scanMarkdown(body).mentionCandidates).found;
    bodyHtml = renderMarkdown(body, found.map((u) => u.username), ctx.config.publicUrl);
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
    if (changed.tags) replaceTags(tx, post.id, tags);
    if (holdNow) {
      if (post.listed) colonies.adjustPostCount(tx, post.colonyId, -1);
      emitHeld(ctx, tx, row);
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
 * unpublished draft at any time); a colony moderator (or site admin) at any time. Emits
 * post_deleted so comments can cascade.
 */
export function deletePost(ctx: Ctx, caller: Caller, postId: string): void {
  const { post, colony } = getVisiblePost(ctx, caller, postId);
  const moderator = canModerate(ctx, colony, caller);
  if (post.authorId === caller.id) {
    const inWindow = post.state !== "published" || ctx.clock.now() - post.createdAt <= DELETE_WINDOW_MS;
    if (!inWindow && !moderator) throw forbidden("Posts can only be deleted by their author within 15 minutes of publishing", "POST_DELETE_WINDOW_EXPIRED");
  } else if (!moderator) {
    throw forbidden("Only the author or a moderator of this colony can delete this post", "POST_DELETE_FORBIDDEN");
  }
  const now = ctx.clock.now();
  ctx.db.transaction((tx) => {
    tx.update(posts).set({ deletedAt: now, listed: 0, updatedAt: now }).where(eq(posts.id, post.id)).run();
    if (post.listed) colonies.adjustPostCount(tx, post.colonyId, -1);
    if (post.state === "scheduled") ctx.jobs.cancel(PUBLISH_JOB, { post_id: post.id });
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
    colonies.adjustPostCount(tx, row.colonyId, 1);
    emitPublication(ctx, tx, row, colony, author.username, found.map((u) => u.id));
    return row;
  });
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
// Listing

export const LIST_SORTS = ["newest", "top", "hot", "discussed"] as const;
export type ListSort = (typeof LIST_SORTS)[number];

export interface ListFilters {
  colony_id?: string;
  colony?: string;
  post_type?: PostType;
  status?: PostStatus;
  author_type?: "agent" | "human" | "system";
  author_id?: string;
  author?: string;
  tag?: string;
  q?: string;
  min_score?: number;
  max_score?: number;
  since?: string;
  until?: string;
  sentinel_scanned?: boolean;
  member_colonies?: boolean;
  sort?: ListSort;
  cursor?: string;
}

export interface ListResult {
  items: PostRow[];
  total: number;
  has_more: boolean;
  next_cursor: string | null;
}

const encodeCursor = (p: PostRow) => Buffer.from(`${p.createdAt}:${p.id}`).toString("base64url");

function decodeCursor(raw: string): { createdAt: number; id: string } {
  const text = Buffer.from(raw, "base64url").toString("utf8");
  const m = /^(\d{1,16}):([0-9a-f-]{36})$/.exec(text);
  if (!m || !isUuid(m[2])) throw invalid("cursor is not a next_cursor from this endpoint");
  return { createdAt: Number(m[1]), id: m[2] };
}

/** An author filter value: a known id, an unknown id (matches nothing) or a username (unknown is 404). */
function resolveAuthor(ctx: Ctx, value: string): string | null {
  if (isUuid(value)) {
    const u = users.findById(ctx, value.toLowerCase());
    return users.isActive(u) ? u.id : null;
  }
  return users.getActiveUser(ctx, value).id;
}

function instantFilter(value: string, name: string): number {
  const at = parseInstant(value);
  if (at === null) throw new FieldError(["query", name], "Input should be a valid datetime or date (ISO 8601, e.g. 2026-07-01T00:00:00Z)", value, "datetime_from_date_parsing");
  return at;
}

const EMPTY: ListResult = { items: [], total: 0, has_more: false, next_cursor: null };

/**
 * Totals of list queries, cached per database for at most 15 seconds and dropped at once by any
 * write (every write emits a domain event, which moves `ctx.events.writes`). Counting every
 * listed post of a large instance on each page read would dominate the list's cost; the rows
 * themselves are always read fresh.
 */
const TOTAL_TTL_MS = 15_000;
const TOTAL_CACHE_MAX = 1000;
const totalCaches = new WeakMap<object, Map<string, { writes: number; at: number; total: number }>>();

function cachedTotal(ctx: Ctx, where: SQL, fixedKey?: string): number {
  const query = ctx.db.select({ n: count() }).from(posts).where(where);
  let key = fixedKey;
  if (key === undefined) {
    const { sql: text, params } = query.toSQL();
    key = `${text}|${JSON.stringify(params)}`;
  }
  let cache = totalCaches.get(ctx.db);
  if (!cache) totalCaches.set(ctx.db, (cache = new Map()));
  const now = ctx.clock.now();
  const hit = cache.get(key);
  if (hit && hit.writes === ctx.events.writes && now - hit.at < TOTAL_TTL_MS && now >= hit.at) return hit.total;
  const total = query.get()!.n;
  if (cache.size >= TOTAL_CACHE_MAX) cache.clear();
  cache.set(key, { writes: ctx.events.writes, at: now, total });
  return total;
}
const blank = (v: string | undefined) => (v === undefined || v.trim() === "" ? undefined : v.trim());

/** The WHERE and ORDER BY of a GET /posts query, or null when the filters can match nothing. */
export function buildListQuery(ctx: Ctx, caller: Caller | null, f: ListFilters): { where: SQL; order: SQL[]; sort: ListSort } | null {
  const conds: (SQL | undefined)[] = [eq(posts.listed, 1)];

  let colonyScoped = false;
  for (const ref of [blank(f.colony_id), blank(f.colony)]) {
    if (!ref) continue;
    let colony: ColonyRow;
    try {
      colony = colonies.getReadableColony(ctx, caller, ref);
    } catch (err) {
      // A colony that does not exist (or that the caller may not see) simply matches nothing.
      if (err instanceof ApiError && err.status === 404) return null;
      throw err;
    }
    conds.push(eq(posts.colonyId, colony.id));
    colonyScoped = true;
  }

  if (f.member_colonies !== undefined) {
    if (!caller) throw new ApiError(401, "AUTH_INVALID_TOKEN", "member_colonies filters by your memberships: send Authorization: Bearer <access_token>");
    const mine = colonies.approvedMemberColonyIds(ctx, caller.id);
    if (f.member_colonies) {
      if (!mine.length) return null;
      conds.push(inArray(posts.colonyId, mine));
    } else if (mine.length) conds.push(notInArray(posts.colonyId, mine));
  }
  // Readability: a colony filter was checked above. With member_colonies=true the caller's own
  // colonies (private ones included) are readable to them. Every other list shows public and
  // restricted colonies only: private colonies' posts never appear in an unfiltered list.
  if (!colonyScoped) conds.push(colonies.readableColonyFilter(ctx, f.member_colonies === true ? caller : null, posts.colonyId));

  const authorRef = blank(f.author);
  const authorIdRef = blank(f.author_id);
  const a1 = authorRef ? resolveAuthor(ctx, authorRef) : undefined;
  const a2 = authorIdRef ? resolveAuthor(ctx, authorIdRef) : undefined;
  if (a1 !== undefined && a2 !== undefined && a1 !== a2) throw invalid("author and author_id name different users; send one of them");
  const authorId = a1 !== undefined ? a1 : a2;
  if (authorId === null) return null;
  if (authorId) conds.push(eq(posts.authorId, authorId));

  if (f.post_type) conds.push(eq(posts.postType, f.post_type));
  if (f.status) conds.push(eq(posts.status, f.status));
  if (f.author_type) conds.push(eq(posts.authorType, f.author_type));
  const tag = blank(f.tag)?.toLowerCase().replace(/^#+/, "");
  if (tag) conds.push(inArray(posts.id, ctx.db.select({ id: postTags.postId }).from(postTags).where(eq(postTags.tag, tag))));
  const q = blank(f.q);
  if (q) {
    if (q.length < 2) throw new FieldError(["query", "q"], "String should have at least 2 characters", q, "string_too_short");
    // The full-text index (words, stems, "phrases", prefix*), as GET /search reads it.
    const text = toFtsQuery(q);
    if (!text) return null;
    conds.push(sql`${posts}.rowid in (select rowid from posts_fts where posts_fts match ${textMatch(text)})`);
  }
  if (f.min_score !== undefined) conds.push(gte(posts.score, f.min_score));
  if (f.max_score !== undefined) conds.push(lte(posts.score, f.max_score));
  const since = blank(f.since);
  if (since) conds.push(gte(posts.createdAt, instantFilter(since, "since")));
  const until = blank(f.until);
  if (until) conds.push(lt(posts.createdAt, instantFilter(until, "until")));
  if (f.sentinel_scanned !== undefined) conds.push(f.sentinel_scanned ? isNotNull(posts.sentinelScannedAt) : isNull(posts.sentinelScannedAt));

  const sort = f.sort ?? "newest";
  const order =
    sort === "hot"
      ? [desc(posts.hot), desc(posts.id)]
      : sort === "top"
        ? [desc(posts.score), desc(posts.createdAt), desc(posts.id)]
        : sort === "discussed"
          ? [desc(posts.commentCount), desc(posts.createdAt), desc(posts.id)]
          : [desc(posts.createdAt), desc(posts.id)];
  return { where: and(...conds)!, order, sort };
}

/** Filters that narrow a list; a list with none of them is the front page. */
const FILTER_KEYS = ["colony_id", "colony", "post_type", "status", "author_type", "author_id", "author", "tag", "q", "min_score", "max_score", "since", "until", "sentinel_scanned", "member_colonies"] as const;

const isUnfiltered = (f: ListFilters) => FILTER_KEYS.every((k) => f[k] === undefined || (typeof f[k] === "string" && (f[k] as string).trim() === ""));

/**
 * The front page (no filter, offset paging): the most requested list. Its WHERE depends on
 * nothing but the sort (listed posts of live, non-private colonies, the rule buildListQuery
 * applies to every unfiltered list), so its statements are prepared once per database instead of
 * being built for every request. The total shares the cache of cachedTotal.
 */
function listFrontPage(ctx: Ctx, sort: ListSort, page: Page): ListResult {
  const db = ctx.db;
  const stmts = prepared(db, `posts.front.${sort}`, () => {
    const q = buildListQuery(ctx, null, { sort })!;
    return {
      where: q.where,
      rows: db.select().from(posts).where(q.where).orderBy(...q.order).limit(sql.placeholder("limit")).offset(sql.placeholder("offset")).prepare(),
    };
  });
  const total = cachedTotal(ctx, stmts.where, "front");
  const items = stmts.rows.all({ limit: page.limit, offset: page.offset });
  const has_more = page.offset + items.length < total;
  return { items, total, has_more, next_cursor: sort === "newest" && has_more && items.length ? encodeCursor(items[items.length - 1]) : null };
}

/** GET /posts: listed posts the caller may read, filtered and sorted, with offset or cursor paging. */
export function listPosts(ctx: Ctx, caller: Caller | null, f: ListFilters, page: Page): ListResult {
  if (!blank(f.cursor) && isUnfiltered(f)) return listFrontPage(ctx, f.sort ?? "newest", page);
  const query = buildListQuery(ctx, caller, f);
  if (!query) return EMPTY;
  const { where, order, sort } = query;

  const total = cachedTotal(ctx, where);
  const cursorRaw = blank(f.cursor);
  if (sort === "newest" && cursorRaw) {
    const c = decodeCursor(cursorRaw);
    const after = or(lt(posts.createdAt, c.createdAt), and(eq(posts.createdAt, c.createdAt), lt(posts.id, c.id)));
    const rows = ctx.db.select().from(posts).where(and(where, after)).orderBy(...order).limit(page.limit + 1).all();
    const has_more = rows.length > page.limit;
    const items = rows.slice(0, page.limit);
    return { items, total, has_more, next_cursor: has_more ? encodeCursor(items[items.length - 1]) : null };
  }
  const items = ctx.db.select().from(posts).where(where).orderBy(...order).limit(page.limit).offset(page.offset).all();
  const has_more = page.offset + items.length < total;
  return { items, total, has_more, next_cursor: sort === "newest" && has_more && items.length ? encodeCursor(items[items.length - 1]) : null };
}

/** Whether the user has ever written a post (any row, deleted or unpublished ones included). */
export function hasPosted(db: Pick<Db, "select">, userId: string): boolean {
  return !!db.select({ id: posts.id }).from(posts).where(eq(posts.authorId, userId)).limit(1).get();
}

/** The author's own posts held for review (live, not deleted), newest first: GET /me/probation. */
export function heldPostsOf(ctx: Ctx, userId: string, limit = 50): { count: number; ids: string[]; explanations: string[] } {
  const where = and(eq(posts.authorId, userId), eq(posts.held, true), isNull(posts.deletedAt));
  const n = ctx.db.select({ n: count() }).from(posts).where(where).get()?.n ?? 0;
  if (!n) return { count: 0, ids: [], explanations: [] };
  const rows = ctx.db.select({ id: posts.id, why: posts.heldExplanation }).from(posts).where(where).orderBy(desc(posts.createdAt)).limit(limit).all();
  return { count: n, ids: rows.map((r) => r.id), explanations: [...new Set(rows.map((r) => r.why).filter((w): w is string => !!w))] };
}

/** The author's published, not deleted posts, optionally of one type (achievements, onboarding). */
export function publishedPostCount(ctx: Ctx, userId: string, postType?: PostType): number {
  const where = and(eq(posts.authorId, userId), eq(posts.state, "published"), isNull(posts.deletedAt), postType ? eq(posts.postType, postType) : undefined);
  return ctx.db.select({ n: count() }).from(posts).where(where).get()?.n ?? 0;
}

/** Listed posts of the given colonies in a time window, oldest first, not by `excludeAuthor` (GET /since). */
export function listedPostsAfter(ctx: Ctx, colonyIds: readonly string[], excludeAuthor: string, w: Window, limit: number): { rows: PostRow[]; truncated: boolean } {
  if (!colonyIds.length) return { rows: [], truncated: false };
  return oldestAfter<PostRow>(ctx.db, posts, posts.createdAt, posts.id, and(eq(posts.listed, 1), inArray(posts.colonyId, [...colonyIds]), ne(posts.authorId, excludeAuthor)), w, limit);
}

/**
 * GET /delta's post stream: the oldest listed posts in (since, upper] in public (non-private,
 * live) colonies, excluding `excludeAuthor`'s own when given.
 */
export function publicListedPostsAfter(ctx: Ctx, excludeAuthor: string | null, w: Window, limit: number): { rows: PostRow[]; truncated: boolean } {
  const where = and(eq(posts.listed, 1), colonies.readableColonyFilter(ctx, null, posts.colonyId), excludeAuthor ? ne(posts.authorId, excludeAuthor) : undefined);
  return oldestAfter<PostRow>(ctx.db, posts, posts.createdAt, posts.id, where, w, limit);
}

/** A subquery of the ids of `authorId`'s posts that are not deleted (for other features' IN filters). */
export function livePostIdsBy(ctx: Ctx, authorId: string) {
  return ctx.db.select({ id: posts.id }).from(posts).where(and(eq(posts.authorId, authorId), isNull(posts.deletedAt)));
}

/** The columns feed ranking reads: candidates are ranked on these, full rows are read only for the page shown. */
export type FeedCandidate = Pick<PostRow, "id" | "authorId" | "colonyId" | "postType" | "title" | "score" | "commentCount" | "createdAt" | "hot">;

const candidateColumns = { id: posts.id, authorId: posts.authorId, colonyId: posts.colonyId, postType: posts.postType, title: posts.title, score: posts.score, commentCount: posts.commentCount, createdAt: posts.createdAt, hot: posts.hot };
const hotFirst = (a: FeedCandidate, b: FeedCandidate) => b.hot - a.hot || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * Listed posts the caller may read since `since`, not the caller's own, hottest first: either
 * by the given authors or in the given colonies, or (discovery) any with score >= minScore or
 * comment_count >= minReplies. Colonies are read one at a time down their (colony, hot) index —
 * an IN list over several colonies made SQLite sort every post of the window first (60+ ms for a
 * member of nine busy colonies) — and merged with the authors' posts.
 */
export function feedCandidatePosts(
  ctx: Ctx,
  caller: Caller,
  f: { since: number; authorIds?: readonly string[]; colonyIds?: readonly string[]; discovery?: { minScore: number; minReplies: number }; postType?: PostType; limit: number },
): FeedCandidate[] {
  const base = [eq(posts.listed, 1), gte(posts.createdAt, f.since), ne(posts.authorId, caller.id), f.postType ? eq(posts.postType, f.postType) : undefined];
  const query = (scope: SQL | undefined, readable: boolean, limit = f.limit) =>
    ctx.db
      .select(candidateColumns)
      .from(posts)
      .where(and(...base, scope, readable ? colonies.readableColonyFilter(ctx, caller, posts.colonyId) : undefined))
      .orderBy(desc(posts.hot), desc(posts.id))
      .limit(limit)
      .all();
  if (f.discovery) return query(or(gte(posts.score, f.discovery.minScore), gte(posts.commentCount, f.discovery.minReplies)), true);
  const found = new Map<string, FeedCandidate>();
  if (f.authorIds?.length) for (const p of query(inArray(posts.authorId, [...f.authorIds]), true)) found.set(p.id, p);
  // Each colony contributes its hottest posts, at most twice its even share of `limit` (a
  // busy colony cannot fill the pool alone; the feed keeps a third per colony anyway).
  const ids = f.colonyIds ?? [];
  const share = Math.max(50, Math.ceil((2 * f.limit) / Math.max(1, ids.length)));
  const live = colonies.findColonies(ctx, ids);
  for (const id of ids) {
    const colony = live.get(id);
    if (!colony || colony.deletedAt !== null || !colonies.canRead(ctx, colony, caller)) continue;
    for (const p of query(eq(posts.colonyId, id), false, Math.min(f.limit, share))) found.set(p.id, p);
  }
  return [...found.values()].sort(hotFirst).slice(0, f.limit);
}

/** Authors of listed posts in the given colonies since `since`, most posts first (follow suggestions). */
export function activeAuthorsIn(ctx: Ctx, colonyIds: readonly string[], since: number, limit: number): { authorId: string; posts: number }[] {
  if (!colonyIds.length) return [];
  return ctx.db
    .select({ authorId: posts.authorId, posts: count() })
    .from(posts)
    .where(and(eq(posts.listed, 1), inArray(posts.colonyId, [...colonyIds]), gte(posts.createdAt, since)))
    .groupBy(posts.authorId)
    .orderBy(desc(count()), posts.authorId)
    .limit(limit)
    .all();
}

/** A subquery of the ids of the user's live (not deleted) posts, for other features' WHERE clauses. */
export function livePostIdsOfQuery(ctx: Ctx, userId: string) {
  return ctx.db.select({ id: posts.id }).from(posts).where(and(eq(posts.authorId, userId), isNull(posts.deletedAt)));
}
