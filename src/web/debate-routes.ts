// Debates on the web (/debates…): the list (status and order as the API filters them), one
// debate, a new one, and taking part: accepting the other side, arguing on one's turn, voting
// during the 48-hour vote, deleting one's own before anyone accepts it. Each form is the debates
// service's, as the signed-in person, charged to the API route's limit; the service decides who
// may do what and when (the karma floor, turns, the voting period), and a refusal shows the
// debate again with its message and status.
import { FieldError } from "../core/errors";
import * as debates from "../features/debates/service";
import { DEBATE_STATES, SIDES } from "../features/debates/tables";
import * as users from "../features/users/service";
import { formAction, idOr404, noticeOf, pageOf, readingPage, str, typed } from "./area-kit";
import { debateHref, debateListPage, debatePage, newDebatePage } from "./pages/debates";
import { FORM, PAGE } from "./route-options";
import { field, toSignIn, type SignedInWeb } from "./session";
import type { Visit } from "./visit";
import type { WebArea } from "./web-app";

const PER_PAGE = 20;

const NOTICES: Record<string, string> = {
  created: "Your debate is open: it starts when someone takes the other side.",
  accepted: "You took the other side. The creator argues first.",
  argued: "Your argument is in.",
  voted: "Your vote is counted.",
  deleted: "The debate is deleted.",
};

export const debateWebRoutes: WebArea = (ctx, app) => {
  function view(visit: Visit, id: string, flash: { notice?: string | null; error?: string | null } = {}, draft?: string): string {
    const d = debates.getDebate(ctx, idOr404(id));
    const args = debates.argumentsOf(ctx, d.id);
    const people = users.findManyByIds(ctx, [d.creatorId, ...(d.opponentId ? [d.opponentId] : []), ...args.map((a) => a.userId)]);
    const me = visit.caller?.id;
    const state = debates.stateOf(ctx, d);
    return debatePage(visit, {
      debate: d,
      state,
      whoseTurn: debates.whoseTurn(ctx, d),
      winnerId: debates.winnerOf(ctx, d),
      args,
      people,
      mySide: me === d.creatorId ? "creator" : me !== undefined && me === d.opponentId ? "opponent" : null,
      // Shown beside the ballot only, so asked for only while the votes are taken.
      myVote: me !== undefined && state === "voting" ? debates.voteOf(ctx, me, d.id) : null,
      turns: debates.TURNS,
      flash,
      draft,
    });
  }

  /** A form on a debate's page: `act` calls the service and names the notice of the page it returns to. */
  const onDebate = (web: Parameters<typeof formAction>[1], request: Request, rawId: string, limits: string[], act: (w: SignedInWeb, id: string) => string, keepDraft = false) =>
    formAction(
      ctx,
      web,
      request,
      debateHref(rawId),
      limits,
      (w) => {
        const id = idOr404(rawId);
        return `${debateHref(id)}?notice=${act(w, id)}`;
      },
      (visit, error) => view(visit, rawId, { error }, keepDraft ? typed(web, "body", 5000) : undefined),
    );

  app
    .get(
      "/debates",
      ({ request, query }) =>
        readingPage(ctx, request, (visit) => {
          const rawStatus = str(query.status) ?? "";
          const status = (DEBATE_STATES as readonly string[]).includes(rawStatus) ? (rawStatus as (typeof DEBATE_STATES)[number]) : undefined;
          const sort = str(query.sort) === "active_first" ? "active_first" : "newest";
          const paging = pageOf(query.page, PER_PAGE);
          const r = debates.listDebates(ctx, { status, sort }, paging);
          return debateListPage(visit, {
            items: r.items.map((d) => ({ debate: d, state: debates.stateOf(ctx, d) })),
            people: users.findManyByIds(ctx, r.items.flatMap((d) => [d.creatorId, ...(d.opponentId ? [d.opponentId] : [])])),
            status: status ?? "",
            sort,
            page: paging.page!,
            hasMore: paging.offset + r.items.length < r.total,
            flash: { notice: noticeOf(NOTICES, query.notice) },
          });
        }),
      PAGE,
    )
    .get(
      "/debates/new",
      ({ web, request }) => {
        if (!web.viewer) return toSignIn(web, "/debates/new");
        return readingPage(ctx, request, (visit) => newDebatePage(visit, { proposition: "", description: "", creator_side: "for" }));
      },
      PAGE,
    )
    .post(
      "/debates/new",
      ({ web, request }) =>
        formAction(
          ctx,
          web,
          request,
          "/debates/new",
          ["debate_create"],
          (w) => {
            const side = field(w, "creator_side", 10);
            if (!(SIDES as readonly string[]).includes(side)) throw new FieldError(["body", "creator_side"], "Choose your side: for or against");
            const d = debates.createDebate(ctx, w.viewer.caller, { proposition: field(w, "proposition", 300), description: field(w, "description", 2000), creator_side: side as (typeof SIDES)[number] });
            return `${debateHref(d.id)}?notice=created`;
          },
          (visit, error) => newDebatePage(visit, { proposition: typed(web, "proposition", 300), description: typed(web, "description", 2000), creator_side: typed(web, "creator_side", 10) }, error),
        ),
      FORM,
    )
    .get("/debates/:id", ({ request, params, query }) => readingPage(ctx, request, (visit) => view(visit, params.id, { notice: noticeOf(NOTICES, query.notice) })), PAGE)
    .post(
      "/debates/:id/accept",
      ({ web, request, params }) =>
        onDebate(web, request, params.id, [], (w, id) => {
          debates.acceptDebate(ctx, w.viewer.caller, id);
          return "accepted";
        }),
      FORM,
    )
    .post(
      "/debates/:id/argue",
      ({ web, request, params }) =>
        onDebate(
          web,
          request,
          params.id,
          ["debate_argue"],
          (w, id) => {
            debates.argue(ctx, w.viewer.caller, id, field(w, "body", 5000));
            return "argued";
          },
          true,
        ),
      FORM,
    )
    .post(
      "/debates/:id/vote",
      ({ web, request, params }) =>
        onDebate(web, request, params.id, ["debate_vote"], (w, id) => {
          const choice = field(w, "voted_for", 10);
          if (choice !== "creator" && choice !== "opponent") throw new FieldError(["body", "voted_for"], "Vote for the creator or the opponent");
          debates.vote(ctx, w.viewer.caller, id, choice);
          return "voted";
        }),
      FORM,
    )
    .post(
      "/debates/:id/delete",
      ({ web, request, params }) =>
        formAction(
          ctx,
          web,
          request,
          debateHref(params.id),
          [],
          (w) => {
            debates.deleteDebate(ctx, w.viewer.caller, idOr404(params.id));
            return "/debates?notice=deleted";
          },
          (visit, error) => view(visit, params.id, { error }),
        ),
      FORM,
    );
};
