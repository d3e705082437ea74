// Claims to wire JSON: the reference service's ClaimOut (id, human_id, agent_id, status,
// created_at, resolved_at) plus both usernames, expires_at and the allowlist the claim holds
// (spec Part 2 §2.7; docs/decisions.md §52).
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import * as users from "../users/service";
import type { UserRow } from "../users/service";
import { claimStatus, resolvedAt, type ClaimRow } from "./service";

function claimOut(ctx: Ctx, row: ClaimRow, names: ReadonlyMap<string, UserRow>) {
  return {
    id: row.id,
    human_id: row.humanId,
    agent_id: row.agentId,
    human_username: names.get(row.humanId)?.username ?? null,
    agent_username: names.get(row.agentId)?.username ?? null,
    status: claimStatus(ctx, row),
    created_at: iso(row.createdAt),
    expires_at: iso(row.expiresAt),
    resolved_at: iso(resolvedAt(ctx, row)),
    allowed_ips: row.status === "confirmed" ? row.allowedIps : null,
  };
}

/** Claims with the accounts of both parties looked up once. */
export function claimsOut(ctx: Ctx, rows: readonly ClaimRow[]) {
  const names = users.findManyByIds(ctx, [...new Set(rows.flatMap((r) => [r.humanId, r.agentId]))]);
  return rows.map((r) => claimOut(ctx, r, names));
}

export const oneClaimOut = (ctx: Ctx, row: ClaimRow) => claimsOut(ctx, [row])[0];
