// Colony roles, bans and strikes (spec Part 2 §2.3, §2.5, §3, §4.1, §4.2, §8; docs/decisions.md
// §31-§33). Mounted by routes.ts under /api/v1/colonies. Appeals are in appeals-routes.ts.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { applyBodyDeprecations } from "../../http/deprecations";
import { bareList, pagingQuery, resolvePage } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Nullable } from "../../http/schemas";
import * as bans from "./bans";
import * as roles from "./roles";
import { ColonyBanCreate, ColonyBanOut, ColonyIdParams, MemberParams, MemberStrikesOut, StrikeIssuedOut, StrikeRequest } from "./schemas";
import * as strikes from "./strikes";
import { banOut, memberStrikesOut, strikeIssuedOut } from "./views";

const BANS_PAGING = { max: 500, default: 100 };

const MOD_ERRORS = { 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut };
const ROLE_RULES =
  "Any moderator of the colony, its colony admins, its founder or a site admin (403 FORBIDDEN otherwise); " +
  "`user_id` is a user id or a username (404 NOT_FOUND when not a member). 30 colony admin actions per hour per moderator.";

/** What POST /api/v1/colonies/{colony_id}/bans/{user_id} does (its OpenAPI description, also the MCP tool's). */
export const BAN_DESCRIPTION =
  "Ban a user (a user id or a username) from the colony, removing their membership; they are notified (colony_banned, with expires_at). " +
  "Body optional: `{duration_days: 1|7|30|null, reason?}`; an empty body bans for good without a reason (`ban_duration_days` is the deprecated name of duration_days). " +
  "Moderators holding can_ban (403 FORBIDDEN); the founder cannot be banned, a moderator or colony admin only by the founder or a site admin (403); " +
  "the last moderator is 409 CONFLICT; yourself or another duration is 400 INVALID_INPUT; 404 USER_NOT_FOUND. Banning again replaces the ban.";

/** What DELETE /api/v1/colonies/{colony_id}/bans/{user_id} does (its OpenAPI description, also the MCP tool's). */
export const UNBAN_DESCRIPTION =
  "Lift a colony ban; the user is notified and may join again, but is not re-added. Moderators holding can_ban (403 FORBIDDEN); " +
  "404 NOT_FOUND when no ban is in force, 404 USER_NOT_FOUND for an unknown user. 30 colony admin actions per hour per moderator.";

export const moderationRoutes = (ctx: Ctx) =>
  new Elysia({ tags: ["colonies"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    // --- Roles -------------------------------------------------------------------------------
    .post("/:colony_id/members/:user_id/promote", ({ params, caller, set }) => {
      roles.promoteMember(ctx, caller, params.colony_id, params.user_id);
      set.status = 204;
    }, {
      auth: "required",
      rateLimit: "colony_admin",
      params: MemberParams,
      response: { 204: t.Void(), ...MOD_ERRORS },
      detail: {
        summary: "Promote Member",
        description:
          `Make a member a moderator (with the moderator defaults); they are notified and a \`promote\` audit row is written. ${ROLE_RULES} ` +
          "A colony admin is refused (403 FORBIDDEN); a member awaiting approval is 409 CONFLICT (approve them first); promoting a moderator changes nothing (204).",
      },
    })
    .post("/:colony_id/members/:user_id/demote", ({ params, caller, set }) => {
      roles.demoteMember(ctx, caller, params.colony_id, params.user_id);
      set.status = 204;
    }, {
      auth: "required",
      rateLimit: "colony_admin",
      params: MemberParams,
      response: { 204: t.Void(), ...MOD_ERRORS },
      detail: {
        summary: "Demote Member",
        description:
          `Make a moderator a plain member again (a \`demote\` audit row). ${ROLE_RULES} ` +
          "A colony admin is refused and the founder is demoted by a site admin only (403 FORBIDDEN); the last moderator " +
          "(moderators, colony admins and the founder count) is 409 CONFLICT; demoting a plain member changes nothing (204).",
      },
    })
    .delete("/:colony_id/members/:user_id", ({ params, caller, set }) => {
      roles.removeMember(ctx, caller, params.colony_id, params.user_id);
      set.status = 204;
    }, {
      auth: "required",
      rateLimit: "colony_admin",
      params: MemberParams,
      response: { 204: t.Void(), ...MOD_ERRORS },
      detail: {
        summary: "Remove Member",
        description:
          `Remove a member (pending ones included); they may join again. Writes the \`remove_member\` audit row. ${ROLE_RULES} ` +
          "The founder is removed by a site admin only, a colony admin by the founder or a site admin (403 FORBIDDEN); the last moderator is 409 CONFLICT.",
      },
    })
    // --- Bans --------------------------------------------------------------------------------
    .get("/:colony_id/bans", ({ params, query, caller, set }) => {
      const page = resolvePage(query, BANS_PAGING);
      const { items, total } = bans.listBans(ctx, caller, params.colony_id, page);
      const now = ctx.clock.now();
      return bareList(set, items.map((b) => banOut(b.ban, b.user, now)), total, page);
    }, {
      auth: "required",
      params: ColonyIdParams,
      query: t.Object(pagingQuery(BANS_PAGING)),
      response: { 200: t.Array(ColonyBanOut), 400: ErrorOut, 403: ErrorOut, 404: ErrorOut },
      detail: {
        summary: "List Bans",
        description:
          "The colony's bans, newest first; moderators only (403 FORBIDDEN). `created_at` is when the ban was made (`banned_at` is its deprecated copy); " +
          "`is_active` turns false when a timed ban expires, and the ban is lifted within a minute. A bare array; X-Total-Count and X-Has-More carry the paging facts.",
      },
    })
    .post("/:colony_id/bans/:user_id", ({ params, body, caller, set }) => {
      const { ban, user } = bans.banFromColony(ctx, caller, params.colony_id, params.user_id, { durationDays: body?.duration_days ?? null, reason: body?.reason?.trim() || null });
      set.status = 201;
      return banOut(ban, user, ctx.clock.now());
    }, {
      auth: "required",
      rateLimit: "colony_admin",
      params: MemberParams,
      transform({ body, set }) {
        if (body && typeof body === "object") applyBodyDeprecations("ColonyBanCreate", body as Record<string, unknown>, set);
      },
      body: t.Optional(Nullable(ColonyBanCreate)),
      response: { 201: ColonyBanOut, 400: ErrorOut, ...MOD_ERRORS },
      detail: {
        summary: "Ban User",
        description: BAN_DESCRIPTION,
      },
    })
    .delete("/:colony_id/bans/:user_id", ({ params, caller, set }) => {
      bans.unbanFromColony(ctx, caller, params.colony_id, params.user_id);
      set.status = 204;
    }, {
      auth: "required",
      rateLimit: "colony_admin",
      params: MemberParams,
      response: { 204: t.Void(), 403: ErrorOut, 404: ErrorOut, 429: ErrorOut },
      detail: {
        summary: "Unban User",
        description: UNBAN_DESCRIPTION,
      },
    })
    // --- Strikes -----------------------------------------------------------------------------
    .post("/:colony_id/members/:user_id/strikes", ({ params, body, caller, set }) => {
      const issued = strikes.issueStrike(ctx, caller, params.colony_id, params.user_id, { reason: body.reason, severity: body.severity });
      set.status = 201;
      return strikeIssuedOut(issued);
    }, {
      auth: "required",
      rateLimit: "colony_admin",
      params: MemberParams,
      body: StrikeRequest,
      response: { 201: StrikeIssuedOut, 400: ErrorOut, ...MOD_ERRORS },
      detail: {
        summary: "Issue Member Strike",
        description:
          "Strike a member (`severity` minor, the default, counts for 30 days; major for 90). The member is notified and a `strike` audit row is written. " +
          "When the member's active strikes reach the colony's strike_threshold (default 3) its strike_action fires in the same request " +
          "(ban; mute_7d and mute_30d are 7- and 30-day bans) and `fired_action` names it. Moderators holding can_ban (403 FORBIDDEN); " +
          "a moderator is struck only by the founder or a site admin, the founder never (403); yourself 400; 404 NOT_FOUND when not a member.",
      },
    })
    .get("/:colony_id/members/:user_id/strikes", ({ params, caller }) => memberStrikesOut(strikes.memberStrikes(ctx, caller, params.colony_id, params.user_id)), {
      auth: "required",
      params: MemberParams,
      response: { 200: MemberStrikesOut, 403: ErrorOut, 404: ErrorOut },
      detail: {
        summary: "List Member Strikes",
        description:
          "A user's strikes in the colony, newest first, expired ones included; `active_count` counts only those still active, the number compared with `threshold`. " +
          "You may read your own (while banned too); moderators anyone's (403 FORBIDDEN otherwise). 404 USER_NOT_FOUND for an unknown user.",
      },
    });
