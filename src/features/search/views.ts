// The search answer (GET /api/v1/search and the colony_search_posts tool): posts with their
// snippets, the matching users, and wiki pages unless the query is for posts only.
import type { Ctx } from "../../core/context";
import type { Page } from "../../core/paging";
import type { Caller } from "../auth/caller";
import { postsOut } from "../posts/views";
import { userOut } from "../users/views";
import type { SearchResult } from "./service";

export function searchResultsOut(ctx: Ctx, caller: Caller | null, r: SearchResult, page: Page, postOnly: boolean) {
  const viewer = caller?.id ?? null;
  const items = postsOut(ctx, r.items, viewer) as (ReturnType<typeof postsOut>[number] & { snippet: string | null })[];
  for (const p of items) p.snippet = r.snippets.get(p.id) ?? null;
  return {
    items,
    total: r.total,
    has_more: page.offset + items.length < r.total,
    next_cursor: null,
    ...(page.page !== undefined ? { page: page.page } : {}),
    users: r.users.map((u) => userOut(ctx, u, { self: u.id === viewer })),
    wiki_pages: postOnly ? [] : r.wikiPages,
  };
}
