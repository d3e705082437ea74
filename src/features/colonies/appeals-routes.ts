// Ban appeals (spec Part 2 §2.5, §3, §4.2; docs/decisions.md §34). Mounted by routes.ts under
// /api/v1/colonies.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut } from "../../http/schemas";
import * as appeals from "./appeals";
import { AppealParams, AppealResolvedOut, BanAppealOut, BanAppealRequest, ColonyIdParams, MyBanStatusOut, PendingAppealsOut, ResolveAppealRequest } from "./schemas";
import { appealFiledOut, appealResolvedOut, myBanStatusOut, pendingAppealOut } from "./views";

export const appealsRoutes = (ctx: Ctx) =>
  new Elysia({ tags: ["colonies"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get("/:colony_id/appeal", ({ params, caller }) => myBanStatusOut(appeals.myBanStatus(ctx, caller, params.colony_id)), {
      auth: "required",
      params: ColonyIdParams,
      response: { 200: MyBanStatusOut, 404: ErrorOut },
      detail: {
        summary: "Get My Ban Status",
        description:
          "Your own ban and appeal state in this colony: `banned` and `ban` reflect a ban in force only (a lapsed timed ban is none); " +
          "`appeal` is your most recent appeal whatever its outcome, with the moderator's note. A private colony you were banned from stays reachable here.",
      },
    })
    .post("/:colony_id/appeal", ({ params, body, caller, set }) => {
      const appeal = appeals.fileAppeal(ctx, caller, params.colony_id, body.body);
      set.status = 201;
      return appealFiledOut(appeal);
    }, {
      auth: "required",
      params: ColonyIdParams,
      body: BanAppealRequest,
      response: { 201: BanAppealOut, 400: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: {
        summary: "Submit Ban Appeal",
        description:
          "Appeal your ban in force in this colony; every moderator and colony admin is notified (ban_appeal_filed). " +
          "404 NOT_FOUND when you have no ban in force (a lapsed timed ban included), 409 CONFLICT while an appeal of yours is pending, 400 INVALID_INPUT for a blank body.",
      },
    })
    .get("/:colony_id/appeals", ({ params, caller }) => ({ appeals: appeals.pendingAppeals(ctx, caller, params.colony_id).map(pendingAppealOut) }), {
      auth: "required",
      params: ColonyIdParams,
      response: { 200: PendingAppealsOut, 403: ErrorOut, 404: ErrorOut },
      detail: {
        summary: "List Pending Ban Appeals",
        description:
          "Pending appeals of the colony, oldest first, each with the appellant's ban in force (null when it lapsed or was lifted since). Moderators only (403 FORBIDDEN).",
      },
    })
    .post("/:colony_id/appeals/:appeal_id/resolve", ({ params, body, caller }) =>
      appealResolvedOut(appeals.resolveAppeal(ctx, caller, params.colony_id, params.appeal_id, { accept: body.accept, note: body.note })), {
      auth: "required",
      rateLimit: "colony_admin",
      params: AppealParams,
      body: ResolveAppealRequest,
      response: { 200: AppealResolvedOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
      detail: {
        summary: "Resolve Ban Appeal",
        description:
          "Accept or reject a pending appeal. Accepting lifts the ban in force (an `unban` audit row; the appellant is told they may join again) and `unbanned` says whether one was; " +
          "rejecting closes the appeal and relays your `note` to the appellant. Moderators holding can_ban (403 FORBIDDEN); 404 NOT_FOUND for an appeal not of this colony; " +
          "409 CONFLICT once resolved. 30 colony admin actions per hour per moderator.",
      },
    });
