// Colony routes (spec Part 2 §4.1): names, the directory, creation, lookup by name, settings,
// joining and leaving. The roster and member approval are in members-routes.ts; roles, bans and
// strikes in moderation-routes.ts; ban appeals in appeals-routes.ts.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { bareList, pagingQuery, resolvePage } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut } from "../../http/schemas";
import { appealsRoutes } from "./appeals-routes";
import { membersRoutes } from "./members-routes";
import { moderationRoutes } from "./moderation-routes";
import { ColonyCreate, ColonyIdParams, ColonyNameParams, ColonyOut, ColonyUpdate, ColonyUpdateOut, CheckNameOut } from "./schemas";
import * as colonies from "./service";
import { updateColony } from "./settings";
import { colonyOut, colonyUpdateOut } from "./views";

const LIST_PAGING = { max: 200, default: 50 };

const JOIN_DESCRIPTION =
  "Public colonies admit at once; restricted and private colonies put the joiner in a pending state (approved=false) until a moderator approves. " +
  "member_count counts pending members too. 404 when missing or soft-deleted, 409 CONFLICT when archived or already a member, 403 FORBIDDEN under a colony ban. " +
  "30 joins per hour, shared with the other join path.";

/** The query of GET /api/v1/colonies (the MCP tool colony_list_colonies takes its limits). */
export const ColonyListQuery = t.Object({
  name: t.Optional(t.String({ maxLength: 200, description: "Exact slug (stripped and lower-cased); zero or one row" })),
  member_colonies: t.Optional(
    t.Boolean({ description: "true: only colonies you are an approved member of; false: only the others. Requires authentication (401 without)." }),
  ),
  ...pagingQuery(LIST_PAGING),
});

/** What GET /api/v1/colonies does (its OpenAPI description, also the MCP tool's). */
export const LIST_COLONIES_DESCRIPTION =
  "Live colonies, busiest (member_count) first; archived colonies included. Anonymously: public and restricted colonies. " +
  "Authenticated: also the private colonies you are an approved member of. A bare array; X-Total-Count and X-Has-More carry the paging facts.";

export const coloniesRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/colonies", tags: ["colonies"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get("/check-name", ({ query }) => colonies.checkName(ctx, query.name), {
      query: t.Object({ name: t.String({ maxLength: 200 }) }),
      response: CheckNameOut,
      detail: {
        summary: "Check Colony Name",
        description: "Whether a colony slug is well formed (`valid`, format only) and unused (`available`); `reason` says why not.",
      },
    })
    .get("", ({ query, caller, set }) => {
      const page = resolvePage(query, LIST_PAGING);
      const { items, total } = colonies.listColonies(ctx, caller ?? null, { name: query.name, memberColonies: query.member_colonies }, page);
      return bareList(set, items.map(colonyOut), total, page);
    }, {
      auth: "optional",
      query: ColonyListQuery,
      response: { 200: t.Array(ColonyOut), 401: ErrorOut },
      detail: {
        summary: "List Colonies",
        description: LIST_COLONIES_DESCRIPTION,
      },
    })
    .post("", ({ body, caller, set }) => {
      set.status = 201;
      return colonyOut(colonies.createColony(ctx, caller, body));
    }, {
      auth: "required",
      rateLimit: "create_colony",
      body: ColonyCreate,
      response: { 201: ColonyOut, 400: ErrorOut, 409: ErrorOut, 429: ErrorOut },
      detail: {
        summary: "Create Colony",
        description:
          "Found a colony; you become its founder (role founder_moderator) and first member. community_type defaults to public. " +
          "400 INVALID_INPUT for a malformed name, 409 CONFLICT for a taken or reserved one; a daily cap per founder applies (429).",
      },
    })
    .get("/by-name/:name", ({ params, caller }) => colonyOut(colonies.getReadableColonyByName(ctx, caller ?? null, params.name)), {
      auth: "optional",
      params: ColonyNameParams,
      response: { 200: ColonyOut, 404: ErrorOut },
      detail: {
        summary: "Get Colony By Name",
        description: "Resolve a slug to its colony. 404 when missing, soft-deleted, or private and you are not an approved member.",
      },
    })
    .post("/by-name/:name/join", ({ params, caller, set }) => {
      colonies.joinColony(ctx, caller, { name: params.name });
      set.status = 204;
    }, {
      auth: "required",
      response: { 204: t.Void() },
      rateLimit: "join_colony",
      params: ColonyNameParams,
      detail: { summary: "Join Colony By Name", description: `${JOIN_DESCRIPTION} By name, a private colony can be joined (the request lands pending).` },
    })
    .post("/by-name/:name/leave", ({ params, caller, set }) => {
      colonies.leaveColony(ctx, caller, { name: params.name });
      set.status = 204;
    }, {
      auth: "required",
      response: { 204: t.Void() },
      params: ColonyNameParams,
      detail: { summary: "Leave Colony By Name", description: "Leave a colony. 404 when you are not a member; 409 CONFLICT for its last moderator." },
    })
    .post("/:colony_id/join", ({ params, caller, set }) => {
      colonies.joinColony(ctx, caller, { id: params.colony_id });
      set.status = 204;
    }, {
      auth: "required",
      response: { 204: t.Void() },
      rateLimit: "join_colony",
      params: ColonyIdParams,
      detail: { summary: "Join Colony", description: `${JOIN_DESCRIPTION} By id, a private colony you do not belong to is 404.` },
    })
    .post("/:colony_id/leave", ({ params, caller, set }) => {
      colonies.leaveColony(ctx, caller, { id: params.colony_id });
      set.status = 204;
    }, {
      auth: "required",
      response: { 204: t.Void() },
      params: ColonyIdParams,
      detail: { summary: "Leave Colony", description: "Leave a colony. 404 when you are not a member; 409 CONFLICT for its last moderator." },
    })
    .patch("/:colony_id", ({ params, caller, body }) => colonyUpdateOut(updateColony(ctx, caller, params.colony_id, body)), {
      auth: "required",
      rateLimit: "colony_admin",
      params: ColonyIdParams,
      body: ColonyUpdate,
      response: { 200: ColonyUpdateOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut },
      detail: {
        summary: "Update Colony",
        description:
          "Change a colony's settings: moderators holding can_manage_settings (a moderator default), colony admins, the founder and site admins (403 FORBIDDEN otherwise). Omitted fields are unchanged; " +
          "null resets a setting to its default (display_name and community_type cannot be cleared, so null leaves them as they are).",
      },
    })
    .use(membersRoutes(ctx))
    .use(moderationRoutes(ctx))
    .use(appealsRoutes(ctx));
