// The wikis on the web, a colony's (/c/<colony>/wiki…) and the site's (/wiki…, which every
// account may write and site admins moderate): the list of its pages with search, one page
// rendered, its history, one revision, what changed between two revisions, and writing: a new
// page, an edit (sent with the revision it started from, so a concurrent edit is the service's
// 409 with the person's text kept), restoring a revision, locking and unlocking. Every read and
// write is the wiki service's, as the visitor, under the wiki's policy and the page's lock
// exactly as the API decides, charged to the API routes' limits. The content is markdown,
// shown as posts and event descriptions are rendered (sanitised, mentions linked).
import type { Ctx } from "../core/context";
import { ApiError, FieldError } from "../core/errors";
import type { Caller } from "../features/auth/caller";
import { renderBody } from "../features/posts/body";
import * as users from "../features/users/service";
import * as colonies from "../features/colonies/service";
import { settingsOf } from "../features/colonies/service";
import { addEditor, listEditors, removeEditor } from "../features/wiki/editors";
import { assertCanWrite, moderatesWiki, type Wiki } from "../features/wiki/access";
import { unifiedDiff } from "../features/wiki/diff";
import * as wiki from "../features/wiki/service";
import { charge, subjectOf } from "../http/rate-limit";
import { formAction, noticeOf, pageOf, readingPage, refusalOf, str, typed } from "./area-kit";
import { wikiDeletedPage, wikiDiffPage, wikiEditorsPage, wikiEditPage, wikiHistoryPage, wikiHref, wikiListPage, wikiName, wikiPageView, wikiRevisionPage, type WikiFormValues, type WriteGate } from "./pages/wiki";
import { FORM, PAGE } from "./route-options";
import { field, toSignIn, type SignedInWeb, type Web } from "./session";
import type { Visit } from "./visit";
import type { WebArea } from "./web-app";

const PAGES_PER_PAGE = 50;
const REVISIONS_PER_PAGE = 50;
/** The API's edit limits (an edit and a restore count alike), and the per-page one. */
const EDIT_LIMITS = ["wiki_edit", "wiki_edits_daily", "wiki_edits_ip"];
const CREATE_LIMITS = ["wiki_create", "wiki_pages_daily", "wiki_pages_ip"];

const NOTICES: Record<string, string> = {
  created: "The page is created.",
  saved: "Your edit is saved as a new revision.",
  restored: "The revision is restored as a new one.",
  locked: "The page is locked: nobody can edit it until it is unlocked.",
  unlocked: "The page is unlocked.",
  deleted: "The page is deleted.",
  restored_page: "The page is restored.",
  editor_added: "The editor is added.",
  editor_removed: "The editor is removed.",
};

/** Whether `caller` may write the wiki, as its write gate answers. */
const gateOf = (ctx: Ctx, caller: Caller | null, w: Wiki): WriteGate => ({ refusal: caller ? refusalOf(() => assertCanWrite(ctx, caller, w)) : null });

/** Markdown content as the site renders it. */
const rendered = (ctx: Ctx, authorId: string, content: string) => (content.trim() ? renderBody(ctx, authorId, content).html : "");

/** A whole number a form sent, or a 422 naming the field. */
function wholeNumber(raw: string, name: string): number {
  if (!/^\d{1,9}$/.test(raw)) throw new FieldError(["body", name], `${name} must be a whole number`);
  return Number(raw);
}

/**
 * The colony a path names, for the wiki service. A blank name would be the service's site wiki,
 * which these colony pages never reach: 404.
 */
function colonyRef(name: string): string {
  if (!name.trim()) throw new ApiError(404, "NOT_FOUND", "Not found");
  return name;
}

/** Where a wiki's pages are on the web: a colony's under /c/<name>/wiki, the site wiki's under /wiki. */
interface Place {
  path: "/c/:name/wiki" | "/wiki";
  /** The wiki an address names, for the service: a colony's name, or "" for the site wiki. */
  ref(params: Record<string, string>): string;
}
const COLONY_WIKI: Place = { path: "/c/:name/wiki", ref: (params) => colonyRef(params.name ?? "") };
const SITE_WIKI: Place = { path: "/wiki", ref: () => "" };

export const wikiWebRoutes: WebArea = (ctx, app) => {
  function pageView(visit: Visit, name: string, slug: string, flash: { notice?: string | null; error?: string | null } = {}): string {
    const { wiki: w, page } = wiki.readPage(ctx, visit.caller, name, slug);
    const people = users.findManyByIds(ctx, [page.createdBy, page.updatedBy]);
    return wikiPageView(visit, {
      colony: w,
      page,
      html: rendered(ctx, page.updatedBy, page.content),
      createdBy: people.get(page.createdBy),
      updatedBy: people.get(page.updatedBy),
      gate: gateOf(ctx, visit.caller, w),
      moderates: visit.caller ? moderatesWiki(ctx, visit.caller, w) : false,
      flash,
    });
  }

  function editView(visit: Visit, name: string, slug: string, values: WikiFormValues | null, base: number | null, error: string | null = null): string {
    const { wiki: w, page } = wiki.readPage(ctx, visit.caller, name, slug);
    return wikiEditPage(visit, {
      colony: w,
      page,
      values: values ?? { title: page.title, slug: page.slug, category: page.category ?? "", content: page.content, summary: "" },
      baseRevision: base ?? page.revisionCount,
      error,
    });
  }

  function newView(visit: Visit, name: string, values: WikiFormValues, error: string | null = null): string {
    const { wiki: w } = wiki.listPages(ctx, visit.caller, { colony: name }, { limit: 0, offset: 0 });
    return wikiEditPage(visit, { colony: w, page: null, values, baseRevision: 0, error });
  }

  /** A wiki's deleted pages; the service refuses anyone but its moderators (403). */
  function deletedView(visit: Visit, name: string, paging: ReturnType<typeof pageOf>, flash: { notice?: string | null; error?: string | null }): string {
    const r = wiki.deletedPages(ctx, visit.caller!, name, paging);
    return wikiDeletedPage(visit, {
      colony: r.wiki,
      items: r.items,
      people: users.findManyByIds(ctx, r.items.flatMap((p) => (p.deletedBy ? [p.deletedBy] : []))),
      page: paging.page!,
      hasMore: paging.offset + r.items.length < r.total,
      flash,
    });
  }

  /** The colony's wiki editors; the service refuses anyone who does not manage its settings (403). */
  function editorsView(visit: Visit, name: string, paging: ReturnType<typeof pageOf>, flash: { notice?: string | null; error?: string | null }, username = ""): string {
    const r = listEditors(ctx, visit.caller!, name, paging);
    const colony = colonies.getReadableColony(ctx, visit.caller, name);
    return wikiEditorsPage(visit, {
      colony,
      items: r.items,
      policy: settingsOf(colony).wiki_edit_policy ?? "members",
      page: paging.page!,
      hasMore: paging.offset + r.items.length < r.total,
      username,
      flash,
    });
  }

  const formValues = (w: SignedInWeb): WikiFormValues => ({ title: typed(w, "title"), slug: typed(w, "slug"), category: typed(w, "category"), content: typed(w, "content"), summary: typed(w, "summary") });

  type PageParams = Record<string, string> & { slug: string };

  /** A form on a page's own view (restore a revision, delete, lock): refused, the page again with the reason. */
  const pageAction = (at: Place, web: Web, request: Request, params: PageParams, limits: readonly string[], act: (w: SignedInWeb) => string) =>
    formAction(ctx, web, request, wikiHref(at.ref(params), params.slug), limits, act, (visit, error) => pageView(visit, at.ref(params), params.slug, { error }));

  /** The per-page edit limit (an edit and a restore count alike), keyed by wiki and page. */
  const chargePageEdit = (at: Place, w: SignedInWeb, request: Request, params: PageParams) =>
    charge(ctx, request, subjectOf(w.viewer.caller, w.client.ip), ["wiki_page_edits"], `${at.ref(params).trim().toLowerCase()}/${params.slug}`);

  /** A form on the editors page: `act` answers the notice's key; refused, the editors again with the reason (and the name typed). */
  const editorsAction = (web: Web, request: Request, name: string, act: (w: SignedInWeb) => string) => {
    const editors = wikiHref(name, undefined, "/_editors");
    return formAction(
      ctx,
      web,
      request,
      editors,
      ["wiki_editor_write"],
      (w) => `${editors}?notice=${act(w)}`,
      (visit, error) => editorsView(visit, colonyRef(name), pageOf(undefined, PAGES_PER_PAGE), { error }, typed(web, "username", 64)),
    );
  };

  /** Locks or unlocks the page, and the page's address with the notice that says so. */
  const lockTo = (at: Place, w: SignedInWeb, params: PageParams, locked: boolean) => {
    const { wiki: saved, page } = wiki.setLock(ctx, w.viewer.caller, at.ref(params), params.slug, locked);
    return `${wikiHref(wikiName(saved), page.slug)}?notice=${locked ? "locked" : "unlocked"}`;
  };

  /** The pages and forms of the wikis at `at`. */
  function mount(at: Place): void {
    app
      .get(
        at.path,
        ({ request, params, query }) =>
          readingPage(ctx, request, (visit) => {
            const q = (str(query.q) ?? "").trim().slice(0, 200);
            const paging = pageOf(query.page, PAGES_PER_PAGE);
            const r = wiki.listPages(ctx, visit.caller, { colony: at.ref(params), q: q || undefined }, paging);
            return wikiListPage(visit, {
              colony: r.wiki,
              items: r.items,
              editors: users.findManyByIds(ctx, r.items.map((p) => p.updatedBy)),
              total: r.total,
              page: paging.page!,
              hasMore: paging.offset + r.items.length < r.total,
              q,
              gate: gateOf(ctx, visit.caller, r.wiki),
              moderates: visit.caller ? moderatesWiki(ctx, visit.caller, r.wiki) : false,
              policy: r.wiki ? (settingsOf(r.wiki).wiki_edit_policy ?? "members") : null,
              flash: { notice: noticeOf(NOTICES, query.notice) },
            });
          }),
        PAGE,
      )
      .get(
        `${at.path}/_new`,
        ({ request, params, web }) => {
          if (!web.viewer) return toSignIn(web, wikiHref(at.ref(params), undefined, "/_new"));
          return readingPage(ctx, request, (visit) => newView(visit, at.ref(params), { title: "", slug: "", category: "", content: "", summary: "" }));
        },
        PAGE,
      )
      .post(
        `${at.path}/_new`,
        ({ web, request, params }) =>
          formAction(
            ctx,
            web,
            request,
            wikiHref(at.ref(params), undefined, "/_new"),
            CREATE_LIMITS,
            (w) => {
              const { wiki: made, page } = wiki.createPage(ctx, w.viewer.caller, {
                colony: at.ref(params),
                title: field(w, "title", wiki.TITLE_MAX),
                slug: field(w, "slug", wiki.SLUG_MAX).trim(),
                category: field(w, "category", wiki.CATEGORY_MAX),
                content: field(w, "content", wiki.CONTENT_MAX),
                summary: field(w, "summary", wiki.SUMMARY_MAX),
              });
              return `${wikiHref(wikiName(made), page.slug)}?notice=created`;
            },
            (visit, error) => newView(visit, at.ref(params), formValues(web as SignedInWeb), error),
          ),
        FORM,
      )
      .get(
        `${at.path}/_deleted`,
        ({ request, params, query, web }) => {
          if (!web.viewer) return toSignIn(web, wikiHref(at.ref(params), undefined, "/_deleted"));
          return readingPage(ctx, request, (visit) => deletedView(visit, at.ref(params), pageOf(query.page, PAGES_PER_PAGE), { notice: noticeOf(NOTICES, query.notice) }));
        },
        PAGE,
      )
      .get(
        `${at.path}/:slug`,
        ({ request, params, query }) => readingPage(ctx, request, (visit) => pageView(visit, at.ref(params), params.slug, { notice: noticeOf(NOTICES, query.notice) })),
        PAGE,
      )
      .get(
        `${at.path}/:slug/edit`,
        ({ request, params, web }) => {
          if (!web.viewer) return toSignIn(web, wikiHref(at.ref(params), params.slug, "/edit"));
          return readingPage(ctx, request, (visit) => {
            // The write gate and the lock, as the service would answer the save: shown before anyone types.
            const { wiki: w, page } = wiki.readPage(ctx, visit.caller, at.ref(params), params.slug);
            assertCanWrite(ctx, visit.caller!, w);
            if (page.lockedAt !== null) throw new ApiError(403, "FORBIDDEN", "This page is locked: nobody can edit it until a moderator unlocks it");
            return editView(visit, at.ref(params), params.slug, null, null);
          });
        },
        PAGE,
      )
      .post(
        `${at.path}/:slug/edit`,
        ({ web, request, params }) =>
          formAction(
            ctx,
            web,
            request,
            wikiHref(at.ref(params), params.slug, "/edit"),
            EDIT_LIMITS,
            (w) => {
              const base = wholeNumber(field(w, "base_revision", 12), "base_revision");
              chargePageEdit(at, w, request, params);
              const { wiki: saved, page } = wiki.updatePage(ctx, w.viewer.caller, at.ref(params), params.slug, {
                title: field(w, "title", wiki.TITLE_MAX),
                content: field(w, "content", wiki.CONTENT_MAX),
                category: field(w, "category", wiki.CATEGORY_MAX),
                summary: field(w, "summary", wiki.SUMMARY_MAX),
                base_revision: base,
              });
              return `${wikiHref(wikiName(saved), page.slug)}?notice=saved`;
            },
            // Refused (a stale base revision, the lock, the policy): the form again with what they wrote, on the revision they started from.
            (visit, error) => editView(visit, at.ref(params), params.slug, formValues(web as SignedInWeb), Number(typed(web, "base_revision", 12)) || null, error),
          ),
        FORM,
      )
      .get(
        `${at.path}/:slug/history`,
        ({ request, params, query }) =>
          readingPage(ctx, request, (visit) => {
            const paging = pageOf(query.page, REVISIONS_PER_PAGE);
            const { wiki: w, page } = wiki.readPage(ctx, visit.caller, at.ref(params), params.slug);
            const r = wiki.history(ctx, visit.caller, at.ref(params), params.slug, paging);
            return wikiHistoryPage(visit, {
              colony: w,
              page,
              revisions: r.items,
              authors: users.findManyByIds(ctx, r.items.map((x) => x.authorId)),
              pageNo: paging.page!,
              hasMore: paging.offset + r.items.length < r.total,
            });
          }),
        PAGE,
      )
      .get(
        `${at.path}/:slug/revisions/:rev`,
        ({ request, params }) =>
          readingPage(ctx, request, (visit) => {
            const { wiki: w } = wiki.readPage(ctx, visit.caller, at.ref(params), params.slug);
            const { page, revision } = wiki.revision(ctx, visit.caller, at.ref(params), params.slug, params.rev.slice(0, 64));
            return wikiRevisionPage(visit, {
              colony: w,
              page,
              revision,
              html: rendered(ctx, revision.authorId, revision.content),
              author: users.findById(ctx, revision.authorId) ?? undefined,
              gate: gateOf(ctx, visit.caller, w),
            });
          }),
        PAGE,
      )
      .get(
        `${at.path}/:slug/diff`,
        ({ request, params, query, web }) =>
          readingPage(ctx, request, (visit) => {
            const to = (str(query.to) ?? "").slice(0, 64);
            const from = (str(query.from) ?? "").slice(0, 64);
            if (!to) throw new ApiError(400, "INVALID_INPUT", "Choose the revision to show the changes of");
            // A diff may compute for up to 100 ms: the API's diff limit, per address.
            charge(ctx, request, subjectOf(null, web.client.ip), ["wiki_diff"]);
            const { wiki: w, page } = wiki.readPage(ctx, visit.caller, at.ref(params), params.slug);
            if (!from) {
              const c = wiki.revisionDiff(ctx, visit.caller, at.ref(params), params.slug, to);
              return wikiDiffPage(visit, { colony: w, page, from: c.previous, to: c.revision, diff: c.diff, additions: c.additions, deletions: c.deletions });
            }
            // Two revisions chosen on the history: the older one first, whichever order they came in.
            let a = wiki.revision(ctx, visit.caller, at.ref(params), params.slug, from).revision;
            let b = wiki.revision(ctx, visit.caller, at.ref(params), params.slug, to).revision;
            if (a.number > b.number) [a, b] = [b, a];
            const d = unifiedDiff(`${a.id}:${b.id}`, page.slug, { label: `revision ${a.number} (${a.id})`, text: a.content }, { label: `revision ${b.number} (${b.id})`, text: b.content });
            return wikiDiffPage(visit, { colony: w, page, from: a, to: b, ...d });
          }),
        PAGE,
      )
      .post(
        `${at.path}/:slug/revert`,
        ({ web, request, params }) =>
          pageAction(at, web, request, params, EDIT_LIMITS, (w) => {
            chargePageEdit(at, w, request, params);
            const { wiki: saved, page } = wiki.revert(ctx, w.viewer.caller, at.ref(params), params.slug, { revision_id: field(w, "revision_id", 64), summary: field(w, "summary", wiki.SUMMARY_MAX) });
            return `${wikiHref(wikiName(saved), page.slug)}?notice=restored`;
          }),
        FORM,
      )
      .post(
        `${at.path}/:slug/delete`,
        ({ web, request, params }) =>
          pageAction(at, web, request, params, ["wiki_delete"], (w) => {
            wiki.deletePage(ctx, w.viewer.caller, at.ref(params), params.slug);
            return `${wikiHref(at.ref(params))}?notice=deleted`;
          }),
        FORM,
      )
      .post(
        `${at.path}/:slug/restore`,
        ({ web, request, params }) =>
          formAction(
            ctx,
            web,
            request,
            wikiHref(at.ref(params), undefined, "/_deleted"),
            ["wiki_restore"],
            (w) => {
              const { wiki: back, page } = wiki.restorePage(ctx, w.viewer.caller, at.ref(params), params.slug);
              return `${wikiHref(wikiName(back), page.slug)}?notice=restored_page`;
            },
            // Refused: the deleted pages again with the reason (to anyone but a moderator, the service's 403 page).
            (visit, error) => deletedView(visit, at.ref(params), pageOf(undefined, PAGES_PER_PAGE), { error }),
          ),
        FORM,
      )
      .post(
        `${at.path}/:slug/lock`,
        ({ web, request, params }) => pageAction(at, web, request, params, ["wiki_lock"], (w) => lockTo(at, w, params, true)),
        FORM,
      )
      .post(
        `${at.path}/:slug/unlock`,
        ({ web, request, params }) => pageAction(at, web, request, params, ["wiki_lock"], (w) => lockTo(at, w, params, false)),
        FORM,
      );
  }

  mount(COLONY_WIKI);
  mount(SITE_WIKI);
  // A colony's wiki editors (the site wiki takes writes from every account: it has none).
  app
    .get(
      "/c/:name/wiki/_editors",
      ({ request, params, query, web }) => {
        if (!web.viewer) return toSignIn(web, wikiHref(params.name, undefined, "/_editors"));
        return readingPage(ctx, request, (visit) => editorsView(visit, colonyRef(params.name), pageOf(query.page, PAGES_PER_PAGE), { notice: noticeOf(NOTICES, query.notice) }));
      },
      PAGE,
    )
    .post(
      "/c/:name/wiki/_editors",
      ({ web, request, params }) =>
        editorsAction(web, request, params.name, (w) => {
          addEditor(ctx, w.viewer.caller, colonyRef(params.name), field(w, "username", 64).replace(/^@/, ""));
          return "editor_added";
        }),
      FORM,
    )
    .post(
      "/c/:name/wiki/_editors/:user/remove",
      ({ web, request, params }) =>
        editorsAction(web, request, params.name, (w) => {
          removeEditor(ctx, w.viewer.caller, colonyRef(params.name), params.user.slice(0, 64));
          return "editor_removed";
        }),
      FORM,
    );
};
