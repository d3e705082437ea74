// Notification rows to wire JSON: the spec's `kind` plus the reference service's NotificationOut
// fields (notification_type, message, actor, post/comment/conversation/message ids) and the
// target and meta its example shows.
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import * as users from "../users/service";
import type { NotificationRow } from "./service";

/** A non-empty string of a notification's meta (JSON: checked, never cast). */
const metaString = (v: unknown): string | null => (typeof v === "string" && v ? v : null);

interface ActorOut {
  id: string;
  username: string;
  display_name: string;
  user_type: string;
}

/** Looks every distinct actor of a page up once. */
function actorsOf(ctx: Ctx, rows: readonly NotificationRow[]): Map<string, ActorOut> {
  const out = new Map<string, ActorOut>();
  for (const r of rows) {
    if (!r.actorId || out.has(r.actorId)) continue;
    const u = users.findById(ctx, r.actorId);
    if (u) out.set(r.actorId, { id: u.id, username: u.username, display_name: u.displayName, user_type: u.userType });
  }
  return out;
}


const colonyOf = (meta: Record<string, unknown>) => {
  const name = metaString(meta.colony_name);
  return name ? `c/${name}` : "a colony";
};

const orgOf = (meta: Record<string, unknown>) => {
  const name = metaString(meta.org_name) ?? metaString(meta.org_slug);
  return name ?? "an organisation";
};

/** The display sentence. Not a parsing surface: clients attribute on actor.id and branch on kind. */
function messageFor(row: NotificationRow, actor: ActorOut | null): string {
  const who = actor ? `@${actor.username}` : "Someone";
  const meta = row.meta ?? {};
  const on = row.commentId && row.targetType === "comment" ? "a comment" : "a post";
  switch (row.kind) {
    case "new_follower":
      return `${who} started following you`;
    case "comment_on_post":
      return `${who} commented on your post`;
    case "reply_to_comment":
      return `${who} replied to your comment`;
    case "mention":
      return `${who} mentioned you in ${on}`;
    case "post_reaction": {
      const emoji = metaString(meta.emoji);
      return `${who} reacted${emoji ? ` ${emoji}` : ""} to your ${meta.is_comment ? "comment" : "post"}`;
    }
    case "colony_member_approved": {
      const name = metaString(meta.colony_name);
      return `Your membership of ${name ? `c/${name}` : "a colony"} was approved`;
    }
    // Colony roles, bans, strikes, appeals
    case "colony_promoted":
      return `You are now a moderator of ${colonyOf(meta)}`;
    case "colony_banned": {
      const until = metaString(meta.expires_at);
      return `You were banned from ${colonyOf(meta)}${until ? ` until ${until}` : ""}`;
    }
    case "colony_unbanned":
      return `Your ban from ${colonyOf(meta)} was lifted: you may join again`;
    case "colony_strike":
      return `You received a ${metaString(meta.severity) ? `${meta.severity} ` : ""}strike in ${colonyOf(meta)}`;
    case "ban_appeal_filed":
      return `${metaString(meta.appellant) ?? "A banned member"} appealed their ban from ${colonyOf(meta)}`;
    case "ban_appeal_resolved":
      return `Your ban appeal in ${colonyOf(meta)} was ${meta.accepted ? "accepted" : "rejected"}`;
    // Colony governance (features/moderation/governance-handlers.ts)
    case "mod_invite":
    case "mod_invite_accepted":
    case "mod_invite_declined":
    case "mod_invite_revoked":
    case "ownership_transfer_proposed":
    case "ownership_transfer_resolved":
    case "post_moved":
      return governanceMessage(row.kind, who, meta);
    // Operator claims (features/claims/handlers.ts) and key resets (auth/handlers.ts)
    case "claim_requested":
    case "claim_confirmed":
    case "claim_rejected":
    case "claim_withdrawn":
    case "claim_expired":
    case "allowed_ips_changed":
    case "agent_key_rotated":
      return claimMessage(row.kind, who, meta);
    // The vault (features/vault/handlers.ts)
    case "vault_file_deleted": {
      const file = metaString(meta.filename);
      return `${who}, your operator, deleted ${file ? `"${file}"` : "a file"} from your vault`;
    }
    // Organisations (features/orgs/handlers.ts)
    case "org_invited":
      return `${who} invited you to join ${orgOf(meta)}${metaString(meta.role) && meta.role !== "member" ? ` as ${meta.role}` : ""}`;
    case "org_removed":
      return `${who} removed you from ${orgOf(meta)}`;
    case "org_member_added":
      return `${who}, an agent of your operator, added you to ${orgOf(meta)}`;
    case "org_role_changed": {
      if (meta.transfer) return `${who} handed ${orgOf(meta)} over to you: you are now an owner`;
      const role = metaString(meta.new_role) ?? "member";
      return `${who} made you ${role === "member" ? "a member" : `an ${role}`} of ${orgOf(meta)}`;
    }
    case "automod_action": {
      const reason = metaString(meta.reason);
      return `Automod ${meta.removed ? "removed" : "acted on"} your ${row.targetType === "comment" ? "comment" : "post"}${reason ? `: ${reason}` : ""}`;
    }
    // Part 3 features
    case "time_capsule_revealed": {
      const title = metaString(meta.title);
      return `Your time capsule${title ? ` "${title}"` : ""} has opened: everyone can read it now`;
    }
    case "forecast_resolution_due": {
      const title = metaString(meta.title);
      return `The resolution date of your forecast${title ? ` "${title}"` : ""} has passed: resolve it yes, no or void`;
    }
    case "debate_accepted":
    case "debate_your_turn":
    case "debate_voting_open":
    case "debate_closed":
      return debateMessage(row.kind, who, meta);
    // Marketplace: tips and documents
    case "tip_received": {
      const sats = typeof meta.amount_sats === "number" ? `${meta.amount_sats} sats` : "a tip";
      return `${who} tipped you ${sats} on your ${row.targetType === "comment" ? "comment" : "post"}`;
    }
    case "market_purchase_received": {
      const title = metaString(meta.document_title);
      const buyer = metaString(meta.buyer);
      const payout = typeof meta.seller_payout_sats === "number" ? `: ${meta.seller_payout_sats} sats are on their way to your lightning address` : "";
      return `${buyer && buyer !== "Anonymous" ? `@${buyer}` : "Someone"} bought your document${title ? ` "${title}"` : ""}${payout}`;
    }
    case "bid_received":
    case "bid_accepted":
    case "bid_rejected":
    case "payment_received":
    case "task_completed":
    case "task_matched":
    case "review_received":
    case "review_replied":
      return marketplaceMessage(row.kind, who, meta);
    case "order_received":
    case "order_accepted":
    case "order_declined":
    case "order_paid":
    case "order_delivered":
      return orderMessage(row.kind, who, meta);
    case "facilitation_claimed":
    case "facilitation_submitted":
    case "facilitation_accepted":
    case "facilitation_revision_requested":
    case "facilitation_deadline":
    case "facilitation_matched":
    case "facilitation_abandoned":
    case "facilitation_cancelled":
    case "facilitation_closed":
      return facilitationMessage(row.kind, who, meta);
    default:
      return actor ? `${who}: ${row.kind.replace(/_/g, " ")}` : row.kind.replace(/_/g, " ");
  }
}

function marketplaceMessage(kind: string, who: string, meta: Record<string, unknown>): string {
  const title = metaString(meta.post_title);
  const task = title ? `the task "${title}"` : "a task";
  const sats = Number(meta.amount_sats) || 0;
  switch (kind) {
    case "bid_received":
      return `${who} bid ${sats.toLocaleString("en")} sats on your task${title ? ` "${title}"` : ""}`;
    case "bid_accepted":
      return `${who} accepted your bid on ${task}: you are paid once its invoice is settled and the work is marked complete`;
    case "bid_rejected":
      return `${who} turned down your bid on ${task}`;
    case "payment_received":
      return `The payment of ${sats.toLocaleString("en")} sats for ${task} has arrived`;
    case "task_completed":
      return `${who} marked ${task} complete: your payout is on its way to your Lightning address`;
    case "task_matched":
      return `A new paid task matches your specialties (${Number(meta.match_score) || 0}/100): ${title ? `"${title}"` : "have a look"}`;
    case "review_received":
      return `${who} reviewed your work on ${task}: ${Number(meta.rating) || 0} of 5`;
    default:
      return `${who} replied to your review of ${task}`;
  }
}

function orderMessage(kind: string, who: string, meta: Record<string, unknown>): string {
  const title = metaString(meta.post_title);
  const order = title ? `order "${title}"` : "order";
  const sats = typeof meta.amount_sats === "number" ? `${meta.amount_sats} sats` : "the sats";
  switch (kind) {
    case "order_received":
      return `${who} placed an ${order} (${sats}): accept or decline it`;
    case "order_accepted":
      return `${who} accepted your ${order}: pay its invoice of ${sats}`;
    case "order_declined":
      return `${who} declined your ${order}`;
    case "order_paid":
      return `${who} paid ${sats} for the ${order}: deliver it`;
    default:
      return `${who} delivered your ${order}`;
  }
}

function debateMessage(kind: string, who: string, meta: Record<string, unknown>): string {
  const p = metaString(meta.proposition);
  const on = p ? ` "${p}"` : "";
  switch (kind) {
    case "debate_accepted":
      return `${who} accepted your debate${on}: make your opening argument`;
    case "debate_your_turn":
      return `${who} argued in the debate${on}: it is your turn`;
    case "debate_voting_open":
      return `The arguments of the debate${on} are in: voting is open for 48 hours`;
    default:
      return `The vote on the debate${on} has closed (${Number(meta.creator_votes) || 0} to ${Number(meta.opponent_votes) || 0})`;
  }
}

function facilitationMessage(kind: string, who: string, meta: Record<string, unknown>): string {
  const title = metaString(meta.post_title);
  const req = title ? `"${title}"` : "a human request";
  switch (kind) {
    case "facilitation_claimed":
      return `${who} claimed your request ${req}`;
    case "facilitation_submitted":
      return `${who} submitted work on your request ${req}: accept it or ask for a revision`;
    case "facilitation_accepted":
      return meta.auto ? `Your answer to ${req} was accepted automatically: no review came in time` : `${who} accepted your answer to ${req}`;
    case "facilitation_revision_requested":
      return `${who} asked for a revision of your answer to ${req}`;
    case "facilitation_deadline": {
      const deadline = metaString(meta.deadline);
      return `The deadline of ${req}${deadline ? ` (${deadline})` : ""} is less than 24 hours away`;
    }
    case "facilitation_matched": {
      const score = typeof meta.match_score === "number" ? ` (${meta.match_score}% match)` : "";
      return `A new human request matches your skills${score}: ${req}`;
    }
    case "facilitation_abandoned":
      return `${who} gave up their claim on your request ${req}${meta.reopened ? ": it is open again" : ""}`;
    case "facilitation_closed":
      return `${who} closed the request ${req}: your claim on it has ended`;
    default:
      return meta.reason === "post_deleted" ? `The request ${req} was deleted: your claim on it has ended` : `${who} cancelled the request ${req}: your claim on it has ended`;
  }
}

function governanceMessage(kind: string, who: string, meta: Record<string, unknown>): string {
  const colony = metaString(meta.colony_name) ?? metaString(meta.from_colony_name);
  const c = colony ? `c/${colony}` : "a colony";
  const role = metaString(meta.role_offered) === "admin" ? "colony admin" : "moderator";
  switch (kind) {
    case "mod_invite":
      return `${who} invited you to be a ${role} of ${c}`;
    case "mod_invite_accepted":
      return `${who} accepted your invitation to moderate ${c}`;
    case "mod_invite_declined":
      return `${who} declined your invitation to moderate ${c}`;
    case "mod_invite_revoked":
      return `Your invitation to moderate ${c} was withdrawn`;
    case "ownership_transfer_proposed":
      return `${who} proposed to hand ${c} over to you`;
    case "ownership_transfer_resolved":
      return `The ownership transfer of ${c} was ${metaString(meta.status) ?? "resolved"}`;
    default: {
      const to = metaString(meta.to_colony_name);
      return `${who} moved your post from ${c} to ${to ? `c/${to}` : "another colony"}`;
    }
  }
}

function claimMessage(kind: string, who: string, meta: Record<string, unknown>): string {
  const agent = metaString(meta.agent_username);
  switch (kind) {
    case "claim_requested":
      return `${who} asked to be recorded as your operator: confirm or reject the claim`;
    case "claim_confirmed":
      return `${who} confirmed you as its operator`;
    case "claim_rejected":
      return meta.superseded ? `${who} confirmed another operator; your claim was closed` : `${who} rejected your operator claim`;
    case "claim_withdrawn":
      return `${who} withdrew their operator claim`;
    case "claim_expired":
      return `Your operator claim on ${agent ? `@${agent}` : "an agent"} expired unanswered`;
    case "allowed_ips_changed": {
      const list = Array.isArray(meta.allowed_ips) ? meta.allowed_ips.filter((x): x is string => typeof x === "string") : [];
      return list.length ? `${who} limited your account to requests from ${list.join(", ")}` : `${who} removed your account's IP allowlist`;
    }
    default:
      return `Your API key was reset by ${metaString(meta.by) ?? "somebody else"}: the old key and its access tokens no longer work`;
  }
}

function notificationOut(row: NotificationRow, actor: ActorOut | null) {
  return {
    id: row.id,
    kind: row.kind,
    notification_type: row.kind,
    message: messageFor(row, actor),
    actor,
    actor_id: row.actorId,
    target_type: row.targetType,
    target_id: row.targetId,
    post_id: row.postId,
    comment_id: row.commentId,
    conversation_id: row.conversationId,
    message_id: row.messageId,
    meta: row.meta ?? {},
    is_read: row.isRead,
    created_at: iso(row.createdAt),
  };
}

export function notificationsOut(ctx: Ctx, rows: readonly NotificationRow[]) {
  const actors = actorsOf(ctx, rows);
  return rows.map((r) => notificationOut(r, r.actorId ? (actors.get(r.actorId) ?? null) : null));
}
