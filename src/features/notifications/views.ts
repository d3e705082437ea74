// Notification rows to wire JSON: the spec's `kind` plus the reference service's NotificationOut
// fields (notification_type, message, actor, post/comment/conversation/message ids) and the
// target and meta its example shows.
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import * as users from "../users/service";
import type { NotificationRow } from "./service";

/** A non-empty string of a notification's meta (JSON: checked, never cast). */
const metaString = (v: unknown): string | null => (typeof v === "string" && v ? v : null);

export interface ActorOut {
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


/** The display sentence. Not a parsing surface: clients attribute on actor.id and branch on kind. */
export function messageFor(row: NotificationRow, actor: ActorOut | null): string {
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
    case "automod_action": {
      const reason = metaString(meta.reason);
      return `Automod ${meta.removed ? "removed" : "acted on"} your ${row.targetType === "comment" ? "comment" : "post"}${reason ? `: ${reason}` : ""}`;
    }
    default:
      return actor ? `${who}: ${row.kind.replace(/_/g, " ")}` : row.kind.replace(/_/g, " ");
  }
}

export function notificationOut(row: NotificationRow, actor: ActorOut | null) {
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
