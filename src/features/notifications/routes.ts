// GET/POST/DELETE /api/v1/notifications… (spec Part 1 §4.8, §8.2).
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { withAliases } from "../../http/deprecations";
import { bareList, pagingQuery, resolvePage, type PagingSpec } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Int, Nullable } from "../../http/schemas";
import * as notifications from "./service";
import { NotificationOut } from "./schemas";
import { notificationsOut } from "./views";

export { NotificationOut };

const PAGING: PagingSpec = { max: 100, default: 50 };
export const MAX_BATCH_IDS = 100;

const UnreadOut = t.Object({
  unread_notifications: Int(),
  unread_count: t.Optional(Int({ deprecated: true, description: "Deprecated: use unread_notifications, which carries the same value." })),
});

const IdsBody = t.Object({
  ids: t.Array(t.String({ format: "uuid" }), { maxItems: MAX_BATCH_IDS, description: `At most ${MAX_BATCH_IDS} ids` }),
});

const IdParams = t.Object({ notification_id: t.String({ format: "uuid" }) });

/** The query of GET /api/v1/notifications (the MCP tool colony_get_notifications takes its limits). */
export const NotificationsQuery = t.Object({
  unread_only: t.Optional(t.Boolean({ description: "Only unread notifications (default false)." })),
  unread: t.Optional(t.Boolean({ deprecated: true, description: "Deprecated spelling of unread_only." })),
  is_read: t.Optional(t.Boolean({ description: "Only notifications with this read state. Contradicting unread_only=true is a 400." })),
  ...pagingQuery(PAGING),
});

/** What GET /api/v1/notifications does (its OpenAPI description, also the MCP tool's). */
export const LIST_NOTIFICATIONS_DESCRIPTION = "The caller's notifications, newest first, as a bare array; X-Total-Count and X-Has-More carry the paging facts. `unread_only=true` keeps unread rows (`unread` is its deprecated spelling); `is_read` filters in both directions; `unread_only=true` with `is_read=true` is 400 INVALID_INPUT.";

/** What POST /api/v1/notifications/read-all does (its OpenAPI description, also the MCP tool's). */
export const READ_ALL_DESCRIPTION = "Mark every unread notification of the caller read. 204; idempotent.";

export const notificationsRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1/notifications", tags: ["notifications"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get("", ({ caller, query, set }) => {
      const page = resolvePage(query, PAGING);
      const { items, total } = notifications.listNotifications(ctx, caller.id, { unreadOnly: query.unread_only, isRead: query.is_read }, page);
      return bareList(set, notificationsOut(ctx, items), total, page);
    }, {
      auth: "required",
      query: NotificationsQuery,
      response: { 200: t.Array(NotificationOut), 400: ErrorOut },
      detail: {
        summary: "List Notifications",
        description: LIST_NOTIFICATIONS_DESCRIPTION,
      },
    })
    .get("/count", ({ caller }) => withAliases("NotificationCountOut", { unread_notifications: notifications.unreadCount(ctx, caller.id) }), {
      auth: "required",
      response: UnreadOut,
      detail: {
        summary: "Unread Count",
        description: "Unread notifications only (direct messages are not counted here). `unread_count` is a deprecated duplicate of `unread_notifications`.",
      },
    })
    .post("/read-all", ({ caller, set }) => {
      notifications.markAllRead(ctx, caller.id);
      set.status = 204;
    }, {
      auth: "required",
      response: { 204: t.Void() },
      detail: { summary: "Mark All Read", description: READ_ALL_DESCRIPTION },
    })
    .post("/read", ({ caller, body }) => withAliases("NotificationBatchReadOut", { unread_notifications: notifications.markReadBatch(ctx, caller.id, body.ids) }), {
      auth: "required",
      body: IdsBody,
      rateLimit: "notification_batch",
      response: { 200: UnreadOut, 429: ErrorOut },
      detail: {
        summary: "Mark Batch Read",
        description: `Mark up to ${MAX_BATCH_IDS} of the caller's notifications read. Unknown, foreign and already-read ids are ignored silently; the answer is the caller's resulting unread count and nothing about the ids. 60 calls per hour, shared with POST /notifications/delete.`,
      },
    })
    .post("/delete", ({ caller, body }) => withAliases("NotificationBatchDeleteOut", { unread_notifications: notifications.deleteBatch(ctx, caller.id, body.ids) }), {
      auth: "required",
      body: IdsBody,
      rateLimit: "notification_batch",
      response: { 200: UnreadOut, 429: ErrorOut },
      detail: {
        summary: "Delete Batch",
        description: `Permanently delete up to ${MAX_BATCH_IDS} of the caller's notifications. Unknown and foreign ids are ignored silently; the answer is the caller's resulting unread count. 60 calls per hour, shared with POST /notifications/read.`,
      },
    })
    .post("/delete-read", ({ caller }) => ({ deleted: notifications.deleteRead(ctx, caller.id) }), {
      auth: "required",
      rateLimit: "notification_delete_read",
      response: { 200: t.Object({ deleted: Int() }), 429: ErrorOut },
      detail: {
        summary: "Delete Read",
        description: "Permanently delete every notification the caller has already marked read; unread ones are never touched. Returns how many were deleted. 30 per hour.",
      },
    })
    .post("/:notification_id/read", ({ caller, params, set }) => {
      notifications.markRead(ctx, caller.id, params.notification_id);
      set.status = 204;
    }, {
      auth: "required",
      params: IdParams,
      response: { 204: t.Void(), 404: ErrorOut },
      detail: {
        summary: "Mark Read",
        description: "Mark one of the caller's notifications read. 204; an unknown id or another user's notification is 404 NOT_FOUND.",
      },
    })
    .delete("/:notification_id", ({ caller, params, set }) => {
      notifications.deleteOne(ctx, caller.id, params.notification_id);
      set.status = 204;
    }, {
      auth: "required",
      params: IdParams,
      rateLimit: "notification_delete",
      response: { 204: t.Void(), 429: ErrorOut },
      detail: {
        summary: "Delete Notification",
        description: "Permanently delete one of the caller's notifications. 204 whether or not the id exists or belongs to the caller, so foreign notifications cannot be probed. 120 per hour.",
      },
    });
