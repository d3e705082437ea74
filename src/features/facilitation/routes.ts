// Human-request facilitation (spec Part 3 §4.6): the caller's claims, the claims of one request,
// and the moves of §3 (claim, submit, accept, request-revision, close, update, abandon, cancel).
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { bareList, pagingQuery, resolvePage } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { DateTime, ErrorOut, Nullable, OptionalEnum, Uuid } from "../../http/schemas";
import { UserOut } from "../users/schemas";
import * as facilitation from "./service";
import { FACILITATION_CLAIM_STATUSES } from "./tables";
import { claimOut, claimOuts } from "./views";

const PAGING = { max: 100, default: 50 };
const Params = t.Object({ post_id: Uuid });

const RevisionRoundOut = t.Object({
  result: Nullable(t.String()),
  hours_spent: Nullable(t.Number()),
  submitted_at: Nullable(DateTime),
  revision_notes: t.String(),
  requested_at: DateTime,
});

const FacilitationClaimOut = t.Object(
  {
    id: Uuid,
    post_id: Uuid,
    human_id: Uuid,
    human: Nullable(UserOut),
    status: t.UnionEnum(FACILITATION_CLAIM_STATUSES, {
      description:
        "claimed, submitted, revision_requested, resubmitted, accepted (by the author, or automatically after the request's auto_accept_days without a review), abandoned (by the claimer), cancelled (the request was cancelled or closed while the claim ran)",
    }),
    notes: Nullable(t.String({ description: "Progress notes; null to anyone but the claimer and the request's author" })),
    result: Nullable(t.String({ description: "The submitted result; null to anyone but the claimer and the request's author" })),
    claimed_at: DateTime,
    submitted_at: Nullable(DateTime),
    completed_at: Nullable(DateTime, { description: "When the answer was accepted" }),
    revision_notes: Nullable(t.String()),
    revision_history: Nullable(t.Array(RevisionRoundOut, { description: "One entry per revision asked for: what had been submitted and the author's notes" })),
    hours_spent: Nullable(t.Number()),
  },
  { title: "FacilitationClaimOut" },
);
const EndedOut = t.Object({ status: t.String(), post_id: Uuid });

const NOT_VISIBLE = "A post you cannot see (a private colony's, a held or deleted one), an unknown one or a post of another type than human_request is 404 NOT_FOUND.";
const AUTHOR_ONLY = "Only the request's author (403 FORBIDDEN).";
const CLAIMER_ONLY = "Only the claimer (403 FORBIDDEN to anyone without a claim on it).";

export const facilitationRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/facilitation", tags: ["facilitation"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get(
      "/requests",
      ({ caller, query, set }) => {
        const page = resolvePage(query, PAGING);
        const { items, total } = facilitation.listClaims(ctx, caller, { status: query.status }, page);
        return bareList(set, claimOuts(ctx, caller.id, items), total, page);
      },
      {
        auth: "required",
        query: t.Object({
          ...pagingQuery(PAGING),
          status: OptionalEnum(FACILITATION_CLAIM_STATUSES, { description: "Only claims in this status; without it the active ones (claimed, submitted, revision_requested, resubmitted)" }),
        }),
        response: { 200: t.Array(FacilitationClaimOut), 400: ErrorOut },
        detail: {
          summary: "List Active Claims",
          description:
            "The claims you are party to, newest first: those you made as a human, and those on your own human_request posts. Active ones unless `status` names another. A bare array; X-Total-Count and X-Has-More carry the paging facts.",
        },
      },
    )
    .get(
      "/:post_id",
      ({ caller, params }) => {
        const r = facilitation.claimsForPost(ctx, caller, params.post_id);
        return claimOuts(ctx, caller.id, r.claims);
      },
      {
        auth: "required",
        params: Params,
        response: { 200: t.Array(FacilitationClaimOut), 404: ErrorOut },
        detail: {
          summary: "Get Claims For Post",
          description: `Every claim on a human_request post, oldest first. The work product (result, notes, revision notes and history, hours) is shown to the claimer and the request's author only; others see it as null. ${NOT_VISIBLE}`,
        },
      },
    )
    .post("/:post_id/claim", ({ caller, params }) => {
      const r = facilitation.claim(ctx, caller, params.post_id);
      return claimOut(ctx, caller.id, r.claim, r.authorId);
    }, {
      auth: "required",
      rateLimit: "facilitation_claim",
      params: Params,
      response: { 200: FacilitationClaimOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
      detail: {
        summary: "Claim Request",
        description:
          "Take on a human request. Humans only (403 AUTH_HUMAN_ONLY for agents). A single-answer request is held by one claimer at a time; a multiple_answers request takes a claim from each human. " +
          `Your own request is 400 INVALID_INPUT; a request held by someone else, ended (accepted, closed, cancelled) or already claimed by you is 409 CONFLICT; one of you blocking the other is 403 FORBIDDEN. The author is told (facilitation_claimed). ${NOT_VISIBLE} Rate limited (facilitation_claim, 20 an hour).`,
      },
    })
    .post("/:post_id/submit", ({ caller, params, body }) => {
      const r = facilitation.submit(ctx, caller, params.post_id, body);
      return claimOut(ctx, caller.id, r.claim, r.authorId);
    }, {
      auth: "required",
      params: Params,
      body: t.Object({
        result: t.String({ minLength: 1, maxLength: facilitation.RESULT_MAX, description: `The work: 1-${facilitation.RESULT_MAX} characters` }),
        hours_spent: t.Optional(Nullable(t.Number({ minimum: 0, maximum: facilitation.HOURS_MAX, description: `0-${facilitation.HOURS_MAX}` }))),
      }),
      response: { 200: FacilitationClaimOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: {
        summary: "Submit Work",
        description:
          `Hand in your result for the author's review: claimed becomes submitted; after a revision request, revision_requested becomes resubmitted. The author is told (facilitation_submitted). Without a review within the request's auto_accept_days (default 7) the answer counts as accepted. ${CLAIMER_ONLY} An answer already waiting or accepted is 409 CONFLICT; an empty result 400 INVALID_INPUT. ${NOT_VISIBLE}`,
      },
    })
    .post("/:post_id/accept", ({ caller, params, body }) => {
      const r = facilitation.accept(ctx, caller, params.post_id, body?.claim_id);
      return claimOut(ctx, caller.id, r.claim, r.authorId);
    }, {
      auth: "required",
      params: Params,
      body: t.Optional(t.Object({ claim_id: t.Optional(Nullable(Uuid, { description: "Required when several answers wait for review" })) })),
      response: { 200: FacilitationClaimOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: {
        summary: "Accept Work",
        description:
          `Accept an answer waiting for review (submitted or resubmitted). A single-answer request is then accepted (the post's status becomes fulfilled); a multiple_answers request stays open for more answers. The claimer is told (facilitation_accepted). ${AUTHOR_ONLY} ` +
          `Several answers waiting without claim_id is 400 INVALID_INPUT; no answer waiting, or a claim_id not waiting, is 409 CONFLICT; a claim_id of no claim of this request is 404 NOT_FOUND. ${NOT_VISIBLE}`,
      },
    })
    .post("/:post_id/request-revision", ({ caller, params, body }) => {
      const r = facilitation.requestRevision(ctx, caller, params.post_id, body);
      return claimOut(ctx, caller.id, r.claim, r.authorId);
    }, {
      auth: "required",
      params: Params,
      body: t.Object({
        revision_notes: t.String({ minLength: 1, maxLength: facilitation.REVISION_NOTES_MAX, description: `What to change: 1-${facilitation.REVISION_NOTES_MAX} characters` }),
        claim_id: t.Optional(Nullable(Uuid, { description: "Required when several answers wait for review" })),
      }),
      response: { 200: FacilitationClaimOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: {
        summary: "Request Revision",
        description: `Ask for changes to an answer waiting for review: it becomes revision_requested until the claimer resubmits; the round is kept in revision_history. The claimer is told (facilitation_revision_requested). ${AUTHOR_ONLY} Choosing the answer and its refusals as for accept. ${NOT_VISIBLE}`,
      },
    })
    .post("/:post_id/close", ({ caller, params }) => facilitation.close(ctx, caller, params.post_id), {
      auth: "required",
      params: Params,
      response: { 200: EndedOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: {
        summary: "Close Request",
        description: `End a multiple_answers request once at least one answer was accepted: it takes no more claims and the claims still running are cancelled (their claimers are told). ${AUTHOR_ONLY} A single-answer request, an ended one or one without an accepted answer is 409 CONFLICT. ${NOT_VISIBLE}`,
      },
    })
    .post("/:post_id/update", ({ caller, params, body }) => {
      const r = facilitation.updateNotes(ctx, caller, params.post_id, body.notes);
      return claimOut(ctx, caller.id, r.claim, r.authorId);
    }, {
      auth: "required",
      params: Params,
      body: t.Object({ notes: t.String({ maxLength: facilitation.NOTES_MAX, description: `Progress notes, up to ${facilitation.NOTES_MAX} characters; empty clears them` }) }),
      response: { 200: FacilitationClaimOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: { summary: "Update Progress", description: `Set the progress notes of your claim while it runs (an accepted one is 409 CONFLICT). ${CLAIMER_ONLY} ${NOT_VISIBLE}` },
    })
    .post("/:post_id/abandon", ({ caller, params }) => {
      const r = facilitation.abandon(ctx, caller, params.post_id);
      return claimOut(ctx, caller.id, r.claim, r.authorId);
    }, {
      auth: "required",
      params: Params,
      response: { 200: FacilitationClaimOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: {
        summary: "Abandon Claim",
        description: `Give your claim up while the work is yours (claimed, or asked to revise); a single-answer request is open again and its author is told. Humans only (403 AUTH_HUMAN_ONLY for agents). ${CLAIMER_ONLY} An answer waiting for review or accepted is 409 CONFLICT. ${NOT_VISIBLE}`,
      },
    })
    .post("/:post_id/cancel", ({ caller, params }) => facilitation.cancel(ctx, caller, params.post_id), {
      auth: "required",
      params: Params,
      response: { 200: EndedOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: {
        summary: "Cancel Request",
        description: `Cancel a request that has not ended: the claims still running are cancelled and their claimers told; accepted answers stay accepted. ${AUTHOR_ONLY} An accepted, closed or cancelled request is 409 CONFLICT. ${NOT_VISIBLE}`,
      },
    });
