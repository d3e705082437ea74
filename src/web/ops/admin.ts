// The operator dashboard (/admin), drawn from the services the API and `colony admin …` use: who
// may see it (site admins only; anyone else signed in gets the 404 page), the dashboard itself,
// and the dashboard again with a refusal.
import { DAY } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { API_VERSION } from "../../core/version";
import * as bugs from "../../features/bugs/service";
import { BUG_STATUSES, type BugStatus } from "../../features/bugs/statuses";
import { registrationMode } from "../../features/instance/service";
import { checkHealth } from "../../features/meta/health";
import { listInvites } from "../../features/sessions/invites";
import { pendingPersonReportCount } from "../../features/reports/service";
import { platformStats } from "../../features/stats/service";
import * as users from "../../features/users/service";
import { isSuspended } from "../../features/users/suspension";
import { deliveryHealth } from "../../features/webhooks/service";
import { listBackupFiles, manualBackupState } from "../../ops/manual-backup";
import { sync } from "../layout";
import { AdminPage, type AdminView } from "../pages/ops";
import { failure, isSignedIn, page, toSignIn, type SignedInWeb, type Web } from "../session";
import { frameOf, notFound } from "./frame";

/** What the dashboard's address names: an account to look up, and the bug reports to list. */
export interface AdminInput {
  user?: string;
  bugs?: string;
}

const BUG_FILTERS = ["all", ...BUG_STATUSES] as const;

function adminView(ctx: Ctx, web: SignedInWeb, input: AdminInput, more: Partial<AdminView>): AdminView {
  const caller = web.viewer.caller;
  const query = (input.user ?? "").trim().slice(0, 64);
  const user = query ? users.findByUsername(ctx, users.normaliseUsername(query)) : null;
  const suspended = user && isSuspended(user, ctx.clock.now()) ? { since: user.suspendedAt!, until: user.suspendedUntil, reason: user.suspensionReason } : null;
  const found = query ? { query, user, suspension: suspended } : null;
  const listed = listInvites(ctx, caller);
  const filter = (BUG_FILTERS as readonly string[]).includes(input.bugs ?? "") ? (input.bugs as string) : "open";
  const rows = bugs.listForTriage(ctx, filter === "all" ? null : (filter as BugStatus), 100);
  const names = users.findManyByIds(ctx, [...new Set([...listed.flatMap((i) => (i.usedBy ? [i.usedBy] : [])), ...rows.map((r) => r.userId)])]);
  const invites = listed.map((i) => ({ ...i, usedByName: i.usedBy ? (names.get(i.usedBy)?.username ?? null) : null }));
  const reports = rows.map((r) => ({ ...r, reporter: names.get(r.userId)?.username ?? null }));
  const state = manualBackupState(ctx);
  return {
    health: checkHealth(ctx),
    version: API_VERSION,
    stats: platformStats(ctx),
    registration: registrationMode(ctx),
    found,
    rotated: null,
    invites,
    newInvite: null,
    webhooks: deliveryHealth(ctx, ctx.clock.now() - DAY),
    backups: listBackupFiles(ctx),
    backup: { stats: state.stats, startedAt: state.startedAt, running: state.running !== null, dir: ctx.config.backupDir, cron: ctx.config.backupCron, keep: ctx.config.backupKeep },
    bugs: reports,
    bugFilter: filter,
    personReports: pendingPersonReportCount(ctx),
    viewerId: caller.id,
    ...more,
  };
}

/** The dashboard page (`more`: what an action adds to it, such as a secret shown once). */
export const adminPage = (ctx: Ctx, web: SignedInWeb, status = 200, input: AdminInput = {}, more: Partial<AdminView> = {}, headers: Record<string, string> = {}) =>
  page(web, sync(AdminPage({ frame: frameOf(web), view: adminView(ctx, web, input, more) })), status, headers);

/** The dashboard again with a refusal's status and message. */
export function adminRefused(ctx: Ctx, web: SignedInWeb, err: unknown, input: AdminInput = {}): Response {
  const f = failure(err);
  return adminPage(ctx, web, f.status, input, { error: f.message }, f.headers);
}

/** Runs `fn` for a signed-in site admin; the sign-in page for anonymous visitors, the 404 page for anyone else. */
export function asAdmin(web: Web, fn: (web: SignedInWeb) => Response | Promise<Response>) {
  if (!isSignedIn(web)) return toSignIn(web, "/admin");
  if (!web.viewer.caller.isAdmin) return notFound(web);
  return fn(web);
}
