// Group membership and per-member settings (spec Part 2 §4.6): members list, invite, remove or
// leave, admins, the creator role, answering an invite, read receipts, snooze and mute.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../../core/context";
import { authPlugin } from "../../../http/auth";
import { rateLimitPlugin } from "../../../http/rate-limit";
import { ErrorOut } from "../../../http/schemas";
import { either, required } from "./input";
import {
  ConvParams,
  GroupAddMemberIn,
  GroupAddMemberOut,
  GroupInviteRespondIn,
  GroupInviteResponseOut,
  GroupMembersListOut,
  GroupReceiptsIn,
  GroupRemoveMemberOut,
  GroupSetAdminIn,
  GroupSetAdminOut,
  GroupTransferCreatorIn,
  GroupTransferCreatorOut,
  MANAGED,
  MuteStateOut,
  NOT_MEMBER,
  ReadReceiptsOverrideOut,
  SnoozeStateOut,
} from "./schemas";
import * as invites from "./invites";
import * as membership from "./membership";
import * as settings from "./settings";
import { memberFull } from "./views";

const MemberParams = t.Object({ conv_id: t.String({ maxLength: 64 }), user_id: t.String({ maxLength: 64, description: "A user id (or username) of a member" }) });

/** Receipts `show` in the query: the spec's on/off/clear, or the reference's true/false. */
const ShowQuery = t.Optional(t.UnionEnum(["on", "off", "clear", "true", "false"], { default: undefined }));
const showOf = (v: string | undefined): settings.ReceiptsShow | undefined => (v === "true" ? "on" : v === "false" ? "off" : (v as settings.ReceiptsShow | undefined));

export const groupMemberRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/messages/groups", tags: ["messages"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get("/:conv_id/members", ({ caller, params }) => {
      const { conv, members } = membership.listMembers(ctx, caller, params.conv_id);
      return { title: conv.title, description: conv.description, creator_id: conv.creatorId, members: members.map((m) => memberFull(conv, m.user, m.member)) };
    }, {
      auth: "required",
      params: ConvParams,
      response: { 200: GroupMembersListOut, 404: ErrorOut },
      detail: { operationId: "listGroupMembers", summary: "List Group Members", description: `Accepted members (longest-tenured first), then pending invitees, each with is_admin, is_creator and invite_status. ${NOT_MEMBER}` },
    })
    .post("/:conv_id/members", ({ caller, params, query, body, set }) => {
      const out = invites.invite(ctx, caller, params.conv_id, required("username", body?.username, query.username));
      set.status = out.added ? 201 : 200;
      return out;
    }, {
      auth: "required",
      rateLimit: "group_invite",
      params: ConvParams,
      query: t.Object({ username: t.Optional(t.String({ minLength: 1, maxLength: 64 })) }),
      body: t.Optional(GroupAddMemberIn),
      response: { 200: GroupAddMemberOut, 201: GroupAddMemberOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 429: ErrorOut },
      detail: {
        operationId: "addGroupMember",
        summary: "Add Group Member",
        description: `Admins invite \`{username}\` (body or query; a user id works too): 201 with invite_status pending. Someone already a member or already invited: 200 with added false, already_member true. A former member or one who declined is invited again. At most 50 members counting pending invites (400 LIMIT_EXCEEDED). An invite to a stranger counts against the cold-contact budget. 404 USER_NOT_FOUND; 403 FORBIDDEN for members who are not admins; 403 KARMA_TOO_LOW below -5 karma; 429 RATE_LIMIT_GROUP_INVITE past 60 invites an hour. ${MANAGED} ${NOT_MEMBER}`,
      },
    })
    .delete("/:conv_id/members/:user_id", ({ caller, params }) => membership.removeMember(ctx, caller, params.conv_id, params.user_id), {
      auth: "required",
      params: MemberParams,
      response: { 200: GroupRemoveMemberOut, 403: ErrorOut, 404: ErrorOut },
      detail: {
        operationId: "removeGroupMember",
        summary: "Remove Group Member",
        description: `Your own id: leave the group. Another member (or a pending invitee): admins only (403 FORBIDDEN otherwise); nobody removes the creator but the creator. When the last admin leaves, the longest-tenured remaining member becomes admin; when the creator leaves, the creator role passes to the longest-tenured remaining admin. 404 NOT_FOUND for someone not in the group. ${MANAGED} ${NOT_MEMBER}`,
      },
    })
    .put("/:conv_id/members/:user_id/admin", ({ caller, params, query, body }) =>
      membership.setAdmin(ctx, caller, params.conv_id, params.user_id, required("is_admin", body?.is_admin, query.is_admin)), {
      auth: "required",
      params: MemberParams,
      query: t.Object({ is_admin: t.Optional(t.Boolean()) }),
      body: t.Optional(GroupSetAdminIn),
      response: { 200: GroupSetAdminOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: {
        operationId: "setGroupAdmin",
        summary: "Set Group Admin",
        description: `Admins promote or demote an accepted member with \`{is_admin}\` (body or query). The creator is always an admin: 403 FORBIDDEN when others try to demote them, 409 CONFLICT when the creator tries (transfer the creator role first). 409 CONFLICT for demoting the last admin or promoting a pending invitee; 404 NOT_FOUND for someone not in the group. ${MANAGED} ${NOT_MEMBER}`,
      },
    })
    .post("/:conv_id/transfer-creator", ({ caller, params, query, body }) => {
      const byId = either("new_creator_id", body?.new_creator_id, query.new_creator_id);
      const byName = either("new_creator_username", body?.new_creator_username, query.new_creator_username);
      return membership.transferCreator(ctx, caller, params.conv_id, required("new_creator_id", byId ?? byName, undefined));
    }, {
      auth: "required",
      params: ConvParams,
      query: t.Object({ new_creator_id: t.Optional(t.String({ format: "uuid" })), new_creator_username: t.Optional(t.String({ minLength: 1, maxLength: 64 })) }),
      body: t.Optional(GroupTransferCreatorIn),
      response: { 200: GroupTransferCreatorOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: {
        operationId: "transferGroupCreator",
        summary: "Transfer Group Creator",
        description: `The creator hands the role to an accepted member: \`{new_creator_id}\` (or new_creator_username, body or query). The new creator becomes an admin; the old creator stays one. 403 FORBIDDEN for anyone but the creator; 404 NOT_FOUND for someone not in the group; 409 CONFLICT for a pending invitee; 400 INVALID_INPUT for yourself. ${MANAGED} ${NOT_MEMBER}`,
      },
    })
    .post("/:conv_id/invite/respond", ({ caller, params, query, body }) => invites.respond(ctx, caller, params.conv_id, required("accept", body?.accept, query.accept)), {
      auth: "required",
      params: ConvParams,
      query: t.Object({ accept: t.Optional(t.Boolean()) }),
      body: t.Optional(GroupInviteRespondIn),
      response: { 200: GroupInviteResponseOut, 404: ErrorOut, 409: ErrorOut },
      detail: {
        operationId: "respondToGroupInvite",
        summary: "Respond To Group Invite",
        description:
          "The invitee answers `{accept}` (body or query). Accepting makes them a member (group_invite_accepted to every member); declining is final — only a new invite brings them back. 404 NOT_FOUND without a pending invite; 409 CONFLICT when already a member.",
      },
    })
    .patch("/:conv_id/receipts", ({ caller, params, query, body }) => settings.setReceipts(ctx, caller, params.conv_id, either("show", body?.show, showOf(query.show)) ?? "clear"), {
      auth: "required",
      params: ConvParams,
      query: t.Object({ show: ShowQuery }),
      body: t.Optional(GroupReceiptsIn),
      response: { 200: ReadReceiptsOverrideOut, 400: ErrorOut, 404: ErrorOut },
      detail: {
        operationId: "setGroupReadReceipts",
        summary: "Set Group Read Receipts",
        description: `The caller's read-receipt override for this group: \`{show: on | off | clear}\` (query show also takes true/false; omitted = clear). While off, the caller's reads here are not broadcast (no dm.group_read). effective is the setting in force (receipts are on by default). ${NOT_MEMBER}`,
      },
    })
    .post("/:conv_id/snooze", ({ caller, params, query }) => settings.snooze(ctx, caller, params.conv_id, query.duration), {
      auth: "required",
      params: ConvParams,
      query: t.Object({ duration: t.UnionEnum(settings.SNOOZE_DURATIONS as unknown as ["1h", "3h", "until_morning", "1d", "1w"], { default: undefined }) }),
      response: { 200: SnoozeStateOut, 404: ErrorOut },
      detail: {
        operationId: "snoozeGroupConversation",
        summary: "Snooze Group Conversation",
        description: `The caller gets no notifications from this group until the snooze ends: duration 1h, 3h, until_morning (the next 08:00 UTC), 1d or 1w. Snoozing again replaces the end. ${NOT_MEMBER}`,
      },
    })
    .post("/:conv_id/unsnooze", ({ caller, params }) => settings.unsnooze(ctx, caller, params.conv_id), {
      auth: "required",
      params: ConvParams,
      response: { 200: SnoozeStateOut, 404: ErrorOut },
      detail: { operationId: "unsnoozeGroupConversation", summary: "Unsnooze Group Conversation", description: `Ends the caller's snooze; idempotent (cleared tells whether one was in force). ${NOT_MEMBER}` },
    })
    .post("/:conv_id/mute", ({ caller, params, query }) => settings.mute(ctx, caller, params.conv_id, query.duration ?? "forever"), {
      auth: "required",
      params: ConvParams,
      query: t.Object({
        duration: t.Optional(t.UnionEnum(settings.MUTE_DURATIONS as unknown as ["1h", "8h", "1d", "1w", "forever"], { default: undefined, description: "Default forever; `until` is the deprecated name" })),
      }),
      response: { 200: MuteStateOut, 400: ErrorOut, 404: ErrorOut },
      detail: {
        operationId: "muteGroupConversation",
        summary: "Mute Group Conversation",
        description: `Mutes the group for the caller: duration 1h, 8h, 1d, 1w or forever (default; muted_until is then null and forever true). \`until\` is the deprecated spelling of duration. Muted members get no group_message events or notifications, except for messages that @-name them or @everyone. ${NOT_MEMBER}`,
      },
    })
    .post("/:conv_id/unmute", ({ caller, params }) => settings.unmute(ctx, caller, params.conv_id), {
      auth: "required",
      params: ConvParams,
      response: { 200: MuteStateOut, 404: ErrorOut },
      detail: { operationId: "unmuteGroupConversation", summary: "Unmute Group Conversation", description: `Clears the caller's mute; idempotent. ${NOT_MEMBER}` },
    });
