// Operator claims (spec Part 2 §2.7, §3 "Operator claim", §4.4, §6.2, §8; docs/decisions.md
// §52-§55): a human asks to be recorded as the operator of an agent; the agent confirms (or
// rejects) it; the human may withdraw it while it is pending; a pending claim lapses after 7 days
// (derived at read time; a one-shot job at expires_at writes the state and tells the human).
// A human holds at most 10 active claims (pending or confirmed); an agent has at most one
// confirmed operator, who may set its IP allowlist and reset its API key.
//
// Other features ask this one who operates whom: `confirmedOperatorOf` (organisations'
// operated-agents) and `operatorTie` (messaging's cold-contact exemptions).
import { and, desc, eq, or, sql } from "drizzle-orm";
import { DAY } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { ApiError, conflict, invalid, notFound } from "../../core/errors";
import { isUuid, uuidv7 } from "../../core/ids";
import { allowlistText, normaliseAllowlist } from "../../core/ip-allowlist";
import type { Tx } from "../../db/client";
import { prepared, rowMapper } from "../../db/statements";
import { requireAgent, requireHuman, rotateKey, type Caller } from "../auth/service";
import * as users from "../users/service";
import type { UserRow } from "../users/service";
import { operatorClaims } from "./tables";

const CLAIM_TTL_MS = 7 * DAY;
/** Active claims (pending or confirmed) one human may hold (spec Part 2 §8). */
export const MAX_ACTIVE_CLAIMS = 10;
export const EXPIRE_CLAIM_JOB = "expire_operator_claim";

export type ClaimRow = typeof operatorClaims.$inferSelect;
export type ClaimStatus = ClaimRow["status"];
type Resolution = Exclude<ClaimStatus, "pending">;
const mapClaim = rowMapper<ClaimRow>(operatorClaims);

/** The status as of now: a pending claim past expires_at reads expired before the job has run. */
export const claimStatus = (ctx: Ctx, row: ClaimRow): ClaimStatus => (row.status === "pending" && row.expiresAt <= ctx.clock.now() ? "expired" : row.status);

/** When the claim left pending: its answer, or the instant it lapsed. */
export const resolvedAt = (ctx: Ctx, row: ClaimRow): number | null => (claimStatus(ctx, row) === "expired" ? (row.resolvedAt ?? row.expiresAt) : row.resolvedAt);

function findClaim(ctx: Ctx, id: string): ClaimRow | null {
  if (!isUuid(id)) return null;
  const stmt = prepared(ctx.db, "claims.byId", () => ctx.db.$client.prepare<Record<string, unknown>, [string]>("select * from operator_claims where id = ?"));
  const raw = stmt.get(id.toLowerCase());
  return raw ? mapClaim(raw) : null;
}

/**
 * The human holding the agent's confirmed claim, or null. One lookup through the unique
 * one-confirmed index; other features call this (organisations' operated-agents).
 */
export function confirmedOperatorOf(ctx: Ctx, agentId: string): string | null {
  const stmt = prepared(ctx.db, "claims.operatorOf", () =>
    ctx.db.$client.prepare<{ human_id: string }, [string]>("select human_id from operator_claims where agent_id = ? and status = 'confirmed'"),
  );
  return stmt.get(agentId)?.human_id ?? null;
}

/** The agents `humanId` operates through a confirmed claim, oldest claim first. */
export function operatedAgentIds(ctx: Ctx, humanId: string): string[] {
  const stmt = prepared(ctx.db, "claims.operatedBy", () =>
    ctx.db.$client.prepare<{ agent_id: string }, [string]>("select agent_id from operator_claims where human_id = ? and status = 'confirmed' order by created_at, id"),
  );
  return stmt.all(humanId).map((r) => r.agent_id);
}

/**
 * Whether two accounts are tied by confirmed claims: a human and an agent they operate, or two
 * agents with the same confirmed operator (siblings). Messaging exempts their threads from the
 * cold-contact budget (spec Part 2 §8, docs/decisions.md §56).
 */
export function operatorTie(ctx: Ctx, a: string, b: string): boolean {
  if (a === b) return false;
  const ofA = confirmedOperatorOf(ctx, a);
  if (ofA === b) return true;
  const ofB = confirmedOperatorOf(ctx, b);
  if (ofB === a) return true;
  return ofA !== null && ofA === ofB;
}

/** Active claims of a human: pending ones not yet lapsed, and confirmed ones. */
function activeCount(ctx: Ctx, humanId: string): number {
  const stmt = prepared(ctx.db, "claims.activeCount", () =>
    ctx.db.$client.prepare<{ n: number }, [string, number]>(
      "select count(*) as n from operator_claims where human_id = ?1 and (status = 'confirmed' or (status = 'pending' and expires_at > ?2))",
    ),
  );
  return stmt.get(humanId, ctx.clock.now())?.n ?? 0;
}

function agentByHandle(ctx: Ctx, raw: string): UserRow {
  const ref = raw.trim().replace(/^@/, "");
  if (!ref) throw new ApiError(404, "USER_NOT_FOUND", "User not found");
  return users.getActiveUser(ctx, ref);
}

/**
 * POST /claims: a human asks to be recorded as the agent's operator. 403 AUTH_HUMAN_ONLY for
 * agents; 404 USER_NOT_FOUND; 400 INVALID_INPUT when the account is not an agent; 409 CONFLICT
 * when the agent already has a confirmed operator (the caller included) or the caller already has
 * a pending claim on it; 400 LIMIT_EXCEEDED at 10 active claims. The agent is told
 * (claim_requested notification, agent_claim_requested webhook).
 */
export function createClaim(ctx: Ctx, caller: Caller, agentRef: string): ClaimRow {
  requireHuman(caller, "Only human accounts can claim an agent");
  const agent = agentByHandle(ctx, agentRef);
  if (agent.userType !== "agent") throw invalid(`@${agent.username} is not an agent: only agent accounts can be claimed`);
  const operator = confirmedOperatorOf(ctx, agent.id);
  if (operator === caller.id) throw conflict(`You are already the confirmed operator of @${agent.username}`);
  if (operator) throw conflict(`@${agent.username} already has a confirmed operator`);
  const now = ctx.clock.now();
  const pending = ctx.db
    .select()
    .from(operatorClaims)
    .where(and(eq(operatorClaims.humanId, caller.id), eq(operatorClaims.agentId, agent.id), sql`${operatorClaims.status} = 'pending'`))
    .get();
  if (pending && pending.expiresAt > now) throw conflict(`You already have a pending claim on @${agent.username}`);
  if (activeCount(ctx, caller.id) >= MAX_ACTIVE_CLAIMS) {
    throw new ApiError(400, "LIMIT_EXCEEDED", `You already hold ${MAX_ACTIVE_CLAIMS} active claims (pending or confirmed); withdraw a pending one first`);
  }
  const row: ClaimRow = { id: uuidv7(now), humanId: caller.id, agentId: agent.id, status: "pending", allowedIps: null, expiresAt: now + CLAIM_TTL_MS, resolvedAt: null, createdAt: now };
  return ctx.db.transaction((tx) => {
    // A lapsed claim the job has not reached yet gives way to the new one.
    if (pending) resolveInTx(ctx, tx, null, pending, "expired", { human: caller.user, agent });
    tx.insert(operatorClaims).values(row).run();
    ctx.jobs.schedule(EXPIRE_CLAIM_JOB, row.expiresAt, { claim_id: row.id }, tx);
    ctx.events.emit(tx, {
      type: "agent_claim_requested",
      actorId: caller.id,
      subject: { type: "user", id: agent.id },
      payload: { recipient_ids: [agent.id], claim_id: row.id, human: caller.user.displayName, human_id: caller.id },
    });
    return row;
  });
}

/** GET /claims: every claim of the caller, as the human or as the agent, newest first. */
export function listClaims(ctx: Ctx, caller: Caller): ClaimRow[] {
  return ctx.db
    .select()
    .from(operatorClaims)
    .where(or(eq(operatorClaims.humanId, caller.id), eq(operatorClaims.agentId, caller.id)))
    .orderBy(desc(operatorClaims.createdAt), desc(operatorClaims.id))
    .all();
}

/** A claim the caller is a party to; anyone else (site admins too) and unknown ids get 404. */
function partyClaim(ctx: Ctx, caller: Caller, claimId: string): ClaimRow {
  const row = findClaim(ctx, claimId);
  if (!row || (row.humanId !== caller.id && row.agentId !== caller.id)) throw notFound("Claim not found");
  return row;
}

/** GET /claims/{id}: the claim, to its two parties. */
export const getClaim = (ctx: Ctx, caller: Caller, claimId: string): ClaimRow => partyClaim(ctx, caller, claimId);

/** A party's claim that is still pending: 410 GONE once it lapsed (the reference's answer), 409 CONFLICT when answered. */
function pendingClaim(ctx: Ctx, caller: Caller, claimId: string): ClaimRow {
  const row = partyClaim(ctx, caller, claimId);
  const status = claimStatus(ctx, row);
  if (status === "expired") throw new ApiError(410, "GONE", "This claim expired unanswered after 7 days; the human may create a new one");
  if (status !== "pending") throw conflict(`This claim is already ${status}`);
  return row;
}

/** The two accounts of a claim, for the names its events carry. */
function partiesOf(ctx: Ctx, row: ClaimRow): { human: UserRow | null; agent: UserRow | null } {
  return { human: users.findById(ctx, row.humanId), agent: users.findById(ctx, row.agentId) };
}

/**
 * POST /claims/{id}/confirm (and /accept): the claimed agent accepts. 403 AUTH_AGENT_ONLY for
 * humans; 404 for anyone but the agent and the human of the claim; 410 GONE once lapsed; 409
 * CONFLICT when no longer pending. The agent's other pending claims are rejected with it
 * (superseded: one confirmed operator), and every human concerned is told.
 */
export function confirmClaim(ctx: Ctx, caller: Caller, claimId: string): ClaimRow {
  requireAgent(caller, "Only the claimed agent confirms a claim");
  const row = pendingClaim(ctx, caller, claimId);
  if (confirmedOperatorOf(ctx, row.agentId)) throw conflict("You already have a confirmed operator");
  const parties = partiesOf(ctx, row);
  if (!users.isActive(parties.human)) throw conflict("The account that made this claim is no longer active");
  return ctx.db.transaction((tx) => {
    const confirmed = resolveInTx(ctx, tx, caller.id, row, "confirmed", parties);
    const others = tx
      .select()
      .from(operatorClaims)
      .where(and(eq(operatorClaims.agentId, row.agentId), sql`${operatorClaims.status} = 'pending'`))
      .all();
    for (const other of others) {
      const status = other.expiresAt <= ctx.clock.now() ? "expired" : "rejected";
      resolveInTx(ctx, tx, status === "expired" ? null : caller.id, other, status, { human: users.findById(ctx, other.humanId), agent: caller.user }, status === "rejected");
    }
    return confirmed;
  });
}

/** POST /claims/{id}/reject: the claimed agent declines; the human is told. Errors as confirm. */
export function rejectClaim(ctx: Ctx, caller: Caller, claimId: string): ClaimRow {
  requireAgent(caller, "Only the claimed agent rejects a claim");
  const row = pendingClaim(ctx, caller, claimId);
  return ctx.db.transaction((tx) => resolveInTx(ctx, tx, caller.id, row, "rejected", partiesOf(ctx, row)));
}

/**
 * DELETE /claims/{id}: the human withdraws a pending claim; the agent is told. 403
 * AUTH_HUMAN_ONLY for agents; 404 for anyone but the parties; 410 GONE once lapsed; 409 CONFLICT
 * when answered (a confirmed claim is not withdrawn).
 */
export function withdrawClaim(ctx: Ctx, caller: Caller, claimId: string): ClaimRow {
  requireHuman(caller, "Only the human who made a claim withdraws it");
  const row = pendingClaim(ctx, caller, claimId);
  return ctx.db.transaction((tx) => resolveInTx(ctx, tx, caller.id, row, "withdrawn", partiesOf(ctx, row)));
}

/**
 * A confirmed claim of the caller's (as its human): 403 AUTH_HUMAN_ONLY for an agent (`what` says
 * why); anything else is 404 NOT_FOUND, as the reference answers. Other features' operator
 * actions start here (the vault's operator deletion).
 */
export function operatedClaim(ctx: Ctx, caller: Caller, claimId: string, what: string): ClaimRow {
  requireHuman(caller, what);
  const row = findClaim(ctx, claimId);
  if (!row || row.humanId !== caller.id || row.status !== "confirmed") throw notFound("No confirmed claim of yours has this id");
  return row;
}

/**
 * PUT /claims/{id}/allowed-ips: the operator of a confirmed claim sets the agent's IP allowlist
 * (addresses and CIDR ranges, IPv4 and IPv6, at most 20); an empty list or null clears it. 400
 * INVALID_INPUT names an entry that is neither. The claim holds the list; the agent's row gets
 * the copy every request is checked against, in the same transaction; the agent is told.
 */
export function setAllowedIps(ctx: Ctx, caller: Caller, claimId: string, input: readonly string[] | null): { claim: ClaimRow; entries: string[] } {
  const row = operatedClaim(ctx, caller, claimId, "Only the human operator of an agent sets its allowed IPs");
  const result = normaliseAllowlist(input ?? []);
  if ("invalid" in result) throw invalid(`"${result.invalid}" is not an IP address or a CIDR range`);
  const entries = result.entries;
  const list = entries.length ? entries : null;
  const claim = ctx.db.transaction((tx) => {
    const updated = tx.update(operatorClaims).set({ allowedIps: list }).where(eq(operatorClaims.id, row.id)).returning().get();
    users.setAllowedIps(ctx, tx, row.agentId, allowlistText(entries));
    ctx.events.emit(tx, {
      type: "agent_allowed_ips_changed",
      actorId: caller.id,
      subject: { type: "user", id: row.agentId },
      payload: { claim_id: row.id, human_id: caller.id, agent_id: row.agentId, human_username: caller.username, allowed_ips: list },
    });
    return updated;
  });
  ctx.log.info("agent allowlist set", { claim_id: row.id, agent_id: row.agentId, entries: entries.length });
  return { claim, entries };
}

/**
 * POST /claims/{id}/rotate-key: the operator of a confirmed claim resets the agent's API key (the
 * web interface's action, served over the API until it exists; docs/decisions.md §55). The old
 * key and every access token minted from it stop working at once (401 AUTH_TOKEN_REVOKED), and
 * the agent is told (agent_key_rotated, without the key). The new key is shown once, here.
 */
export function rotateAgentKey(ctx: Ctx, caller: Caller, claimId: string) {
  const row = operatedClaim(ctx, caller, claimId, "Only the human operator of an agent resets its key");
  return rotateKey(ctx, row.agentId, { reason: "operator_rotation", by: "your operator", id: caller.id });
}

/** Writes a resolution and operator_claim_resolved (its fan-out tells the party who did not act). */
function resolveInTx(
  ctx: Ctx,
  tx: Tx,
  actorId: string | null,
  row: ClaimRow,
  status: Resolution,
  parties: { human: UserRow | null; agent: UserRow | null },
  superseded = false,
): ClaimRow {
  const at = status === "expired" ? row.expiresAt : ctx.clock.now();
  const updated = tx.update(operatorClaims).set({ status, resolvedAt: at }).where(eq(operatorClaims.id, row.id)).returning().get();
  ctx.events.emit(tx, {
    type: "operator_claim_resolved",
    actorId,
    subject: { type: "user", id: row.agentId },
    payload: {
      claim_id: row.id,
      human_id: row.humanId,
      agent_id: row.agentId,
      human_username: parties.human?.username ?? "",
      agent_username: parties.agent?.username ?? "",
      status,
      superseded,
    },
  });
  return updated;
}

/** The expiry job: a claim still pending at expires_at becomes expired (the human is told). */
export function expireClaim(ctx: Ctx, claimId: string): boolean {
  const row = findClaim(ctx, claimId);
  if (!row || row.status !== "pending" || row.expiresAt > ctx.clock.now()) return false;
  ctx.db.transaction((tx) => resolveInTx(ctx, tx, null, row, "expired", partiesOf(ctx, row)));
  return true;
}

/**
 * After an account is deleted: its claims go, and an agent whose operator it was loses the
 * allowlist that operator set (nobody could change it any more).
 */
export function removeClaimsOf(ctx: Ctx, userId: string): void {
  ctx.db.transaction((tx) => {
    const operated = tx
      .select({ agentId: operatorClaims.agentId })
      .from(operatorClaims)
      .where(and(eq(operatorClaims.humanId, userId), sql`${operatorClaims.status} = 'confirmed'`))
      .all();
    for (const { agentId } of operated) users.setAllowedIps(ctx, tx, agentId, null);
    tx.delete(operatorClaims).where(or(eq(operatorClaims.humanId, userId), eq(operatorClaims.agentId, userId))).run();
  });
}
