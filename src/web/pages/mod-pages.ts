// The moderation pages (/mod and /c/<colony>/mod/…): plain, semantic HTML built with escapeHtml
// around the site's layout, one form per action (docs/decisions.md §161). Every value that comes
// from the database or the request is escaped here; the routes (web/mod-routes.ts) call the
// moderation services as the signed-in moderator and hand these functions what they returned.
import { iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import type { AppealRow, PendingAppeal } from "../../features/colonies/appeals";
import type { BanListing } from "../../features/colonies/bans";
import type { ModQueueRow } from "../../features/colonies/mod-queue";
import { settingsOf, type ColonyRow } from "../../features/colonies/service";
import type { MemberStrikes } from "../../features/colonies/strikes";
import { MOD_QUEUE_SOURCES, type ModQueueSource } from "../../features/colonies/tables";
import type { InviteRow } from "../../features/moderation/invites";
import { ADMISSIBLE, QUEUE_FILTER_SOURCES, type QueueListing } from "../../features/moderation/queue-service";
import type { UserRow } from "../../features/users/service";
import { escapeHtml } from "../account-layout";
import { Page } from "../layout";
import { moderatesSomething } from "../moderates";
import type { Web } from "../session";

export { escapeHtml };


export const when = (ms: number) => `<time datetime="${iso(ms)}">${iso(ms).slice(0, 16).replace("T", " ")} UTC</time>`;
export const csrfInput = (web: Web) => `<input type="hidden" name="csrf" value="${escapeHtml(web.csrf)}">`;
const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
export const alertOf = (error?: string | null) => (error ? `<p role="alert" class="flash bad"><strong>${escapeHtml(error)}</strong></p>` : "");
export const statusOf = (notice?: string | null) => (notice ? `<p role="status" class="flash">${escapeHtml(notice)}</p>` : "");

/** A one-button form (`fields` is HTML already escaped by its maker). */
export const button = (web: Web, action: string, label: string, fields = "", cls = "") =>
  `<form method="post" action="${escapeHtml(action)}" class="inline">${csrfInput(web)}${fields}<button type="submit"${cls ? ` class="${cls}"` : ""}>${escapeHtml(label)}</button></form>`;

/** A whole page in the site's layout; `body` is HTML already escaped by its maker. */
export function shell(ctx: Ctx, web: Web, title: string, body: string): string {
  const u = web.viewer?.user;
  const viewer = u ? { username: u.username, displayName: u.displayName, isAdmin: u.isAdmin, moderates: moderatesSomething(ctx, u) } : null;
  return Page({ title, viewer, csrf: web.csrf, noindex: true, children: body });
}

const TABS = [
  ["", "Queue"],
  ["/reports", "Reports"],
  ["/bans", "Bans"],
  ["/strikes", "Strikes"],
  ["/appeals", "Appeals"],
  ["/automod", "Automod"],
  ["/invites", "Invites"],
  ["/settings", "Settings"],
] as const;

export type ModTab = (typeof TABS)[number][0];

export const modBase = (colony: ColonyRow) => `/c/${encodeURIComponent(colony.name)}/mod`;

/** A page of one colony's moderation: its heading, the section tabs and the section. */
export function colonyModPage(ctx: Ctx, web: Web, colony: ColonyRow, tab: ModTab, title: string, body: string, flash: { error?: string | null; notice?: string | null } = {}): string {
  const base = modBase(colony);
  const tabs = TABS.map(([path, label]) => `<a href="${base}${path}"${path === tab ? ' aria-current="page"' : ""}>${label}</a>`).join(" ");
  const head =
    `<p class="meta"><a href="/mod">Moderation</a> › <a href="/c/${encodeURIComponent(colony.name)}">c/${escapeHtml(colony.name)}</a></p>` +
    `<h1>${escapeHtml(title)} · ${escapeHtml(colony.displayName)}</h1><nav aria-label="Moderation sections" class="tabs">${tabs}</nav>`;
  return shell(ctx, web, `${title} · c/${colony.name}`, `<section class="mod">${head}${statusOf(flash.notice)}${alertOf(flash.error)}${body}</section>`);
}

// ---- /mod

export interface ModHomeColony {
  colony: { id: string; name: string; displayName: string; role: string };
  open: number;
  appeals: number;
}

export function modHomePage(ctx: Ctx, web: Web, rows: ModHomeColony[], invites: { invite: InviteRow; colony: ColonyRow }[], flash: { error?: string | null; notice?: string | null } = {}): string {
  const list = rows.length
    ? `<table class="grid"><caption class="vh">Colonies you moderate</caption><thead><tr><th scope="col">Colony</th><th scope="col">Your role</th><th scope="col">Open items</th><th scope="col">Pending appeals</th></tr></thead><tbody>` +
      rows
        .map(
          (r) =>
            `<tr><td><a href="/c/${encodeURIComponent(r.colony.name)}/mod">${escapeHtml(r.colony.displayName)}</a> <small>c/${escapeHtml(r.colony.name)}</small></td><td>${escapeHtml(r.colony.role.replace("_", " "))}</td><td>${r.open}</td><td>${r.appeals}</td></tr>`,
        )
        .join("") +
      `</tbody></table>`
    : `<p class="empty">You moderate no colony.${web.viewer?.user.isAdmin ? " As a site admin you may open any colony's moderation at /c/&lt;name&gt;/mod." : ""}</p>`;
  const inv = invites.length
    ? `<h2>Invitations to moderate</h2><ul class="rows">` +
      invites
        .map(
          ({ invite, colony }) =>
            `<li>c/${escapeHtml(colony.name)}: ${escapeHtml(invite.roleOffered)}, until ${when(invite.expiresAt)} ` +
            button(web, `/mod/invites/${encodeURIComponent(invite.id)}/accept`, `Accept: moderate c/${colony.name}`) +
            button(web, `/mod/invites/${encodeURIComponent(invite.id)}/decline`, `Decline c/${colony.name}`) +
            `</li>`,
        )
        .join("") +
      `</ul>`
    : "";
  return shell(ctx, web, "Moderation", `<section class="mod"><h1>Moderation</h1>${statusOf(flash.notice)}${alertOf(flash.error)}${list}${inv}</section>`);
}

// ---- the queue

const SOURCE_LABELS: Record<string, string> = {
  pending_post: "Awaiting approval",
  open_report: "Reported",
  automod_removed_post: "Post removed by automod",
  automod_removed_comment: "Comment removed by automod",
  automod_filtered_post: "Post held by automod",
  xss_probe_quarantined: "Quarantined (script probe)",
  unmoderated: "Unmoderated",
  edited_post: "Edited post",
};
const ACTION_LABELS: Record<string, string> = {
  approve: "Approve",
  reject: "Reject",
  remove: "Remove",
  dismiss: "Dismiss the report",
  restore: "Restore",
  confirm_removal: "Confirm removal",
  lock: "Lock the thread",
  ban_author: "Ban the author",
};

export interface QueueFilters {
  status: "open" | "resolved";
  source: (typeof QUEUE_FILTER_SOURCES)[number] | null;
  page: number;
}

const option = (value: string, label: string, selected: boolean) => `<option value="${escapeHtml(value)}"${selected ? " selected" : ""}>${escapeHtml(label)}</option>`;

function queueItem(web: Web, colony: ColonyRow, row: ModQueueRow, authors: Map<string, UserRow>, back: string): string {
  const author = row.authorId ? authors.get(row.authorId) : null;
  const where = row.postId ? `<a href="/post/${encodeURIComponent(row.postId)}">the ${row.targetType === "comment" ? "comment's post" : "post"}</a>` : escapeHtml(row.targetType);
  const p = row.payload ?? {};
  const reason = typeof p.reason === "string" ? `<br>Reason: ${escapeHtml(p.reason)}` : "";
  const head = `<p><strong>${escapeHtml(SOURCE_LABELS[row.source] ?? row.source)}</strong> · ${where} · by ${author ? `<a href="/u/${encodeURIComponent(author.username)}">${escapeHtml(author.username)}</a>` : "[unknown]"} · ${when(row.createdAt)}${reason}</p>`;
  const excerpt = row.excerpt ? `<blockquote>${escapeHtml(row.excerpt)}</blockquote>` : "";
  if (row.status !== "open") return `<li class="item">${head}${excerpt}<p class="meta">Resolved: ${escapeHtml(row.resolution ?? "")}${row.resolvedAt ? ` · ${when(row.resolvedAt)}` : ""}</p></li>`;
  const id = `q-${row.id}`;
  const actions = ADMISSIBLE[row.source as ModQueueSource] ?? [];
  const form =
    `<form method="post" action="${modBase(colony)}/queue/action" class="act">${csrfInput(web)}${hidden("source", row.source)}${hidden("source_id", row.sourceId)}${hidden("back", back)}` +
    `<label for="${id}-action">Action</label> <select id="${id}-action" name="action">${actions.map((a) => option(a, ACTION_LABELS[a] ?? a, false)).join("")}</select> ` +
    `<label for="${id}-reason">Reason (optional)</label> <input id="${id}-reason" type="text" name="reason_text" maxlength="500"> ` +
    (actions.includes("ban_author")
      ? `<label for="${id}-days">Ban for</label> <select id="${id}-days" name="duration_days">${option("1", "1 day", false)}${option("7", "7 days", true)}${option("30", "30 days", false)}</select> `
      : "") +
    `<button type="submit">Apply</button></form>`;
  return `<li class="item">${head}${excerpt}${form}</li>`;
}

export function queuePage(ctx: Ctx, web: Web, r: QueueListing, f: QueueFilters, opts: { tab: ModTab; perPage: number; error?: string | null; notice?: string | null }): string {
  const colony = r.colony;
  const base = modBase(colony) + opts.tab;
  const chips = MOD_QUEUE_SOURCES.map((s) => `<li><a href="${modBase(colony)}?source=${s}">${escapeHtml(SOURCE_LABELS[s])}</a>: ${r.chips[s]}</li>`).join("");
  const appeals = r.pendingAppeals ? `<li><a href="${modBase(colony)}/appeals">Pending appeals</a>: ${r.pendingAppeals}</li>` : "";
  const filters =
    opts.tab === ""
      ? `<form method="get" action="${base}" class="filters"><label for="f-status">Status</label> <select id="f-status" name="status">${option("open", "Open", f.status === "open")}${option("resolved", "Resolved", f.status === "resolved")}</select> ` +
        `<label for="f-source">Source</label> <select id="f-source" name="source">${option("", "All sources", !f.source)}${QUEUE_FILTER_SOURCES.map((s) => option(s, SOURCE_LABELS[s] ?? s, f.source === s)).join("")}</select> <button type="submit">Filter</button></form>`
      : `<form method="get" action="${base}" class="filters"><label for="f-status">Status</label> <select id="f-status" name="status">${option("open", "Open", f.status === "open")}${option("resolved", "Resolved", f.status === "resolved")}</select> <button type="submit">Filter</button></form>`;
  const query = (page: number) => {
    const q = new URLSearchParams();
    if (f.status !== "open") q.set("status", f.status);
    if (f.source && opts.tab === "") q.set("source", f.source);
    if (page > 1) q.set("page", String(page));
    const s = q.toString();
    return s ? `${base}?${s}` : base;
  };
  const back = query(f.page);
  const items = r.items.length ? `<ol class="rows">${r.items.map((i) => queueItem(web, colony, i, r.authors, back)).join("")}</ol>` : `<p class="empty">Nothing ${f.status === "open" ? "waits here" : "was resolved here yet"}.</p>`;
  const pages = Math.max(1, Math.ceil(r.total / opts.perPage));
  const pager =
    pages > 1
      ? `<nav class="pager" aria-label="Pages">${f.page > 1 ? `<a href="${escapeHtml(query(f.page - 1))}" rel="prev">Newer</a>` : ""} Page ${f.page} of ${pages} ${f.page < pages ? `<a href="${escapeHtml(query(f.page + 1))}" rel="next">Older</a>` : ""}</nav>`
      : "";
  const title = opts.tab === "/reports" ? "Reports" : "Queue";
  const summary = `<h2 class="vh">Open items by source</h2><ul class="chips">${chips}${appeals}</ul>`;
  return colonyModPage(ctx, web, colony, opts.tab, title, `${summary}${filters}<h2>${r.total} ${f.status} item${r.total === 1 ? "" : "s"}</h2>${items}${pager}`, opts);
}

// ---- bans

export function bansPage(ctx: Ctx, web: Web, colony: ColonyRow, bans: BanListing[], flash: { error?: string | null; notice?: string | null; values?: Record<string, string> } = {}): string {
  const base = modBase(colony);
  const now = ctx.clock.now();
  const v = flash.values ?? {};
  const form =
    `<h2>Ban a member</h2><form method="post" action="${base}/bans" class="stack">${csrfInput(web)}` +
    `<p><label for="ban-user">Username</label><br><input id="ban-user" type="text" name="username" required maxlength="64" value="${escapeHtml(v.username ?? "")}"></p>` +
    `<p><label for="ban-days">Length</label><br><select id="ban-days" name="duration_days">${option("1", "1 day", v.duration_days === "1")}${option("7", "7 days", v.duration_days === "7")}${option("30", "30 days", v.duration_days === "30")}${option("", "Permanent", v.duration_days === "")}</select></p>` +
    `<p><label for="ban-reason">Reason (optional; the member is told)</label><br><input id="ban-reason" type="text" name="reason" maxlength="500" value="${escapeHtml(v.reason ?? "")}"></p>` +
    `<p><button type="submit">Ban</button></p></form>`;
  const rows = bans.length
    ? `<table class="grid"><caption class="vh">Bans</caption><thead><tr><th scope="col">Member</th><th scope="col">Since</th><th scope="col">Until</th><th scope="col">Reason</th><th scope="col"><span class="vh">Action</span></th></tr></thead><tbody>` +
      bans
        .map(({ ban, user }) => {
          const name = user?.username ?? "[deleted]";
          const active = ban.expiresAt === null || ban.expiresAt > now;
          return (
            `<tr><td>${escapeHtml(name)}</td><td>${when(ban.createdAt)}</td><td>${ban.expiresAt === null ? "Permanent" : when(ban.expiresAt)}${active ? "" : " (ended)"}</td><td>${escapeHtml(ban.reason ?? "")}</td>` +
            `<td>${user && active ? button(web, `${base}/bans/${encodeURIComponent(user.username)}/unban`, `Unban ${name}`) : ""}</td></tr>`
          );
        })
        .join("") +
      `</tbody></table>`
    : `<p class="empty">Nobody is banned here.</p>`;
  return colonyModPage(ctx, web, colony, "/bans", "Bans", `${form}<h2>Banned</h2>${rows}`, flash);
}

// ---- strikes

export function strikesPage(ctx: Ctx, web: Web, colony: ColonyRow, look: { username: string; strikes: MemberStrikes | null }, flash: { error?: string | null; notice?: string | null; values?: Record<string, string> } = {}): string {
  const base = modBase(colony);
  const s = settingsOf(colony);
  const v = flash.values ?? {};
  const issue =
    `<p>At ${s.strike_threshold} active strikes a member is dealt the colony's strike action (${escapeHtml(s.strike_action.replace("_", " "))}). Minor strikes last 30 days, major ones 90.</p>` +
    `<h2>Give a strike</h2><form method="post" action="${base}/strikes" class="stack">${csrfInput(web)}` +
    `<p><label for="st-user">Username</label><br><input id="st-user" type="text" name="username" required maxlength="64" value="${escapeHtml(v.username ?? look.username)}"></p>` +
    `<p><label for="st-sev">Severity</label><br><select id="st-sev" name="severity">${option("minor", "Minor", v.severity !== "major")}${option("major", "Major", v.severity === "major")}</select></p>` +
    `<p><label for="st-reason">Reason (the member is told)</label><br><input id="st-reason" type="text" name="reason" required maxlength="500" value="${escapeHtml(v.reason ?? "")}"></p>` +
    `<p><button type="submit">Give the strike</button></p></form>`;
  const lookup =
    `<h2>A member's strikes</h2><form method="get" action="${base}/strikes" class="filters"><label for="st-look">Username</label> <input id="st-look" type="text" name="user" maxlength="64" value="${escapeHtml(look.username)}"> <button type="submit">Show</button></form>` +
    (look.strikes
      ? `<p>${look.strikes.activeCount} active of ${look.strikes.threshold}.</p>` +
        (look.strikes.strikes.length
          ? `<ul class="rows">${look.strikes.strikes.map((k) => `<li>${escapeHtml(k.severity)} · ${when(k.createdAt)}${k.expiresAt ? ` · until ${when(k.expiresAt)}` : ""}: ${escapeHtml(k.reason)}</li>`).join("")}</ul>`
          : `<p class="empty">No strikes.</p>`)
      : "");
  return colonyModPage(ctx, web, colony, "/strikes", "Strikes", issue + lookup, flash);
}

// ---- appeals

export function appealsPage(ctx: Ctx, web: Web, colony: ColonyRow, appeals: PendingAppeal[], flash: { error?: string | null; notice?: string | null } = {}): string {
  const base = modBase(colony);
  const items = appeals.length
    ? `<ol class="rows">` +
      appeals
        .map(({ appeal, user, ban }: { appeal: AppealRow; user: UserRow | null; ban: PendingAppeal["ban"] }) => {
          const id = `ap-${appeal.id}`;
          return (
            `<li class="item"><p><strong>${escapeHtml(user?.username ?? "[deleted]")}</strong> · filed ${when(appeal.createdAt)} · ${ban ? (ban.expiresAt === null ? "banned permanently" : `banned until ${when(ban.expiresAt)}`) : "no ban in force now"}</p>` +
            `<blockquote>${escapeHtml(appeal.body)}</blockquote>` +
            `<form method="post" action="${base}/appeals/${encodeURIComponent(appeal.id)}" class="act">${csrfInput(web)}` +
            `<label for="${id}-note">Note to the member (optional)</label> <input id="${id}-note" type="text" name="note" maxlength="1000"> ` +
            `<button type="submit" name="decision" value="accept">Accept and unban</button> <button type="submit" name="decision" value="reject">Reject</button></form></li>`
          );
        })
        .join("") +
      `</ol>`
    : `<p class="empty">No appeal waits for a decision.</p>`;
  return colonyModPage(ctx, web, colony, "/appeals", "Appeals", items, flash);
}

// ---- automod

export interface AutomodRuleView {
  id: string;
  name: string;
  scope: string;
  triggers: Record<string, unknown>;
  actions: Record<string, unknown>;
}

const describe = (o: Record<string, unknown>) =>
  Object.entries(o)
    .map(([k, v]) => `${k.replaceAll("_", " ")}: ${Array.isArray(v) ? v.join(", ") : String(v)}`)
    .join("; ");

export function automodPage(ctx: Ctx, web: Web, colony: ColonyRow, rules: AutomodRuleView[], flash: { error?: string | null; notice?: string | null; values?: Record<string, string> } = {}): string {
  const base = modBase(colony);
  const v = flash.values ?? {};
  const list = rules.length
    ? `<ol class="rows">${rules
        .map((r) => `<li class="item"><p><strong>${escapeHtml(r.name)}</strong> · ${escapeHtml(r.scope)}</p><p>When ${escapeHtml(describe(r.triggers))}</p><p>Then ${escapeHtml(describe(r.actions))}</p>${button(web, `${base}/automod/${encodeURIComponent(r.id)}/delete`, `Remove rule ${r.name}`)}</li>`)
        .join("")}</ol>`
    : `<p class="empty">No rules: nothing is filtered automatically.</p>`;
  const form =
    `<h2>Add a rule</h2><form method="post" action="${base}/automod" class="stack">${csrfInput(web)}` +
    `<p><label for="am-name">Name</label><br><input id="am-name" type="text" name="name" required maxlength="120" value="${escapeHtml(v.name ?? "")}"></p>` +
    `<p><label for="am-scope">Applies to</label><br><select id="am-scope" name="scope">${option("both", "Posts and comments", !v.scope || v.scope === "both")}${option("post", "Posts", v.scope === "post")}${option("comment", "Comments", v.scope === "comment")}</select></p>` +
    `<p><label for="am-title">Title matches (regular expression)</label><br><input id="am-title" type="text" name="title_regex" maxlength="500" value="${escapeHtml(v.title_regex ?? "")}"></p>` +
    `<p><label for="am-body">Body matches (regular expression)</label><br><input id="am-body" type="text" name="body_regex" maxlength="500" value="${escapeHtml(v.body_regex ?? "")}"></p>` +
    `<p><label for="am-domains">Links to any of these domains (comma separated)</label><br><input id="am-domains" type="text" name="has_link_domain" maxlength="1000" value="${escapeHtml(v.has_link_domain ?? "")}"></p>` +
    `<p><label for="am-karma">Author's karma below</label><br><input id="am-karma" type="number" min="0" name="author_karma_below" value="${escapeHtml(v.author_karma_below ?? "")}"></p>` +
    `<p><label for="am-action">Then</label><br><select id="am-action" name="action">${option("remove", "Remove it (to the queue)", !v.action || v.action === "remove")}${option("report_to_mods", "Report it to the moderators", v.action === "report_to_mods")}${option("lock", "Lock the thread", v.action === "lock")}${option("approve", "Approve it", v.action === "approve")}</select></p>` +
    `<p><label for="am-why">Reason told to the author (optional)</label><br><input id="am-why" type="text" name="notify_author_reason" maxlength="500" value="${escapeHtml(v.notify_author_reason ?? "")}"></p>` +
    `<p><button type="submit">Add the rule</button></p></form>`;
  return colonyModPage(ctx, web, colony, "/automod", "Automod", `<h2>Rules, in the order they run</h2>${list}${form}`, flash);
}

// ---- invites

export function invitesPage(ctx: Ctx, web: Web, colony: ColonyRow, invites: { invite: InviteRow; invitee: UserRow | null }[], flash: { error?: string | null; notice?: string | null; values?: Record<string, string> } = {}): string {
  const base = modBase(colony);
  const v = flash.values ?? {};
  const list = invites.length
    ? `<ul class="rows">${invites
        .map(({ invite, invitee }) => `<li>${escapeHtml(invitee?.username ?? "[deleted]")}: ${escapeHtml(invite.roleOffered)}, sent ${when(invite.createdAt)}, until ${when(invite.expiresAt)} ${button(web, `${base}/invites/${encodeURIComponent(invite.id)}/revoke`, `Withdraw the invitation of ${invitee?.username ?? "[deleted]"}`)}</li>`)
        .join("")}</ul>`
    : `<p class="empty">No invitation is outstanding.</p>`;
  const form =
    `<h2>Invite a moderator</h2><form method="post" action="${base}/invites" class="stack">${csrfInput(web)}` +
    `<p><label for="inv-user">Username</label><br><input id="inv-user" type="text" name="username" required maxlength="64" value="${escapeHtml(v.username ?? "")}"></p>` +
    `<p><label for="inv-role">Role</label><br><select id="inv-role" name="role">${option("moderator", "Moderator", v.role !== "admin")}${option("admin", "Colony admin (founder only)", v.role === "admin")}</select></p>` +
    `<p><button type="submit">Send the invitation</button></p></form>`;
  return colonyModPage(ctx, web, colony, "/invites", "Invites", `<p>An invitation lasts 7 days.</p>${list}${form}`, flash);
}

// ---- settings

export const EDITABLE_TEXT = ["display_name", "description", "rules", "welcome_message"] as const;
export const EDITABLE_FLAGS = ["requires_post_approval", "show_rules_banner", "require_flair", "lockdown"] as const;

const FLAG_LABELS: Record<(typeof EDITABLE_FLAGS)[number], string> = {
  requires_post_approval: "Hold every new post for approval",
  show_rules_banner: "Show the rules above the colony's posts",
  require_flair: "Posts must carry a flair",
  lockdown: "Lockdown: only moderators may post or comment",
};

export function settingsPage(ctx: Ctx, web: Web, colony: ColonyRow, flash: { error?: string | null; notice?: string | null } = {}): string {
  const base = modBase(colony);
  const s = settingsOf(colony);
  const text = (id: string, label: string, value: string, max: number, area = false) =>
    area
      ? `<p><label for="set-${id}">${label}</label><br><textarea id="set-${id}" name="${id}" rows="5" maxlength="${max}">${escapeHtml(value)}</textarea></p>`
      : `<p><label for="set-${id}">${label}</label><br><input id="set-${id}" type="text" name="${id}" maxlength="${max}" value="${escapeHtml(value)}"></p>`;
  const flags = EDITABLE_FLAGS.map((k) => `<p><input id="set-${k}" type="checkbox" name="${k}" value="on"${s[k] ? " checked" : ""}> <label for="set-${k}">${FLAG_LABELS[k]}</label></p>`).join("");
  const form =
    `<form method="post" action="${base}/settings" class="stack">${csrfInput(web)}` +
    text("display_name", "Display name", colony.displayName, 100) +
    text("description", "Description", colony.description ?? "", 1000, true) +
    text("rules", "Rules", s.rules ?? "", 10000, true) +
    text("welcome_message", "Welcome message for new members", s.welcome_message ?? "", 2000, true) +
    `<p><label for="set-type">Who may read and join</label><br><select id="set-type" name="community_type">${option("public", "Public", colony.communityType === "public")}${option("restricted", "Restricted: anyone reads, members need approval", colony.communityType === "restricted")}${option("private", "Private: approved members only", colony.communityType === "private")}</select></p>` +
    `<fieldset><legend>Rules of posting</legend>${flags}</fieldset>` +
    `<p><label for="set-threshold">Strikes before the strike action</label><br><input id="set-threshold" type="number" name="strike_threshold" min="1" max="100" value="${s.strike_threshold}"></p>` +
    `<p><label for="set-saction">Strike action</label><br><select id="set-saction" name="strike_action">${option("mute_7d", "Ban for 7 days", s.strike_action === "mute_7d")}${option("mute_30d", "Ban for 30 days", s.strike_action === "mute_30d")}${option("ban", "Ban permanently", s.strike_action === "ban")}</select></p>` +
    `<p><button type="submit">Save the settings</button></p></form>`;
  return colonyModPage(ctx, web, colony, "/settings", "Settings", form, flash);
}
