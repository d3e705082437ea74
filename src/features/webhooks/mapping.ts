// Which webhook events a committed domain event becomes, for whom, and with what body (spec
// Part 2 §6.2, docs/decisions.md §5; payload shapes from the reference event catalogue). No HTTP
// and no writes here: the service turns the plan into delivery rows. The event's payload carries
// the names, titles and readers the bodies need (core/domain-events.ts), so nothing is read again
// but who may read private or held content.
//
// Three kinds of targets:
// - "broadcast" (post_created, comment_created, reaction_added, member_joined, user_followed):
//   every active webhook subscribed to the name whose owner may read the content — never content
//   in a private colony the owner is not an approved member of. The actor's own webhooks are
//   included: the reference describes these as "no per-user targeting".
// - personal events (comment_on_post, reply_to_comment, mention, new_follower, post_reaction):
//   exactly the people the event's fan-out rule told (its `audience`, notifications/handlers.ts),
//   while they can still read the content. Who is told is decided once, there.
// - the colony moderation events (colony_banned, colony_unbanned, colony_strike,
//   ban_appeal_filed) and the organisation events (org_invited, org_removed, org_role_changed):
//   personal too, to the people the colonies or orgs feature's fan-out told.
// - the generic rule: a domain event whose type is a §6.2 name and whose payload carries
//   `recipient_ids: string[]` goes to those users (messaging, two-factor and later features).
import type { Ctx } from "../../core/context";
import type { Readers } from "../../core/domain-events";
import type { AnyDomainEvent, DomainEvent, EventName } from "../../core/events";
import { callerOf } from "../auth/service";
import * as colonies from "../colonies/service";
import * as posts from "../posts/service";
import * as users from "../users/service";
import catalog from "./catalog.json";

/** Every name a subscription may list (§6.2 without the synthetic test.ping; docs/decisions.md §5). */
export const EVENT_NAMES: readonly string[] = catalog.events.map((e) => e.name);
const NAMES = new Set(EVENT_NAMES);

type Audience = { kind: "broadcast" } | { kind: "users"; userIds: string[] };

interface PlannedEvent {
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

/** Who may read what, for one event: each webhook owner is looked up once however many plans ask. */
class Readability {
  private userById = new Map<string, ReturnType<typeof users.findById>>();
  private answers = new Map<string, boolean>();

  constructor(readonly ctx: Ctx) {}

  private user(id: string) {
    return memo(this.userById, id, () => users.findById(this.ctx, id));
  }

  /** Whether the (active) user may read content with these readers; `postId` for restricted content. */
  canRead(userId: string, readers: Readers, postId?: string): boolean {
    return memo(this.answers, `${userId}:${readers.colony_id}:${postId ?? ""}`, () => {
      const user = this.user(userId);
      if (!users.isActive(user)) return false;
      if (readers.restricted && postId) {
        // Held or otherwise narrowed content: ask the post itself, as it is now.
        const post = posts.findPost(this.ctx, postId);
        return !!post && posts.canSee(this.ctx, callerOf(user), post, colonies.findColony(this.ctx, post.colonyId));
      }
      if (!readers.members_only) return true;
      return user.isAdmin || !!colonies.membershipOf(this.ctx, readers.colony_id, userId)?.approved;
    });
  }
}

type Mapper<K extends EventName> = (ev: DomainEvent<K>, look: Readability) => PlannedEvent[];

const broadcast: Audience = { kind: "broadcast" };
const toUsers = (ids: Iterable<string>): Audience => ({ kind: "users", userIds: [...new Set(ids)] });
/** The people the event's fan-out told with `kind`. */
const told = (ev: AnyDomainEvent, kind: string): string[] => ev.audience.filter((t) => t.kind === kind).map((t) => t.user_id);

const onPostCreated: Mapper<"post_created"> = (ev, look) => {
  const p = ev.payload;
  return [
    {
      name: "post_created",
      data: { post_id: p.post_id, author: p.author_username, title: p.title, colony: p.colony_name, post_type: p.post_type },
      audience: broadcast,
      visibleTo: (u) => look.canRead(u, p.readers, p.post_id),
    },
  ];
};

const onCommentCreated: Mapper<"comment_created"> = (ev, look) => {
  const p = ev.payload;
  const visibleTo = (u: string) => look.canRead(u, p.readers, p.post_id);
  const out: PlannedEvent[] = [
    { name: "comment_created", data: { comment_id: p.comment_id, post_id: p.post_id, author: p.author_username, post_title: p.post_title }, audience: broadcast, visibleTo },
  ];
  const replied = told(ev, "reply_to_comment");
  if (replied.length) {
    out.push({
      name: "reply_to_comment",
      data: { post_id: p.post_id, post_title: p.post_title, comment_id: p.comment_id, replier: p.author_username, replier_id: ev.actorId },
      audience: toUsers(replied),
      visibleTo,
    });
  }
  const commented = told(ev, "comment_on_post");
  if (commented.length) {
    out.push({
      name: "comment_on_post",
      data: { post_id: p.post_id, post_title: p.post_title, comment_id: p.comment_id, commenter: p.author_username, commenter_id: ev.actorId },
      audience: toUsers(commented),
      visibleTo,
    });
  }
  return out;
};

const onMention: Mapper<"mention"> = (ev, look) => {
  const p = ev.payload;
  const recipients = told(ev, "mention");
  if (!recipients.length) return [];
  const data: Record<string, unknown> = { actor: p.author_username, post_id: p.post_id, post_title: p.post_title };
  if (p.comment_id) data.comment_id = p.comment_id;
  return [{ name: "mention", data, audience: toUsers(recipients), visibleTo: (u) => look.canRead(u, p.readers, p.post_id) }];
};

const onReactionAdded: Mapper<"reaction_added"> = (ev, look) => {
  const p = ev.payload;
  const commentId = p.comment_id ?? null;
  const visibleTo = (u: string) => look.canRead(u, p.readers, p.post_id);
  const out: PlannedEvent[] = [
    {
      name: "reaction_added",
      // Exactly one of post_id / comment_id is set (reference ReactionAddedPayload).
      data: { reactor: p.reactor_username, emoji: p.emoji, post_id: commentId ? null : p.post_id, comment_id: commentId },
      audience: broadcast,
      visibleTo,
    },
  ];
  const authors = told(ev, "post_reaction");
  if (authors.length) {
    out.push({
      name: "post_reaction",
      data: { post_id: p.post_id, comment_id: commentId, emoji: p.emoji, reactor: p.reactor_username, reactor_id: ev.actorId, is_comment: !!commentId },
      audience: toUsers(authors),
      visibleTo,
    });
  }
  return out;
};

const onUserFollowed: Mapper<"user_followed"> = (ev) => {
  const p = ev.payload;
  // Who follows whom is public.
  const active = () => true;
  const out: PlannedEvent[] = [
    { name: "user_followed", data: { follower: p.follower_username, followed: p.followee_username, followed_id: p.followee_id }, audience: broadcast, visibleTo: active },
  ];
  const followed = told(ev, "new_follower");
  if (followed.length) out.push({ name: "new_follower", data: { follower: p.follower_username, follower_id: p.follower_id }, audience: toUsers(followed), visibleTo: active });
  return out;
};

/** A membership that counts: an approved join, or the approval of a pending one. */
function memberJoined(p: { colony_id: string; colony_name: string; members_only: boolean; user_id: string; username: string; user_type: string }, look: Readability): PlannedEvent[] {
  const readers: Readers = { colony_id: p.colony_id, members_only: p.members_only, restricted: false };
  return [
    {
      name: "member_joined",
      data: { user_id: p.user_id, username: p.username, user_type: p.user_type, colony: p.colony_name, colony_id: p.colony_id },
      audience: broadcast,
      visibleTo: (u) => look.canRead(u, readers),
    },
  ];
}

// Colony roles, bans, strikes, appeals: personal events for exactly the people the colonies
// feature's fan-out told (colonies/handlers.ts), in the reference catalogue's shapes.
const toldOnly = (ev: AnyDomainEvent, kind: string, data: Record<string, unknown>): PlannedEvent[] => {
  const recipients = told(ev, kind);
  return recipients.length ? [{ name: kind, data, audience: toUsers(recipients), visibleTo: () => true }] : [];
};

const MAPPERS: { [K in EventName]?: Mapper<K> } = {
  post_created: onPostCreated,
  comment_created: onCommentCreated,
  mention: onMention,
  reaction_added: onReactionAdded,
  user_followed: onUserFollowed,
  member_joined: (ev, look) => (ev.payload.approved ? memberJoined(ev.payload, look) : []),
  colony_member_approved: (ev, look) => memberJoined(ev.payload, look),
  colony_banned: (ev) => toldOnly(ev, "colony_banned", { colony: ev.payload.colony_name, reason: ev.payload.reason, expires_at: ev.payload.expires_at }),
  colony_unbanned: (ev) => toldOnly(ev, "colony_unbanned", { colony: ev.payload.colony_name }),
  colony_strike: (ev) => {
    const p = ev.payload;
    return toldOnly(ev, "colony_strike", { colony: p.colony_name, reason: p.reason, severity: p.severity, active_count: p.active_count, threshold: p.threshold, fired_action: p.fired_action });
  },
  ban_appeal_filed: (ev) => {
    const p = ev.payload;
    return toldOnly(ev, "ban_appeal_filed", { colony: p.colony_name, appeal_id: p.appeal_id, appellant: p.display_name, appellant_id: p.user_id });
  },
  // Organisations: to the person the orgs feature's fan-out told (orgs/handlers.ts), reference payloads.
  org_invited: (ev) => toldOnly(ev, "org_invited", { org_slug: ev.payload.org_slug, org_name: ev.payload.org_name, actor: ev.payload.actor }),
  org_removed: (ev) => toldOnly(ev, "org_removed", { org_slug: ev.payload.org_slug, org_name: ev.payload.org_name, actor: ev.payload.actor }),
  org_role_changed: (ev) => toldOnly(ev, "org_role_changed", { org_slug: ev.payload.org_slug, org_name: ev.payload.org_name, new_role: ev.payload.new_role, actor: ev.payload.actor }),
};

/** The generic rule: a §6.2 name with explicit `recipient_ids`; internal fields stripped. */
function generic(ev: AnyDomainEvent): PlannedEvent[] {
  const payload = ev.payload as Record<string, unknown>;
  const recipients = Array.isArray(payload.recipient_ids) ? (payload.recipient_ids as string[]) : [];
  if (!recipients.length) return [];
  const data: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(payload)) if (k !== "recipient_ids" && k !== "event") data[k] = v;
  return [{ name: ev.type, data, audience: toUsers(recipients), visibleTo: () => true }];
}

/** The webhook events a domain event turns into (empty for events no webhook hears about). */
export function planWebhookEvents(ctx: Ctx, ev: AnyDomainEvent): PlannedEvent[] {
  const mapper = MAPPERS[ev.type] as Mapper<EventName> | undefined;
  if (mapper) return mapper(ev, new Readability(ctx));
  return NAMES.has(ev.type) ? generic(ev) : [];
}

/** The body sent for an event: `event` first, then its data (reference catalogue shape). */
export const eventBody = (name: string, data: Record<string, unknown>) => JSON.stringify({ event: name, ...data });
