// Reviews (spec Part 3 §4.3): after a deal is done, each of its two parties may rate the other
// once (1-5, an optional comment), and the one rated may answer once, for good. A deal is a
// paid task's accepted bid (reviewable once the task is completed) or an order (once delivered
// or paid out). The features that own deals register how to read one (`registerSubject`): the
// marketplace the bids, the offers feature the orders; until a kind is registered its deals are
// unknown (404). docs/decisions.md §118.
import { and, count, desc, eq, isNull } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { conflict, forbidden, invalid, notFound } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import type { Page } from "../../core/paging";
import { inTransaction } from "../../db/client";
import type { Caller } from "../auth/service";
import * as posts from "../posts/service";
import * as users from "../users/service";
import { reviews, type ReviewRow, type ReviewSubjectType } from "./tables";

export type { ReviewRow, ReviewSubjectType };

/** A deal as the reviews feature sees it. */
interface ReviewSubject {
  /** The task or offer it was made on. */
  postId: string;
  postTitle: string;
  /** Its two parties (task author and bidder; buyer and seller): each rates the other. */
  parties: readonly [string, string];
  /** Why it cannot be reviewed yet (not completed, not delivered), or null when it can. */
  notYet: string | null;
}

/** Reads a deal by id, or null when there is none. */
type SubjectReader = (ctx: Ctx, id: string) => ReviewSubject | null;

const readers = new Map<ReviewSubjectType, SubjectReader>();

/**
 * How the feature owning a kind of deal reads one (its handlers.ts, at start-up); null removes
 * it. Answers the reader it replaced, so a test can put it back.
 */
export function registerSubject(type: ReviewSubjectType, read: SubjectReader | null): SubjectReader | null {
  const previous = readers.get(type) ?? null;
  if (read) readers.set(type, read);
  else readers.delete(type);
  return previous;
}

const NAMES: Record<ReviewSubjectType, string> = { bid: "Bid", order: "Order" };

export interface ReviewInput {
  rating: number;
  comment?: string | null;
}

/**
 * POST /reviews/bids/{bid_id} and /reviews/orders/{order_id}: the caller, a party of the deal,
 * rates the other party. 404 for an unknown deal, 403 for anyone but its parties, 400
 * INVALID_INPUT before it is done, 409 CONFLICT for a second review by the same party.
 */
export function createReview(ctx: Ctx, caller: Caller, type: ReviewSubjectType, subjectId: string, input: ReviewInput): ReviewRow {
  const subject = readers.get(type)?.(ctx, subjectId) ?? null;
  if (!subject) throw notFound(`${NAMES[type]} not found`);
  const [a, b] = subject.parties;
  if (caller.id !== a && caller.id !== b) {
    // An order is seen by its two parties alone, so to anyone else it does not exist (Part 3 §7).
    if (type === "order") throw notFound(`${NAMES[type]} not found`);
    throw forbidden("Only the two parties of this task review it");
  }
  if (subject.notYet) throw invalid(subject.notYet);
  const rateeId = caller.id === a ? b : a;
  if (rateeId === caller.id) throw invalid("You cannot review yourself");
  if (!Number.isInteger(input.rating) || input.rating < 1 || input.rating > 5) throw invalid("rating is a whole number from 1 to 5");
  const comment = input.comment?.trim() || null;
  const now = ctx.clock.now();
  return inTransaction(ctx.db, (tx) => {
    const row = tx
      .insert(reviews)
      .values({ id: uuidv7(now), subjectType: type, subjectId, postId: subject.postId, raterId: caller.id, rateeId, rating: input.rating, comment, createdAt: now })
      .onConflictDoNothing()
      .returning()
      .get();
    if (!row) throw conflict(`You already reviewed this ${type === "bid" ? "task" : "order"}: a review is left once`);
    ctx.events.emit(tx, {
      type: "review_received",
      actorId: caller.id,
      subject: { type: "review", id: row.id },
      activity: true,
      payload: { recipient_ids: [rateeId], review_id: row.id, post_id: subject.postId, post_title: subject.postTitle, rater: caller.username, rating: row.rating, has_comment: comment !== null },
    });
    return row;
  });
}

function getReview(ctx: Ctx, id: string): ReviewRow {
  const row = ctx.db.select().from(reviews).where(eq(reviews.id, id)).get();
  if (!row) throw notFound("Review not found");
  return row;
}

/**
 * POST /reviews/{review_id}/reply: the ratee answers once; the answer never changes (a second is
 * 409 CONFLICT). The rater is told.
 */
export function reply(ctx: Ctx, caller: Caller, reviewId: string, body: string): ReviewRow {
  const review = getReview(ctx, reviewId);
  if (review.rateeId !== caller.id) throw forbidden("Only the person a review is about replies to it");
  const text = body.trim();
  if (!text) throw invalid("body must not be empty");
  return inTransaction(ctx.db, (tx) => {
    const row = tx
      .update(reviews)
      .set({ replyBody: text, replyAt: ctx.clock.now() })
      .where(and(eq(reviews.id, review.id), isNull(reviews.replyBody)))
      .returning()
      .get();
    if (!row) throw conflict("This review already has your reply, and a reply cannot be changed");
    ctx.events.emit(tx, {
      type: "review_replied",
      actorId: caller.id,
      subject: { type: "review", id: row.id },
      activity: true,
      payload: { recipient_ids: [row.raterId], review_id: row.id, post_id: row.postId, post_title: posts.findPost(ctx, row.postId)?.title ?? "", replier: caller.username },
    });
    return row;
  });
}

/** GET /reviews/users/{username}: the reviews a user received, newest first. */
export function listReceived(ctx: Ctx, idOrUsername: string, page: Page): { items: ReviewRow[]; total: number } {
  const user = users.getActiveUser(ctx, idOrUsername);
  const where = eq(reviews.rateeId, user.id);
  const total = ctx.db.select({ n: count() }).from(reviews).where(where).get()!.n;
  const items = ctx.db.select().from(reviews).where(where).orderBy(desc(reviews.createdAt), desc(reviews.id)).limit(page.limit).offset(page.offset).all();
  return { items, total };
}

interface ReviewSummary {
  user_id: string;
  count: number;
  /** The mean rating to two decimals; null without reviews. */
  average: number | null;
  /** How many reviews gave each rating, "1" to "5" (zeros included). */
  histogram: Record<"1" | "2" | "3" | "4" | "5", number>;
}

/** GET /reviews/users/{username}/summary. */
export function summary(ctx: Ctx, idOrUsername: string): ReviewSummary {
  const user = users.getActiveUser(ctx, idOrUsername);
  const rows = ctx.db.select({ rating: reviews.rating, n: count() }).from(reviews).where(eq(reviews.rateeId, user.id)).groupBy(reviews.rating).all();
  const histogram = { "1": 0, "2": 0, "3": 0, "4": 0, "5": 0 };
  let total = 0;
  let sum = 0;
  for (const r of rows) {
    const key = String(r.rating) as keyof typeof histogram;
    if (!(key in histogram)) continue;
    histogram[key] = r.n;
    total += r.n;
    sum += r.rating * r.n;
  }
  return { user_id: user.id, count: total, average: total ? Math.round((sum / total) * 100) / 100 : null, histogram };
}
