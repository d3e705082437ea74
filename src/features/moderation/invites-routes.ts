// Moderator invitation routes (spec Part 2 §2.5, §3, §4.2, §9): offering, listing and withdrawing
// invitations (managers), and the invitee's inbox, accept and decline.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Nullable, OptionalEnum } from "../../http/schemas";
import { ColonyIdParams } from "../colonies/schemas";
import { MOD_PERMISSIONS } from "../colonies/tables";
import * as invites from "./invites";
import { MOD_INVITE_ROLES, MOD_INVITE_STATUSES } from "./tables";

const ModInviteOut = t.Object({
  invitation_id: t.String({ format: "uuid" }),
  invite_id: t.String({ format: "uuid", description: "Deprecated duplicate of invitation_id" }),
  colony_id: t.String({ format: "uuid" }),
  invitee_id: t.String({ format: "uuid" }),
  invited_by: t.String({ format: "uuid" }),
  role_offered: t.UnionEnum([...MOD_INVITE_ROLES]),
  permissions: t.Array(t.String()),
  status: t.UnionEnum([...MOD_INVITE_STATUSES], { description: "A pending invitation past expires_at reads expired" }),
  expires_at: t.String({ format: "date-time" }),
  created_at: t.String({ format: "date-time" }),
  responded_at: Nullable(t.String({ format: "date-time" })),
});

const ModInviteListOut = t.Object({ invites: t.Array(ModInviteOut) });

const ModInviteCreate = t.Object({
  invitee_username: t.String({ minLength: 1, maxLength: 100, description: "A username (a leading @ is ignored) or a user id" }),
  role_offered: OptionalEnum(MOD_INVITE_ROLES, { description: "moderator (default) or admin (colony admin; the founder only)" }),
  permissions: t.Optional(
    Nullable(t.Array(t.String({ maxLength: 64 }), { maxItems: 20, description: `Moderator permission keys (${MOD_PERMISSIONS.join(", ")}); omitted: the moderator defaults; an admin holds every key` })),
  ),
});

const InviteParams = t.Object({ invitation_id: t.String({ minLength: 1, maxLength: 64 }) });
const ColonyInviteParams = t.Object({ colony_id: t.String({ format: "uuid" }), invitation_id: t.String({ minLength: 1, maxLength: 64 }) });

const MANAGERS = "the founder, a colony admin, a moderator holding can_manage_mods, or a site admin";

export const invitesRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/colonies", tags: ["colonies"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get("/mod-invites/received", ({ caller }) => ({ invites: invites.listReceived(ctx, caller).map((r) => invites.inviteOut(ctx, r)) }), {
      auth: "required",
      response: { 200: ModInviteListOut, 401: ErrorOut },
      detail: { summary: "List Received Mod Invites", description: "Your pending moderator invitations across every colony, newest first (expired ones are left out)." },
    })
    .post("/mod-invites/:invitation_id/accept", ({ caller, params }) => invites.inviteOut(ctx, invites.acceptInvite(ctx, caller, params.invitation_id)), {
      auth: "required",
      params: InviteParams,
      response: { 200: ModInviteOut, 401: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: {
        summary: "Accept Mod Invite",
        description:
          "Accept an invitation addressed to you within its 7 days: the offered role and permissions are yours, and you join the colony (approved) if you were not a member. " +
          "404 NOT_FOUND for anyone else's invitation; 409 CONFLICT when it is no longer pending (accepted, declined, revoked or expired), when you already hold that role or a higher one, or are banned from the colony.",
      },
    })
    .post("/mod-invites/:invitation_id/decline", ({ caller, params }) => invites.inviteOut(ctx, invites.declineInvite(ctx, caller, params.invitation_id)), {
      auth: "required",
      params: InviteParams,
      response: { 200: ModInviteOut, 401: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: { summary: "Decline Mod Invite", description: "Decline an invitation addressed to you (terminal). 404 NOT_FOUND for anyone else's; 409 CONFLICT unless pending." },
    })
    .post("/:colony_id/mod-invites", ({ caller, params, body, set }) => {
      const row = invites.createInvite(ctx, caller, params.colony_id, body);
      set.status = 201;
      return invites.inviteOut(ctx, row);
    }, {
      auth: "required",
      rateLimit: "colony_admin",
      params: ColonyIdParams,
      body: ModInviteCreate,
      response: { 201: ModInviteOut, 400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
      detail: {
        summary: "Create Mod Invite",
        description:
          `Invite a user to moderate: ${MANAGERS}. Offering admin is for the founder (and site admins). The invitee is notified and gains nothing until they accept, within 7 days. ` +
          "403 FORBIDDEN for anyone else; 404 when the colony is not visible to you, 404 USER_NOT_FOUND for an unknown invitee; 400 INVALID_INPUT for yourself or an unknown permission key; " +
          "409 CONFLICT when the invitee already holds the role (or a higher one), is banned here, or has a pending invitation to this colony.",
      },
    })
    .get("/:colony_id/mod-invites", ({ caller, params }) => ({ invites: invites.listColonyInvites(ctx, caller, params.colony_id).map((r) => invites.inviteOut(ctx, r)) }), {
      auth: "required",
      params: ColonyIdParams,
      response: { 200: ModInviteListOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut },
      detail: { summary: "List Colony Mod Invites", description: `The colony's outstanding (pending, unexpired) invitations, newest first: ${MANAGERS} (403 FORBIDDEN otherwise).` },
    })
    .post("/:colony_id/mod-invites/:invitation_id/revoke", ({ caller, params }) => invites.inviteOut(ctx, invites.revokeInvite(ctx, caller, params.colony_id, params.invitation_id)), {
      auth: "required",
      rateLimit: "colony_admin",
      params: ColonyInviteParams,
      response: { 200: ModInviteOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
      detail: { summary: "Revoke Mod Invite", description: `Withdraw a pending invitation: ${MANAGERS}. 404 NOT_FOUND for an invitation of another colony; 409 CONFLICT unless pending.` },
    });
