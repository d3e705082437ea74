// Which webhook events a committed domain event becomes, for whom, and with what body (spec
// Part 2 §6.2, DECISIONS 5; payload shapes from the reference event catalogue). No HTTP and no
// writes here: the service turns the plan into delivery rows.
//
// Three kinds of targets:
// - "broadcast" (post_created, comment_created, reaction_added, member_joined, user_followed):
//   every active webhook subscribed to the name whose owner may read the content — never content
//   in a private colony the owner is not an approved member of. The actor's own webhooks are
//   included: the reference describes these as "no per-user targeting".
// - personal events derived like the notifications (comment_on_post, reply_to_comment, mention,
//   new_follower, post_reaction): the affected users, never the actor, and only while they can
//   still read the content.
// - the generic rule: a domain event whose type is a §6.2 name and whose payload carries
//   `recipient_ids: string[]` goes to those users (messaging, two-factor and later features).
import type { Ctx } from "../../core/context";
import { payloadString, payloadStrings, type DomainEvent } from "../../core/events";
import { callerOf } from "../auth/service";
import * as colonies from "../colonies/service";
import { isThreadMuted } from "../notifications/service";
import * as posts from "../posts/service";
import * as users from "../users/service";
import catalog from "./catalog.json";

/** Every name a subscription may list (§6.2 without the synthetic test.ping; DECISIONS 5). */
export const EVENT_NAMES: readonly string[] = catalog.events.map((e) => e.name);
const NAMES = new Set(EVENT_NAMES);

/** Payload fields that steer delivery and are never sent. */
const INTERNAL_FIELDS = new Set(["recipient_ids"]);

export type Audience = { kind: "broadcast" } | { kind: "users"; userIds: string[] };

export interface PlannedEvent {
  /** The webhook event name (X-Service-Event, `event` in the body). */
  name: string;
  /** The body without `event`. */
  data: Record<string, unknown>;
  audience: Audience;
  /** Whether a webhook owner may receive it (content visibility). */
  visibleTo: (userId: string) => boolean;
}


function memo<V>(cache: Map<string, V>, key: string, make: () => V): V {
  if (!cache.has(key)) cache.set(key, make());
  return cache.get(key) as V;
}

/**
 * Memoised lookups for one event: users, posts and colonies (read once however many subscribers
 * are checked), who may read what, and user names.
 */
class Lookups {
  private userById = new Map<string, ReturnType<typeof users.findById>>();
  private postById = new Map<string, ReturnType<typeof posts.findPost>>();
  private colonyById = new Map<string, ReturnType<typeof colonies.findColony>>();
  private postSeen = new Map<string, boolean>();
  private colonySeen = new Map<string, boolean>();

  constructor(readonly ctx: Ctx) {}

  user(id: string | null) {
    return id ? memo(this.userById, id, () => users.findById(this.ctx, id)) : null;
  }

  username(id: string | null): string | null {
    return this.user(id)?.username ?? null;
  }

  post(id: string) {
    return memo(this.postById, id, () => posts.findPost(this.ctx, id));
  }

  colony(id: string) {
    return memo(this.colonyById, id, () => colonies.findColony(this.ctx, id));
  }

  /** Whether the user (an active account) may see the post now. */
  canSeePost(userId: string, postId: string): boolean {
    return memo(this.postSeen, `${userId}:${postId}`, () => {
      const user = this.user(userId);
      const post = this.post(postId);
      return users.isActive(user) && !!post && posts.canSee(this.ctx, callerOf(user), post, this.colony(post.colonyId));
    });
  }

  canReadColony(userId: string, colonyId: string): boolean {
    return memo(this.colonySeen, `${userId}:${colonyId}`, () => {
      const user = this.user(userId);
      const colony = this.colony(colonyId);
      return users.isActive(user) && !!colony && colonies.canRead(this.ctx, colony, callerOf(user));
    });
  }
}

type Mapper = (ev: DomainEvent, look: Lookups) => PlannedEvent[];

const broadcast: Audience = { kind: "broadcast" };
const toUsers = (ids: Iterable<string>): Audience => ({ kind: "users", userIds: [...new Set(ids)] });

const onPostCreated: Mapper = (ev, look) => {
  const postId = payloadString(ev.payload.post_id);
  if (!postId) return [];
  const post = look.post(postId);
  if (!post) return [];
  const colony = look.colony(post.colonyId);
  return [
    {
      name: "post_created",
      data: { post_id: post.id, author: look.username(post.authorId), title: post.title, colony: colony?.name ?? null, post_type: post.postType },
      audience: broadcast,
      visibleTo: (u) => look.canSeePost(u, post.id),
    },
  ];
};

const onCommentCreated: Mapper = (ev, look) => {
  const postId = payloadString(ev.payload.post_id);
  const commentId = payloadString(ev.payload.comment_id);
  if (!postId || !commentId) return [];
  const post = look.post(postId);
  if (!post) return [];
  const actor = ev.actorId;
  const actorName = look.username(actor);
  const visibleTo = (u: string) => look.canSeePost(u, post.id);
  const out: PlannedEvent[] = [
    {
      name: "comment_created",
      data: { comment_id: commentId, post_id: post.id, author: actorName, post_title: post.title },
      audience: broadcast,
      visibleTo,
    },
  ];
  // The personal twins follow the notification rules: never the actor, each user once (a post
  // author whose own comment was answered gets the reply), and a muted thread silences both.
  const told = new Set<string>();
  const personal = (userId: string | null, name: "reply_to_comment" | "comment_on_post", data: Record<string, unknown>) => {
    if (!userId || userId === actor || told.has(userId)) return;
    told.add(userId);
    if (isThreadMuted(look.ctx, userId, post.id)) return;
    out.push({ name, data, audience: toUsers([userId]), visibleTo });
  };
  const parentAuthor = payloadString(ev.payload.parent_id) ? payloadString(ev.payload.parent_author_id) : null;
  personal(parentAuthor, "reply_to_comment", { post_id: post.id, post_title: post.title, comment_id: commentId, replier: actorName, replier_id: actor });
  personal(payloadString(ev.payload.post_author_id), "comment_on_post", { post_id: post.id, post_title: post.title, comment_id: commentId, commenter: actorName, commenter_id: actor });
  return out;
};

const onMention: Mapper = (ev, look) => {
  const postId = payloadString(ev.payload.post_id);
  if (!postId) return [];
  const post = look.post(postId);
  if (!post) return [];
  const recipients = payloadStrings(ev.payload.user_ids).filter((u) => u !== ev.actorId);
  if (!recipients.length) return [];
  const data: Record<string, unknown> = { actor: look.username(ev.actorId), post_id: post.id, post_title: post.title };
  const commentId = payloadString(ev.payload.comment_id);
  if (commentId) data.comment_id = commentId;
  return [{ name: "mention", data, audience: toUsers(recipients), visibleTo: (u) => look.canSeePost(u, post.id) }];
};

const onReactionAdded: Mapper = (ev, look) => {
  const postId = payloadString(ev.payload.post_id);
  if (!postId) return [];
  const commentId = payloadString(ev.payload.comment_id);
  const emoji = payloadString(ev.payload.emoji);
  const reactor = look.username(ev.actorId);
  const visibleTo = (u: string) => look.canSeePost(u, postId);
  const out: PlannedEvent[] = [
    {
      name: "reaction_added",
      // Exactly one of post_id / comment_id is set (reference ReactionAddedPayload).
      data: { reactor, emoji, post_id: commentId ? null : postId, comment_id: commentId },
      audience: broadcast,
      visibleTo,
    },
  ];
  const author = payloadString(ev.payload.author_id);
  if (author && author !== ev.actorId) {
    out.push({
      name: "post_reaction",
      data: { post_id: postId, comment_id: commentId, emoji, reactor, reactor_id: ev.actorId, is_comment: !!commentId },
      audience: toUsers([author]),
      visibleTo,
    });
  }
  return out;
};

const onUserFollowed: Mapper = (ev, look) => {
  const follower = payloadString(ev.payload.follower_id) ?? ev.actorId;
  const followee = payloadString(ev.payload.followee_id);
  if (!follower || !followee) return [];
  const everyone = () => true;
  return [
    { name: "user_followed", data: { follower: look.username(follower), followed: look.username(followee), followed_id: followee }, audience: broadcast, visibleTo: everyone },
    ...(follower !== followee
      ? [{ name: "new_follower", data: { follower: look.username(follower), follower_id: follower }, audience: toUsers([followee]), visibleTo: everyone }]
      : []),
  ];
};

/** A membership that counts: an approved join, or the approval of a pending one. */
const memberJoined = (colonyId: string | null, userId: string | null, look: Lookups): PlannedEvent[] => {
  if (!colonyId || !userId) return [];
  const user = look.user(userId);
  if (!user) return [];
  const colony = look.colony(colonyId);
  return [
    {
      name: "member_joined",
      data: { user_id: user.id, username: user.username, user_type: user.userType, colony: colony?.name ?? null, colony_id: colonyId },
      audience: broadcast,
      visibleTo: (u) => look.canReadColony(u, colonyId),
    },
  ];
};

const MAPPERS: Record<string, Mapper> = {
  post_created: onPostCreated,
  comment_created: onCommentCreated,
  mention: onMention,
  reaction_added: onReactionAdded,
  user_followed: onUserFollowed,
  member_joined: (ev, look) => (ev.payload.approved === false ? [] : memberJoined(payloadString(ev.payload.colony_id), payloadString(ev.payload.user_id), look)),
  colony_member_approved: (ev, look) => memberJoined(payloadString(ev.payload.colony_id), payloadString(ev.payload.user_id), look),
};

/** The generic rule: a §6.2 name with explicit `recipient_ids`; internal fields stripped. */
const generic: Mapper = (ev) => {
  const recipients = payloadStrings(ev.payload.recipient_ids);
  if (!recipients.length) return [];
  const data: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(ev.payload)) if (!INTERNAL_FIELDS.has(k) && k !== "event") data[k] = v;
  return [{ name: ev.type, data, audience: toUsers(recipients), visibleTo: () => true }];
};

/** The webhook events a domain event turns into (empty for events no webhook hears about). */
export function planWebhookEvents(ctx: Ctx, ev: DomainEvent): PlannedEvent[] {
  const mapper = MAPPERS[ev.type] ?? (NAMES.has(ev.type) ? generic : null);
  if (!mapper) return [];
  return mapper(ev, new Lookups(ctx));
}

/** The body sent for an event: `event` first, then its data (reference catalogue shape). */
export const eventBody = (name: string, data: Record<string, unknown>) => JSON.stringify({ event: name, ...data });
