// Group rows to wire JSON (the reference's GroupConversationOut, GroupMessageOut, GroupMemberFull …).
import { inArray, count } from "drizzle-orm";
import { iso } from "../../../core/clock";
import type { Ctx } from "../../../core/context";
import type { UserRow } from "../../users/service";
import type { ConversationRow, MemberRow, MessageRow } from "../service";
import { messageReads } from "../tables";
import { messageViews } from "../views";
import { isAdmin } from "./access";
import type { Created } from "./create";

export const groupAvatarUrl = (ctx: Ctx, conv: Pick<ConversationRow, "id" | "avatarUploadedAt">) =>
  `${ctx.config.publicUrl}/api/v1/messages/groups/${conv.id}/avatar${conv.avatarUploadedAt ? `?v=${conv.avatarUploadedAt}` : ""}`;

/** MessageOut plus `read_count`: how many members other than the sender have read each message. */
export function groupMessageViews(ctx: Ctx, viewerId: string, rows: readonly MessageRow[]) {
  if (!rows.length) return [];
  const counts = ctx.db
    .select({ id: messageReads.messageId, n: count() })
    .from(messageReads)
    .where(inArray(messageReads.messageId, rows.map((r) => r.id)))
    .groupBy(messageReads.messageId)
    .all();
  const byId = new Map(counts.map((c) => [c.id, c.n]));
  return messageViews(ctx, viewerId, rows).map((m) => ({ ...m, read_count: byId.get(m.id) ?? 0 }));
}

export function memberSummary(conv: ConversationRow, user: UserRow, member: MemberRow) {
  return {
    id: user.id,
    username: user.username,
    display_name: user.displayName,
    is_admin: isAdmin(conv, member),
    invite_status: member.inviteStatus as "accepted" | "pending",
  };
}

export function memberFull(conv: ConversationRow, user: UserRow, member: MemberRow) {
  return {
    ...memberSummary(conv, user, member),
    user_type: user.userType,
    presence_status: null,
    is_creator: conv.creatorId === user.id,
    invited_at: iso(member.invitedAt),
    joined_at: member.inviteStatus === "accepted" ? iso(member.joinedAt) : null,
  };
}

export function createdOut(c: Created, template: string | null = null) {
  return {
    id: c.conv.id,
    title: c.conv.title,
    description: c.conv.description,
    is_group: true as const,
    creator_id: c.conv.creatorId,
    members: c.members.map((m) => memberSummary(c.conv, m.user, m.member)),
    template,
    starter_message_id: c.starterMessageId,
  };
}
