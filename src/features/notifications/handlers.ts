// Who is told about what: the fan-out rule of each forum event (spec Part 1 §6, Part 2 §6.2),
// run inside the transaction of the action, so a notification is readable the moment the action
// has answered. Each rule returns whom it told; that list is stored with the event (its
// `audience`) and the webhooks' personal events (comment_on_post, reply_to_comment, mention,
// new_follower, post_reaction) go to exactly those people (webhooks/mapping.ts).
// Nobody is told about their own act, and each event tells each person at most once. The rules
// of messaging events live with messaging (messages/handlers.ts), those of colony roles, bans,
// strikes and appeals with colonies (colonies/handlers.ts).
import type { Ctx } from "../../core/context";
import type { DomainEvent, Told } from "../../core/events";
import { hasUnreadFrom, isThreadMuted, publishUnread, purgeUser, tell, type NotifyInput } from "./service";

/** Writes each notification; returns whom it told (a blocked actor, an inactive account or a repeat tells nobody). */
/** `user_followed` → new_follower to the followed user (not again while an earlier one is unread). */
function onUserFollowed(ctx: Ctx, ev: DomainEvent<"user_followed">): Told[] {
  const { follower_id: follower, followee_id: followee } = ev.payload;
  // Unfollowing and following again does not stack up "new follower" notifications.
  if (hasUnreadFrom(ctx, followee, "new_follower", follower)) return [];
  return tell(ctx, [{ userId: followee, kind: "new_follower", actorId: follower, target: { type: "user", id: follower }, eventId: ev.id }]);
}

/**
 * `comment_created` → reply_to_comment to the parent comment's author and comment_on_post to the
 * post author. A post author whose own comment was answered gets the reply only. A muted thread
 * silences both.
 */
function onCommentCreated(ctx: Ctx, ev: DomainEvent<"comment_created">): Told[] {
  const p = ev.payload;
  const inputs: NotifyInput[] = [];
  const seen = new Set<string>();
  const add = (userId: string | null, kind: "reply_to_comment" | "comment_on_post", meta: Record<string, unknown>) => {
    if (!userId || userId === ev.actorId || seen.has(userId)) return;
    seen.add(userId);
    if (isThreadMuted(ctx, userId, p.post_id)) return;
    inputs.push({ userId, kind, actorId: ev.actorId, target: { type: "comment", id: p.comment_id }, postId: p.post_id, commentId: p.comment_id, meta, eventId: ev.id });
  };
  if (p.parent_id) add(p.parent_author_id, "reply_to_comment", { parent_comment_id: p.parent_id, colony_id: p.colony_id });
  add(p.post_author_id, "comment_on_post", { colony_id: p.colony_id });
  return tell(ctx, inputs);
}

/** `mention` → mention to each named user, muted thread or not. */
function onMention(ctx: Ctx, ev: DomainEvent<"mention">): Told[] {
  const { post_id: postId, comment_id: commentId } = ev.payload;
  const target = commentId ? { type: "comment", id: commentId } : { type: "post", id: postId };
  return tell(
    ctx,
    [...new Set(ev.payload.user_ids)].map((userId) => ({ userId, kind: "mention", actorId: ev.actorId, target, postId, commentId: commentId ?? null, eventId: ev.id })),
  );
}

/** `reaction_added` → post_reaction to the content's author. */
function onReactionAdded(ctx: Ctx, ev: DomainEvent<"reaction_added">): Told[] {
  const { post_id: postId, comment_id: commentId, emoji } = ev.payload;
  const target = commentId ? { type: "comment", id: commentId } : { type: "post", id: postId };
  return tell(ctx, [
    { userId: ev.payload.author_id, kind: "post_reaction", actorId: ev.actorId, target, postId, commentId: commentId ?? null, meta: { emoji, is_comment: !!commentId }, eventId: ev.id },
  ]);
}

/** `colony_member_approved` → colony_member_approved to the member. */
function onColonyMemberApproved(ctx: Ctx, ev: DomainEvent<"colony_member_approved">): Told[] {
  const { user_id: userId, colony_id: colonyId, colony_name: colonyName } = ev.payload;
  return tell(ctx, [{ userId, kind: "colony_member_approved", actorId: ev.actorId, target: { type: "colony", id: colonyId }, meta: { colony_id: colonyId, colony_name: colonyName }, eventId: ev.id }]);
}

/** The notifications feature's fan-out rules and clean-up. */
export function register(ctx: Ctx): void {
  ctx.events.fanOut("user_followed", (ev) => onUserFollowed(ctx, ev));
  ctx.events.fanOut("comment_created", (ev) => onCommentCreated(ctx, ev));
  ctx.events.fanOut("mention", (ev) => onMention(ctx, ev));
  ctx.events.fanOut("reaction_added", (ev) => onReactionAdded(ctx, ev));
  ctx.events.fanOut("colony_member_approved", (ev) => onColonyMemberApproved(ctx, ev));
  // After commit, everyone an event told (any feature's fan-out) sees their new unread count on
  // their open pages (docs/decisions.md §170), and so does a user who read or deleted some of
  // theirs (notifications_changed). Live handlers: every serving process pushes to its own
  // streams, reading the count and writing nothing.
  ctx.events.onLive("*", (ev) => {
    for (const id of new Set(ev.audience.map((t) => t.user_id))) publishUnread(ctx, id);
  });
  ctx.events.onLive("notifications_changed", (ev) => publishUnread(ctx, ev.payload.user_id, ev.payload.unread));
  // A self-deleted account leaves nothing behind: what it received and the threads it muted.
  ctx.events.on("account_deleted", (ev) => purgeUser(ctx, ev.payload.user_id));
}
