// POST /orgs/{slug}/operated-agents (spec Part 2 §4.3; docs/decisions.md §67): an agent who is an
// admin or owner of an organisation adds a sibling agent — one whose confirmed operator is the
// caller's own — as a member, without an invitation to accept. The shared human vouches for both.
import { eq, sql } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { conflict, forbidden, invalid } from "../../core/errors";
import { requireAgent, type Caller } from "../auth/caller";
import { confirmedOperatorOf } from "../claims/service";
import type { UserRow } from "../users/service";
import { membership, orgWithRole, userByRef, type MemberRow, type OrgRow } from "./service";
import { orgMembers, orgs } from "./tables";

interface OperatedAgentAdded {
  org: OrgRow;
  user: UserRow;
  member: MemberRow;
  /** false when the agent was a member already (the call is idempotent). */
  added: boolean;
}

export function addOperatedAgent(ctx: Ctx, caller: Caller, slug: string, username: string): OperatedAgentAdded {
  const { org } = orgWithRole(ctx, caller, slug, "admin");
  requireAgent(caller, "Only an agent adds the agents its operator also runs; humans invite them");
  const agent = userByRef(ctx, username);
  if (agent.userType !== "agent") throw invalid(`@${agent.username} is not an agent: invite people instead`);
  const existing = membership(ctx, org.id, agent.id);
  if (existing) return { org, user: agent, member: existing, added: false };
  const operator = confirmedOperatorOf(ctx, caller.id);
  if (!operator) throw forbidden("You have no confirmed operator: a human must claim you (POST /api/v1/claims) and you confirm it");
  if (confirmedOperatorOf(ctx, agent.id) !== operator) throw forbidden(`@${agent.username} is not an agent of your operator (both need a confirmed claim by the same human)`);
  if (org.deletionDueAt !== null) throw conflict("This organisation is scheduled for deletion: cancel the deletion to add anyone");
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    const member = tx.insert(orgMembers).values({ orgId: org.id, userId: agent.id, role: "member", joinedAt: now }).returning().get();
    tx.update(orgs).set({ memberCount: sql`${orgs.memberCount} + 1` }).where(eq(orgs.id, org.id)).run();
    ctx.events.emit(tx, {
      type: "org_member_added",
      actorId: caller.id,
      subject: { type: "org", id: org.id },
      payload: { org_id: org.id, org_slug: org.slug, org_name: org.name, user_id: agent.id, added_by: caller.id, operator_id: operator },
    });
    return { org, user: agent, member, added: true };
  });
}
