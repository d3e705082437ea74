// Mod activity (spec Part 2 §4.2; docs/decisions.md §43): the moderation team's work over a
// window of 7, 30 or 90 days (any other value snaps to 30), read from the audit trail
// (colony_mod_log), and the queue's current backlog.
import { DAY } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { pendingAppealCount } from "../colonies/appeals";
import { modLogSince } from "../colonies/audit";
import { moderatedColony } from "../colonies/permissions";
import type { Actor } from "../colonies/service";
import * as users from "../users/service";
import { openCounts } from "./queue-store";

export const WINDOWS = [7, 30, 90] as const;
export const snapWindow = (days: number | undefined) => ((WINDOWS as readonly number[]).includes(days ?? 30) ? days! : 30);

const REMOVALS = new Set(["queue_remove", "queue_reject", "queue_confirm_removal", "remove_member"]);
const APPROVALS = new Set(["queue_approve", "queue_restore", "approve_member"]);
const DISMISSALS = new Set(["queue_dismiss"]);
const BANS = new Set(["ban", "queue_ban_author", "unban"]);

export interface ModActivity {
  colonyId: string;
  windowDays: number;
  since: number;
  generatedAt: number;
  health: { openTotal: number; openBySource: Record<string, number>; pendingAppeals: number; resolvedInWindow: number; medianResolutionSeconds: number | null };
  automodActions: number;
  totalActions: number;
  mods: { userId: string; username: string | null; total: number; removals: number; approvals: number; dismissals: number; bans: number; other: number; lastActionAt: number }[];
  hourly: number[];
}

const median = (xs: number[]): number | null => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

export function modActivity(ctx: Ctx, caller: Actor, colonyId: string, windowDays: number | undefined): ModActivity {
  const colony = moderatedColony(ctx, caller, colonyId);
  const days = snapWindow(windowDays);
  const now = ctx.clock.now();
  const since = now - days * DAY;
  const log = modLogSince(ctx, colony.id, since);
  const hourly = new Array<number>(24).fill(0);
  const perMod = new Map<string, ModActivity["mods"][number]>();
  const resolutions: number[] = [];
  let automodActions = 0;
  for (const row of log) {
    if (row.openedAt !== null && row.actorId !== null) resolutions.push(Math.max(0, row.createdAt - row.openedAt) / 1000);
    if (row.actorId === null) {
      automodActions++;
      continue;
    }
    hourly[new Date(row.createdAt).getUTCHours()]++;
    let m = perMod.get(row.actorId);
    if (!m) perMod.set(row.actorId, (m = { userId: row.actorId, username: null, total: 0, removals: 0, approvals: 0, dismissals: 0, bans: 0, other: 0, lastActionAt: row.createdAt }));
    m.total++;
    m.lastActionAt = Math.max(m.lastActionAt, row.createdAt);
    if (REMOVALS.has(row.action)) m.removals++;
    else if (APPROVALS.has(row.action)) m.approvals++;
    else if (DISMISSALS.has(row.action)) m.dismissals++;
    else if (BANS.has(row.action)) m.bans++;
    else m.other++;
  }
  const names = users.findManyByIds(ctx, [...perMod.keys()]);
  const mods = [...perMod.values()].map((m) => ({ ...m, username: names.get(m.userId)?.username ?? null })).sort((a, b) => b.total - a.total || a.userId.localeCompare(b.userId));
  const open = openCounts(ctx, colony.id);
  return {
    colonyId: colony.id,
    windowDays: days,
    since,
    generatedAt: now,
    health: {
      openTotal: Object.values(open).reduce((a, b) => a + b, 0),
      openBySource: open,
      pendingAppeals: pendingAppealCount(ctx, colony.id),
      resolvedInWindow: resolutions.length,
      medianResolutionSeconds: median(resolutions),
    },
    automodActions,
    totalActions: log.length - automodActions,
    mods,
    hourly,
  };
}
