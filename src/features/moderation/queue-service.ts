// The unified moderation queue (spec Part 2 §2.5, §4.2; docs/decisions.md §40, §41): listing a
// colony's rows with their chips, and the actions that settle them. Rows are opened by posts,
// comments and reports in their own transactions (queue-store.ts); an action changes the
// content through its feature's service, resolves the row and the rows it cascades to, settles
// the reports concerned, writes one audit row and emits mod_queue_action, in one transaction.
//
// Which action suits which source:
//   pending_post, automod_filtered_post   approve, reject, remove, lock, ban_author
//   open_report                           approve (keep the content), dismiss, remove, lock, ban_author
//   automod_removed_post                  restore, confirm_removal, lock, ban_author
//   automod_removed_comment               restore, confirm_removal, ban_author
//   xss_probe_quarantined                 restore, confirm_removal, ban_author
// Any other pair is 400 INVALID_INPUT. lock and ban_author leave the row open (they act on the
// thread and the author, not on the item); every other action resolves it. Removing content
// (remove, reject, confirm_removal) resolves every other open row about it, and about its comments
// for a post, and marks their reports resolved: cascaded_report_ids. approve on a report dismisses
// every open report on the same content.
import type { Ctx } from "../../core/context";
import { ApiError, conflict, invalid, notFound } from "../../core/errors";
import { isUuid } from "../../core/ids";
import type { Page } from "../../core/paging";
import { pendingAppealCount } from "../colonies/appeals";
import { recordModAction } from "../colonies/audit";
import { banUser, BAN_DURATIONS } from "../colonies/bans";
import { moderatedColony, requireModPower } from "../colonies/permissions";
import type { Actor, ColonyRow } from "../colonies/service";
import * as comments from "../comments/service";
import * as posts from "../posts/service";
import * as reports from "../reports/service";
import * as users from "../users/service";
import type { UserRow } from "../users/service";
import { findQueueItem, listQueue as listQueueRows, openCounts, resolveQueueForTarget, resolveQueueItem, resolveReportRows, type ModQueueRow } from "./queue-store";
import { MOD_QUEUE_SOURCES, type ModQueueSource } from "./tables";

/** The filter values: the six sources, and the reference's two filter-only ones (never filled here). */
export const QUEUE_FILTER_SOURCES = [...MOD_QUEUE_SOURCES, "unmoderated", "edited_post"] as const;
export const QUEUE_ACTIONS = ["approve", "reject", "remove", "dismiss", "restore", "confirm_removal", "lock", "ban_author"] as const;
export type QueueAction = (typeof QUEUE_ACTIONS)[number];

export const ADMISSIBLE: Record<ModQueueSource, readonly QueueAction[]> = {
  pending_post: ["approve", "reject", "remove", "lock", "ban_author"],
  automod_filtered_post: ["approve", "reject", "remove", "lock", "ban_author"],
  open_report: ["approve", "dismiss", "remove", "lock", "ban_author"],
  automod_removed_post: ["restore", "confirm_removal", "lock", "ban_author"],
  automod_removed_comment: ["restore", "confirm_removal", "ban_author"],
  xss_probe_quarantined: ["restore", "confirm_removal", "ban_author"],
};

const LEAVES_OPEN: readonly QueueAction[] = ["lock", "ban_author"];
const REMOVES: readonly QueueAction[] = ["reject", "remove", "confirm_removal"];

// ---------------------------------------------------------------------------------------------
// Listing

export interface QueueListInput {
  status?: "open" | "resolved";
  source?: (typeof QUEUE_FILTER_SOURCES)[number];
  sort?: "newest" | "oldest";
}

export interface QueueListing {
  colony: ColonyRow;
  items: ModQueueRow[];
  authors: Map<string, UserRow>;
  total: number;
  chips: Record<ModQueueSource, number>;
  pendingAppeals: number;
}

/** GET /queue: a page of rows, the open count per source and the pending appeals; a fixed number of statements. */
export function listQueue(ctx: Ctx, caller: Actor, colonyId: string, input: QueueListInput, page: Page): QueueListing {
  const colony = moderatedColony(ctx, caller, colonyId);
  const status = input.status ?? "open";
  const chips = openCounts(ctx, colony.id);
  const pendingAppeals = pendingAppealCount(ctx, colony.id);
  if (input.source === "unmoderated" || input.source === "edited_post") return { colony, items: [], authors: new Map(), total: 0, chips, pendingAppeals };
  const { items, total } = listQueueRows(ctx, colony.id, { status, source: input.source, sort: input.sort ?? "newest" }, page);
  const authors = users.findManyByIds(ctx, [...new Set(items.map((i) => i.authorId).filter((id): id is string => !!id))]);
  return { colony, items, authors, total, chips, pendingAppeals };
}

// ---------------------------------------------------------------------------------------------
// Actions

export interface QueueActionInput {
  source: ModQueueSource;
  source_id: string;
  action: QueueAction;
  reason_id?: string | null;
  reason_text?: string | null;
  duration_days?: number | null;
}

export interface QueueActionResult {
  modlog_id: string;
  source: ModQueueSource;
  source_id: string;
  action: QueueAction;
  target_kind: string;
  target_id: string | null;
  cascaded_report_ids: string[];
  reason_id: string | null;
}

/** The report ids behind open_report rows (rows a rule opened have no report). */
const reportIdsOf = (rows: readonly ModQueueRow[]) => rows.filter((r) => r.source === "open_report" && r.payload?.reporter !== "automod").map((r) => r.sourceId);

/** The latest audit row of a ban this transaction wrote (banUser returns the ban, not its audit id). */
function banAuditId(ctx: Ctx, colonyId: string, userId: string): string {
  const row = ctx.db.$client
    .prepare<{ id: string }, [string, string]>("select id from colony_mod_log where colony_id = ? and action = 'queue_ban_author' and target_id = ? order by created_at desc, rowid desc limit 1")
    .get(colonyId, userId);
  return row!.id;
}

/** One action on one row, inside the caller's transaction (or its own). */
function applyAction(ctx: Ctx, caller: Actor, colony: ColonyRow, input: QueueActionInput): QueueActionResult {
  if (!isUuid(input.source_id)) throw notFound("Queue item not found");
  const item = findQueueItem(ctx, colony.id, input.source, input.source_id);
  if (!item) throw notFound("Queue item not found");
  const action = input.action;
  if (!ADMISSIBLE[item.source].includes(action)) {
    throw invalid(`${action} does not apply to a ${item.source} row; it takes ${ADMISSIBLE[item.source].join(", ")}`);
  }
  if (item.status !== "open" && !LEAVES_OPEN.includes(action)) throw conflict("This queue item is already resolved");
  const reason = input.reason_text?.trim() || null;
  const result = (modlogId: string, cascaded: string[] = []): QueueActionResult => ({
    modlog_id: modlogId,
    source: item.source,
    source_id: item.sourceId,
    action,
    target_kind: item.targetType,
    target_id: item.targetId,
    cascaded_report_ids: cascaded,
    reason_id: input.reason_id ?? null,
  });

  if (action === "ban_author") {
    const days = input.duration_days;
    if (days === undefined || days === null) throw invalid("duration_days (1, 7 or 30) is required for ban_author");
    if (!(BAN_DURATIONS as readonly number[]).includes(days)) throw invalid("duration_days must be 1, 7 or 30 (permanent bans go through POST /colonies/{colony_id}/bans/{user_id})");
    const author = item.authorId ? users.findById(ctx, item.authorId) : null;
    if (!author) throw invalid("This item has no author to ban");
    return ctx.db.transaction((tx) => {
      banUser(ctx, caller, colony, author, { durationDays: days, reason }, "queue_ban_author");
      const id = banAuditId(ctx, colony.id, author.id);
      emitAction(ctx, tx, colony, item, action, id, []);
      return result(id);
    });
  }

  requireModPower(ctx, colony, caller, "can_remove");
  return ctx.db.transaction((tx) => {
    let cascaded: string[] = [];
    const isPost = item.targetType === "post";
    if (action === "lock") {
      posts.lockPost(ctx, item.postId ?? item.targetId, true);
    } else if (action === "approve" || action === "restore") {
      if (item.source === "open_report") {
        const others = resolveReportRows(ctx, item.targetId, "dismiss", caller.id, item.id);
        cascaded = reports.settleReports(ctx, reportIdsOf(others), "dismissed");
        reports.settleReports(ctx, reportIdsOf([item]), "dismissed");
      } else if (isPost) posts.releaseHeldPost(ctx, item.targetId);
      else comments.releaseHeldComment(ctx, item.targetId);
    } else if (action === "dismiss") {
      reports.settleReports(ctx, reportIdsOf([item]), "dismissed");
    } else if (REMOVES.includes(action)) {
      if (isPost) posts.removePostByModerator(ctx, caller.id, item.targetId);
      else comments.removeCommentByModerator(ctx, caller.id, item.targetId);
      const others = resolveQueueForTarget(ctx, item.targetId, action, caller.id, item.id);
      cascaded = reports.settleReports(ctx, reportIdsOf(others), "resolved");
      reports.settleReports(ctx, reportIdsOf([item]), "resolved");
    }
    if (!LEAVES_OPEN.includes(action)) resolveQueueItem(ctx, item.id, action, caller.id);
    const modlogId = recordModAction(ctx, {
      colonyId: colony.id,
      actorId: caller.id,
      action: `queue_${action}`,
      targetType: item.targetType,
      targetId: item.targetId,
      targetUserId: item.authorId,
      reason,
      meta: { source: item.source, source_id: item.sourceId, queue_item_id: item.id, reason_id: input.reason_id ?? null, cascaded_report_ids: cascaded },
      openedAt: LEAVES_OPEN.includes(action) ? null : item.createdAt,
    });
    emitAction(ctx, tx, colony, item, action, modlogId, cascaded);
    return result(modlogId, cascaded);
  });
}

function emitAction(ctx: Ctx, tx: Parameters<Ctx["events"]["emit"]>[0], colony: ColonyRow, item: ModQueueRow, action: QueueAction, modlogId: string, cascaded: string[]): void {
  ctx.events.emit(tx, {
    type: "mod_queue_action",
    actorId: null,
    subject: { type: item.targetType, id: item.targetId },
    payload: { colony_id: colony.id, source: item.source, source_id: item.sourceId, action, target_type: item.targetType, target_id: item.targetId, modlog_id: modlogId, cascaded_report_ids: cascaded },
  });
}

/** POST /queue/action. */
export function act(ctx: Ctx, caller: Actor, colonyId: string, input: QueueActionInput): QueueActionResult {
  const colony = moderatedColony(ctx, caller, colonyId);
  return applyAction(ctx, caller, colony, input);
}

export const BULK_MAX = 100;

/**
 * POST /queue/bulk-action: every item in one transaction, each under its own savepoint. An item
 * refused with an ApiError is reported in `failed` and changes nothing; the rest commits. The
 * batch's reason applies to items without their own.
 */
export function bulkAct(ctx: Ctx, caller: Actor, colonyId: string, items: QueueActionInput[], shared: { reason_id?: string | null; reason_text?: string | null }) {
  const colony = moderatedColony(ctx, caller, colonyId);
  const succeeded: QueueActionResult[] = [];
  const failed: { source: string; source_id: string; action: string; message: string; code: string }[] = [];
  ctx.db.transaction(() => {
    for (const raw of items) {
      const input = { ...raw, reason_id: raw.reason_id ?? shared.reason_id ?? null, reason_text: raw.reason_text ?? shared.reason_text ?? null };
      try {
        succeeded.push(ctx.db.transaction(() => applyAction(ctx, caller, colony, input)));
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        failed.push({ source: raw.source, source_id: raw.source_id, action: raw.action, message: err.message, code: err.code });
      }
    }
  });
  return { succeeded, failed };
}
