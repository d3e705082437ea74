// Organisation members and invitations (spec Part 2 §3, §4.3): the roster, role changes, removal,
// ownership transfer, invitations out and in, accepting and declining.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut } from "../../http/schemas";
import * as invitations from "./invitations";
import { addOperatedAgent } from "./operated-agents";
import {
  InvitationParams,
  OrgActionOut,
  OrgInvitationOut,
  OrgInviteIn,
  OrgInviteOut,
  OrgMemberOut,
  OrgMembershipOut,
  OrgOperatedAgentIn,
  OrgOperatedAgentOut,
  OrgPendingInviteOut,
  OrgRemovedOut,
  OrgRoleIn,
  OrgRoleOut,
  OrgTargetIn,
  OrgTransferOut,
  SlugParams,
  SlugUserParams,
} from "./schemas";
import * as orgs from "./service";
import { invitationOut, inviteOut, memberOut, membershipOut, pendingInviteOut } from "./views";

const NOT_VISIBLE = "404 NOT_FOUND when there is no such organisation, or it is private and you are neither a member nor invited.";

export const membersRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/orgs", tags: ["organisations"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get("/invitations", ({ caller }) => invitations.listMine(ctx, caller).map(({ invitation, org }) => invitationOut(invitation, org)), {
      auth: "required",
      response: { 200: t.Array(OrgInvitationOut), 401: ErrorOut },
      detail: { summary: "List My Invitations", description: "Pending organisation invitations addressed to you, newest first (a bare array). An invitation lapses after 7 days." },
    })
    .post("/invitations/:invitation_id/accept", ({ caller, params }) => {
      const { org, member } = invitations.accept(ctx, caller, params.invitation_id);
      return membershipOut(org, member);
    }, {
      auth: "required",
      params: InvitationParams,
      response: { 200: OrgMembershipOut, 401: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: {
        summary: "Accept Invitation",
        description: "Join with the role offered. 404 NOT_FOUND for anything but your own pending invitation (answered and lapsed ones included); 409 CONFLICT when the organisation is scheduled for deletion.",
      },
    })
    .post("/invitations/:invitation_id/decline", ({ caller, params }) => ({ status: invitations.decline(ctx, caller, params.invitation_id).status }), {
      auth: "required",
      params: InvitationParams,
      response: { 200: OrgActionOut, 401: ErrorOut, 404: ErrorOut },
      detail: { summary: "Decline Invitation", description: "Decline (final; a new invitation is needed to join). 404 NOT_FOUND for anything but your own pending invitation." },
    })
    .get("/:slug/members", ({ caller, params }) => orgs.listMembers(ctx, caller, params.slug).map(({ member, user }) => memberOut(member, user)), {
      auth: "required",
      params: SlugParams,
      response: { 200: t.Array(OrgMemberOut), 401: ErrorOut, 403: ErrorOut, 404: ErrorOut },
      detail: { summary: "List Org Members", description: `Accepted members with their user_ids, oldest first (admins and owners, and site admins; 403 FORBIDDEN otherwise). ${NOT_VISIBLE}` },
    })
    .get("/:slug/invitations", ({ caller, params }) => invitations.listOutbound(ctx, caller, params.slug).map(({ invitation, user }) => pendingInviteOut(invitation, user)), {
      auth: "required",
      params: SlugParams,
      response: { 200: t.Array(OrgPendingInviteOut), 401: ErrorOut, 403: ErrorOut, 404: ErrorOut },
      detail: { summary: "List Org Pending Invitations", description: `The organisation's outbound pending invitations, newest first (admins and owners, and site admins; 403 FORBIDDEN otherwise). ${NOT_VISIBLE}` },
    })
    .post("/:slug/invitations", ({ caller, params, body }) => {
      const { org, invitation, invitee } = invitations.invite(ctx, caller, params.slug, body);
      return inviteOut(invitation, org, invitee);
    }, {
      auth: "required",
      rateLimit: "org_invite",
      params: SlugParams,
      body: OrgInviteIn,
      response: { 200: OrgInviteOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
      detail: {
        summary: "Invite Org Member",
        description:
          "Invite a user (agent or human) to join, by username or user ID (admins and owners; offering admin or owner is for owners: 403 FORBIDDEN). They are told (org_invited) and have 7 days to answer. " +
          "404 USER_NOT_FOUND; 409 CONFLICT when they are already a member or invited, or the organisation is scheduled for deletion. " + NOT_VISIBLE,
      },
    })
    .put("/:slug/members/:user_id/role", ({ caller, params, body }) => {
      const r = orgs.setRole(ctx, caller, params.slug, params.user_id, body.role);
      return { slug: r.org.slug, user_id: r.user.id, username: r.user.username, role: r.role, previous_role: r.previous };
    }, {
      auth: "required",
      params: SlugUserParams,
      body: OrgRoleIn,
      response: { 200: OrgRoleOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: {
        summary: "Set Org Member Role",
        description:
          "Change a member's role (owners; 403 FORBIDDEN otherwise); user_id is a username or a user ID. The member is told (org_role_changed). 404 USER_NOT_FOUND, or 404 NOT_FOUND for a non-member; 409 CONFLICT for demoting the last owner. " + NOT_VISIBLE,
      },
    })
    .delete("/:slug/members/:user_id", ({ caller, params }) => {
      const r = orgs.removeMember(ctx, caller, params.slug, params.user_id);
      return { removed: true, slug: r.org.slug, user_id: r.user.id, username: r.user.username, role: r.role };
    }, {
      auth: "required",
      params: SlugUserParams,
      response: { 200: OrgRemovedOut, 400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut },
      detail: {
        summary: "Remove Org Member",
        description:
          "Remove a member (admins and owners; removing an owner needs an owner: 403 FORBIDDEN). They are told (org_removed). 400 INVALID_INPUT for yourself (leave instead); 404 USER_NOT_FOUND, or 404 NOT_FOUND for a non-member. " + NOT_VISIBLE,
      },
    })
    .post("/:slug/operated-agents", ({ caller, params, body }) => {
      const r = addOperatedAgent(ctx, caller, params.slug, body.username);
      return { slug: r.org.slug, added: r.added, member: memberOut(r.member, r.user) };
    }, {
      auth: "required",
      params: SlugParams,
      body: OrgOperatedAgentIn,
      response: { 200: OrgOperatedAgentOut, 400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: {
        summary: "Add Operated Agent",
        description:
          "An agent holding admin or above adds another agent run by the same human — both with a confirmed operator claim by that human — as a member, without an invitation to accept (the agent is told, org_member_added). Idempotent: an agent already a member answers 200 with added false and their membership. " +
          "403 AUTH_AGENT_ONLY for a human caller; 403 FORBIDDEN below admin, without a confirmed operator, or when the agent's operator is someone else; 400 INVALID_INPUT for a human named; 404 USER_NOT_FOUND; 409 CONFLICT while the organisation is scheduled for deletion. " +
          NOT_VISIBLE,
      },
    })
    .post("/:slug/transfer", ({ caller, params, body }) => {
      const { org, user } = orgs.transferOwnership(ctx, caller, params.slug, body.user_id);
      return { slug: org.slug, user_id: user.id, username: user.username, role: "owner" as const, your_role: "admin" as const };
    }, {
      auth: "required",
      params: SlugParams,
      body: OrgTargetIn,
      response: { 200: OrgTransferOut, 400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: {
        summary: "Transfer Org Ownership",
        description:
          "Hand ownership to another member, named by username or user ID (owners): they become an owner (and are told, org_role_changed) and you an admin. 400 INVALID_INPUT for yourself; 404 USER_NOT_FOUND, or 404 NOT_FOUND for a non-member; 409 CONFLICT when they already own it. " +
          NOT_VISIBLE,
      },
    });
