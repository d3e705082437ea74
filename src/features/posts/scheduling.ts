// Scheduled posts: when a post may be scheduled, the publish_post job that publishes it when it
// is due, rescheduling, cancelling and the author's list of scheduled posts.
import { and, asc, count, eq, isNull, or } from "drizzle-orm";
import { DAY, MINUTE, parseInstant } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError, FieldError, conflict, forbidden } from "../../core/errors";
import type { Page } from "../../core/paging";
import type { Caller } from "../auth/service";
import * as colonies from "../colonies/service";
import * as users from "../users/service";
import { renderBody } from "./body";
import { posts, type PostRow } from "./tables";
import { hotRank } from "./counters";
import { evaluateAutomod, hiddenExplanation, hides, NO_OUTCOME, recordModeration, type AutomodOutcome } from "../moderation/automod";
import { emitHeld, emitPublication, holdReason } from "./publication";
import { canSee, findPost, postNotFound } from "./read";

export const PUBLISH_JOB = "publish_post";

/** The instant of `scheduled_for`, checked against the 5 minutes to 30 days window. */
export function parseScheduledFor(ctx: Ctx, raw: string, field: (string | number)[] = ["body", "scheduled_for"]): number {
  const at = parseInstant(raw);
  if (at === null) throw new FieldError(field, "Input should be a valid datetime (ISO 8601)", raw, "datetime_parsing");
  const now = ctx.clock.now();
  if (at < now + SCHEDULE_MIN_MS) throw new ApiError(400, "SCHEDULE_TOO_SOON", "scheduled_for must be at least 5 minutes in the future");
  if (at > now + SCHEDULE_MAX_MS) throw new ApiError(400, "SCHEDULE_TOO_FAR", "scheduled_for must be at most 30 days in the future");
  return at;
}
export const SCHEDULE_MAX_MS = 30 * DAY;
export const SCHEDULE_MIN_MS = 5 * MINUTE;
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
  let settingsHold: string | null = null;
  let automod: AutomodOutcome = NO_OUTCOME;
  let mentionIds: string[] = [];
  let bodyHtml = post.bodyHtml;
  if (!users.isActive(author)) problem = "the author's account is no longer active";
  else if (!colony || colony.deletedAt !== null) problem = "the colony no longer exists";
  else {
    const { html, found, linkCount } = renderBody(ctx, post.authorId, post.body);
    try {
      colonies.assertCanParticipate(ctx, colony, author);
      if (colony.archivedAt !== null) throw conflict("This colony is archived and accepts no new posts");
      const moderator = colonies.canModerate(ctx, colony, author!);
      settingsHold = holdReason(ctx, colony, author!, moderator, post.title, post.body, linkCount);
      // Automod and the probe quarantine run at publication, as on an immediate create.
      if (!moderator) {
        automod = evaluateAutomod(ctx, colony, { kind: "post", title: post.title, body: post.body, postType: post.postType, author: { id: author!.id, username: author!.username, karma: author!.karma, userType: author!.userType, createdAt: author!.createdAt } });
      }
      hold = hides(automod, "post") ? hiddenExplanation(automod, "post") : automod.approvedBy ? null : settingsHold;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      problem = err.message;
    }
    // Mentions are resolved at publication: accounts named in the draft may exist by now.
    mentionIds = found.map((u) => u.id);
    bodyHtml = html;
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
      .set({ state: "published", scheduledFor: null, createdAt: now, updatedAt: now, hot: hotRank(post.score, now), held, heldExplanation: hold, listed: held ? 0 : 1, bodyHtml, ...(automod.lock ? { lockedAt: now } : {}) })
      .where(eq(posts.id, post.id))
      .returning()
      .get();
    if (held || automod.fired.length) {
      recordModeration(ctx, tx, { colonyId: row.colonyId, type: "post", id: row.id, postId: row.id, authorId: row.authorId, excerpt: `${row.title} — ${row.body}` }, automod, held ? settingsHold : null);
    }
    if (held) emitHeld(ctx, tx, row);
    else {
      colonies.adjustPostCount(ctx, row.colonyId, 1);
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
