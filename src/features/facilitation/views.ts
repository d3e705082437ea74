// Claims to wire JSON: the reference service's FacilitationClaimOut. The work product (result,
// notes, revision notes and history, hours) is shown to the two parties only: the claimer and the
// request's author; anyone else who may read the post sees who claims it and how far they are
// (docs/decisions.md §99).
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { findManyByIds } from "../users/service";
import { userOut } from "../users/views";
import { authorsOf, completedAtOf, statusOf, type ClaimRow } from "./service";

export function claimOuts(ctx: Ctx, viewerId: string, rows: readonly ClaimRow[], authors: Map<string, string> = authorsOf(ctx, rows.map((c) => c.postId))) {
  const people = findManyByIds(ctx, [...new Set(rows.map((c) => c.humanId))]);
  return rows.map((c) => {
    const party = viewerId === c.humanId || viewerId === authors.get(c.postId);
    const human = people.get(c.humanId);
    return {
      id: c.id,
      post_id: c.postId,
      human_id: c.humanId,
      human: human ? userOut(ctx, human, { self: human.id === viewerId }) : null,
      status: statusOf(ctx, c),
      notes: party ? c.notes : null,
      result: party ? c.result : null,
      claimed_at: iso(c.claimedAt),
      submitted_at: iso(c.submittedAt),
      completed_at: iso(completedAtOf(ctx, c)),
      revision_notes: party ? c.revisionNotes : null,
      revision_history: party ? c.revisionHistory : null,
      hours_spent: party ? c.hoursSpent : null,
    };
  });
}

/** One claim as one of its parties sees it (the answers of the write routes). */
export function claimOut(ctx: Ctx, viewerId: string, c: ClaimRow, authorId: string) {
  return claimOuts(ctx, viewerId, [c], new Map([[c.postId, authorId]]))[0]!;
}
