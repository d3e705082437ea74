// The colonies on the web: /c (the list, its search and orders, founding a colony) and joining or
// leaving one from /c or its own page. The list is the colonies service's GET /api/v1/colonies as
// the same caller sees it (private colonies only to their members); joining, leaving and founding
// call the same service functions as the API's routes, charged to the same limits, and answer a
// 303 back. A refused founding shows /c again with what was typed and the service's reason.
import { ApiError } from "../../core/errors";
import * as colonies from "../../features/colonies/service";
import type { ColonyRow } from "../../features/colonies/service";
import { charge, subjectOf } from "../../http/rate-limit";
import { colonyHref } from "../components";
import { sync } from "../layout";
import { pageNumber } from "../pages/lists";
import { COLONY_SORTS, ColoniesPage, EMPTY_COLONY, type ColoniesInput, type ColonyItem, type ColonySort, type NewColonyValues } from "../pages/directories";
import { servePage } from "../respond";
import { FORM, PAGE } from "../route-options";
import { failure, field, isSignedIn, page, safeNext, seeOther, toSignIn, type SignedInWeb } from "../session";
import { visitOf, type Visit } from "../visit";
import { action } from "../part/actions";
import { firstOf } from "./query";
import type { WebArea } from "../web-app";
import { t } from "elysia";

/** Colonies on a page of /c. */
export const COLONIES_PER_PAGE = 30;
/**
 * How many colonies the "most posts" order looks at: the service lists colonies busiest first and
 * offers no other order, so that order is the first this many of the list sorted by their posts.
 */
export const ACTIVITY_WINDOW = 1000;

const ByColony = t.Object({ name: t.String() });

/** `?q=`, `?sort=`, `?mine=` and `?page=` of /c; an unknown order is a 400. */
export function coloniesInput(query: Record<string, unknown>): ColoniesInput {
  const q = firstOf(query.q).trim().slice(0, 100);
  const sort = firstOf(query.sort) || "members";
  if (!Object.hasOwn(COLONY_SORTS, sort)) throw new ApiError(400, "INVALID_INPUT", "sort must be members or activity");
  return { q, sort: sort as ColonySort, mine: firstOf(query.mine) === "1", page: pageNumber(firstOf(query.page) || undefined, COLONIES_PER_PAGE) };
}

/** One page of /c for `visit`, with the viewer's membership of each colony shown. */
export function coloniesList(ctx: Parameters<WebArea>[0], visit: Visit, input: ColoniesInput): { items: ColonyItem[]; total: number; hasMore: boolean } {
  const caller = visit.caller;
  const filters = { q: input.q || undefined, memberColonies: caller && input.mine ? true : undefined };
  const offset = (input.page - 1) * COLONIES_PER_PAGE;
  let rows: ColonyRow[];
  let total: number;
  if (input.sort === "activity") {
    const all = colonies.listColonies(ctx, caller, filters, { limit: ACTIVITY_WINDOW, offset: 0 });
    // A stable sort: colonies with as many posts keep the service's order (members, then age).
    rows = [...all.items].sort((a, b) => b.postCount - a.postCount).slice(offset, offset + COLONIES_PER_PAGE);
    total = Math.min(all.total, ACTIVITY_WINDOW);
  } else {
    const r = colonies.listColonies(ctx, caller, filters, { limit: COLONIES_PER_PAGE, offset });
    rows = r.items;
    total = r.total;
  }
  const items = rows.map((colony) => ({ colony, membership: caller ? colonies.membershipOf(ctx, colony.id, caller.id) : null }));
  return { items, total, hasMore: offset + rows.length < total };
}

/** Where a join or leave form goes back to: the page it names (a path of /c), else the colony. */
function backTo(raw: string, name: string): string {
  const next = safeNext(raw);
  return next === "/c" || next.startsWith("/c?") || next.startsWith("/c/") ? next : colonyHref(name);
}

export const coloniesRoutes: WebArea = (ctx, app) => {
  function coloniesPage(web: SignedInWeb, request: Request, form: NewColonyValues, status: number, error: string, headers: Record<string, string>): Response {
    const visit = visitOf(ctx, request);
    const input: ColoniesInput = { q: "", sort: "members", mine: false, page: 1 };
    const list = coloniesList(ctx, visit, input);
    return page(web, sync(ColoniesPage({ visit, input, ...list, form, error })), status, headers);
  }

  /** A form field, or what was sent of it when the form is shown again after its refusal. */
  const typed = (w: SignedInWeb, name: string) => w.form.getAll(name)[0] ?? "";

  app
    .get(
      "/c",
      ({ request, query }) =>
        servePage(ctx, request, () => {
          const input = coloniesInput(query);
          // Signed-in readers see their memberships and a form: answered per request (never cached).
          return { key: `colonies|${input.sort}|${input.mine ? 1 : 0}|${input.page}|${input.q}`, render: (visit) => sync(ColoniesPage({ visit, input, ...coloniesList(ctx, visit, input), form: EMPTY_COLONY, error: null })) };
        }),
      PAGE,
    )
    .post(
      "/c",
      ({ web, request }) => {
        if (!isSignedIn(web)) return toSignIn(web, "/c");
        let values: NewColonyValues = { name: typed(web, "name"), display_name: typed(web, "display_name"), description: typed(web, "description"), community_type: typed(web, "community_type") };
        try {
          values = { name: field(web, "name", 200), display_name: field(web, "display_name", 100), description: field(web, "description", 1000), community_type: field(web, "community_type", 20) };
          const type = values.community_type || "public";
          if (type !== "public" && type !== "restricted" && type !== "private") throw new ApiError(400, "INVALID_INPUT", "Choose who may join: public, restricted or private");
          charge(ctx, request, subjectOf(web.viewer.caller, web.client.ip), ["create_colony"]);
          const colony = colonies.createColony(ctx, web.viewer.caller, { name: values.name, display_name: values.display_name, description: values.description || null, community_type: type });
          return seeOther(web, colonyHref(colony.name));
        } catch (err) {
          const f = failure(err);
          return coloniesPage(web, request, values, f.status, f.message, f.headers);
        }
      },
      FORM,
    )
    .post(
      "/c/:name/join",
      ({ web, request, params }) =>
        action(ctx, web, request, colonyHref(params.name), ["join_colony"], (w) => {
          const name = params.name.trim().toLowerCase();
          colonies.joinColony(ctx, w.viewer.caller, { name });
          return backTo(field(w, "back", 2000), name);
        }),
      { params: ByColony, ...FORM },
    )
    .post(
      "/c/:name/leave",
      ({ web, request, params }) =>
        action(ctx, web, request, colonyHref(params.name), [], (w) => {
          const name = params.name.trim().toLowerCase();
          colonies.leaveColony(ctx, w.viewer.caller, { name });
          return backTo(field(w, "back", 2000), name);
        }),
      { params: ByColony, ...FORM },
    );
};
