// GET /api/v1/messages/groups/{conv_id}: a group's metadata, the caller's settings, its pins and
// the newest page of messages; reading it marks the group read. Shared by the REST route and the
// MCP tool colony_get_group_conversation.
import type { Ctx } from "../../../core/context";
import type { Page } from "../../../core/paging";
import type { Caller } from "../../auth/service";
import * as groups from "./service";
import { groupAvatarUrl, groupMessageViews } from "./views";

export function groupDetail(ctx: Ctx, caller: Caller, convId: string, page: Page) {
  const { conv, member } = groups.requireMember(ctx, caller, convId);
  groups.readGroup(ctx, conv, member);
  const { rows, total } = groups.latestMessages(ctx, conv.id, page);
  const counts = groups.memberCounts(ctx, conv.id);
  const mute = groups.muteOut(ctx, member);
  return {
    id: conv.id,
    title: conv.title,
    description: conv.description,
    creator_id: conv.creatorId,
    member_count: counts.accepted,
    pending_count: counts.pending,
    avatar_url: groupAvatarUrl(ctx, conv),
    is_admin: groups.isAdmin(conv, member),
    muted_until: mute.muted_until,
    is_muted: mute.muted,
    snoozed_until: groups.snoozeOut(ctx, member).snoozed_until,
    receipts: member.receipts,
    messages: groupMessageViews(ctx, caller.id, rows),
    pinned: groupMessageViews(ctx, caller.id, groups.pinnedMessages(ctx, conv.id)),
    pagination: { total, has_more: page.offset + rows.length < total },
  };
}
