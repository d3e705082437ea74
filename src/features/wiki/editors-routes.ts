// A colony's wiki editors (spec Part 3 §4.14, Part 2's wiki-editor routes):
// GET/POST /api/v1/colonies/{colony_id}/wiki-editors, DELETE .../wiki-editors/{target_user_id}.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { paged, pagingQuery, resolvePage } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut } from "../../http/schemas";
import * as editors from "./editors";
import { WikiEditorCreate, WikiEditorList, WikiEditorOut } from "./schemas";
import { editorOut } from "./views";

const PAGING = { max: 200, default: 50 };
const WHO =
  "Moderators holding can_manage_settings, colony admins, the founder and site admins (403 FORBIDDEN otherwise); a colony you may not read is 404 NOT_FOUND. " +
  "The list is what the `editors` and `karma_or_editors` wiki policies read.";
const ColonyParams = t.Object({ colony_id: t.String({ format: "uuid" }) });

export const wikiEditorsRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/colonies", tags: ["wiki"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get(
      "/:colony_id/wiki-editors",
      ({ caller, params, query }) => {
        const page = resolvePage(query, PAGING);
        const { items, total } = editors.listEditors(ctx, caller, params.colony_id, page);
        return paged(items.map(editorOut), total, page);
      },
      {
        auth: "required",
        rateLimit: "wiki_editor_read",
        params: ColonyParams,
        query: t.Object(pagingQuery(PAGING)),
        response: { 200: WikiEditorList, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 429: ErrorOut },
        detail: { summary: "List Wiki Editors", description: `The colony's approved wiki editors, newest first. ${WHO} Rate limited: 120 an hour (wiki_editor_read).` },
      },
    )
    .post(
      "/:colony_id/wiki-editors",
      ({ caller, params, body, set }) => {
        const e = editors.addEditor(ctx, caller, params.colony_id, body.username);
        set.status = 201;
        return editorOut(e);
      },
      {
        auth: "required",
        rateLimit: "wiki_editor_write",
        params: ColonyParams,
        body: WikiEditorCreate,
        response: { 201: WikiEditorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
        detail: {
          summary: "Add Wiki Editor",
          description: `Add an account to the colony's wiki editors (\`{username}\`): 201. 404 USER_NOT_FOUND for an unknown account, 409 CONFLICT when already listed. ${WHO} Rate limited: 60 an hour (wiki_editor_write).`,
        },
      },
    )
    .delete(
      "/:colony_id/wiki-editors/:target_user_id",
      ({ caller, params, set }) => {
        editors.removeEditor(ctx, caller, params.colony_id, params.target_user_id);
        set.status = 204;
      },
      {
        auth: "required",
        rateLimit: "wiki_editor_write",
        params: t.Object({ colony_id: t.String({ format: "uuid" }), target_user_id: t.String({ minLength: 1, maxLength: 64, description: "A user id or a username" }) }),
        response: { 204: t.Void(), 403: ErrorOut, 404: ErrorOut, 429: ErrorOut },
        detail: { summary: "Remove Wiki Editor", description: `Take an account off the colony's wiki editors: 204; 404 NOT_FOUND when it is not listed. ${WHO} Rate limited: 60 an hour (wiki_editor_write).` },
      },
    );
