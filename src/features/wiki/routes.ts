// The wiki (spec Part 3 §4.14): /api/v1/wiki and its pages by slug. `colony` (a colony's name)
// selects a colony's wiki; omitted, the site wiki. The colony wiki-editor routes are in
// editors-routes.ts.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { clientIp } from "../../http/client-ip";
import { bareList, paged, pagingQuery, resolvePage } from "../../http/paging";
import { charge, rateLimitPlugin, subjectOf } from "../../http/rate-limit";
import { ErrorOut } from "../../http/schemas";
import type { Caller } from "../auth/caller";
import type { Wiki } from "./access";
import {
  RevisionParams,
  SlugParams,
  WikiColonyQuery,
  WikiDeletedList,
  WikiPageCreate,
  WikiPageList,
  WikiPageOut,
  WikiPageUpdate,
  WikiRevert,
  WikiRevisionDiffOut,
  WikiRevisionListItem,
  WikiRevisionOut,
} from "./schemas";
import * as wiki from "./service";
import { deletedListOut, pageListOut, pageOut, revisionDiffOut, revisionListOut, revisionOut } from "./views";

const LIST_PAGING = { max: 200, default: 50 };

const ERRORS = { 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut };
const WHERE =
  "`colony` names a colony's wiki (omitted: the site wiki); an unknown colony, one you may not read and one whose wiki is off are 404 NOT_FOUND.";
const WRITE_GATE =
  "In a colony's wiki the colony's wiki_edit_policy decides who writes (anyone who may take part, members (the default), members with min_karma_to_edit_wiki karma or on the editor list (403 KARMA_TOO_LOW below it), " +
  "approved editors, moderators); an archived colony, a colony ban and lockdown are 403 FORBIDDEN with a message. Moderators pass every policy. " +
  "A title, content or summary made only of one of the colony's banned words (or holding one, when the colony rejects them) is 400 CONTENT_BLOCKED_PHRASE.";
const EDIT_RATES =
  "Rate limited: wiki_edit (20 an hour), wiki_edits_daily (150 a day; 10 in an account's first day, 3 below -10 karma), 10 edits of one page an hour, " +
  "wiki_edits_ip (60 an hour per address) and 2,000,000 characters of title and content per UTC day (429 RATE_LIMIT_WIKI_CHARS_DAILY).";

/** What an edit and a revert share: an account, the edit limits (and chargePageEdit), the page's address. */
const EDIT_HOOK = {
  auth: "required",
  rateLimit: ["wiki_edit", "wiki_edits_daily", "wiki_edits_ip"],
  params: SlugParams,
  query: WikiColonyQuery,
  response: { 200: WikiPageOut, ...ERRORS },
} as const;
const LOCK_HOOK = {
  auth: "required",
  rateLimit: "wiki_lock",
  params: SlugParams,
  query: WikiColonyQuery,
  response: { 200: WikiPageOut, 403: ErrorOut, 404: ErrorOut, 429: ErrorOut },
} as const;
const LOCK_RULES = `Site admins for the site wiki, the colony's moderators for a colony's (403 FORBIDDEN otherwise). ${WHERE} Rate limited: 60 an hour with unlocking (wiki_lock).`;
/** A service's page with its wiki, as WikiPageOut. */
const out = (ctx: Ctx, r: { wiki: Wiki; page: wiki.PageRow }) => pageOut(ctx, r.wiki, r.page);

/** Charges the edit of one page (10 an hour per account and page) on top of the route's limits. */
function chargePageEdit(ctx: Ctx, request: Request, caller: Caller, colony: string | null | undefined, slug: string): void {
  charge(ctx, request, subjectOf(caller, clientIp(ctx, request)), ["wiki_page_edits"], `${colony?.trim().toLowerCase() ?? ""}/${slug}`);
}

export const wikiRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/wiki", tags: ["wiki"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get(
      "",
      ({ caller, query }) => {
        const page = resolvePage(query, LIST_PAGING);
        const r = wiki.listPages(ctx, caller, query, page);
        return paged(pageListOut(ctx, r.wiki, r.items), r.total, page);
      },
      {
        auth: "optional",
        rateLimit: "wiki_list",
        query: t.Object({
          category: t.Optional(t.String({ maxLength: 100, description: "Exact match on the page's category" })),
          q: t.Optional(t.String({ minLength: 2, maxLength: 200, description: "Case-insensitive substring of the title or the content" })),
          search: t.Optional(t.String({ minLength: 2, maxLength: 200, deprecated: true, description: "Deprecated spelling of q." })),
          colony: t.Optional(t.String({ maxLength: 100, description: "A colony's name: its wiki. Omitted: the site wiki." })),
          colony_name: t.Optional(t.String({ maxLength: 100, deprecated: true, description: "Deprecated spelling of colony." })),
          ...pagingQuery(LIST_PAGING),
        }),
        response: { 200: WikiPageList, 400: ErrorOut, 404: ErrorOut, 429: ErrorOut },
        detail: {
          summary: "List Pages",
          description: `A wiki's pages, alphabetical by title; \`total\` counts the pages the filters match. \`category\` is an exact match, \`q\` (deprecated \`search\`) a case-insensitive substring of title or content. ${WHERE} Rate limited: 30 a minute per address (wiki_list).`,
        },
      },
    )
    .post(
      "",
      ({ caller, body, set }) => {
        const r = wiki.createPage(ctx, caller, body);
        set.status = 201;
        return out(ctx, r);
      },
      {
        auth: "required",
        rateLimit: ["wiki_create", "wiki_pages_daily", "wiki_pages_ip"],
        body: WikiPageCreate,
        response: { 201: WikiPageOut, ...ERRORS },
        detail: {
          summary: "Create Page",
          description:
            `Create a page with its first revision. The slug (lowercase letters and digits separated by single hyphens; 422 otherwise) never changes and is unique in its wiki, deleted pages included (409 CONFLICT); ` +
            `a site wiki slug is also a handle shared with usernames, colony names and organisation slugs (409 CONFLICT when one of them holds it). \`colony\` in the body names a colony's wiki. ${WHERE} ${WRITE_GATE} ` +
            "Rate limited: wiki_create (10 an hour), wiki_pages_daily (20 a day; 2 in an account's first day, 1 below -10 karma), wiki_pages_ip (20 an hour per address), and the daily 2,000,000 characters (429 RATE_LIMIT_WIKI_CHARS_DAILY).",
        },
      },
    )
    .get(
      "/deleted",
      ({ caller, query }) => {
        const page = resolvePage(query, LIST_PAGING);
        const r = wiki.deletedPages(ctx, caller, query.colony, page);
        return paged(deletedListOut(ctx, r.wiki, r.items), r.total, page);
      },
      {
        auth: "required",
        query: t.Object({ ...WikiColonyQuery.properties, ...pagingQuery(LIST_PAGING) }),
        response: { 200: WikiDeletedList, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut },
        detail: {
          summary: "List Deleted Pages",
          description: `A wiki's deleted pages, most recently deleted first, for its moderators: site admins for the site wiki, the colony's moderators for a colony's (403 FORBIDDEN otherwise). ${WHERE}`,
        },
      },
    )
    .get("/:slug", ({ caller, params, query }) => out(ctx, wiki.readPage(ctx, caller, query.colony, params.slug)), {
      auth: "optional",
      params: SlugParams,
      query: WikiColonyQuery,
      response: { 200: WikiPageOut, 404: ErrorOut },
      detail: { summary: "Get Page", description: `A page by slug, with its content; 404 NOT_FOUND for a slug without a live page. ${WHERE}` },
    })
    .put(
      "/:slug",
      ({ caller, params, query, body, request }) => {
        chargePageEdit(ctx, request, caller, query.colony, params.slug);
        return out(ctx, wiki.updatePage(ctx, caller, query.colony, params.slug, body));
      },
      {
        ...EDIT_HOOK,
        body: WikiPageUpdate,
        detail: {
          summary: "Update Page",
          description:
            "Edit a page: the fields sent change (`category: null` clears the category) and a revision with the new title and content and your `summary` is appended; the last write wins, " +
            "unless you send `base_revision` (the revision_count you started from): 409 CONFLICT when the page has moved on. Naming none of title, content and category is 400 INVALID_INPUT. " +
            `A locked page is 403 FORBIDDEN for everyone. ${WHERE} ${WRITE_GATE} ${EDIT_RATES}`,
        },
      },
    )
    .delete(
      "/:slug",
      ({ caller, params, query, set }) => {
        wiki.deletePage(ctx, caller, query.colony, params.slug);
        set.status = 204;
      },
      {
        auth: "required",
        rateLimit: "wiki_delete",
        params: SlugParams,
        query: WikiColonyQuery,
        response: { 204: t.Void(), 403: ErrorOut, 404: ErrorOut, 429: ErrorOut },
        detail: {
          summary: "Delete Page",
          description:
            "Soft-delete a page: 204. Its creator may while nobody else has edited it (and while they may write the wiki and the page is unlocked); the wiki's moderators (site admins; a colony's moderators) always may; " +
            `anyone else is 403 FORBIDDEN. The slug stays taken: creating it again is 409. 404 NOT_FOUND for a page that does not exist or is already deleted. ${WHERE} Rate limited: 5 an hour (wiki_delete).`,
        },
      },
    )
    .get(
      "/:slug/history",
      ({ caller, params, query, set }) => {
        const page = resolvePage(query, LIST_PAGING);
        const r = wiki.history(ctx, caller, query.colony, params.slug, page);
        return bareList(set, revisionListOut(ctx, r.items), r.total, page);
      },
      {
        auth: "optional",
        params: SlugParams,
        query: t.Object({ ...WikiColonyQuery.properties, ...pagingQuery(LIST_PAGING) }),
        response: { 200: t.Array(WikiRevisionListItem), 400: ErrorOut, 404: ErrorOut },
        detail: { summary: "Get History", description: `A page's revisions, newest first, as a bare array (X-Total-Count and X-Has-More carry the paging facts). ${WHERE}` },
      },
    )
    .get(
      "/:slug/revision/:revision_id",
      ({ caller, params, query }) => revisionOut(ctx, wiki.revision(ctx, caller, query.colony, params.slug, params.revision_id).revision),
      {
        auth: "optional",
        params: RevisionParams,
        query: WikiColonyQuery,
        response: { 200: WikiRevisionOut, 404: ErrorOut },
        detail: { summary: "Get Revision", description: `One revision's full snapshot. The slug and the revision are checked together: a revision of another page is 404 NOT_FOUND. ${WHERE}` },
      },
    )
    .get(
      "/:slug/revision/:revision_id/diff",
      ({ caller, params, query }) => revisionDiffOut(ctx, wiki.revisionDiff(ctx, caller, query.colony, params.slug, params.revision_id)),
      {
        auth: "optional",
        rateLimit: "wiki_diff",
        params: RevisionParams,
        query: WikiColonyQuery,
        response: { 200: WikiRevisionDiffOut, 404: ErrorOut, 429: ErrorOut },
        detail: {
          summary: "Get Revision Diff",
          description:
            "What a revision changed: a unified diff (`diff -u` layout, 3 lines of context) of its content against the revision before it (a page's first revision against an empty page), " +
            `the titles before and after, and the lines added and removed. A diff that would take too long to compute is given as the replacement of every line. ${WHERE} Rate limited: 60 a minute per address (wiki_diff).`,
        },
      },
    )
    .post(
      "/:slug/revert",
      ({ caller, params, query, body, request }) => {
        chargePageEdit(ctx, request, caller, query.colony, params.slug);
        return out(ctx, wiki.revert(ctx, caller, query.colony, params.slug, body));
      },
      {
        ...EDIT_HOOK,
        body: WikiRevert,
        detail: {
          summary: "Revert Page",
          description:
            "Restore an earlier revision's title, content and category as a new revision (`{revision_id, summary?}`; the summary defaults to \"Reverted to revision N\"). A revision of another page is 404 NOT_FOUND. " +
            `Every rule of an edit applies. ${WHERE} ${WRITE_GATE} ${EDIT_RATES}`,
        },
      },
    )
    .post(
      "/:slug/restore",
      ({ caller, params, query }) => out(ctx, wiki.restorePage(ctx, caller, query.colony, params.slug)),
      {
        auth: "required",
        rateLimit: "wiki_restore",
        params: SlugParams,
        query: WikiColonyQuery,
        response: { 200: WikiPageOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
        detail: {
          summary: "Restore Page",
          description: `Bring a deleted page back as it was; the wiki's moderators only (403 FORBIDDEN). 404 NOT_FOUND when no page has the slug, 409 CONFLICT when the page is not deleted. ${WHERE}`,
        },
      },
    )
    .post("/:slug/lock", ({ caller, params, query }) => out(ctx, wiki.setLock(ctx, caller, query.colony, params.slug, true)), {
      ...LOCK_HOOK,
      detail: {
        summary: "Lock Page",
        description: `Lock a page: edits, reverts and its creator's delete are 403 for everyone until it is unlocked. ${LOCK_RULES} Locking a locked page changes nothing.`,
      },
    })
    .delete("/:slug/lock", ({ caller, params, query }) => out(ctx, wiki.setLock(ctx, caller, query.colony, params.slug, false)), {
      ...LOCK_HOOK,
      detail: { summary: "Unlock Page", description: `Unlock a page. ${LOCK_RULES} Unlocking an unlocked page changes nothing.` },
    });
