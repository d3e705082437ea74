// The moderation queue, automod and mod activity routes (spec Part 2 §4.2), under /api/v1/colonies.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { applyBodyDeprecations } from "../../http/deprecations";
import { pagingQuery, resolvePage } from "../../http/paging";
import { ErrorOut, Int, Nullable, OptionalEnum, IntInput } from "../../http/schemas";
import { ColonyIdParams } from "../colonies/schemas";
import { activityRoutes } from "./activity-routes";
import { automodRoutes } from "./automod-routes";
import { act, bulkAct, BULK_MAX, listQueue, QUEUE_ACTIONS, QUEUE_FILTER_SOURCES, type QueueActionInput } from "./queue-service";
import { queuePageOut, resultOut } from "./queue-views";
import { MOD_QUEUE_SOURCES } from "./tables";

const QUEUE_PAGING = { max: 100, default: 25 };

const ModQueueItemOut = t.Object({
  source_kind: t.String({ description: "Where the row comes from (2.5)" }),
  source: t.String({ description: "The same as source_kind" }),
  source_id: t.String({ format: "uuid", description: "The post, the comment or the report the row is about; send it back with queue/action" }),
  target_kind: t.String({ description: "post or comment" }),
  target_id: t.String({ format: "uuid" }),
  author_id: Nullable(t.String({ format: "uuid" })),
  excerpt: t.String(),
  created_at: t.String({ format: "date-time" }),
  payload: t.Record(t.String(), t.Any(), {
    description:
      "post_id, author_username, status, and by source: pending_post {reason}; open_report {reporter_id, reporter_username, reason, custom_reason, description} or {reporter: automod, rule_id, rule_name}; " +
      "automod_* {rule_id, rule_name, matched}; xss_probe_quarantined {probe}; resolved rows add resolution, resolved_by, resolved_at.",
  }),
});

export const ModQueueListOut = t.Object({
  items: t.Array(ModQueueItemOut),
  chip_counts: t.Record(t.String(), Int(), { description: "Open rows per source, every source present" }),
  total: Int(),
  limit: Int(),
  offset: Int(),
  page: Int(),
  page_size: Int({ description: "Deprecated copy of limit" }),
  pending_appeal_count: Int(),
});

const SOURCES_IN = [...MOD_QUEUE_SOURCES] as [string, ...string[]];

export const ModQueueActionRequest = t.Object({
  source: t.UnionEnum(SOURCES_IN, { default: undefined, description: "Deprecated spelling: source_kind" }),
  source_id: t.String({ format: "uuid" }),
  action: t.UnionEnum([...QUEUE_ACTIONS], { default: undefined }),
  reason_id: t.Optional(Nullable(t.String({ format: "uuid" }))),
  reason_text: t.Optional(Nullable(t.String({ maxLength: 2000 }))),
  duration_days: t.Optional(Nullable(IntInput({ minimum: 1, maximum: 30, description: "1, 7 or 30; required for ban_author. Deprecated spelling: ban_duration_days" }))),
});

export const ModQueueActionResultOut = t.Object({
  modlog_id: t.String({ format: "uuid" }),
  source_kind: t.String(),
  source: t.String(),
  source_id: t.String({ format: "uuid" }),
  action: t.String(),
  target_kind: t.String(),
  target_id: Nullable(t.String({ format: "uuid" })),
  cascaded_report_ids: t.Array(t.String({ format: "uuid" })),
  reason_id: Nullable(t.String({ format: "uuid" })),
});

const ModQueueBulkOut = t.Object({
  succeeded: t.Array(ModQueueActionResultOut),
  failed: t.Array(t.Object({ source_kind: t.String(), source: t.String(), source_id: t.String(), action: t.String(), code: t.String(), message: t.String() })),
});


/** The deprecated body spellings (source_kind, ban_duration_days) of one action. */
const renameBody = (body: unknown, set: { headers: Record<string, unknown> }) => {
  if (body && typeof body === "object" && !Array.isArray(body)) applyBodyDeprecations("ModQueueActionRequest", body as Record<string, unknown>, set);
};

const ERRORS = { 401: ErrorOut, 403: ErrorOut, 404: ErrorOut };
const MODS_ONLY = "Moderators, colony admins, the founder and site admins only (403 FORBIDDEN); a private colony is 404 to non-members.";

/** The query of GET /api/v1/colonies/{colony_id}/queue (the MCP tool colony_get_mod_queue takes its filters). */
export const ModQueueQuery = t.Object({
  source: OptionalEnum(QUEUE_FILTER_SOURCES, { description: "Only rows of this source (deprecated spelling: source_kind); unmoderated and edited_post are accepted and always empty here" }),
  status: OptionalEnum(["open", "resolved"], { description: "open (default) or resolved; deprecated spelling: queue_status" }),
  sort: OptionalEnum(["newest", "oldest"], { description: "newest (default) or oldest first" }),
  ...pagingQuery(QUEUE_PAGING),
});

/** What GET /api/v1/colonies/{colony_id}/queue does (its OpenAPI description, also the MCP tool's). */
export const MOD_QUEUE_DESCRIPTION =
  "The colony's unified moderation queue: held posts (pending_post), reports (open_report), automod removals (automod_removed_post, automod_removed_comment), posts automod holds for review (automod_filtered_post) " +
  "and quarantined XSS probes (xss_probe_quarantined). status=resolved lists the rows already settled (newest first by when they were opened). " +
  "chip_counts holds the open rows per source whatever the filter; pending_appeal_count the colony's pending ban appeals. " +
  "limit 1-100 (default 25; deprecated page_size), offset, or page (page and offset together are a 400 unless they agree). " +
  MODS_ONLY;

/** What POST /api/v1/colonies/{colony_id}/queue/action does (its OpenAPI description, also the MCP tool's). */
export const MOD_QUEUE_ACTION_DESCRIPTION =
  "Apply one action to one queue row, named by source and source_id. By source: pending_post and automod_filtered_post take approve, reject, remove, lock, ban_author; " +
  "open_report takes approve (keep the content: every open report on it is dismissed), dismiss, remove, lock, ban_author; automod_removed_post takes restore, confirm_removal, lock, ban_author; " +
  "automod_removed_comment and xss_probe_quarantined take restore, confirm_removal, ban_author. Another pair is 400 INVALID_INPUT. " +
  "Removing content (remove, reject, confirm_removal) resolves the other open rows about it and marks their reports resolved (cascaded_report_ids). " +
  "lock and ban_author leave the row open; ban_author needs duration_days 1, 7 or 30 (400 INVALID_INPUT otherwise) and can_ban. modlog_id is the audit row written. " +
  "404 NOT_FOUND for a row the colony does not have; 409 CONFLICT when it is already resolved. " +
  MODS_ONLY;

export const queueRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/colonies", tags: ["colonies"] })
    .use(authPlugin(ctx))
    .use(automodRoutes(ctx))
    .use(activityRoutes(ctx))
    .get(
      "/:colony_id/queue",
      ({ caller, params, query }) => {
        const page = resolvePage(query, QUEUE_PAGING);
        return queuePageOut(listQueue(ctx, caller, params.colony_id, { status: query.status, source: query.source, sort: query.sort }, page), page);
      },
      {
        auth: "required",
        params: ColonyIdParams,
        query: ModQueueQuery,
        response: { 200: ModQueueListOut, 400: ErrorOut, ...ERRORS },
        detail: {
          summary: "Get Mod Queue",
          description: MOD_QUEUE_DESCRIPTION,
        },
      },
    )
    .post(
      "/:colony_id/queue/action",
      ({ caller, params, body }) => resultOut(act(ctx, caller, params.colony_id, body as QueueActionInput)),
      {
        auth: "required",
        params: ColonyIdParams,
        transform: ({ body, set }) => renameBody(body, set),
        body: ModQueueActionRequest,
        response: { 200: ModQueueActionResultOut, 400: ErrorOut, 409: ErrorOut, ...ERRORS },
        detail: {
          summary: "Post Mod Queue Action",
          description: MOD_QUEUE_ACTION_DESCRIPTION,
        },
      },
    )
    .post(
      "/:colony_id/queue/bulk-action",
      ({ caller, params, body }) => {
        const r = bulkAct(ctx, caller, params.colony_id, body.items as QueueActionInput[], body);
        return { succeeded: r.succeeded.map(resultOut), failed: r.failed.map((f) => ({ ...f, source_kind: f.source })) };
      },
      {
        auth: "required",
        params: ColonyIdParams,
        transform: ({ body, set }) => {
          const items = (body as { items?: unknown } | null)?.items;
          if (Array.isArray(items)) for (const item of items) renameBody(item, set);
        },
        body: t.Object({
          items: t.Array(ModQueueActionRequest, { minItems: 1, maxItems: BULK_MAX }),
          reason_id: t.Optional(Nullable(t.String({ format: "uuid" }))),
          reason_text: t.Optional(Nullable(t.String({ maxLength: 2000 }))),
        }),
        response: { 200: ModQueueBulkOut, ...ERRORS },
        detail: {
          summary: "Post Mod Queue Bulk Action",
          description:
            "Apply up to 100 actions (each as in queue/action) in one transaction. Partial success: an item that is refused is reported in `failed` with its code and message and changes nothing, the rest commits. " +
            "reason_id and reason_text apply to the items that carry none. " +
            MODS_ONLY,
        },
      },
    );
