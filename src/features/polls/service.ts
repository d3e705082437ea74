// Polls (spec Part 1 §2.3, §2.8, §3, §4.6; docs/decisions.md §18). A poll is a post of type `poll`
// whose metadata holds {poll_options:[{id,text}], multiple_choice, show_results_before_voting,
// closes_at?}; ballots are rows of poll_votes. Closure is derived from the clock at read time:
// once closes_at has passed the poll is closed and votes are refused (409 POLL_CLOSED).
//
// Results: total_votes counts voters (ballots), and each option's percentage is the share of
// voters who chose it (so a multiple-choice poll's percentages may sum past 100), rounded to one
// decimal. With show_results_before_voting=false the counts stay hidden (zeros) from a caller who
// has not voted, anonymous callers included, until the poll closes; the poll's author always sees them.
import { and, count, countDistinct, eq } from "drizzle-orm";
import { DAY, parseInstant } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError, invalid, notFound } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import type { Caller } from "../auth/service";
import * as colonies from "../colonies/service";
import * as postsService from "../posts/service";
import type { PostRow } from "../posts/service";
import { pollVotes } from "./tables";

/** A poll is "closing soon" during its last 24 hours. */
const CLOSING_SOON_MS = DAY;

export interface PollResults {
  total_votes: number;
  user_voted: boolean;
  user_option_ids: string[];
  options: { id: string; text: string; vote_count: number; percentage: number }[];
  is_closed: boolean;
  multiple_choice: boolean;
  show_results_before_voting: boolean;
  closing_soon: boolean;
}

interface Poll {
  options: { id: string; text: string }[];
  multipleChoice: boolean;
  showResultsBeforeVoting: boolean;
  closesAt: number | null;
}

function pollOf(post: PostRow): Poll {
  if (post.postType !== "poll") throw notFound("This post is not a poll");
  const m = post.metadata ?? {};
  const options = Array.isArray(m.poll_options) ? (m.poll_options as { id: string; text: string }[]) : [];
  return {
    options,
    multipleChoice: m.multiple_choice === true,
    showResultsBeforeVoting: m.show_results_before_voting === true,
    closesAt: typeof m.closes_at === "string" ? parseInstant(m.closes_at) : null,
  };
}

const isClosed = (ctx: Ctx, poll: Poll) => poll.closesAt !== null && ctx.clock.now() >= poll.closesAt;

/** Counts are shown once the poll is closed or the caller voted, to its author, and before voting when the poll allows it. */
function resultsVisible(closed: boolean, voted: boolean, showBeforeVoting: boolean, caller: Caller | null, post: PostRow): boolean {
  return closed || voted || showBeforeVoting || caller?.id === post.authorId;
}

/** Whether `r` (this caller's results of `post`) carries the counts; when not, every count is 0. */
export const countsShown = (r: PollResults, caller: Caller | null, post: PostRow) => resultsVisible(r.is_closed, r.user_voted, r.show_results_before_voting, caller, post);

function results(ctx: Ctx, caller: Caller | null, post: PostRow, poll: Poll): PollResults {
  const now = ctx.clock.now();
  const closed = isClosed(ctx, poll);
  const mine = caller
    ? ctx.db.select({ optionId: pollVotes.optionId }).from(pollVotes).where(and(eq(pollVotes.postId, post.id), eq(pollVotes.userId, caller.id))).all().map((r) => r.optionId)
    : [];
  const voted = mine.length > 0;
  const visible = resultsVisible(closed, voted, poll.showResultsBeforeVoting, caller, post);
  const counts = new Map(
    ctx.db.select({ optionId: pollVotes.optionId, n: count() }).from(pollVotes).where(eq(pollVotes.postId, post.id)).groupBy(pollVotes.optionId).all().map((r) => [r.optionId, r.n]),
  );
  const voters = ctx.db.select({ n: countDistinct(pollVotes.userId) }).from(pollVotes).where(eq(pollVotes.postId, post.id)).get()!.n;
  const order = new Map(poll.options.map((o, i) => [o.id, i]));
  return {
    total_votes: visible ? voters : 0,
    user_voted: voted,
    user_option_ids: mine.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0)),
    options: poll.options.map((o) => {
      const n = visible ? (counts.get(o.id) ?? 0) : 0;
      return { id: o.id, text: o.text, vote_count: n, percentage: voters && visible ? Math.round((n / voters) * 1000) / 10 : 0 };
    }),
    is_closed: closed,
    multiple_choice: poll.multipleChoice,
    show_results_before_voting: poll.showResultsBeforeVoting,
    closing_soon: !closed && poll.closesAt !== null && poll.closesAt - now <= CLOSING_SOON_MS,
  };
}

/** GET /polls/{post_id}/results: 404 NOT_FOUND for a missing, hidden or non-poll post. */
export function getResults(ctx: Ctx, caller: Caller | null, postId: string): PollResults {
  const { post } = postsService.getVisiblePost(ctx, caller, postId);
  return results(ctx, caller, post, pollOf(post));
}

/**
 * POST /polls/{post_id}/vote. Single choice: exactly one option, replacing an earlier vote.
 * Multiple choice: 1..n distinct options, replacing the whole earlier selection.
 */
export function vote(ctx: Ctx, caller: Caller, postId: string, optionIds: string[]): PollResults {
  const { post, colony } = postsService.getVisiblePost(ctx, caller, postId);
  const poll = pollOf(post);
  colonies.assertCanParticipate(ctx, colony, caller);
  if (isClosed(ctx, poll)) throw new ApiError(409, "POLL_CLOSED", "This poll is closed");
  const ids = optionIds.map((s) => s.trim());
  if (!ids.length) throw invalid("Choose at least one option");
  if (new Set(ids).size !== ids.length) throw invalid("option_ids must not repeat an option");
  if (!poll.multipleChoice && ids.length > 1) throw invalid("This poll is single-choice: send exactly one option id");
  const known = new Set(poll.options.map((o) => o.id));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length) throw invalid(`Unknown option id: ${unknown.join(", ")}`);

  ctx.db.transaction((tx) => {
    const now = ctx.clock.now();
    tx.delete(pollVotes).where(and(eq(pollVotes.postId, post.id), eq(pollVotes.userId, caller.id))).run();
    tx.insert(pollVotes).values(ids.map((optionId) => ({ id: uuidv7(now), postId: post.id, userId: caller.id, optionId, createdAt: now }))).run();
    ctx.events.emit(tx, { type: "poll_voted", actorId: caller.id, subject: { type: "post", id: post.id }, payload: { post_id: post.id, option_ids: ids, author_id: post.authorId }, activity: true });
  });
  return results(ctx, caller, post, poll);
}
