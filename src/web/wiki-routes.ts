// A colony's wiki on the web (/c/<colony>/wiki…): the list of its pages with search, one page
// rendered, its history, one revision, what changed between two revisions, and writing: a new
// page, an edit (sent with the revision it started from, so a concurrent edit is the service's
// 409 with the person's text kept), restoring a revision, locking and unlocking. Every read and
// write is the wiki service's, as the visitor, under the colony's wiki policy and the page's
// lock exactly as the API decides, charged to the API routes' limits. The content is markdown,
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
import { wikiDeletedPage, wikiDiffPage, wikiEditorsPage, wikiEditPage, wikiHistoryPage, wikiHref, wikiListPage, wikiPageView, wikiRevisionPage, type WikiFormValues, type WriteGate } from "./pages/wiki";
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
function ref(name: string): string {
  if (!name.trim()) throw new ApiError(404, "NOT_FOUND", "Not found");
  return name;
}

export const wikiWebRoutes: WebArea = (ctx, app) => {
  const colonyOf = (w: Wiki) => {
    // Every route here names a colony, so the service's wiki is one.
    if (!w) throw new ApiError(404, "NOT_FOUND", "Not found");
    return w;
  };

  function pageView(visit: Visit, name: string, slug: string, flash: { notice?: string | null; error?: string | null } = {}): string {
    const { wiki: w, page } = wiki.readPage(ctx, visit.caller, name, slug);
    const people = users.findManyByIds(ctx, [page.createdBy, page.updatedBy]);
    return wikiPageView(visit, {
      colony: colonyOf(w),
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
      colony: colonyOf(w),
      page,
      values: values ?? { title: page.title, slug: page.slug, category: page.category ?? "", content: page.content, summary: "" },
      baseRevision: base ?? page.revisionCount,
      error,
    });
  }

  function newView(visit: Visit, name: string, values: WikiFormValues, error: string | null = null): string {
    const { wiki: w } = wiki.listPages(ctx, visit.caller, { colony: name }, { limit: 0, offset: 0 });
    return wikiEditPage(visit, { colony: colonyOf(w), page: null, values, baseRevision: 0, error });
  }

  /** A wiki's deleted pages; the service refuses anyone but its moderators (403). */
  function deletedView(visit: Visit, name: string, paging: ReturnType<typeof pageOf>, flash: { notice?: string | null; error?: string | null }): string {
    const r = wiki.deletedPages(ctx, visit.caller!, name, paging);
    return wikiDeletedPage(visit, {
      colony: colonyOf(r.wiki),
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

  type PageParams = { name: string; slug: string };

  /** A form on a page's own view (restore a revision, delete, lock): refused, the page again with the reason. */
  const pageAction = (web: Web, request: Request, params: PageParams, limits: readonly string[], act: (w: SignedInWeb) => string) =>
    formAction(ctx, web, request, wikiHref(params.name, params.slug), limits, act, (visit, error) => pageView(visit, ref(params.name), params.slug, { error }));

  /** The per-page edit limit (an edit and a restore count alike), keyed by colony and page. */
  const chargePageEdit = (w: SignedInWeb, request: Request, params: PageParams) =>
    charge(ctx, request, subjectOf(w.viewer.caller, w.client.ip), ["wiki_page_edits"], `${params.name.trim().toLowerCase()}/${params.slug}`);

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
      (visit, error) => editorsView(visit, ref(name), pageOf(undefined, PAGES_PER_PAGE), { error }, typed(web, "username", 64)),
    );
  };

  /** Locks or unlocks the page, and the page's address with the notice that says so. */
  const lockTo = (w: SignedInWeb, params: PageParams, locked: boolean) => {
    const { wiki: saved, page } = wiki.setLock(ctx, w.viewer.caller, ref(params.name), params.slug, locked);
    return `${wikiHref(colonyOf(saved).name, page.slug)}?notice=${locked ? "locked" : "unlocked"}`;
  };

  app
    .get(
      "/c/:name/wiki",
      ({ request, params, query }) =>
        readingPage(ctx, request, (visit) => {
          const q = (str(query.q) ?? "").trim().slice(0, 200);
          const paging = pageOf(query.page, PAGES_PER_PAGE);
          const r = wiki.listPages(ctx, visit.caller, { colony: ref(params.name), q: q || undefined }, paging);
          return wikiListPage(visit, {
            colony: colonyOf(r.wiki),
            items: r.items,
            editors: users.findManyByIds(ctx, r.items.map((p) => p.updatedBy)),
            total: r.total,
            page: paging.page!,
            hasMore: paging.offset + r.items.length < r.total,
            q,
            gate: gateOf(ctx, visit.caller, r.wiki),
            moderates: visit.caller ? moderatesWiki(ctx, visit.caller, r.wiki) : false,
            policy: settingsOf(colonyOf(r.wiki)).wiki_edit_policy ?? "members",
            flash: { notice: noticeOf(NOTICES, query.notice) },
          });
        }),
      PAGE,
    )
    .get(
      "/c/:name/wiki/_new",
      ({ request, params, web }) => {
        if (!web.viewer) return toSignIn(web, wikiHref(params.name, undefined, "/_new"));
        return readingPage(ctx, request, (visit) => newView(visit, ref(params.name), { title: "", slug: "", category: "", content: "", summary: "" }));
      },
      PAGE,
    )
    .post(
      "/c/:name/wiki/_new",
      ({ web, request, params }) =>
        formAction(
          ctx,
          web,
          request,
          wikiHref(params.name, undefined, "/_new"),
          CREATE_LIMITS,
          (w) => {
            const { wiki: made, page } = wiki.createPage(ctx, w.viewer.caller, {
              colony: ref(params.name),
              title: field(w, "title", wiki.TITLE_MAX),
              slug: field(w, "slug", wiki.SLUG_MAX).trim(),
              category: field(w, "category", wiki.CATEGORY_MAX),
              content: field(w, "content", wiki.CONTENT_MAX),
              summary: field(w, "summary", wiki.SUMMARY_MAX),
            });
            return `${wikiHref(colonyOf(made).name, page.slug)}?notice=created`;
          },
          (visit, error) => newView(visit, ref(params.name), formValues(web as SignedInWeb), error),
        ),
      FORM,
    )
    .get(
      "/c/:name/wiki/_deleted",
      ({ request, params, query, web }) => {
        if (!web.viewer) return toSignIn(web, wikiHref(params.name, undefined, "/_deleted"));
        return readingPage(ctx, request, (visit) => deletedView(visit, ref(params.name), pageOf(query.page, PAGES_PER_PAGE), { notice: noticeOf(NOTICES, query.notice) }));
      },
      PAGE,
    )
    .get(
      "/c/:name/wiki/_editors",
      ({ request, params, query, web }) => {
        if (!web.viewer) return toSignIn(web, wikiHref(params.name, undefined, "/_editors"));
        return readingPage(ctx, request, (visit) => editorsView(visit, ref(params.name), pageOf(query.page, PAGES_PER_PAGE), { notice: noticeOf(NOTICES, query.notice) }));
      },
      PAGE,
    )
    .post(
      "/c/:name/wiki/_editors",
      ({ web, request, params }) =>
        editorsAction(web, request, params.name, (w) => {
          addEditor(ctx, w.viewer.caller, ref(params.name), field(w, "username", 64).replace(/^@/, ""));
          return "editor_added";
        }),
      FORM,
    )
    .post(
      "/c/:name/wiki/_editors/:user/remove",
      ({ web, request, params }) =>
        editorsAction(web, request, params.name, (w) => {
          removeEditor(ctx, w.viewer.caller, ref(params.name), params.user.slice(0, 64));
          return "editor_removed";
        }),
      FORM,
    )
    .get(
      "/c/:name/wiki/:slug",
      ({ request, params, query }) => readingPage(ctx, request, (visit) => pageView(visit, ref(params.name), params.slug, { notice: noticeOf(NOTICES, query.notice) })),
      PAGE,
    )
    .get(
      "/c/:name/wiki/:slug/edit",
      ({ request, params, web }) => {
        if (!web.viewer) return toSignIn(web, wikiHref(params.name, params.slug, "/edit"));
        return readingPage(ctx, request, (visit) => {
          // The write gate and the lock, as the service would answer the save: shown before anyone types.
          const { wiki: w, page } = wiki.readPage(ctx, visit.caller, ref(params.name), params.slug);
          assertCanWrite(ctx, visit.caller!, w);
          if (page.lockedAt !== null) throw new ApiError(403, "FORBIDDEN", "This page is locked: nobody can edit it until a moderator unlocks it");
          return editView(visit, ref(params.name), params.slug, null, null);
        });
      },
      PAGE,
    )
    .post(
      "/c/:name/wiki/:slug/edit",
      ({ web, request, params }) =>
        formAction(
          ctx,
          web,
          request,
          wikiHref(params.name, params.slug, "/edit"),
          EDIT_LIMITS,
          (w) => {
            const base = wholeNumber(field(w, "base_revision", 12), "base_revision");
            chargePageEdit(w, request, params);
            const { wiki: saved, page } = wiki.updatePage(ctx, w.viewer.caller, ref(params.name), params.slug, {
              title: field(w, "title", wiki.TITLE_MAX),
              content: field(w, "content", wiki.CONTENT_MAX),
              category: field(w, "category", wiki.CATEGORY_MAX),
              summary: field(w, "summary", wiki.SUMMARY_MAX),
              base_revision: base,
            });
            return `${wikiHref(colonyOf(saved).name, page.slug)}?notice=saved`;
          },
          // Refused (a stale base revision, the lock, the policy): the form again with what they wrote, on the revision they started from.
          (visit, error) => editView(visit, ref(params.name), params.slug, formValues(web as SignedInWeb), Number(typed(web, "base_revision", 12)) || null, error),
        ),
      FORM,
    )
    .get(
      "/c/:name/wiki/:slug/history",
      ({ request, params, query }) =>
        readingPage(ctx, request, (visit) => {
          const paging = pageOf(query.page, REVISIONS_PER_PAGE);
          const { wiki: w, page } = wiki.readPage(ctx, visit.caller, ref(params.name), params.slug);
          const r = wiki.history(ctx, visit.caller, ref(params.name), params.slug, paging);
          return wikiHistoryPage(visit, {
            colony: colonyOf(w),
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
      "/c/:name/wiki/:slug/revisions/:rev",
      ({ request, params }) =>
        readingPage(ctx, request, (visit) => {
          const { wiki: w } = wiki.readPage(ctx, visit.caller, ref(params.name), params.slug);
          const { page, revision } = wiki.revision(ctx, visit.caller, ref(params.name), params.slug, params.rev.slice(0, 64));
          return wikiRevisionPage(visit, {
            colony: colonyOf(w),
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
      "/c/:name/wiki/:slug/diff",
      ({ request, params, query, web }) =>
        readingPage(ctx, request, (visit) => {
          const to = (str(query.to) ?? "").slice(0, 64);
          const from = (str(query.from) ?? "").slice(0, 64);
          if (!to) throw new ApiError(400, "INVALID_INPUT", "Choose the revision to show the changes of");
          // A diff may compute for up to 100 ms: the API's diff limit, per address.
          charge(ctx, request, subjectOf(null, web.client.ip), ["wiki_diff"]);
          const { wiki: w, page } = wiki.readPage(ctx, visit.caller, ref(params.name), params.slug);
          if (!from) {
            const c = wiki.revisionDiff(ctx, visit.caller, ref(params.name), params.slug, to);
            return wikiDiffPage(visit, { colony: colonyOf(w), page, from: c.previous, to: c.revision, diff: c.diff, additions: c.additions, deletions: c.deletions });
          }
          // Two revisions chosen on the history: the older one first, whichever order they came in.
          let a = wiki.revision(ctx, visit.caller, ref(params.name), params.slug, from).revision;
          let b = wiki.revision(ctx, visit.caller, ref(params.name), params.slug, to).revision;
          if (a.number > b.number) [a, b] = [b, a];
          const d = unifiedDiff(`${a.id}:${b.id}`, page.slug, { label: `revision ${a.number} (${a.id})`, text: a.content }, { label: `revision ${b.number} (${b.id})`, text: b.content });
          return wikiDiffPage(visit, { colony: colonyOf(w), page, from: a, to: b, ...d });
        }),
      PAGE,
    )
    .post(
      "/c/:name/wiki/:slug/revert",
      ({ web, request, params }) =>
        pageAction(web, request, params, EDIT_LIMITS, (w) => {
          chargePageEdit(w, request, params);
          const { wiki: saved, page } = wiki.revert(ctx, w.viewer.caller, ref(params.name), params.slug, { revision_id: field(w, "revision_id", 64), summary: field(w, "summary", wiki.SUMMARY_MAX) });
          return `${wikiHref(colonyOf(saved).name, page.slug)}?notice=restored`;
        }),
      FORM,
    )
    .post(
      "/c/:name/wiki/:slug/delete",
      ({ web, request, params }) =>
        pageAction(web, request, params, ["wiki_delete"], (w) => {
          wiki.deletePage(ctx, w.viewer.caller, ref(params.name), params.slug);
          return `${wikiHref(params.name)}?notice=deleted`;
        }),
      FORM,
    )
    .post(
      "/c/:name/wiki/:slug/restore",
      ({ web, request, params }) =>
        formAction(
          ctx,
          web,
          request,
          wikiHref(params.name, undefined, "/_deleted"),
          ["wiki_restore"],
          (w) => {
            const { wiki: back, page } = wiki.restorePage(ctx, w.viewer.caller, ref(params.name), params.slug);
            return `${wikiHref(colonyOf(back).name, page.slug)}?notice=restored_page`;
          },
          // Refused: the deleted pages again with the reason (to anyone but a moderator, the service's 403 page).
          (visit, error) => deletedView(visit, ref(params.name), pageOf(undefined, PAGES_PER_PAGE), { error }),
        ),
      FORM,
    )
    .post(
      "/c/:name/wiki/:slug/lock",
      ({ web, request, params }) => pageAction(web, request, params, ["wiki_lock"], (w) => lockTo(w, params, true)),
      FORM,
    )
    .post(
      "/c/:name/wiki/:slug/unlock",
      ({ web, request, params }) => pageAction(web, request, params, ["wiki_lock"], (w) => lockTo(w, params, false)),
      FORM,
    );
};
