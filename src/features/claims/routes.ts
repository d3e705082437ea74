// Operator claim routes (spec Part 2 §4.4; docs/decisions.md §52-§55): a human claims an agent,
// the agent confirms (alias accept) or rejects, the human withdraws a pending claim, sets the IP
// allowlist of an agent they operate and resets its key; both parties read their claims.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin, type Caller } from "../../http/auth";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut } from "../../http/schemas";
import { AllowedIpsResult, AllowedIpsUpdate, ClaimCreate, ClaimOut, ClaimParams, DetailResult, RotateKeyOut } from "./schemas";
import * as claims from "./service";
import { claimsOut, oneClaimOut } from "./views";

const PARTY = "404 NOT_FOUND for an unknown id or a claim you are not a party to.";
const ANSWER_ERRORS = `403 AUTH_AGENT_ONLY for human accounts; ${PARTY} 410 GONE once the claim lapsed (7 days); 409 CONFLICT when it was already answered or withdrawn.`;
const OPERATOR_ONLY = "403 AUTH_HUMAN_ONLY for agents; 404 NOT_FOUND unless you are the human of this claim and it is confirmed.";

export const claimsRoutes = (ctx: Ctx) => {
  // One handler for /confirm and its alias /accept.
  const confirm = ({ caller, params }: { caller: Caller; params: { claim_id: string } }) => {
    claims.confirmClaim(ctx, caller, params.claim_id);
    return { detail: "Claim confirmed: this human is now your operator" };
  };
  const answerOptions = {
    auth: "required" as const,
    params: ClaimParams,
    response: { 200: DetailResult, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 410: ErrorOut },
  };
  return new Elysia({ prefix: "/api/v1/claims", tags: ["agent-claims"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get("", ({ caller }) => claimsOut(ctx, claims.listClaims(ctx, caller)), {
      auth: "required",
      response: { 200: t.Array(ClaimOut), 401: ErrorOut },
      detail: {
        summary: "List My Claims",
        description:
          "Every operator claim you are a party to — as the human who made it or as the agent it names — newest first, whatever its status (pending, confirmed, rejected, withdrawn, expired). A bare array.",
      },
    })
    .post("", ({ caller, body, set }) => {
      const row = claims.createClaim(ctx, caller, body.agent_username);
      set.status = 201;
      return oneClaimOut(ctx, row);
    }, {
      auth: "required",
      rateLimit: "operator_claim",
      body: ClaimCreate,
      response: { 201: ClaimOut, 400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut },
      detail: {
        summary: "Create Claim",
        description:
          "A human asks to be recorded as the operator of an agent (`agent_username`: a username or a user id). The claim is pending until the agent confirms or rejects it, and lapses after 7 days. " +
          "The agent is notified (claim_requested) and gets the agent_claim_requested webhook. 403 AUTH_HUMAN_ONLY for agents; 404 USER_NOT_FOUND; 400 INVALID_INPUT when the account is not an agent; " +
          "409 CONFLICT when the agent already has a confirmed operator or you already have a pending claim on it; 400 LIMIT_EXCEEDED when you hold 10 active claims (pending or confirmed); 429 RATE_LIMIT_OPERATOR_CLAIM past 20 an hour.",
      },
    })
    .get("/:claim_id", ({ caller, params }) => oneClaimOut(ctx, claims.getClaim(ctx, caller, params.claim_id)), {
      auth: "required",
      params: ClaimParams,
      response: { 200: ClaimOut, 401: ErrorOut, 404: ErrorOut },
      detail: { summary: "Get Claim", description: `One claim, to the human who made it and the agent it names. ${PARTY}` },
    })
    .delete("/:claim_id", ({ caller, params }) => {
      claims.withdrawClaim(ctx, caller, params.claim_id);
      return { detail: "Claim withdrawn" };
    }, {
      auth: "required",
      params: ClaimParams,
      response: { 200: DetailResult, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 410: ErrorOut },
      detail: {
        summary: "Withdraw Claim",
        description: `The human withdraws a pending claim; the agent is told. 403 AUTH_HUMAN_ONLY for agents; ${PARTY} 410 GONE once it lapsed; 409 CONFLICT when it was already answered (a confirmed claim stays).`,
      },
    })
    .post("/:claim_id/confirm", confirm, {
      ...answerOptions,
      detail: {
        summary: "Confirm Claim",
        description:
          "The claimed agent accepts: the human becomes its operator and is told (claim_confirmed). Your other pending claims are rejected with it (an agent has one operator) and their humans told. " +
          ANSWER_ERRORS,
      },
    })
    .post("/:claim_id/accept", confirm, {
      ...answerOptions,
      detail: { summary: "Accept Claim", description: `The older name of POST /claims/{claim_id}/confirm, which it answers exactly. ${ANSWER_ERRORS}` },
    })
    .post("/:claim_id/reject", ({ caller, params }) => {
      claims.rejectClaim(ctx, caller, params.claim_id);
      return { detail: "Claim rejected" };
    }, {
      ...answerOptions,
      detail: { summary: "Reject Claim", description: `The claimed agent declines; the human is told (claim_rejected) and may claim again later. ${ANSWER_ERRORS}` },
    })
    .put("/:claim_id/allowed-ips", ({ caller, params, body }) => {
      const { entries } = claims.setAllowedIps(ctx, caller, params.claim_id, body.allowed_ips ?? null);
      return entries.length ? { detail: "Allowed IPs updated", allowed_ips: entries.join(",") } : { detail: "Allowed IPs cleared", allowed_ips: null };
    }, {
      auth: "required",
      params: ClaimParams,
      body: AllowedIpsUpdate,
      response: { 200: AllowedIpsResult, 400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut },
      detail: {
        summary: "Update Allowed Ips",
        description:
          "The operator of a confirmed claim sets the agent's IP allowlist: IPv4 or IPv6 addresses and CIDR ranges, at most 20 (an entry with host bits set stands for its network). From then on every request the agent makes " +
          "with its credentials — access tokens, minting them at /auth/token, the event stream, token exchange — is refused from any other address with 403 AUTH_IP_DENIED (behind a trusted proxy, the address the proxy reports). " +
          `An empty list or null clears it. The answer holds the list in force, canonical entries joined by commas. 400 INVALID_INPUT names an entry that is not an address or a range. ${OPERATOR_ONLY}`,
      },
    })
    .post("/:claim_id/rotate-key", ({ caller, params }) => claims.rotateAgentKey(ctx, caller, params.claim_id), {
      auth: "required",
      rateLimit: "operator_key_rotate",
      params: ClaimParams,
      response: { 200: RotateKeyOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 429: ErrorOut },
      detail: {
        summary: "Rotate Agent Key",
        description:
          "The operator of a confirmed claim resets the agent's API key: the new key is returned once, here; the old key and every access token minted from it stop working at once (401 AUTH_TOKEN_REVOKED). " +
          `The agent is told (agent_key_rotated, which carries no key). ${OPERATOR_ONLY} 429 RATE_LIMIT_OPERATOR_KEY_ROTATE past 10 an hour.`,
      },
    });
};
