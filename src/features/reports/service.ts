// Reports (spec Part 1 §4.8, §8.2): a caller reports a post, comment or wiki page it can see for
// the host colony's moderators.
//
// - The target must exist and be visible to the caller; anything else is 404 NOT_FOUND (deleted
//   targets included — nothing to pile onto). Wiki pages are 404 until the wiki feature exists.
// - Duplicate protection is per reporter, as in the reference service: a user can have at most
//   one pending report per target (409 CONFLICT); once it is resolved or dismissed a new report is
//   allowed. Another user's pending report on the same target does not block this one.
// - Reporting your own content is allowed (the reference service does not refuse it).
//
// A report opens an open_report row of the colony's moderation queue in its own transaction. The
// colony's own report_reasons (spec Part 2 §2.4) are offered as `custom_reason`, next to one of
// the fixed reasons; a custom reason the colony does not list is 400 INVALID_INPUT.
import { and, eq, inArray } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { conflict, invalid, notFound } from "../../core/errors";
import { openQueueItem } from "../moderation/queue-store";
import { settingsOf } from "../colonies/service";
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
  custom_reason?: string | null;
}

function resolveTarget(ctx: Ctx, caller: Caller, type: ReportTarget, id: string) {
  if (type === "post") {
    const { post, colony } = getVisiblePost(ctx, caller, id);
    return { colony, colonyId: post.colonyId, postId: post.id, commentId: null, targetId: post.id, authorId: post.authorId, text: `${post.title} — ${post.body}` };
  }
  if (type === "comment") {
    const { comment, post, colony } = getVisibleComment(ctx, caller, id);
    return { colony, colonyId: post.colonyId, postId: post.id, commentId: comment.id, targetId: comment.id, authorId: comment.authorId, text: comment.body };
  }
  // No wiki feature yet: no wiki page exists, so none can be reported.
  throw notFound("Wiki page not found");
}

export function createReport(ctx: Ctx, caller: Caller, input: CreateReportInput): ReportRow {
  const target = resolveTarget(ctx, caller, input.target_type, input.target_id);
  let customReason: string | null = null;
  const wanted = input.custom_reason?.trim();
  if (wanted) {
    const offered = settingsOf(target.colony).report_reasons ?? [];
    customReason = offered.find((r) => r.toLowerCase() === wanted.toLowerCase()) ?? null;
    if (customReason === null) {
      throw invalid(offered.length ? `custom_reason must be one of this colony's report reasons: ${offered.join(", ")}` : "This colony offers no custom report reasons");
    }
  }
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    const pending = tx
      .select({ id: reports.id })
      .from(reports)
      .where(and(eq(reports.targetType, input.target_type), eq(reports.targetId, target.targetId), eq(reports.reporterId, caller.id), eq(reports.status, "pending")))
      .get();
    if (pending) throw conflict("You already have a pending report on this target");
    const report = tx
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
        customReason,
        status: "pending",
        createdAt: now,
      })
      .returning()
      .get();
    openQueueItem(ctx, {
      colonyId: target.colonyId,
      source: "open_report",
      sourceId: report.id,
      targetType: input.target_type === "comment" ? "comment" : "post",
      targetId: target.targetId,
      postId: target.postId,
      authorId: target.authorId,
      excerpt: target.text,
      payload: { reporter_id: caller.id, reporter_username: caller.username, reason: report.reason, custom_reason: customReason, description: report.description },
    });
    return report;
  });
}

/** Settles pending reports by id (the moderation queue): resolved when acted on, dismissed otherwise. Returns the ids it changed. */
export function settleReports(ctx: Ctx, ids: readonly string[], status: "resolved" | "dismissed"): string[] {
  if (!ids.length) return [];
  return ctx.db
    .update(reports)
    .set({ status, resolvedAt: ctx.clock.now() })
    .where(and(inArray(reports.id, [...ids]), eq(reports.status, "pending")))
    .returning({ id: reports.id })
    .all()
    .map((r) => r.id);
}
