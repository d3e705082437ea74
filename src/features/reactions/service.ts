// Emoji reactions on posts and comments (spec Part 1 §2.8, §4.6). A toggle adds the caller's
// (target, emoji) reaction or removes it; adding emits `reaction_added` in the same transaction
// (the notifications feature turns it into post_reaction for the author, skipping self-reactions),
// removing emits `reaction_removed` (nobody told, no webhook: it only refreshes cached reads).
import { and, count, desc, eq, inArray, sql } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import type { Readers } from "../../core/domain-events";
import { invalid } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import { prepared } from "../../db/statements";
import type { Caller } from "../auth/service";
import * as colonies from "../colonies/service";
import type { ColonyRow } from "../colonies/service";
import * as commentsService from "../comments/service";
import * as postsService from "../posts/service";
import * as users from "../users/service";
import { REACTION_KEYS, REACTIONS, reactions, type ReactionKey } from "./tables";

const WHO_MAX = 20;

interface ReactionTargetInput {
  post_id?: string | null;
  comment_id?: string | null;
}

interface Target {
  type: "post" | "comment";
  id: string;
  postId: string;
  authorId: string;
  colony: ColonyRow;
  /** Who may read the reacted-to content (the post's readers). */
  readers: Readers;
}

export interface ReactionCount {
  emoji: string;
  emoji_char: string;
  count: number;
  user_reacted: boolean;
}

function reactionKey(raw: string): ReactionKey {
  if (!(REACTION_KEYS as string[]).includes(raw)) throw invalid(`emoji must be one of ${REACTION_KEYS.join(", ")}`);
  return raw as ReactionKey;
}

/** Exactly one of post_id or comment_id (else 400 INVALID_INPUT), visible to the caller (else 404). */
function resolveTarget(ctx: Ctx, caller: Caller | null, input: ReactionTargetInput): Target {
  const postId = input.post_id || null;
  const commentId = input.comment_id || null;
  if (!postId === !commentId) throw invalid("Send exactly one of post_id or comment_id");
  if (commentId) {
    const { comment, post, colony } = commentsService.getVisibleComment(ctx, caller, commentId);
    return { type: "comment", id: comment.id, postId: post.id, authorId: comment.authorId, colony, readers: postsService.readersOf(post, colony) };
  }
  const { post, colony } = postsService.getVisiblePost(ctx, caller, postId!);
  return { type: "post", id: post.id, postId: post.id, authorId: post.authorId, colony, readers: postsService.readersOf(post, colony) };
}

/** Counts per emoji of one target (emoji with at least one reaction, in the catalogue's order). */
export function summary(ctx: Ctx, caller: Caller | null, targetType: "post" | "comment", targetId: string): ReactionCount[] {
  // Every post page shows its post's: prepared once.
  const stmt = prepared(ctx.db, "reactions.summary", () =>
    ctx.db
      .select({ emoji: reactions.emoji, n: count() })
      .from(reactions)
      .where(and(eq(reactions.targetType, sql.placeholder("type")), eq(reactions.targetId, sql.placeholder("target"))))
      .groupBy(reactions.emoji)
      .prepare(),
  );
  const rows = stmt.all({ type: targetType, target: targetId });
  if (!rows.length) return [];
  const mine = caller ? reactedBy(ctx, caller.id, targetType, [targetId]) : new Set<string>();
  const counts = new Map(rows.map((r) => [r.emoji, r.n]));
  return REACTION_KEYS.filter((k) => (counts.get(k) ?? 0) > 0).map((k) => ({ emoji: k, emoji_char: REACTIONS[k], count: counts.get(k)!, user_reacted: mine.has(`${targetId}|${k}`) }));
}

/** summary() of many targets of one type in two statements (a page of comments); targets without reactions are left out. */
export function summaries(ctx: Ctx, caller: Caller | null, targetType: "post" | "comment", targetIds: readonly string[]): Map<string, ReactionCount[]> {
  const out = new Map<string, ReactionCount[]>();
  if (!targetIds.length) return out;
  const ids = [...new Set(targetIds)];
  const rows = ctx.db
    .select({ id: reactions.targetId, emoji: reactions.emoji, n: count() })
    .from(reactions)
    .where(and(eq(reactions.targetType, targetType), inArray(reactions.targetId, ids)))
    .groupBy(reactions.targetId, reactions.emoji)
    .all();
  if (!rows.length) return out;
  const mine = caller ? reactedBy(ctx, caller.id, targetType, ids) : new Set<string>();
  const counts = new Map<string, Map<string, number>>();
  for (const r of rows) {
    let m = counts.get(r.id);
    if (!m) counts.set(r.id, (m = new Map()));
    m.set(r.emoji, r.n);
  }
  for (const [id, m] of counts) {
    out.set(
      id,
      REACTION_KEYS.filter((k) => (m.get(k) ?? 0) > 0).map((k) => ({ emoji: k, emoji_char: REACTIONS[k], count: m.get(k)!, user_reacted: mine.has(`${id}|${k}`) })),
    );
  }
  return out;
}

/** A user's own reactions among some targets, as `<target id>|<emoji>`. */
export function reactedBy(ctx: Ctx, userId: string, targetType: "post" | "comment", targetIds: readonly string[]): Set<string> {
  if (!targetIds.length) return new Set();
  const stmt = prepared(ctx.db, "reactions.reactedBy", () =>
    ctx.db.$client.prepare("select target_id as id, emoji from reactions where user_id = ? and target_type = ? and target_id in (select value from json_each(?))"),
  );
  const rows = stmt.all(userId, targetType, JSON.stringify(targetIds)) as { id: string; emoji: string }[];
  return new Set(rows.map((r) => `${r.id}|${r.emoji}`));
}

/** Everyone who has reacted to any of the targets (the web's comment list: whose reactions to look up). */
export function reactorsOf(ctx: Ctx, targetType: "post" | "comment", targetIds: readonly string[]): Set<string> {
  if (!targetIds.length) return new Set();
  const stmt = prepared(ctx.db, "reactions.reactorsOf", () =>
    ctx.db.$client.prepare("select distinct user_id as id from reactions where target_type = ? and target_id in (select value from json_each(?))"),
  );
  return new Set((stmt.all(targetType, JSON.stringify(targetIds)) as { id: string }[]).map((r) => r.id));
}

/** POST /reactions/toggle: adds or removes the caller's reaction; answers the target's counts. */
export function toggleReaction(ctx: Ctx, caller: Caller, input: ReactionTargetInput & { emoji: string }): { reactions: ReactionCount[] } {
  const emoji = reactionKey(input.emoji);
  const target = resolveTarget(ctx, caller, input);
  colonies.assertCanParticipate(ctx, target.colony, caller);
  ctx.db.transaction((tx) => {
    const mine = and(eq(reactions.userId, caller.id), eq(reactions.targetType, target.type), eq(reactions.targetId, target.id), eq(reactions.emoji, emoji));
    const existing = tx.select({ id: reactions.id }).from(reactions).where(mine).get();
    if (existing) {
      tx.delete(reactions).where(eq(reactions.id, existing.id)).run();
      // Nobody is told, but cached reads of the colony show the counts: the event's read scopes
      // (core/domain-events.ts READ_SCOPES) invalidate them, in every process that reads the outbox.
      ctx.events.emit(tx, {
        type: "reaction_removed",
        actorId: caller.id,
        subject: { type: target.type, id: target.id },
        payload: { emoji, post_id: target.postId, ...(target.type === "comment" ? { comment_id: target.id } : {}), colony_id: target.colony.id },
      });
      return;
    }
    const now = ctx.clock.now();
    tx.insert(reactions).values({ id: uuidv7(now), userId: caller.id, targetType: target.type, targetId: target.id, emoji, createdAt: now }).run();
    ctx.events.emit(tx, {
      type: "reaction_added",
      actorId: caller.id,
      subject: { type: target.type, id: target.id },
      payload: {
        emoji,
        post_id: target.postId,
        ...(target.type === "comment" ? { comment_id: target.id } : {}),
        author_id: target.authorId,
        reactor_username: caller.username,
        readers: target.readers,
      },
      activity: true,
    });
  });
  return { reactions: summary(ctx, caller, target.type, target.id) };
}

/** GET /reactions/who: up to 20 users who reacted with `emoji`, newest first. */
export function whoReacted(ctx: Ctx, caller: Caller | null, input: ReactionTargetInput & { emoji: string }): { emoji: string; users: { username: string; display_name: string }[] } {
  const emoji = reactionKey(input.emoji);
  // Neither target: an empty list rather than an error (the reference's fail-open popover).
  if (!input.post_id && !input.comment_id) return { emoji, users: [] };
  const target = resolveTarget(ctx, caller, input);
  const ids = ctx.db
    .select({ userId: reactions.userId })
    .from(reactions)
    .where(and(eq(reactions.targetType, target.type), eq(reactions.targetId, target.id), eq(reactions.emoji, emoji)))
    .orderBy(desc(reactions.createdAt), desc(reactions.id))
    .limit(WHO_MAX)
    .all()
    .map((r) => r.userId);
  const found = users.findManyByIds(ctx, ids);
  return { emoji, users: ids.flatMap((id) => (found.has(id) ? [{ username: found.get(id)!.username, display_name: found.get(id)!.displayName }] : [])) };
}
