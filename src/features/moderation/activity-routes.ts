// GET /api/v1/colonies/{colony_id}/mod-activity (spec Part 2 §4.2). Mounted by queue-routes.ts.
import { Elysia, t } from "elysia";
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { ErrorOut, Int, Nullable, IntInput } from "../../http/schemas";
import { ColonyIdParams } from "../colonies/schemas";
import { modActivity } from "./activity-service";

const ModActivityOut = t.Object({
  colony_id: t.String({ format: "uuid" }),
  window_days: Int({ description: "7, 30 or 90: the window the figures cover" }),
  since: t.String({ format: "date-time" }),
  generated_at: t.String({ format: "date-time" }),
  health: t.Object({
    open_total: Int({ description: "Open queue rows now" }),
    open_by_source: t.Record(t.String(), Int(), { description: "Open queue rows now, per source (every source present)" }),
    pending_appeal_count: Int(),
    resolved_in_window: Int({ description: "Queue rows (and appeals) moderators resolved in the window" }),
    median_resolution_seconds: Nullable(t.Number({ description: "Median time from opening to resolution of those; null when none" })),
  }),
  total_actions: Int({ description: "Moderator actions in the window" }),
  automod_actions: Int({ description: "Actions the service took by itself in the window (automod, quarantines, timed bans lifting)" }),
  mods: t.Array(
    t.Object({
      user_id: t.String({ format: "uuid" }),
      username: Nullable(t.String()),
      total: Int(),
      removals: Int(),
      approvals: Int(),
      dismissals: Int(),
      bans: Int(),
      other: Int(),
      last_action_at: t.String({ format: "date-time" }),
    }),
    { description: "Per moderator, most active first" },
  ),
  hourly: t.Array(t.Object({ hour: Int({ description: "UTC hour of day, 0-23" }), actions: Int() }), { description: "Moderator actions in the window by UTC hour of day (24 buckets)" }),
});

export const activityRoutes = (ctx: Ctx) =>
  new Elysia({ tags: ["colonies"] }).use(authPlugin(ctx)).get(
    "/:colony_id/mod-activity",
    ({ caller, params, query }) => {
      const a = modActivity(ctx, caller, params.colony_id, query.window_days);
      return {
        colony_id: a.colonyId,
        window_days: a.windowDays,
        since: iso(a.since),
        generated_at: iso(a.generatedAt),
        health: {
          open_total: a.health.openTotal,
          open_by_source: a.health.openBySource,
          pending_appeal_count: a.health.pendingAppeals,
          resolved_in_window: a.health.resolvedInWindow,
          median_resolution_seconds: a.health.medianResolutionSeconds,
        },
        total_actions: a.totalActions,
        automod_actions: a.automodActions,
        mods: a.mods.map((m) => ({ user_id: m.userId, username: m.username, total: m.total, removals: m.removals, approvals: m.approvals, dismissals: m.dismissals, bans: m.bans, other: m.other, last_action_at: iso(m.lastActionAt) })),
        hourly: a.hourly.map((actions, hour) => ({ hour, actions })),
      };
    },
    {
      auth: "required",
      params: ColonyIdParams,
      query: t.Object({ window_days: t.Optional(IntInput({ default: 30, description: "7, 30 or 90 (default 30); any other value snaps to 30" })) }),
      response: { 200: ModActivityOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut },
      detail: {
        summary: "Get Mod Activity Dashboard",
        description:
          "The moderation team's activity and the queue's health, from the colony's audit trail. `health`: the open queue rows now (in total and per source), the pending appeals, " +
          "how many rows moderators resolved in the window and the median seconds from opening to resolution. `total_actions` and `automod_actions`: moderator actions and the service's own in the window. " +
          "`mods`: per moderator, their actions in the window split into removals (remove, reject, confirm_removal, remove_member), approvals (approve, restore, approve_member), dismissals, bans (ban, ban_author, unban) and other. " +
          "`hourly`: 24 buckets of moderator actions by UTC hour of day, to spot gaps in coverage. window_days 7, 30 or 90 (default 30; other values snap to 30). " +
          "Moderators, colony admins, the founder and site admins only (403 FORBIDDEN); a private colony is 404 to non-members.",
      },
    },
  );
