// Turns committed domain events into notifications (ARCHITECTURE rule 6: the outbox worker
// writes notifications, the request never does). Recipients per spec Part 1 §6 and Part 2 §6.2.
// Nobody is notified about their own act, and each event notifies each recipient at most once.
import type { Ctx } from "../../core/context";
import { payloadString, payloadStrings, type DomainEvent, type EventBus } from "../../core/events";
import { hasUnreadFrom, isThreadMuted, notify, purgeUser } from "./service";


/** `user_followed` {follower_id, followee_id} → new_follower to the followed user. */
function onUserFollowed(ctx: Ctx, ev: DomainEvent): void {
  const follower = payloadString(ev.payload.follower_id) ?? ev.actorId;
  const followee = payloadString(ev.payload.followee_id);
  if (!follower || !followee) return;
  // Unfollowing and following again does not stack up "new follower" notifications.
  if (hasUnreadFrom(ctx, followee, "new_follower", follower)) return;
  notify(ctx, { userId: followee, kind: "new_follower", actorId: follower, target: { type: "user", id: follower }, eventId: ev.id });
}

/**
 * `comment_created` {post_id, comment_id, parent_id, post_author_id, parent_author_id, colony_id}
 * → reply_to_comment to the parent comment's author and comment_on_post to the post author. A
 * post author whose own comment was answered gets the reply only. A muted thread silences both.
 */
function onCommentCreated(ctx: Ctx, ev: DomainEvent): void {
  const postId = payloadString(ev.payload.post_id);
  const commentId = payloadString(ev.payload.comment_id);
  if (!postId || !commentId) return;
  const parentId = payloadString(ev.payload.parent_id);
  const parentAuthor = parentId ? payloadString(ev.payload.parent_author_id) : null;
  const postAuthor = payloadString(ev.payload.post_author_id);
  const colonyId = payloadString(ev.payload.colony_id);
  const told = new Set<string>();
  const tell = (userId: string, kind: "reply_to_comment" | "comment_on_post", meta: Record<string, unknown>) => {
    if (userId === ev.actorId || told.has(userId)) return;
    told.add(userId);
    if (isThreadMuted(ctx, userId, postId)) return;
    notify(ctx, { userId, kind, actorId: ev.actorId, target: { type: "comment", id: commentId }, postId, commentId, meta, eventId: ev.id });
  };
  if (parentAuthor) tell(parentAuthor, "reply_to_comment", { parent_comment_id: parentId, colony_id: colonyId });
  if (postAuthor) tell(postAuthor, "comment_on_post", { colony_id: colonyId });
}

/** `mention` {user_ids, post_id?, comment_id?} → mention to each named user, muted thread or not. */
function onMention(ctx: Ctx, ev: DomainEvent): void {
  const postId = payloadString(ev.payload.post_id);
  const commentId = payloadString(ev.payload.comment_id);
  const target = commentId ? { type: "comment", id: commentId } : postId ? { type: "post", id: postId } : null;
  for (const userId of payloadStrings(ev.payload.user_ids)) {
    notify(ctx, { userId, kind: "mention", actorId: ev.actorId, target, postId, commentId, eventId: ev.id });
  }
}

/** `reaction_added` {emoji, post_id?, comment_id?, author_id} → post_reaction to the content's author. */
function onReactionAdded(ctx: Ctx, ev: DomainEvent): void {
  const author = payloadString(ev.payload.author_id);
  if (!author) return;
  const postId = payloadString(ev.payload.post_id);
  const commentId = payloadString(ev.payload.comment_id);
  const target = commentId ? { type: "comment", id: commentId } : postId ? { type: "post", id: postId } : null;
  notify(ctx, {
    userId: author,
    kind: "post_reaction",
    actorId: ev.actorId,
    target,
    postId,
    commentId,
    meta: { emoji: payloadString(ev.payload.emoji), is_comment: !!commentId },
    eventId: ev.id,
  });
}

/** `colony_member_approved` {colony_id, user_id} → colony_member_approved to the member. */
function onColonyMemberApproved(ctx: Ctx, ev: DomainEvent): void {
  const userId = payloadString(ev.payload.user_id);
  const colonyId = payloadString(ev.payload.colony_id);
  if (!userId || !colonyId) return;
  const meta: Record<string, unknown> = { colony_id: colonyId };
  const colonyName = payloadString(ev.payload.colony_name);
  if (colonyName) meta.colony_name = colonyName;
  notify(ctx, { userId, kind: "colony_member_approved", actorId: ev.actorId, target: { type: "colony", id: colonyId }, meta, eventId: ev.id });
}

const HANDLERS: Record<string, (ctx: Ctx, ev: DomainEvent) => void> = {
  user_followed: onUserFollowed,
  comment_created: onCommentCreated,
  mention: onMention,
  reaction_added: onReactionAdded,
  colony_member_approved: onColonyMemberApproved,
  // A self-deleted account leaves nothing behind: what it received and the threads it muted.
  account_deleted: (ctx, ev) => {
    const userId = payloadString(ev.payload.user_id);
    if (userId) purgeUser(ctx, userId);
  },
};

const registered = new WeakSet<EventBus>();

/** Subscribes the notification writers to the event bus of `ctx` (once per bus). */
export function registerNotificationHandlers(ctx: Ctx): void {
  if (registered.has(ctx.events)) return;
  registered.add(ctx.events);
  for (const [type, handle] of Object.entries(HANDLERS)) ctx.events.on(type, (ev) => handle(ctx, ev));
}
