// The people on the web: /users (the user directory of GET /api/v1/users/directory, with its
// search, type and order) and an organisation's page, /orgs/<slug> (GET /api/v1/orgs/{slug}: its
// public face, with its members for those the organisation shows them to). The API answers an
// organisation to signed-in callers only, and so does its page: a visitor is sent to sign in.
import { ApiError } from "../../core/errors";
import * as orgs from "../../features/orgs/service";
import { publishedPostCount } from "../../features/posts/service";
import { listDirectory } from "../../features/users/directory";
import { sync } from "../layout";
import { pageNumber } from "../pages/lists";
import { OrgPage, PEOPLE_SORTS, PEOPLE_TYPES, PeoplePage, type OrgView, type PeopleInput, type PeopleSort, type PeopleType } from "../pages/directories";
import { refusedAction, servePage } from "../respond";
import { PAGE } from "../route-options";
import { isSignedIn, page, toSignIn } from "../session";
import { visitOf } from "../visit";
import { firstOf } from "./query";
import type { WebArea } from "../web-app";
import { t } from "elysia";

/** People on a page of /users: the API's default page. */
export const PEOPLE_PER_PAGE = 20;

/** `?q=`, `?type=`, `?sort=` and `?page=` of /users; an unknown type or order is a 400. */
export function peopleInput(query: Record<string, unknown>): PeopleInput {
  const type = firstOf(query.type) || "all";
  if (!Object.hasOwn(PEOPLE_TYPES, type)) throw new ApiError(400, "INVALID_INPUT", "type must be all, agent or human");
  const sort = firstOf(query.sort) || "karma";
  if (!Object.hasOwn(PEOPLE_SORTS, sort)) throw new ApiError(400, "INVALID_INPUT", "sort must be karma, newest or active");
  return { q: firstOf(query.q).trim().slice(0, 100), type: type as PeopleType, sort: sort as PeopleSort, page: pageNumber(firstOf(query.page) || undefined, PEOPLE_PER_PAGE) };
}

export const peopleRoutes: WebArea = (ctx, app) => {
  app
    .get(
      "/users",
      ({ request, query }) =>
        servePage(ctx, request, () => {
          const input = peopleInput(query);
          return {
            key: `people|${input.type}|${input.sort}|${input.page}|${input.q}`,
            render: (visit) => {
              const offset = (input.page - 1) * PEOPLE_PER_PAGE;
              const { items, total } = listDirectory(ctx, { q: input.q || undefined, userType: input.type, sort: input.sort }, { limit: PEOPLE_PER_PAGE, offset });
              const people = items.map((user) => ({ user, posts: publishedPostCount(ctx, user.id) }));
              return sync(PeoplePage({ visit, input, items: people, total, hasMore: offset + items.length < total }));
            },
          };
        }),
      PAGE,
    )
    .get(
      "/orgs/:slug",
      ({ web, request, params }) => {
        const path = `/orgs/${encodeURIComponent(params.slug)}`;
        if (!isSignedIn(web)) return toSignIn(web, path);
        try {
          const caller = web.viewer.caller;
          const org = orgs.getOrg(ctx, caller, params.slug);
          let members: OrgView["members"] = null;
          try {
            members = orgs.listMembers(ctx, caller, org.slug).map(({ member, user }) => ({ username: user.username, displayName: user.displayName, userType: user.userType, role: member.role }));
          } catch (err) {
            // Its members are for its admins and owners: anyone else sees the organisation without them.
            if (!(err instanceof ApiError && err.status === 403)) throw err;
          }
          const view: OrgView = {
            slug: org.slug,
            name: org.name,
            description: org.description,
            verifiedDomain: org.verifiedDomain,
            memberCount: org.memberCount,
            createdAt: org.createdAt,
            members,
            role: orgs.membership(ctx, org.id, caller.id)?.role ?? null,
          };
          return page(web, sync(OrgPage({ visit: visitOf(ctx, request), org: view })));
        } catch (err) {
          return refusedAction(ctx, web, request, err);
        }
      },
      { params: t.Object({ slug: t.String() }), ...PAGE },
    );
};
