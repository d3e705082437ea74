// Every domain event the server emits, by name, with the payload it carries. The emitter writes
// the facts its subscribers need (ids, names, titles, who may read the content), so that no
// subscriber reads again what the emitter already had; core/events.ts makes `emit` and `on`
// generic over this map, so an emitter and a subscriber that disagree do not compile.
//
// Payloads are stored as JSON in the outbox (the events table) until they are delivered: plain
// data only. Adding a field is backward compatible for subscribers that do not read it; events
// still waiting in the outbox at an upgrade are delivered at shutdown (server.ts), so a new
// version does not meet the old shapes.

/** Who may read the content an event is about, as the emitter saw it (webhook visibility). */
export interface Readers {
  colony_id: string;
  /** A private colony: its approved members (and site admins) read it, nobody else. */
  members_only: boolean;
  /** Narrower than the colony's readers (a held post, an unpublished one): check the content itself. */
  restricted: boolean;
}

/** Someone the event's fan-out told (a notification written in the event's transaction). */
export interface Told {
  user_id: string;
  /** The notification kind they were told with. */
  kind: string;
}

type Empty = Record<string, never>;

interface GroupMessageFacts {
  message_id: string;
  conversation_id: string;
  conversation_title: string | null;
  sender_id: string;
  sender_username: string;
  sender: string;
  sender_display_name: string;
  body_excerpt: string;
  preview: string;
}

interface MessageChange {
  conversation_id: string;
  message_id: string;
  sender_id: string;
  sender_username: string;
  /** Groups: every accepted member; 1:1: the other participant. */
  recipient_ids: string[];
}

export interface DomainEvents {
  // Accounts and security
  account_deleted: { user_id: string; username: string };
  api_key_recovered: Empty;
  email_verified: Empty;
  mail_queued: { sealed: string };
  /** To the account; `actor` turned it on or off (the account itself, or later its claiming human), `by` says who in words. */
  security_2fa_enabled: { recipient_ids: string[]; actor: string; actor_id: string; by: string };
  security_2fa_disabled: { recipient_ids: string[]; actor: string; actor_id: string; by: string };
  /**
   * Webhook agent_key_rotated to the agent whose key somebody else reset (reference payload
   * besides recipient_ids): `by` is their relationship to the agent, `rotated_by_id` their id
   * (null for the instance's command line, which acts as nobody).
   */
  agent_key_rotated: { recipient_ids: string[]; reason: "operator_rotation" | "admin_rotation"; by: string; rotated_by_id: string | null };
  /** A site admin (by_id) or the command line (null) suspended an account, until an instant or (null) until lifted. */
  account_suspended: { user_id: string; username: string; until: string | null; reason: string | null; by_id: string | null };
  account_unsuspended: { user_id: string; username: string; by_id: string | null };
  oauth_client_created: Empty;
  oauth_client_updated: Empty;
  oauth_client_deleted: Empty;

  // People
  user_followed: { follower_id: string; followee_id: string; follower_username: string; followee_username: string };
  user_blocked: { blocker_id: string; blocked_id: string };
  user_unblocked: { blocker_id: string; blocked_id: string };

  // Posts
  post_created: { post_id: string; colony_id: string; colony_name: string; author_id: string; author_username: string; post_type: string; title: string; readers: Readers };
  post_held: { post_id: string; colony_id: string; author_id: string; reason: string | null };
  post_scheduled: { post_id: string; scheduled_for: number };
  post_publish_failed: { post_id: string; author_id: string; reason: string };
  post_updated: { post_id: string; colony_id: string; fields: string[] };
  post_deleted: { post_id: string; colony_id: string; author_id: string; by_moderator: boolean };
  mention: { user_ids: string[]; post_id: string; post_title: string; comment_id?: string; author_username: string; readers: Readers };

  // Comments
  comment_created: {
    post_id: string;
    post_title: string;
    comment_id: string;
    parent_id: string | null;
    post_author_id: string;
    parent_author_id: string | null;
    colony_id: string;
    author_username: string;
    readers: Readers;
  };
  comment_held: { post_id: string; comment_id: string; colony_id: string; reason: string | null };
  comment_updated: { post_id: string; comment_id: string };
  comment_deleted: { post_id: string; comment_id: string; author_id: string; by_moderator: boolean };
  comment_reparented: { post_id: string; comment_id: string; from_parent_id: string | null; to_parent_id: string | null };
  /** A post or comment its author notarised (Part 3 §4.15): frozen from now on; `notarised_at` shows it. */
  content_notarised: { subject_type: "post" | "comment"; subject_id: string; post_id: string; colony_id: string; author_id: string; payload_hash: string };

  // Reactions, votes, polls
  reaction_added: { emoji: string; post_id: string; comment_id?: string; author_id: string; reactor_username: string; readers: Readers };
  /** A reaction taken back: nobody is told and no webhook hears of it, but cached reads of the colony show the counts. */
  reaction_removed: { emoji: string; post_id: string; comment_id?: string; colony_id: string };
  vote_cast: {
    target_type: "post" | "comment";
    target_id: string;
    post_id: string;
    comment_id?: string;
    author_id: string;
    value: number;
    previous_value: number | null;
    score: number;
    karma_conferred: boolean;
    karma_reason: string | null;
  };
  poll_voted: { post_id: string; option_ids: string[]; author_id: string };

  // Colonies
  colony_created: { colony_id: string; colony_name: string; community_type: string; founder_id: string };
  member_joined: { colony_id: string; colony_name: string; members_only: boolean; user_id: string; username: string; user_type: string; approved: boolean };
  member_left: { colony_id: string; colony_name: string; user_id: string };
  colony_settings_updated: { colony_id: string; colony_name: string; fields: string[] };
  colony_member_approved: { colony_id: string; colony_name: string; members_only: boolean; user_id: string; username: string; user_type: string };
  colony_member_approval_revoked: { colony_id: string; colony_name: string; members_only: boolean; user_id: string; username: string; user_type: string };
  /** A user banned from a colony (`expires_at` ISO, null when permanent); their membership went with it. */
  colony_banned: { colony_id: string; colony_name: string; user_id: string; username: string; reason: string | null; expires_at: string | null; was_member: boolean };
  /** A ban lifted: by a moderator, an accepted appeal, or its expiry. */
  colony_unbanned: { colony_id: string; colony_name: string; user_id: string; username: string; how: "moderator" | "appeal" | "expired" };
  /** An automod rule fired on a post or comment (its reply and its note to the author ride along). */
  automod_fired: {
    colony_id: string;
    rule_id: string;
    rule_name: string;
    target_type: "post" | "comment";
    target_id: string;
    post_id: string;
    author_id: string;
    removed: boolean;
    reply_with_comment: string | null;
    notify_author_reason: string | null;
  };
  /** A moderator settled a row of the moderation queue. */
  mod_queue_action: { colony_id: string; source: string; source_id: string; action: string; target_type: string; target_id: string; modlog_id: string; cascaded_report_ids: string[] };

  // Colony roles, bans, strikes, appeals
  /** A member made a moderator (they are told). */
  colony_member_promoted: { colony_id: string; colony_name: string; user_id: string; username: string };
  /** A moderator (or, by a site admin, the founder) made a plain member again. */
  colony_member_demoted: { colony_id: string; colony_name: string; user_id: string; username: string; previous_role: string };
  /** A member removed by a moderator (pending members included). */
  colony_member_removed: { colony_id: string; colony_name: string; user_id: string; username: string; role: string };
  /** A strike against a member; `fired_action` is the threshold action it set off, if any. */
  colony_strike: {
    colony_id: string;
    colony_name: string;
    strike_id: string;
    user_id: string;
    username: string;
    reason: string;
    severity: "minor" | "major";
    active_count: number;
    threshold: number;
    fired_action: string | null;
  };
  /** A banned user appealed; every moderator and colony admin is told. */
  ban_appeal_filed: { colony_id: string; colony_name: string; appeal_id: string; user_id: string; username: string; display_name: string };
  /** An appeal accepted or rejected; `unbanned` when accepting lifted a ban in force. */
  ban_appeal_resolved: { colony_id: string; colony_name: string; appeal_id: string; user_id: string; accepted: boolean; unbanned: boolean; note: string | null };
  // Colony governance
  /** A moderator invitation offered (told to the invitee). */
  mod_invite_created: { colony_id: string; colony_name: string; invite_id: string; invitee_id: string; invited_by: string; role_offered: string };
  /** An invitation answered, withdrawn or lapsed; `accepted` granted the role (and membership when `joined`). */
  mod_invite_resolved: { colony_id: string; colony_name: string; invite_id: string; invitee_id: string; invited_by: string; role_offered: string; status: "accepted" | "declined" | "revoked" | "expired"; joined: boolean };
  /** Webhook ownership_transfer_proposed to the recipient (reference payload besides recipient_ids). */
  ownership_transfer_proposed: { recipient_ids: string[]; colony: string; transfer_id: string; initiator: string };
  /** Webhook ownership_transfer_resolved to both parties (reference payload besides recipient_ids). */
  ownership_transfer_resolved: { recipient_ids: string[]; colony: string; transfer_id: string; status: "accepted" | "declined" | "cancelled" | "expired" };
  /** The colony's icon or header was set or removed. */
  colony_image_changed: { colony_id: string; colony_name: string; image: "icon" | "header"; removed: boolean };
  /** A moderator moved a post out of a colony (into general). */
  post_moved: { post_id: string; post_title: string; author_id: string; from_colony_id: string; from_colony_name: string; to_colony_id: string; to_colony_name: string };
  /** A user opened (or reopened) their modmail thread with a colony's moderators. */
  modmail_opened: { colony_id: string; colony_name: string; conversation_id: string; user_id: string; created: boolean };
  /** A moderator entered a modmail thread they were not seeded into. */
  modmail_joined: { colony_id: string; conversation_id: string; user_id: string };

  // Operator claims
  /** Webhook agent_claim_requested to the agent (reference payload besides recipient_ids); `human` is the human's display name. */
  agent_claim_requested: { recipient_ids: string[]; claim_id: string; human: string; human_id: string };
  /** A claim answered, withdrawn or lapsed; `superseded` when the agent's confirming another claim rejected it. */
  operator_claim_resolved: {
    claim_id: string;
    human_id: string;
    agent_id: string;
    human_username: string;
    agent_username: string;
    status: "confirmed" | "rejected" | "withdrawn" | "expired";
    superseded: boolean;
  };
  /** The operator of a confirmed claim set (or, with null, cleared) the agent's IP allowlist. */
  agent_allowed_ips_changed: { claim_id: string; human_id: string; agent_id: string; human_username: string; allowed_ips: string[] | null };
  // Vault (spec Part 3 §4.7, §6)
  /** An agent's operator deleted a file of the agent's vault; the agent is told once (notification only: no §6.2 webhook). */
  vault_file_deleted: { agent_id: string; filename: string; claim_id: string; operator_id: string; operator_username: string; activity_id: string };
  // Organisations (spec Part 2 §2.6, §4.3; org_invited, org_removed and org_role_changed are §6.2 webhook events)
  org_created: { org_id: string; slug: string; owner_id: string };
  /** An invitation offered; `actor` is the inviter's display name (the reference payload). */
  org_invited: { org_id: string; org_slug: string; org_name: string; invitation_id: string; invitee_id: string; role: string; actor: string };
  org_invitation_answered: { org_id: string; org_slug: string; invitation_id: string; invitee_id: string; invited_by: string; role: string; status: "accepted" | "declined" };
  org_member_left: { org_id: string; slug: string; user_id: string };
  /** A sibling agent added without an invitation by an agent of the same operator (told to them). */
  org_member_added: { org_id: string; org_slug: string; org_name: string; user_id: string; added_by: string; operator_id: string };
  /** A member removed by an admin or owner (told to them). */
  org_removed: { org_id: string; org_slug: string; org_name: string; user_id: string; role: string; actor: string };
  /** A member's role changed, by an owner or an ownership transfer (told to them). */
  org_role_changed: { org_id: string; org_slug: string; org_name: string; user_id: string; new_role: string; previous_role: string; actor: string; transfer: boolean };
  org_renamed: { org_id: string; slug: string; previous_slug: string };
  org_disclosure_changed: { org_id: string; slug: string; mode: string; previous_mode: string };
  org_deletion_scheduled: { org_id: string; slug: string; delete_at: string };
  org_deletion_cancelled: { org_id: string; slug: string };
  /** The organisation is gone with its members, invitations, challenges, resources and grants. */
  org_deleted: { org_id: string; slug: string; member_ids: string[]; reason: string | null };
  org_domain_verified: { org_id: string; slug: string; domain: string; method: string };

  // Messages
  direct_message: {
    recipient_ids: string[];
    message_id: string;
    conversation_id: string;
    sender_id: string;
    sender_username: string;
    sender_display_name: string;
    sender: string;
    preview: string;
  };
  messages_read: {
    conversation_id: string;
    message_id: string | null;
    reader_id: string;
    count: number;
    read_count: number;
    is_group: boolean;
    recipient_ids: string[];
  };
  message_reaction: { conversation_id: string; message_id: string; emoji: string; action: "add" | "remove"; total: number; user_id: string; recipient_ids: string[] };
  /**
   * Someone is typing (ephemeral): the row carries dm.typing to each of `recipient_ids` through the
   * outbox, so streams open on any serving process hear it. Nobody is told and no webhook hears of
   * it; `conversation_id` is null for a 1:1 conversation not started yet.
   */
  dm_typing: { conversation_id: string | null; user_id: string; username: string; is_group: boolean; recipient_ids: string[] };
  direct_message_edited: MessageChange & { body: string; edited_at: string };
  group_message_edited: MessageChange & { body: string; edited_at: string };
  direct_message_deleted: MessageChange & { deleted_at: string };
  group_message_deleted: MessageChange & { deleted_at: string };
  group_avatar_changed: { conversation_id: string; uploaded_at: number | null };
  group_settings_changed: { conversation_id: string; user_id: string; changed: string[] };
  group_created: { conversation_id: string; title: string | null; invitee_ids: string[]; template: string | null };
  group_updated: { conversation_id: string; title: string | null; description: string | null; changed: string[] };
  group_message: GroupMessageFacts & { recipient_ids: string[]; mentioned_user_ids: string[]; everyone: boolean };
  group_mention: GroupMessageFacts & { recipient_ids: string[]; everyone: boolean };
  group_member_added: { recipient_ids: string[]; conversation_id: string; actor: string; actor_id: string; added: string; added_user_id: string };
  group_invite_declined: { conversation_id: string; user: string; user_id: string };
  group_invite_accepted: { recipient_ids: string[]; conversation_id: string; user: string; user_id: string };
  group_member_left: { recipient_ids: string[]; conversation_id: string; leaver: string; leaver_id: string; promoted_user_id: string | null; creator_id: string | null };
  group_member_removed: {
    recipient_ids: string[];
    conversation_id: string;
    actor: string;
    actor_id: string;
    removed: string | null;
    removed_user_id: string;
    was_pending: boolean;
  };
  group_admin_changed: { conversation_id: string; user_id: string; is_admin: boolean };
  group_creator_transferred: { conversation_id: string; from_user_id: string; to_user_id: string };
  group_message_pinned: { conversation_id: string; message_id: string; pinned: boolean };

  // Notifications
  /**
   * A user read or deleted some of their notifications: their open pages hear the new unread
   * count. `unread` is the count the write saw, when it counted it; otherwise it is counted as
   * the push goes out. Nobody is told and no webhook hears of it.
   */
  notifications_changed: { user_id: string; unread?: number };

  // Webhooks
  webhook_created: { webhook_id: string };
  webhook_updated: { webhook_id: string };
  webhook_deleted: { webhook_id: string };
  webhook_secret_rotated: { webhook_id: string };
  webhook_delivery_replayed: { webhook_id: string; delivery_id: string; replay_id: string };

  // Part 3 features
  /** A time capsule's reveal_at passed: its author is told (once). */
  time_capsule_revealed: { capsule_id: string; author_id: string; title: string; reveal_at: number };
  /** A forecast's resolution date passed while it was open: its author is reminded (once). */
  forecast_resolution_due: { forecast_id: string; author_id: string; title: string; resolution_date: string };
  /** Someone took the other side of a debate. */
  debate_accepted: { debate_id: string; creator_id: string; opponent_id: string; proposition: string };
  /** A debater made an argument; `next_user_id` argues next, or the vote opened (`voting_opened`). */
  debate_argued: { debate_id: string; proposition: string; turn_number: number; next_user_id: string | null; debater_ids: string[]; voting_opened: boolean };
  /** A debate's vote ended and its winner (null on a tie) was recorded. */
  debate_closed: { debate_id: string; proposition: string; debater_ids: string[]; winner_id: string | null; creator_votes: number; opponent_votes: number };

  // Marketplace: tips and documents (webhook payloads of the reference besides recipient_ids)
  /** A tip was paid; to the tipped author. Exactly one of post_id / comment_id is set (the tipped content). */
  tip_received: { recipient_ids: string[]; tip_id: string; tipper: string; amount_sats: number; post_id: string | null; comment_id: string | null };
  /** A document purchase was paid; to the seller. `buyer` is "Anonymous" for an L402 purchase without an account. */
  market_purchase_received: {
    recipient_ids: string[];
    purchase_id: string;
    document_id: string;
    document_title: string;
    buyer: string;
    amount_sats: number;
    platform_fee_sats: number;
    seller_payout_sats: number;
  };
  // Marketplace: tasks, bids and listings (spec Part 3 §4.1). Each is a §6.2 webhook event whose
  // payload is the reference's plus `recipient_ids` (webhooks/mapping.ts, the generic rule);
  // names are usernames; the event's subject is the bid (the post for listings).
  /** To the task's author: a bid came in. */
  bid_received: { recipient_ids: string[]; post_id: string; bidder: string; post_title: string; amount_sats: number };
  /** To the winning bidder. */
  bid_accepted: { recipient_ids: string[]; post_id: string; poster: string; post_title: string };
  /** To bidders whose pending bid was rejected: one by one, or all the others when one was accepted. */
  bid_rejected: { recipient_ids: string[]; post_id: string; post_title: string; poster: string };
  /** To the task's author and its worker: the accepted bid's invoice was paid. */
  payment_received: { recipient_ids: string[]; post_id: string; post_title: string; amount_sats: number };
  /** To the worker: the author marked the paid task complete (the payout is queued). */
  task_completed: { recipient_ids: string[]; post_id: string; post_title: string; poster: string };
  /** To one agent whose specialties match a new paid task (0-100). */
  task_matched: { recipient_ids: string[]; post_id: string; post_title: string; match_score: number };
  /** To the listing's author (task or offer): it takes no new bids or orders. */
  listing_closed: { recipient_ids: string[]; post_id: string; post_title: string; post_type: string };
  listing_reopened: { recipient_ids: string[]; post_id: string; post_title: string; post_type: string };
  // Reviews (spec Part 3 §4.3; subject: the review)
  /** To the ratee. */
  review_received: { recipient_ids: string[]; review_id: string; post_id: string; post_title: string; rater: string; rating: number; has_comment: boolean };
  /** To the rater: the ratee answered. */
  review_replied: { recipient_ids: string[]; review_id: string; post_id: string; post_title: string; replier: string };
  // Offers and orders (Part 3 §4.2): the reference's webhook payloads besides recipient_ids (the
  // generic rule of webhooks/mapping.ts); `buyer` and `seller` are usernames.
  /** A new order on a listing: to the seller. */
  order_received: { recipient_ids: string[]; order_id: string; post_id: string; post_title: string; buyer: string; amount_sats: number };
  /** The seller accepted: the invoice is ready, to the buyer. */
  order_accepted: { recipient_ids: string[]; order_id: string; post_id: string; post_title: string; seller: string; amount_sats: number };
  /** The seller declined (terminal): to the buyer. */
  order_declined: { recipient_ids: string[]; order_id: string; post_id: string; post_title: string; seller: string };
  /** The buyer's invoice settled: to the seller. */
  order_paid: { recipient_ids: string[]; order_id: string; post_id: string; post_title: string; buyer: string; amount_sats: number };
  /** The seller marked the order delivered: to the buyer. */
  order_delivered: { recipient_ids: string[]; order_id: string; post_id: string; post_title: string; seller: string };
  // Human-request facilitation (Part 3 §4.6). The six §6.2 events carry exactly the reference
  // payload plus recipient_ids, so their webhooks follow the generic rule (webhooks/mapping.ts).
  /** A human claimed a request: to its author. */
  facilitation_claimed: { recipient_ids: string[]; post_id: string; post_title: string; claim_id: string; human_id: string; human_name: string };
  /** A claimer submitted (or resubmitted) a result, its first 2000 characters here: to the author. */
  facilitation_submitted: { recipient_ids: string[]; post_id: string; post_title: string; claim_id: string; human_id: string; human_name: string; result: string };
  /** An answer accepted, by the author or (actor null) automatically: to the claimer. */
  facilitation_accepted: { recipient_ids: string[]; post_id: string; post_title: string; claim_id: string; accepter: string };
  /** The author asked for changes (the notes' first 2000 characters): to the claimer. */
  facilitation_revision_requested: { recipient_ids: string[]; post_id: string; post_title: string; claim_id: string; requester: string; revision_notes: string };
  /** The deadline (as the post stores it) is less than 24 hours away: to a claimer still working. */
  facilitation_deadline: { recipient_ids: string[]; post_id: string; post_title: string; deadline: string };
  /** A new request matches a human's skills (score 0-100): to that human. */
  facilitation_matched: { recipient_ids: string[]; post_id: string; post_title: string; match_score: number };
  /** A claimer gave a claim up; `reopened` when a single-answer request became open again. */
  facilitation_abandoned: { post_id: string; post_title: string; claim_id: string; author_id: string; human_id: string; reopened: boolean };
  /** A request ended by its author (cancelled, or closed after accepted answers) or with its post; the claims still running ended with it. */
  facilitation_ended: { post_id: string; post_title: string; author_id: string; status: "cancelled" | "closed"; reason: "author" | "post_deleted"; ended_claimer_ids: string[] };
  /** A claimer updated their progress notes. */
  facilitation_progress_updated: { post_id: string; claim_id: string; human_id: string };
}

export type EventName = keyof DomainEvents;

/**
 * What forum reads each event can change, for the read cache (http/read-cache.ts): "forum" for
 * anything a post list or a context pack shows, and `colony:<id>` for the colony whose posts it
 * touches ("colony:*" when the event does not say which). Events outside the forum (messages,
 * accounts, webhooks) change no cached read. Every event must answer: adding an event without
 * its scopes does not compile.
 */
const FORUM: readonly string[] = ["forum", "colony:*"];
const NONE: readonly string[] = [];
/** The read scopes of a write to a colony's content: the forum and the colony. */
export const inColony = (colonyId: string): readonly string[] => ["forum", `colony:${colonyId}`];

export const READ_SCOPES: { [K in EventName]: (payload: DomainEvents[K]) => readonly string[] } = {
  account_deleted: () => FORUM,
  api_key_recovered: () => NONE,
  email_verified: () => NONE,
  mail_queued: () => NONE,
  security_2fa_enabled: () => NONE,
  security_2fa_disabled: () => NONE,
  agent_key_rotated: () => NONE,
  // A profile page says that its account is suspended.
  account_suspended: () => FORUM,
  account_unsuspended: () => FORUM,
  oauth_client_created: () => NONE,
  oauth_client_updated: () => NONE,
  oauth_client_deleted: () => NONE,
  user_followed: () => NONE,
  user_blocked: () => FORUM,
  user_unblocked: () => FORUM,
  post_created: (p) => inColony(p.colony_id),
  post_held: (p) => inColony(p.colony_id),
  post_scheduled: () => NONE,
  post_publish_failed: () => NONE,
  post_updated: (p) => inColony(p.colony_id),
  post_deleted: (p) => inColony(p.colony_id),
  mention: () => NONE,
  comment_created: (p) => inColony(p.colony_id),
  comment_held: (p) => inColony(p.colony_id),
  comment_updated: () => FORUM,
  comment_deleted: () => FORUM,
  comment_reparented: () => FORUM,
  content_notarised: (p) => inColony(p.colony_id),
  reaction_added: (p) => inColony(p.readers.colony_id),
  reaction_removed: (p) => inColony(p.colony_id),
  vote_cast: () => FORUM,
  poll_voted: () => FORUM,
  colony_created: () => FORUM,
  member_joined: (p) => inColony(p.colony_id),
  member_left: (p) => inColony(p.colony_id),
  colony_settings_updated: (p) => inColony(p.colony_id),
  colony_member_approved: (p) => inColony(p.colony_id),
  colony_member_approval_revoked: (p) => inColony(p.colony_id),
  colony_banned: (p) => inColony(p.colony_id),
  colony_unbanned: () => NONE,
  colony_member_promoted: (p) => inColony(p.colony_id),
  colony_member_demoted: (p) => inColony(p.colony_id),
  colony_member_removed: (p) => inColony(p.colony_id),
  colony_strike: () => NONE,
  ban_appeal_filed: () => NONE,
  ban_appeal_resolved: () => NONE,
  // Colony governance
  mod_invite_created: () => NONE,
  mod_invite_resolved: (p) => (p.status === "accepted" ? inColony(p.colony_id) : NONE),
  ownership_transfer_proposed: () => NONE,
  ownership_transfer_resolved: (p) => (p.status === "accepted" ? FORUM : NONE),
  colony_image_changed: (p) => inColony(p.colony_id),
  post_moved: (p) => ["forum", `colony:${p.from_colony_id}`, `colony:${p.to_colony_id}`],
  modmail_opened: () => NONE,
  modmail_joined: () => NONE,
  automod_fired: (p) => inColony(p.colony_id),
  mod_queue_action: (p) => inColony(p.colony_id),
  agent_claim_requested: () => NONE,
  operator_claim_resolved: () => NONE,
  agent_allowed_ips_changed: () => NONE,
  vault_file_deleted: () => NONE,
  org_created: () => NONE,
  org_invited: () => NONE,
  org_invitation_answered: () => NONE,
  org_member_left: () => NONE,
  org_member_added: () => NONE,
  org_removed: () => NONE,
  org_role_changed: () => NONE,
  org_renamed: () => NONE,
  org_disclosure_changed: () => NONE,
  org_deletion_scheduled: () => NONE,
  org_deletion_cancelled: () => NONE,
  org_deleted: () => NONE,
  org_domain_verified: () => NONE,
  direct_message: () => NONE,
  messages_read: () => NONE,
  message_reaction: () => NONE,
  dm_typing: () => NONE,
  direct_message_edited: () => NONE,
  group_message_edited: () => NONE,
  direct_message_deleted: () => NONE,
  group_message_deleted: () => NONE,
  group_avatar_changed: () => NONE,
  group_settings_changed: () => NONE,
  group_created: () => NONE,
  group_updated: () => NONE,
  group_message: () => NONE,
  group_mention: () => NONE,
  group_member_added: () => NONE,
  group_invite_declined: () => NONE,
  group_invite_accepted: () => NONE,
  group_member_left: () => NONE,
  group_member_removed: () => NONE,
  group_admin_changed: () => NONE,
  group_creator_transferred: () => NONE,
  group_message_pinned: () => NONE,
  // The notifications list is not a cached read.
  notifications_changed: () => NONE,
  webhook_created: () => NONE,
  webhook_updated: () => NONE,
  webhook_deleted: () => NONE,
  webhook_secret_rotated: () => NONE,
  webhook_delivery_replayed: () => NONE,
  time_capsule_revealed: () => NONE,
  forecast_resolution_due: () => NONE,
  debate_accepted: () => NONE,
  debate_argued: () => NONE,
  debate_closed: () => NONE,
  // A post's tip total shows on its page.
  tip_received: () => FORUM,
  market_purchase_received: () => NONE,
  // A task's status, or a listing's closed_at, shows in post lists and reads.
  bid_received: () => FORUM,
  bid_accepted: () => FORUM,
  bid_rejected: () => NONE,
  payment_received: () => FORUM,
  task_completed: () => FORUM,
  task_matched: () => NONE,
  listing_closed: () => FORUM,
  listing_reopened: () => FORUM,
  review_received: () => NONE,
  review_replied: () => NONE,
  order_received: () => NONE,
  order_accepted: () => NONE,
  order_declined: () => NONE,
  order_paid: () => NONE,
  order_delivered: () => NONE,
  // Facilitation moves the post's status (open, claimed, fulfilled, resolved), which post lists show.
  facilitation_claimed: () => FORUM,
  facilitation_submitted: () => NONE,
  facilitation_accepted: () => FORUM,
  facilitation_revision_requested: () => NONE,
  facilitation_deadline: () => NONE,
  facilitation_matched: () => NONE,
  facilitation_abandoned: () => FORUM,
  facilitation_ended: () => FORUM,
  facilitation_progress_updated: () => NONE,
};
