// Time capsules on the web (/capsules…): the list (sealed, opened), one's own, sealing a new one,
// a capsule's page and deleting one's own. The capsules service decides everything (the karma
// floor, the opening time 24 hours to 365 days ahead, whose capsule it is); the page shows a
// body as the API answers it: once the capsule has opened, or to its author before.
import { HOUR, iso } from "../core/clock";
import { FieldError } from "../core/errors";
import * as capsules from "../features/capsules/service";
import { renderBody } from "../features/posts/body";
import * as users from "../features/users/service";
import { formAction, idOr404, noticeOf, pageOf, readingPage, str, typed } from "./area-kit";
import { capsuleHref, capsuleListPage, capsulePage, newCapsulePage, type CapsuleFormValues } from "./pages/capsules";
import { FORM, PAGE } from "./route-options";
import { field, toSignIn, type SignedInWeb } from "./session";
import type { Visit } from "./visit";
import type { WebArea } from "./web-app";

const PER_PAGE = 20;

const NOTICES: Record<string, string> = {
  sealed: "Your capsule is sealed. You will be told when it opens.",
  deleted: "The capsule is deleted.",
};

/** The tags of the form's comma-separated field (the API's limit of five, else a 422). */
function tagsOf(raw: string): string[] {
  const tags = raw
    .split(",")
    .map((t) => t.trim().replace(/^#/, ""))
    .filter(Boolean);
  if (tags.length > capsules.MAX_TAGS) throw new FieldError(["body", "tags"], `At most ${capsules.MAX_TAGS} tags`);
  if (tags.some((t) => t.length > 100)) throw new FieldError(["body", "tags"], "A tag is at most 100 characters");
  return tags;
}

/** A datetime-local value (no offset) is UTC, as the form says. */
const instantOf = (raw: string) => (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(raw.trim()) ? `${raw.trim()}:00Z` : raw.trim());

export const capsuleWebRoutes: WebArea = (ctx, app) => {
  const bounds = () => ({ min: iso(ctx.clock.now() + 25 * HOUR).slice(0, 16), max: iso(ctx.clock.now() + 364 * 24 * HOUR).slice(0, 16) });

  function view(visit: Visit, id: string, flash: { notice?: string | null; error?: string | null } = {}): string {
    const c = capsules.getCapsule(ctx, idOr404(id));
    const open = capsules.isRevealed(ctx, c);
    const mine = visit.caller?.id === c.userId;
    return capsulePage(visit, {
      capsule: c,
      author: users.findById(ctx, c.userId) ?? undefined,
      open,
      html: open || mine ? renderBody(ctx, c.userId, c.body).html : null,
      mine,
      flash,
    });
  }

  function list(visit: Visit, query: Record<string, unknown>, mine: boolean): string {
    const raw = str(query.status) ?? "";
    const status = raw === "sealed" || raw === "revealed" ? raw : "";
    const rawSort = str(query.sort) ?? "";
    const sort = (capsules.SORTS as readonly string[]).includes(rawSort) ? (rawSort as (typeof capsules.SORTS)[number]) : "newest";
    const tag = (str(query.tag) ?? "").trim().replace(/^#/, "").slice(0, 100);
    const paging = pageOf(query.page, PER_PAGE);
    const r = mine ? capsules.listMine(ctx, visit.caller!, paging) : capsules.listCapsules(ctx, { status: status || undefined, sort, tag: tag || undefined }, paging);
    return capsuleListPage(visit, {
      items: r.items.map((capsule) => ({ capsule, open: capsules.isRevealed(ctx, capsule) })),
      authors: users.findManyByIds(ctx, r.items.map((c) => c.userId)),
      mine,
      status: mine ? "" : status,
      sort,
      tag: mine ? "" : tag,
      page: paging.page!,
      hasMore: paging.offset + r.items.length < r.total,
      flash: { notice: noticeOf(NOTICES, query.notice) },
    });
  }

  const values = (w: SignedInWeb): CapsuleFormValues => ({ title: typed(w, "title", 200), body: typed(w, "body", 10_000), tags: typed(w, "tags", 300), reveal_at: typed(w, "reveal_at", 40) });

  app
    .get("/capsules", ({ request, query }) => readingPage(ctx, request, (visit) => list(visit, query, false)), PAGE)
    .get(
      "/capsules/mine",
      ({ web, request, query }) => {
        if (!web.viewer) return toSignIn(web, "/capsules/mine");
        return readingPage(ctx, request, (visit) => list(visit, query, true));
      },
      PAGE,
    )
    .get(
      "/capsules/new",
      ({ web, request }) => {
        if (!web.viewer) return toSignIn(web, "/capsules/new");
        return readingPage(ctx, request, (visit) => newCapsulePage(visit, { title: "", body: "", tags: "", reveal_at: "" }, bounds()));
      },
      PAGE,
    )
    .post(
      "/capsules/new",
      ({ web, request }) =>
        formAction(
          ctx,
          web,
          request,
          "/capsules/new",
          ["capsule_create"],
          (w) => {
            const c = capsules.createCapsule(ctx, w.viewer.caller, {
              title: field(w, "title", 200),
              body: field(w, "body", 10_000),
              tags: tagsOf(field(w, "tags", 1000)),
              reveal_at: instantOf(field(w, "reveal_at", 40)),
            });
            return `${capsuleHref(c.id)}?notice=sealed`;
          },
          (visit, error) => newCapsulePage(visit, values(web as SignedInWeb), bounds(), error),
        ),
      FORM,
    )
    .get("/capsules/:id", ({ request, params, query }) => readingPage(ctx, request, (visit) => view(visit, params.id, { notice: noticeOf(NOTICES, query.notice) })), PAGE)
    .post(
      "/capsules/:id/delete",
      ({ web, request, params }) =>
        formAction(
          ctx,
          web,
          request,
          capsuleHref(params.id),
          [],
          (w) => {
            capsules.deleteCapsule(ctx, w.viewer.caller, idOr404(params.id));
            return "/capsules/mine?notice=deleted";
          },
          (visit, error) => view(visit, params.id, { error }),
        ),
      FORM,
    );
};
