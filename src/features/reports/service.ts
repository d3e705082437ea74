// Reports (spec Part 1 §4.8, §8.2): a caller reports a post, comment or wiki page it can see for
// the host colony's moderators, or a person (target_type "user", an addition to the spec) for the
// site's administrators.
//
// - The target must exist and be visible to the caller; anything else is 404 NOT_FOUND (deleted
//   targets included — nothing to pile onto). Wiki pages are 404 until the wiki feature exists.
// - Duplicate protection is per reporter, as in the reference service: a user can have at most
//   one pending report per target (409 CONFLICT); once it is resolved or dismissed a new report is
//   allowed. Another user's pending report on the same target does not block this one.
// - Reporting your own content is allowed (the reference service does not refuse it).
//
// A report of content opens an open_report row of the colony's moderation queue in its own transaction. The
// colony's own report_reasons (spec Part 2 §2.4) are offered as `custom_reason`, next to one of
// the fixed reasons; a custom reason the colony does not list is 400 INVALID_INPUT.
//
// A report of a person concerns no colony, so no colony's moderators see it: it has no queue row
// (the queue is a colony's) and its colony_id is null. Administrators list and settle these
// reports here (the admin pages). The person must be an active account (404 otherwise, as an
// unknown one); reporting oneself is 400 INVALID_INPUT, since nobody acts on it; a colony's custom
// reasons do not apply (400). The same limit and the same one-pending-report rule hold.
import { and, asc, count, desc, eq, inArray, isNull, ne } from "drizzle-orm";
import type { Ctx } from "../../core/context";
import { conflict, invalid, notFound } from "../../core/errors";
import * as users from "../users/service";
import type { UserRow } from "../users/service";
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

type ContentTarget = Exclude<ReportTarget, "user">;

function resolveTarget(ctx: Ctx, caller: Caller, type: ContentTarget, id: string) {
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

/** The one-pending-report rule (409), checked inside the insert's transaction. */
function refuseSecondPending(tx: Pick<Ctx["db"], "select">, caller: Caller, type: ReportTarget, targetId: string): void {
  const pending = tx
    .select({ id: reports.id })
    .from(reports)
    .where(and(eq(reports.targetType, type), eq(reports.targetId, targetId), eq(reports.reporterId, caller.id), eq(reports.status, "pending")))
    .get();
  if (pending) throw conflict("You already have a pending report on this target");
}

/** A report of a person, for the site's administrators. */
function reportPerson(ctx: Ctx, caller: Caller, input: CreateReportInput): ReportRow {
  const person = users.findById(ctx, input.target_id.toLowerCase());
  if (!users.isActive(person)) throw notFound("User not found");
  if (person.id === caller.id) throw invalid("You cannot report yourself");
  if (input.custom_reason?.trim()) throw invalid("custom_reason is a colony's own reason; a report of a person takes none");
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    refuseSecondPending(tx, caller, "user", person.id);
    return tx
      .insert(reports)
      .values({
        id: uuidv7(now),
        reporterId: caller.id,
        colonyId: null,
        targetType: "user",
        targetId: person.id,
        reason: input.reason,
        description: input.description?.trim() || null,
        status: "pending",
        createdAt: now,
      })
      .returning()
      .get();
  });
}

export function createReport(ctx: Ctx, caller: Caller, input: CreateReportInput): ReportRow {
  if (input.target_type === "user") return reportPerson(ctx, caller, input);
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
    refuseSecondPending(tx, caller, input.target_type, target.targetId);
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

// ---------------------------------------------------------------------------------------------
// Reports of people, for the site's administrators

/** A report of a person as the admin pages show it: who filed it and whom it is about (null: an account since deleted). */
export interface PersonReport {
  report: ReportRow;
  reporter: UserRow | null;
  person: UserRow | null;
}

/** Only site administrators see reports of people; to anyone else they are not there. */
function requireAdmin(caller: Caller): void {
  if (!caller.isAdmin) throw notFound("Report not found");
}

const personReports = (status: "pending" | "settled") => and(isNull(reports.colonyId), status === "pending" ? eq(reports.status, "pending") : ne(reports.status, "pending"));

/** Pending reports of people, oldest first (the order they are worked through), or settled ones, newest first. */
export function listPersonReports(ctx: Ctx, caller: Caller, status: "pending" | "settled", limit = 100): PersonReport[] {
  requireAdmin(caller);
  const rows = ctx.db
    .select()
    .from(reports)
    .where(personReports(status))
    .orderBy(status === "pending" ? asc(reports.createdAt) : desc(reports.createdAt))
    .limit(limit)
    .all();
  const people = users.findManyByIds(ctx, [...new Set(rows.flatMap((r) => [r.reporterId, r.targetId]))]);
  return rows.map((report) => ({ report, reporter: people.get(report.reporterId) ?? null, person: people.get(report.targetId) ?? null }));
}

/** How many reports of people wait for an administrator. */
export function pendingPersonReportCount(ctx: Ctx): number {
  return ctx.db.select({ n: count() }).from(reports).where(personReports("pending")).get()?.n ?? 0;
}

/**
 * Settles a pending report of a person: resolved (the administrator acted on it, e.g. suspended
 * the account) or dismissed. 404 for anything but a report of a person; 409 once settled.
 */
export function settlePersonReport(ctx: Ctx, caller: Caller, id: string, status: "resolved" | "dismissed"): ReportRow {
  requireAdmin(caller);
  const row = ctx.db.select().from(reports).where(and(eq(reports.id, id), eq(reports.targetType, "user"))).get();
  if (!row) throw notFound("Report not found");
  if (!settleReports(ctx, [row.id], status).length) throw conflict("This report is already settled");
  return { ...row, status, resolvedAt: ctx.clock.now() };
}
