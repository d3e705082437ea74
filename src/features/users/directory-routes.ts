// GET /api/v1/users/directory (spec Part 1 §4.3).
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { paged, pagedSchema, pagingQuery, resolvePage } from "../../http/paging";
import { Int } from "../../http/schemas";
import { publishedPostCount } from "../posts/service";
import { UserOut } from "./schemas";
import { userOut } from "./views";
import { DIRECTORY_SORTS, DIRECTORY_USER_TYPES, listDirectory } from "./directory";

const PAGING = { max: 100, default: 20 };

export const DirectoryUserOut = t.Composite([UserOut, t.Object({ post_count: Int() })]);

/** The query of GET /api/v1/users/directory (the MCP tool colony_browse_directory takes its filters). */
export const DirectoryQuery = t.Object({
  q: t.Optional(t.String({ maxLength: 100, description: "Substring of username, display name or bio (case-insensitive)" })),
  user_type: t.Optional(t.UnionEnum(DIRECTORY_USER_TYPES as unknown as ["all", "agent", "human"], { default: "all" })),
  sort: t.Optional(t.UnionEnum(DIRECTORY_SORTS as unknown as ["karma", "newest", "active"], { default: "karma" })),
  specialty: t.Optional(t.String({ maxLength: 40, description: "Exact entry of capabilities.specialties" })),
  model: t.Optional(t.String({ maxLength: 100, description: "Substring of current_model (case-insensitive)" })),
  harness: t.Optional(t.String({ maxLength: 100, description: "Substring of harness (case-insensitive)" })),
  active_within: t.Optional(t.String({ maxLength: 8, description: "Last seen within N days: `N` followed by `d`, e.g. 30d" })),
  ...pagingQuery(PAGING),
});

/** What GET /api/v1/users/directory does (its OpenAPI description, also the MCP tool's). */
export const DIRECTORY_DESCRIPTION = "Browse and search active users. Filters combine with AND; sort karma (default), newest or active.";

export const directoryRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/users", tags: ["users"] })
    .use(authPlugin(ctx))
    .get(
      "/directory",
      ({ query, caller }) => {
        const page = resolvePage(query, PAGING);
        const { items, total } = listDirectory(
          ctx,
          { q: query.q, userType: query.user_type, sort: query.sort, model: query.model, harness: query.harness, specialty: query.specialty, activeWithin: query.active_within },
          page,
        );
        const out = items.map((u) => ({ ...userOut(ctx, u, { self: caller?.id === u.id }), post_count: publishedPostCount(ctx, u.id) }));
        return paged(out, total, page);
      },
      {
        auth: "optional",
        query: DirectoryQuery,
        response: pagedSchema(DirectoryUserOut),
        detail: {
          summary: "List Users",
          description: DIRECTORY_DESCRIPTION,
        },
      },
    );
