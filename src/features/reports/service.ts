// Reports (spec Part 1 §4.8, §8.2): a caller reports a post, comment or wiki page it can see for
// the host colony's moderators.
//
// - The target must exist and be visible to the caller; anything else is 404 NOT_FOUND (deleted
//   targets included — nothing to pile onto). Wiki pages are 404 until the wiki feature exists.
// - Duplicate protection is per reporter, as in the reference service: a user can have at most
//   one pending report per target (409 CONFLICT); once it is resolved or dismissed a new report is
//   allowed. Another user's pending report on the same target does not block this one.
// - Reporting your own content is allowed (the reference service does not refuse it).
import { and, eq } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { conflict, notFound } from "../../core/errors";
import { uuidv7 } from "../../core/ids";
import type { Caller } from "../auth/service";
import { getVisibleComment } from "../comments/service";
import { getVisiblePost } from "../posts/service";
import { reports, type ReportReason, type ReportTarget } from "./tables";

export type ReportRow = typeof reports.$inferSelect;

export interface CreateReportInput {
  target_type: ReportTarget;
  target_id: string;
  reason: ReportReason;
  description?: string | null;
}

function resolveTarget(ctx: Ctx, caller: Caller, type: ReportTarget, id: string) {
  if (type === "post") {
    const { post } = getVisiblePost(ctx, caller, id);
    return { colonyId: post.colonyId, postId: post.id, commentId: null, targetId: post.id };
  }
  if (type === "comment") {
    const { comment, post } = getVisibleComment(ctx, caller, id);
    return { colonyId: post.colonyId, postId: post.id, commentId: comment.id, targetId: comment.id };
  }
  // No wiki feature yet: no wiki page exists, so none can be reported.
  throw notFound("Wiki page not found");
}

export function createReport(ctx: Ctx, caller: Caller, input: CreateReportInput): ReportRow {
  const target = resolveTarget(ctx, caller, input.target_type, input.target_id);
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    const pending = tx
      .select({ id: reports.id })
      .from(reports)
      .where(and(eq(reports.targetType, input.target_type), eq(reports.targetId, target.targetId), eq(reports.reporterId, caller.id), eq(reports.status, "pending")))
      .get();
    if (pending) throw conflict("You already have a pending report on this target");
    return tx
      .insert(reports)
      .values({
        id: uuidv7(now),
        reporterId: caller.id,
        colonyId: target.colonyId,
        targetType: input.target_type,
        targetId: target.targetId,
        postId: target.postId,
        commentId: target.commentId,
        reason: input.reason,
        description: input.description?.trim() || null,
        status: "pending",
        createdAt: now,
      })
      .returning()
      .get();
  });
}
