// Wire schemas of the group routes (spec Part 2 §4.6; field names from the reference service:
// GroupConversationOut, GroupConversationDetailOut, GroupMembersListOut, GroupSearchOut, …).
import { t } from "elysia";
import { Int, OptionalEnum, Nullable } from "../../../http/schemas";
import { DateTime, MessageOut, PageMeta, Uuid } from "../schemas";

/** Path parameters of every /groups/{conv_id}… route (routes.ts and member-routes.ts). */
export const ConvParams = t.Object({ conv_id: t.String({ maxLength: 64, description: "The group's conversation id" }) });
/** The 404 every group route documents. */
export const NOT_MEMBER = "404 NOT_FOUND unless the caller is an accepted member (strangers, former members and pending invitees alike).";
/** The 403 every membership or identity change documents (managed groups: modmail threads). */
export const MANAGED = "403 FORBIDDEN on a modmail thread, whose members, title, description and avatar the colony's moderators manage (its participants may still leave).";

const GroupMemberSummary = t.Object({
  id: Uuid,
  username: t.String(),
  display_name: t.String(),
  is_admin: t.Boolean(),
  invite_status: t.UnionEnum(["accepted", "pending"]),
});

export const GroupConversationOut = t.Object({
  id: Uuid,
  title: Nullable(t.String()),
  description: Nullable(t.String()),
  is_group: t.Literal(true),
  creator_id: Uuid,
  members: t.Array(GroupMemberSummary, { description: "The creator (accepted admin) and every invitee (pending)" }),
  template: Nullable(t.String({ description: "Slug of the template the group was made from" })),
  starter_message_id: Nullable(Uuid),
});

const GroupTemplateOut = t.Object({
  slug: t.String(),
  title: t.String(),
  description: t.String(),
  suggested_roles: t.Array(t.String()),
  starter_pinned_message: t.String(),
});
export const GroupTemplatesListOut = t.Object({ templates: t.Array(GroupTemplateOut), pagination: PageMeta });

const GroupMessageOut = t.Composite([MessageOut, t.Object({ read_count: Int({ description: "How many other members have read it" }) })]);

export const GroupConversationDetailOut = t.Object({
  id: Uuid,
  title: Nullable(t.String()),
  description: Nullable(t.String()),
  creator_id: Nullable(Uuid),
  member_count: Int({ description: "Accepted members" }),
  pending_count: Int({ description: "Invitees who have not answered yet" }),
  avatar_url: t.String(),
  is_admin: t.Boolean({ description: "Whether the caller is an admin" }),
  muted_until: Nullable(DateTime, { description: "When the caller's mute ends; null when not muted or muted forever" }),
  is_muted: t.Boolean(),
  snoozed_until: Nullable(DateTime),
  receipts: Nullable(t.UnionEnum(["on", "off"])),
  messages: t.Array(GroupMessageOut, { description: "The newest page, oldest first" }),
  pinned: t.Array(GroupMessageOut, { description: "Pinned messages, in pin order" }),
  pagination: PageMeta,
});

export const GroupMetadataOut = t.Object({ title: Nullable(t.String()), description: Nullable(t.String()) });
export const GroupPatchIn = t.Object({
  title: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
  description: t.Optional(Nullable(t.String({ maxLength: 500, description: "Empty string or null clears it" }))),
});

export const MarkAllReadOut = t.Object({ marked: Int() });

const GroupSearchHitOut = t.Composite([MessageOut, t.Object({ body_highlight: Nullable(t.String({ description: "HTML-escaped body with <mark> around matches" })) })]);
export const GroupSearchOut = t.Object({ q: t.String(), count: Int({ description: "Results on this page" }), results: t.Array(GroupSearchHitOut), pagination: PageMeta });

const GroupMemberFull = t.Object({
  id: Uuid,
  username: t.String(),
  display_name: t.String(),
  user_type: t.String(),
  presence_status: Nullable(t.String()),
  is_admin: t.Boolean(),
  is_creator: t.Boolean(),
  invite_status: t.UnionEnum(["accepted", "pending"]),
  invited_at: Nullable(DateTime),
  joined_at: Nullable(DateTime),
});
export const GroupMembersListOut = t.Object({
  title: Nullable(t.String()),
  description: Nullable(t.String()),
  creator_id: Nullable(Uuid),
  members: t.Array(GroupMemberFull),
});

export const GroupAddMemberIn = t.Object({ username: t.Optional(t.String({ minLength: 1, maxLength: 64 })) });
export const GroupAddMemberOut = t.Object({ added: t.Boolean(), already_member: t.Boolean(), username: t.String(), invite_status: Nullable(t.String()) });
export const GroupRemoveMemberOut = t.Object({
  removed: t.Boolean(),
  left: t.Boolean({ description: "True when the caller removed themself" }),
  promoted_user_id: Nullable(Uuid, { description: "The member promoted to admin because the last admin left" }),
  creator_id: Uuid,
});

export const GroupSetAdminIn = t.Object({ is_admin: t.Optional(t.Boolean()) });
export const GroupSetAdminOut = t.Object({ user_id: Uuid, is_admin: t.Boolean() });

export const GroupTransferCreatorIn = t.Object({
  new_creator_id: t.Optional(Uuid),
  new_creator_username: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
});
export const GroupTransferCreatorOut = t.Object({ creator_id: Uuid, creator_username: t.String() });

export const GroupInviteRespondIn = t.Object({ accept: t.Optional(t.Boolean()) });
export const GroupInviteResponseOut = t.Object({ invite_status: t.UnionEnum(["accepted", "declined"]) });

export const GroupAvatarUploadOut = t.Object({ avatar_url: t.String() });

export const GroupReceiptsIn = t.Object({ show: OptionalEnum(["on", "off", "clear"], { description: "on, off, or clear (use the account default)" }) });
export const ReadReceiptsOverrideOut = t.Object({
  show: Nullable(t.UnionEnum(["on", "off"])),
  override: Nullable(t.Boolean()),
  effective: t.Boolean(),
});

export const SnoozeStateOut = t.Object({ snoozed_until: Nullable(DateTime), cleared: t.Boolean() });
export const MuteStateOut = t.Object({ muted: t.Boolean(), muted_until: Nullable(DateTime, { description: "Null while muted forever" }), forever: t.Boolean() });
export const PinResultOut = t.Object({ pinned: t.Boolean(), already: t.Boolean() });
