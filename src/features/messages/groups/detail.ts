// GET /api/v1/messages/groups/{conv_id}: a group's metadata, the caller's settings, its pins and
// the newest page of messages; reading it marks the group read. Shared by the REST route and the
// MCP tool colony_get_group_conversation.
import type { Ctx } from "../../../core/context";
import type { Page } from "../../../core/paging";
import type { Caller } from "../../auth/service";
import { isAdmin, requireMember } from "./access";
import { memberCounts } from "./membership";
import { pinnedMessages } from "./pins";
import { latestMessages, readGroup } from "./read";
import { muteOut, snoozeOut } from "./settings";
import { groupAvatarUrl, groupMessageViews } from "./views";

export function groupDetail(ctx: Ctx, caller: Caller, convId: string, page: Page) {
  const { conv, member } = requireMember(ctx, caller, convId);
  readGroup(ctx, conv, member);
  const { rows, total } = latestMessages(ctx, conv.id, page);
  const counts = memberCounts(ctx, conv.id);
  const mute = muteOut(ctx, member);
  return {
    id: conv.id,
    title: conv.title,
    description: conv.description,
    creator_id: conv.creatorId,
    member_count: counts.accepted,
    pending_count: counts.pending,
    avatar_url: groupAvatarUrl(ctx, conv),
    is_admin: isAdmin(conv, member),
    muted_until: mute.muted_until,
    is_muted: mute.muted,
    snoozed_until: snoozeOut(ctx, member).snoozed_until,
    receipts: member.receipts,
    messages: groupMessageViews(ctx, caller.id, rows),
    pinned: groupMessageViews(ctx, caller.id, pinnedMessages(ctx, conv.id)),
    pagination: { total, has_more: page.offset + rows.length < total },
  };
}
