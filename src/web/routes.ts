// The web interface's reading pages (docs/decisions.md §132): the front page, colonies, posts,
// profiles, tags, search, about, their Atom feeds and the pages' assets. Pages are not part of the
// API: hidden from the OpenAPI document, and they declare no query or path schemas, because a
// page answers bad input with an HTML page of its own (400, 404) rather than the API's JSON 422.
import { Elysia } from "elysia";
import type { Ctx } from "../core/context";
import { charge, subjectOf } from "../http/rate-limit";
import { clientIp } from "../http/client-ip";
import { assetRoutes } from "./assets";
import { ATOM_TYPE, colonyFeed, tagFeed, userFeed } from "./feeds";
import { AboutPage } from "./pages/about";
import { ColonyPage, HomePage, listInput, listKey, normaliseTag, pageNumber, TagPage, type ListInput } from "./pages/lists";
import { PostPage, threadParam } from "./pages/post";
import { SearchPage, searchInput } from "./pages/search";
import { UserPage } from "./pages/user";
import { errorAnswer, servePage } from "./respond";
import { ANONYMOUS } from "./visit";

const HIDDEN = { detail: { hide: true } };

/** The query as strings: the first value of a repeated parameter, nothing for the rest. */
function strings(query: Record<string, unknown>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(query)) out[k] = typeof v === "string" ? v : Array.isArray(v) && typeof v[0] === "string" ? v[0] : undefined;
  return out;
}

/** A path segment as written (Elysia hands it over decoded). */
const segment = (v: string | undefined) => (v ?? "").trim();

const FEED_CACHE = "public, max-age=300";

/** An Atom feed, or the HTML page of its error (a feed of something that is not there is a 404). */
function serveFeed(ctx: Ctx, request: Request, make: () => string): Response {
  try {
    return new Response(make(), { headers: { "content-type": ATOM_TYPE, "cache-control": FEED_CACHE, "x-content-type-options": "nosniff" } });
  } catch (err) {
    return errorAnswer(ctx, request, err, ANONYMOUS);
  }
}

const userListInput = (query: Record<string, string | undefined>): ListInput => ({ sort: "new", period: "all", page: pageNumber(query.page) });

export const webRoutes = (ctx: Ctx) =>
  new Elysia({ name: "colony.web" })
    .use(assetRoutes())
    .get(
      "/",
      ({ request, query }) =>
        servePage(ctx, request, () => {
          const input = listInput(strings(query));
          return { key: `home|${listKey(input)}`, render: (visit) => HomePage(ctx, visit, input) };
        }),
      HIDDEN,
    )
    .get("/about", ({ request }) => servePage(ctx, request, () => ({ key: "about", render: (visit) => AboutPage(ctx, visit) })), HIDDEN)
    .get(
      "/c/:name",
      ({ request, params, query }) =>
        servePage(ctx, request, () => {
          const input = listInput(strings(query));
          const name = segment(params.name).toLowerCase();
          return { key: `colony|${name}|${listKey(input)}`, render: (visit) => ColonyPage(ctx, visit, name, input) };
        }),
      HIDDEN,
    )
    .get("/c/:name/feed.atom", ({ request, params }) => serveFeed(ctx, request, () => colonyFeed(ctx, segment(params.name))), HIDDEN)
    .get(
      "/post/:id",
      ({ request, params, query }) =>
        servePage(ctx, request, () => {
          const id = segment(params.id).toLowerCase();
          const focus = threadParam(strings(query).thread);
          return { key: `post|${id}|${focus ?? ""}`, render: (visit) => PostPage(ctx, visit, id, focus) };
        }),
      HIDDEN,
    )
    .get(
      "/u/:username",
      ({ request, params, query }) =>
        servePage(ctx, request, () => {
          const input = userListInput(strings(query));
          const name = segment(params.username).toLowerCase();
          return { key: `user|${name}|${input.page}`, render: (visit) => UserPage(ctx, visit, name, input) };
        }),
      HIDDEN,
    )
    .get("/u/:username/feed.atom", ({ request, params }) => serveFeed(ctx, request, () => userFeed(ctx, segment(params.username))), HIDDEN)
    .get(
      "/tag/:tag",
      ({ request, params, query }) =>
        servePage(ctx, request, () => {
          const input = listInput(strings(query));
          const tag = normaliseTag(segment(params.tag));
          return { key: `tag|${tag}|${listKey(input)}`, render: (visit) => TagPage(ctx, visit, tag, input) };
        }),
      HIDDEN,
    )
    .get("/tag/:tag/feed.atom", ({ request, params }) => serveFeed(ctx, request, () => tagFeed(ctx, normaliseTag(segment(params.tag)))), HIDDEN)
    .get(
      "/search",
      ({ request, query }) =>
        // Never cached: a search costs its reader its search budget, as GET /api/v1/search does.
        servePage(ctx, request, () => {
          const input = searchInput(strings(query));
          return {
            key: null,
            render: (visit) => {
              if (input.q.length >= 2) charge(ctx, request, subjectOf(visit.caller, clientIp(ctx, request)), ["search", "search_ip"]);
              return SearchPage(ctx, visit, input);
            },
          };
        }),
      HIDDEN,
    );
