// Debates (spec Part 3 §4.9): create, list, read with arguments, accept, argue, vote, delete.
import { Elysia, t } from "elysia";
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { applyBodyDeprecations } from "../../http/deprecations";
import { paged, pagedSchema, pagingQuery, resolvePage } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { DateTime, ErrorOut, Int, Nullable, OptionalEnum, Uuid } from "../../http/schemas";
import { PersonRefOut } from "../users/schemas";
import { personRefs } from "../users/views";
import * as debates from "./service";
import { DEBATE_STATES, SIDES, VOTE_CHOICES } from "./tables";

const PAGING = { max: 100, default: 20 };
const Person = PersonRefOut;
const ListFields = {
  id: Uuid,
  proposition: t.String(),
  creator: Person,
  creator_side: t.String({ description: "for or against" }),
  opponent: Nullable(Person),
  status: t.String({ description: "open (waiting for an opponent), active (arguing), voting (48 hours), closed" }),
  turn_number: Int({ description: `Arguments made so far (the vote opens after ${debates.TURNS})` }),
  creator_votes: Int(),
  opponent_votes: Int(),
  winner: Nullable(Person, { description: "Once closed: the side with more votes; null on a tie" }),
  created_at: DateTime,
};
const DebateListItem = t.Object(ListFields);
const DebateOut = t.Object({
  ...ListFields,
  description: Nullable(t.String()),
  opponent_side: Nullable(t.String()),
  whose_turn: Nullable(t.UnionEnum(VOTE_CHOICES), { description: "creator or opponent while active; null otherwise" }),
  voting_ends_at: Nullable(DateTime),
  arguments: t.Array(t.Object({ id: Uuid, author: Person, turn_number: Int(), body: t.String(), content: t.String({ description: "Deprecated copy of body" }), created_at: DateTime })),
});
const IdParams = t.Object({ debate_id: Uuid });
const GATE = `Needs at least ${debates.MIN_KARMA} karma (403 KARMA_TOO_LOW).`;


function views(ctx: Ctx, rows: debates.DebateRow[]) {
  const ref = personRefs(
    ctx,
    rows.flatMap((d) => [d.creatorId, ...(d.opponentId ? [d.opponentId] : [])]),
  );
  const person = (id: string | null) => (id === null ? null : ref(id));
  return {
    person,
    items: rows.map((d) => ({
      id: d.id,
      proposition: d.proposition,
      creator: person(d.creatorId)!,
      creator_side: d.creatorSide,
      opponent: person(d.opponentId),
      status: debates.stateOf(ctx, d),
      turn_number: d.turnNumber,
      creator_votes: d.creatorVotes,
      opponent_votes: d.opponentVotes,
      winner: person(debates.winnerOf(ctx, d)),
      created_at: iso(d.createdAt),
    })),
  };
}

function debateOut(ctx: Ctx, d: debates.DebateRow) {
  const { items, person } = views(ctx, [d]);
  return {
    ...items[0]!,
    description: d.description,
    opponent_side: d.opponentId ? (d.creatorSide === "for" ? "against" : "for") : null,
    whose_turn: debates.whoseTurn(ctx, d),
    voting_ends_at: iso(d.votingEndsAt),
    arguments: debates.argumentsOf(ctx, d.id).map((a) => ({ id: a.id, author: person(a.userId)!, turn_number: a.turnNumber, body: a.body, content: a.body, created_at: iso(a.createdAt) })),
  };
}

export const debatesRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/debates", tags: ["debates"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .post(
      "",
      ({ caller, body, set }) => {
        set.status = 201;
        return debateOut(ctx, debates.createDebate(ctx, caller, body));
      },
      {
        auth: "required",
        rateLimit: "debate_create",
        body: t.Object({
          proposition: t.String({ minLength: 10, maxLength: 300 }),
          description: t.Optional(Nullable(t.String({ maxLength: 2000 }))),
          creator_side: t.UnionEnum(SIDES),
        }),
        response: { 201: DebateOut, 400: ErrorOut, 403: ErrorOut, 429: ErrorOut },
        detail: { summary: "Create Debate", description: `State a proposition and your side; it waits for an opponent. ${GATE} Rate limited (debate_create, 3 an hour).` },
      },
    )
    .get(
      "",
      ({ query }) => {
        const page = resolvePage(query, PAGING);
        const { items, total } = debates.listDebates(ctx, query, page);
        return paged(views(ctx, items).items, total, page);
      },
      {
        query: t.Object({
          ...pagingQuery(PAGING),
          status: OptionalEnum(DEBATE_STATES),
          sort: OptionalEnum(debates.SORTS, { description: "newest (default) or active_first (active, then voting, open, closed; newest first within each)" }),
        }),
        response: pagedSchema(DebateListItem),
        detail: { summary: "List Debates", description: "Debates, newest first or active ones first; status filters on the state as of now." },
      },
    )
    .get("/:debate_id", ({ params }) => debateOut(ctx, debates.getDebate(ctx, params.debate_id)), {
      params: IdParams,
      response: { 200: DebateOut, 404: ErrorOut },
      detail: { summary: "Get Debate", description: "The debate with its arguments in turn order, vote counts and whose_turn. 404 NOT_FOUND." },
    })
    .post("/:debate_id/accept", ({ caller, params }) => debateOut(ctx, debates.acceptDebate(ctx, caller, params.debate_id)), {
      auth: "required",
      params: IdParams,
      response: { 200: DebateOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: { summary: "Accept Debate", description: `Take the other side of an open debate; the creator argues first. Your own debate is 400 INVALID_INPUT; one already accepted 409 CONFLICT. ${GATE}` },
    })
    .post("/:debate_id/argue", ({ caller, params, body }) => debateOut(ctx, debates.argue(ctx, caller, params.debate_id, body.body)), {
      auth: "required",
      rateLimit: "debate_argue",
      params: IdParams,
      transform({ body, set }) {
        if (body && typeof body === "object") applyBodyDeprecations("DebateArgumentCreate", body as Record<string, unknown>, set);
      },
      body: t.Object({ body: t.String({ minLength: 10, maxLength: 5000, description: "10-5000 characters (deprecated spelling: content)" }) }),
      response: { 200: DebateOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
      detail: {
        summary: "Argue",
        description: `Your argument on your turn (${debates.TURNS} in all, alternating, the creator first); the last opens the 48-hour vote. Not a debater: 403 FORBIDDEN; not active or not your turn: 409 CONFLICT. ${GATE} Rate limited (debate_argue, 10 an hour).`,
      },
    })
    .post("/:debate_id/vote", ({ caller, params, body }) => debateOut(ctx, debates.vote(ctx, caller, params.debate_id, body.voted_for)), {
      auth: "required",
      rateLimit: "debate_vote",
      params: IdParams,
      body: t.Object({ voted_for: t.UnionEnum(VOTE_CHOICES) }),
      response: { 200: DebateOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
      detail: {
        summary: "Vote In Debate",
        description: `Vote for the creator or the opponent during the 48-hour voting period (409 CONFLICT outside it); voting again replaces your vote. The debaters cannot vote (403 FORBIDDEN). ${GATE} Rate limited (debate_vote, 20 an hour).`,
      },
    })
    .delete(
      "/:debate_id",
      ({ caller, params, set }) => {
        debates.deleteDebate(ctx, caller, params.debate_id);
        set.status = 204;
      },
      {
        auth: "required",
        params: IdParams,
        response: { 204: t.Void(), 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
        detail: { summary: "Delete Debate", description: "The creator deletes their debate before anyone accepts it: 204. Someone else's: 403 FORBIDDEN; accepted: 409 CONFLICT." },
      },
    );
