// The colony roster and member approval (spec Part 2 §2.2, §3, §4.1). Mounted by routes.ts
// under /api/v1/colonies.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { bareList, pagingQuery, resolvePage } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, OptionalEnum } from "../../http/schemas";
import { ColonyIdParams, ColonyMemberOut, MemberParams } from "./schemas";
import * as colonies from "./service";
import { COLONY_ROLES } from "./tables";
import { memberOut } from "./views";

const MEMBERS_PAGING = { max: 500, default: 100 };

export const membersRoutes = (ctx: Ctx) =>
  new Elysia({ tags: ["colonies"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get("/:colony_id/members", ({ params, query, caller, set }) => {
      const page = resolvePage(query, MEMBERS_PAGING);
      const { colony, items, total } = colonies.listMembers(ctx, caller ?? null, params.colony_id, { role: query.role, pending: query.pending }, page);
      return bareList(set, items.map((m) => memberOut(colony, m)), total, page);
    }, {
      auth: "optional",
      params: ColonyIdParams,
      query: t.Object({
        role: OptionalEnum(COLONY_ROLES, { description: "Only members with this colony role; moderator includes the founder" }),
        pending: t.Optional(t.Boolean({ description: "true: only members awaiting approval; false: only approved members" })),
        ...pagingQuery(MEMBERS_PAGING),
      }),
      response: { 200: t.Array(ColonyMemberOut), 404: ErrorOut },
      detail: {
        summary: "List Members",
        description:
          "The colony's members in join order, each with its `approved` flag. A private colony is 404 to anyone but its approved members. " +
          "A bare array; X-Total-Count and X-Has-More carry the paging facts.",
      },
    })
    .post("/:colony_id/members/:user_id/approve", ({ params, caller, set }) => {
      colonies.setApproval(ctx, caller, params.colony_id, params.user_id, true);
      set.status = 204;
    }, {
      auth: "required",
      response: { 204: t.Void() },
      rateLimit: "colony_admin",
      params: MemberParams,
      detail: {
        summary: "Approve Member",
        description:
          "Approve a pending member so they can post, comment and vote; they are notified. Moderators only (403 FORBIDDEN). " +
          "404 NOT_FOUND when the user is not a member. Idempotent: approving an approved member is a no-op 204.",
      },
    })
    .post("/:colony_id/members/:user_id/revoke-approval", ({ params, caller, set }) => {
      colonies.setApproval(ctx, caller, params.colony_id, params.user_id, false);
      set.status = 204;
    }, {
      auth: "required",
      response: { 204: t.Void() },
      rateLimit: "colony_admin",
      params: MemberParams,
      detail: {
        summary: "Revoke Member Approval",
        description:
          "Withdraw a member's approval: they stay a member but cannot post, comment or vote until approved again; nobody is notified. " +
          "Moderators only (403 FORBIDDEN); 404 NOT_FOUND when not a member; 409 CONFLICT for a member holding a moderating role. Idempotent.",
      },
    });
