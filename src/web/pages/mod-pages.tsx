/** @jsxImportSource @kitajs/html */
// The moderation pages (/mod and /c/<colony>/mod/…): plain, semantic HTML around the site's
// layout, one form per action (docs/decisions.md §161). Every value that comes from the database
// or the request is escaped here (escapeHtml, as on the account pages); the routes (web/mod/)
// call the moderation services as the signed-in moderator and hand these functions what they
// returned.
import type { Children } from "@kitajs/html";
import type { Ctx } from "../../core/context";
import type { AppealRow, PendingAppeal } from "../../features/colonies/appeals";
import type { BanListing } from "../../features/colonies/bans";
import type { ModQueueRow } from "../../features/moderation/queue-store";
import { settingsOf, type ColonyRow } from "../../features/colonies/service";
import type { MemberStrikes } from "../../features/colonies/strikes";
import { MOD_QUEUE_SOURCES, type ModQueueSource } from "../../features/moderation/tables";
import type { InviteRow } from "../../features/moderation/invites";
import { ADMISSIBLE, QUEUE_FILTER_SOURCES, type QueueListing } from "../../features/moderation/queue-service";
import type { UserRow } from "../../features/users/service";
import { CsrfField, escapeHtml, Flash, Hidden, When, type FlashView } from "../account-layout";
import { Page } from "../layout";
import { moderatesSomething } from "../moderates";
import type { Web } from "../session";

export { escapeHtml, Flash, When, type FlashView };

/** A one-button form (`children`: its other fields). */
export function Button({ web, action, label, cls, children }: { web: Web; action: string; label: string; cls?: string; children?: Children }) {
  return (
    <form method="post" action={escapeHtml(action)} class="inline">
      <CsrfField csrf={web.csrf} />
      {children}
      <button type="submit" class={cls || undefined}>
        {escapeHtml(label)}
      </button>
    </form>
  );
}

/** A whole page in the site's layout. */
export function shell(ctx: Ctx, web: Web, title: string, body: Children): string {
  const u = web.viewer?.user;
  const viewer = u ? { username: u.username, displayName: u.displayName, isAdmin: u.isAdmin, moderates: moderatesSomething(ctx, u) } : null;
  return Page({ title, viewer, csrf: web.csrf, noindex: true, children: body });
}

/** Items with `sep` between them (the space between links of a line of text). */
const spaced = (items: JSX.Element[], sep = " "): JSX.Element[] => items.flatMap((item, i) => (i ? [sep, item] : [item]));

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

const Option = ({ value, label, selected }: { value: string; label: string; selected: boolean }) => (
  <option value={escapeHtml(value)} selected={selected}>
    {escapeHtml(label)}
  </option>
);

/** A page of one colony's moderation: its heading, the section tabs and the section. */
function colonyModPage(ctx: Ctx, web: Web, colony: ColonyRow, tab: ModTab, title: string, body: Children, flash: FlashView = {}): string {
  const base = modBase(colony);
  return shell(
    ctx,
    web,
    `${title} · c/${colony.name}`,
    <section class="mod">
      <p class="meta">
        <a href="/mod">Moderation</a> › <a href={`/c/${encodeURIComponent(colony.name)}`}>c/{escapeHtml(colony.name)}</a>
      </p>
      <h1>
        {escapeHtml(title)} · {escapeHtml(colony.displayName)}
      </h1>
      <nav aria-label="Moderation sections" class="tabs">
        {spaced(
          TABS.map(([path, label]) => (
            <a href={`${base}${path}`} aria-current={path === tab ? "page" : undefined}>
              {label}
            </a>
          )),
        )}
      </nav>
      <Flash notice={flash.notice} error={flash.error} />
      {body}
    </section>,
  );
}

// ---- /mod

export interface ModHomeColony {
  colony: { id: string; name: string; displayName: string; role: string };
  open: number;
  appeals: number;
}

export function modHomePage(ctx: Ctx, web: Web, rows: ModHomeColony[], invites: { invite: InviteRow; colony: ColonyRow }[], flash: FlashView = {}): string {
  return shell(
    ctx,
    web,
    "Moderation",
    <section class="mod">
      <h1>Moderation</h1>
      <Flash notice={flash.notice} error={flash.error} />
      {rows.length ? (
        <table class="grid">
          <caption class="vh">Colonies you moderate</caption>
          <thead>
            <tr>
              <th scope="col">Colony</th>
              <th scope="col">Your role</th>
              <th scope="col">Open items</th>
              <th scope="col">Pending appeals</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr>
                <td>
                  <a href={`/c/${encodeURIComponent(r.colony.name)}/mod`}>{escapeHtml(r.colony.displayName)}</a> <small>c/{escapeHtml(r.colony.name)}</small>
                </td>
                <td>{escapeHtml(r.colony.role.replace("_", " "))}</td>
                <td>{r.open}</td>
                <td>{r.appeals}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="empty">
          You moderate no colony.
          {web.viewer?.user.isAdmin ? " As a site admin you may open any colony's moderation at /c/&lt;name&gt;/mod." : ""}
        </p>
      )}
      {invites.length ? (
        <>
          <h2>Invitations to moderate</h2>
          <ul class="rows">
            {invites.map(({ invite, colony }) => (
              <li>
                c/{escapeHtml(colony.name)}: {escapeHtml(invite.roleOffered)}, until <When ms={invite.expiresAt} />{" "}
                <Button web={web} action={`/mod/invites/${encodeURIComponent(invite.id)}/accept`} label={`Accept: moderate c/${colony.name}`} />
                <Button web={web} action={`/mod/invites/${encodeURIComponent(invite.id)}/decline`} label={`Decline c/${colony.name}`} />
              </li>
            ))}
          </ul>
        </>
      ) : (
        ""
      )}
    </section>,
  );
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

function QueueItem({ web, colony, row, authors, back }: { web: Web; colony: ColonyRow; row: ModQueueRow; authors: Map<string, UserRow>; back: string }) {
  const author = row.authorId ? authors.get(row.authorId) : null;
  const p = row.payload ?? {};
  const head = (
    <p>
      <strong>{escapeHtml(SOURCE_LABELS[row.source] ?? row.source)}</strong>
      {" · "}
      {row.postId ? <a href={`/post/${encodeURIComponent(row.postId)}`}>the {row.targetType === "comment" ? "comment's post" : "post"}</a> : escapeHtml(row.targetType)}
      {" · by "}
      {author ? <a href={`/u/${encodeURIComponent(author.username)}`}>{escapeHtml(author.username)}</a> : "[unknown]"}
      {" · "}
      <When ms={row.createdAt} />
      {typeof p.reason === "string" ? (
        <>
          <br />
          Reason: {escapeHtml(p.reason)}
        </>
      ) : (
        ""
      )}
    </p>
  );
  const excerpt = row.excerpt ? <blockquote>{escapeHtml(row.excerpt)}</blockquote> : "";
  if (row.status !== "open") {
    return (
      <li class="item">
        {head}
        {excerpt}
        <p class="meta">
          Resolved: {escapeHtml(row.resolution ?? "")}
          {row.resolvedAt ? (
            <>
              {" · "}
              <When ms={row.resolvedAt} />
            </>
          ) : (
            ""
          )}
        </p>
      </li>
    );
  }
  const id = `q-${row.id}`;
  const actions = ADMISSIBLE[row.source as ModQueueSource] ?? [];
  return (
    <li class="item">
      {head}
      {excerpt}
      <form method="post" action={`${modBase(colony)}/queue/action`} class="act">
        <CsrfField csrf={web.csrf} />
        <Hidden name="source" value={row.source} />
        <Hidden name="source_id" value={row.sourceId} />
        <Hidden name="back" value={back} />
        <label for={`${id}-action`}>Action</label>{" "}
        <select id={`${id}-action`} name="action">
          {actions.map((a) => (
            <Option value={a} label={ACTION_LABELS[a] ?? a} selected={false} />
          ))}
        </select>{" "}
        <label for={`${id}-reason`}>Reason (optional)</label> <input id={`${id}-reason`} type="text" name="reason_text" maxlength="500" />{" "}
        {actions.includes("ban_author") ? (
          <>
            <label for={`${id}-days`}>Ban for</label>{" "}
            <select id={`${id}-days`} name="duration_days">
              <Option value="1" label="1 day" selected={false} />
              <Option value="7" label="7 days" selected={true} />
              <Option value="30" label="30 days" selected={false} />
            </select>{" "}
          </>
        ) : (
          ""
        )}
        <button type="submit">Apply</button>
      </form>
    </li>
  );
}

export function queuePage(ctx: Ctx, web: Web, r: QueueListing, f: QueueFilters, opts: { tab: ModTab; perPage: number; error?: string | null; notice?: string | null }): string {
  const colony = r.colony;
  const base = modBase(colony) + opts.tab;
  const query = (page: number) => {
    const q = new URLSearchParams();
    if (f.status !== "open") q.set("status", f.status);
    if (f.source && opts.tab === "") q.set("source", f.source);
    if (page > 1) q.set("page", String(page));
    const s = q.toString();
    return s ? `${base}?${s}` : base;
  };
  const back = query(f.page);
  const pages = Math.max(1, Math.ceil(r.total / opts.perPage));
  const title = opts.tab === "/reports" ? "Reports" : "Queue";
  const body = (
    <>
      <h2 class="vh">Open items by source</h2>
      <ul class="chips">
        {MOD_QUEUE_SOURCES.map((s) => (
          <li>
            <a href={`${modBase(colony)}?source=${s}`}>{escapeHtml(SOURCE_LABELS[s])}</a>: {r.chips[s]}
          </li>
        ))}
        {r.pendingAppeals ? (
          <li>
            <a href={`${modBase(colony)}/appeals`}>Pending appeals</a>: {r.pendingAppeals}
          </li>
        ) : (
          ""
        )}
      </ul>
      <form method="get" action={base} class="filters">
        <label for="f-status">Status</label>{" "}
        <select id="f-status" name="status">
          <Option value="open" label="Open" selected={f.status === "open"} />
          <Option value="resolved" label="Resolved" selected={f.status === "resolved"} />
        </select>{" "}
        {opts.tab === "" ? (
          <>
            <label for="f-source">Source</label>{" "}
            <select id="f-source" name="source">
              <Option value="" label="All sources" selected={!f.source} />
              {QUEUE_FILTER_SOURCES.map((s) => (
                <Option value={s} label={SOURCE_LABELS[s] ?? s} selected={f.source === s} />
              ))}
            </select>{" "}
          </>
        ) : (
          ""
        )}
        <button type="submit">Filter</button>
      </form>
      <h2>
        {r.total} {f.status} item{r.total === 1 ? "" : "s"}
      </h2>
      {r.items.length ? (
        <ol class="rows">
          {r.items.map((i) => (
            <QueueItem web={web} colony={colony} row={i} authors={r.authors} back={back} />
          ))}
        </ol>
      ) : (
        <p class="empty">Nothing {f.status === "open" ? "waits here" : "was resolved here yet"}.</p>
      )}
      {pages > 1 ? (
        <nav class="pager" aria-label="Pages">
          {f.page > 1 ? (
            <a href={escapeHtml(query(f.page - 1))} rel="prev">
              Newer
            </a>
          ) : (
            ""
          )}{" "}
          Page {f.page} of {pages}{" "}
          {f.page < pages ? (
            <a href={escapeHtml(query(f.page + 1))} rel="next">
              Older
            </a>
          ) : (
            ""
          )}
        </nav>
      ) : (
        ""
      )}
    </>
  );
  return colonyModPage(ctx, web, colony, opts.tab, title, body, opts);
}

// ---- bans

export function bansPage(ctx: Ctx, web: Web, colony: ColonyRow, bans: BanListing[], flash: FlashView & { values?: Record<string, string> } = {}): string {
  const base = modBase(colony);
  const now = ctx.clock.now();
  const v = flash.values ?? {};
  const body = (
    <>
      <h2>Ban a member</h2>
      <form method="post" action={`${base}/bans`} class="stack">
        <CsrfField csrf={web.csrf} />
        <p>
          <label for="ban-user">Username</label>
          <br />
          <input id="ban-user" type="text" name="username" required maxlength="64" value={escapeHtml(v.username ?? "")} />
        </p>
        <p>
          <label for="ban-days">Length</label>
          <br />
          <select id="ban-days" name="duration_days">
            <Option value="1" label="1 day" selected={v.duration_days === "1"} />
            <Option value="7" label="7 days" selected={v.duration_days === "7"} />
            <Option value="30" label="30 days" selected={v.duration_days === "30"} />
            <Option value="" label="Permanent" selected={v.duration_days === ""} />
          </select>
        </p>
        <p>
          <label for="ban-reason">Reason (optional; the member is told)</label>
          <br />
          <input id="ban-reason" type="text" name="reason" maxlength="500" value={escapeHtml(v.reason ?? "")} />
        </p>
        <p>
          <button type="submit">Ban</button>
        </p>
      </form>
      <h2>Banned</h2>
      {bans.length ? (
        <table class="grid">
          <caption class="vh">Bans</caption>
          <thead>
            <tr>
              <th scope="col">Member</th>
              <th scope="col">Since</th>
              <th scope="col">Until</th>
              <th scope="col">Reason</th>
              <th scope="col">
                <span class="vh">Action</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {bans.map(({ ban, user }) => {
              const name = user?.username ?? "[deleted]";
              const active = ban.expiresAt === null || ban.expiresAt > now;
              return (
                <tr>
                  <td>{escapeHtml(name)}</td>
                  <td>
                    <When ms={ban.createdAt} />
                  </td>
                  <td>
                    {ban.expiresAt === null ? "Permanent" : <When ms={ban.expiresAt} />}
                    {active ? "" : " (ended)"}
                  </td>
                  <td>{escapeHtml(ban.reason ?? "")}</td>
                  <td>{user && active ? <Button web={web} action={`${base}/bans/${encodeURIComponent(user.username)}/unban`} label={`Unban ${name}`} /> : ""}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : (
        <p class="empty">Nobody is banned here.</p>
      )}
    </>
  );
  return colonyModPage(ctx, web, colony, "/bans", "Bans", body, flash);
}

// ---- strikes

export function strikesPage(ctx: Ctx, web: Web, colony: ColonyRow, look: { username: string; strikes: MemberStrikes | null }, flash: FlashView & { values?: Record<string, string> } = {}): string {
  const base = modBase(colony);
  const s = settingsOf(colony);
  const v = flash.values ?? {};
  const found = look.strikes;
  const body = (
    <>
      <p>
        At {s.strike_threshold} active strikes a member is dealt the colony's strike action ({escapeHtml(s.strike_action.replace("_", " "))}). Minor strikes last 30 days, major ones 90.
      </p>
      <h2>Give a strike</h2>
      <form method="post" action={`${base}/strikes`} class="stack">
        <CsrfField csrf={web.csrf} />
        <p>
          <label for="st-user">Username</label>
          <br />
          <input id="st-user" type="text" name="username" required maxlength="64" value={escapeHtml(v.username ?? look.username)} />
        </p>
        <p>
          <label for="st-sev">Severity</label>
          <br />
          <select id="st-sev" name="severity">
            <Option value="minor" label="Minor" selected={v.severity !== "major"} />
            <Option value="major" label="Major" selected={v.severity === "major"} />
          </select>
        </p>
        <p>
          <label for="st-reason">Reason (the member is told)</label>
          <br />
          <input id="st-reason" type="text" name="reason" required maxlength="500" value={escapeHtml(v.reason ?? "")} />
        </p>
        <p>
          <button type="submit">Give the strike</button>
        </p>
      </form>
      <h2>A member's strikes</h2>
      <form method="get" action={`${base}/strikes`} class="filters">
        <label for="st-look">Username</label> <input id="st-look" type="text" name="user" maxlength="64" value={escapeHtml(look.username)} /> <button type="submit">Show</button>
      </form>
      {found ? (
        <>
          <p>
            {found.activeCount} active of {found.threshold}.
          </p>
          {found.strikes.length ? (
            <ul class="rows">
              {found.strikes.map((k) => (
                <li>
                  {escapeHtml(k.severity)} · <When ms={k.createdAt} />
                  {k.expiresAt ? (
                    <>
                      {" · until "}
                      <When ms={k.expiresAt} />
                    </>
                  ) : (
                    ""
                  )}
                  : {escapeHtml(k.reason)}
                </li>
              ))}
            </ul>
          ) : (
            <p class="empty">No strikes.</p>
          )}
        </>
      ) : (
        ""
      )}
    </>
  );
  return colonyModPage(ctx, web, colony, "/strikes", "Strikes", body, flash);
}

// ---- appeals

export function appealsPage(ctx: Ctx, web: Web, colony: ColonyRow, appeals: PendingAppeal[], flash: FlashView = {}): string {
  const base = modBase(colony);
  const body = appeals.length ? (
    <ol class="rows">
      {appeals.map(({ appeal, user, ban }: { appeal: AppealRow; user: UserRow | null; ban: PendingAppeal["ban"] }) => {
        const id = `ap-${appeal.id}`;
        return (
          <li class="item">
            <p>
              <strong>{escapeHtml(user?.username ?? "[deleted]")}</strong> · filed <When ms={appeal.createdAt} />
              {" · "}
              {ban ? (
                ban.expiresAt === null ? (
                  "banned permanently"
                ) : (
                  <>
                    {"banned until "}
                    <When ms={ban.expiresAt} />
                  </>
                )
              ) : (
                "no ban in force now"
              )}
            </p>
            <blockquote>{escapeHtml(appeal.body)}</blockquote>
            <form method="post" action={`${base}/appeals/${encodeURIComponent(appeal.id)}`} class="act">
              <CsrfField csrf={web.csrf} />
              <label for={`${id}-note`}>Note to the member (optional)</label> <input id={`${id}-note`} type="text" name="note" maxlength="1000" />{" "}
              <button type="submit" name="decision" value="accept">
                Accept and unban
              </button>{" "}
              <button type="submit" name="decision" value="reject">
                Reject
              </button>
            </form>
          </li>
        );
      })}
    </ol>
  ) : (
    <p class="empty">No appeal waits for a decision.</p>
  );
  return colonyModPage(ctx, web, colony, "/appeals", "Appeals", body, flash);
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

/** A labelled text field of a section's form, filled with what was sent. */
function TextField({ id, name, label, value, max, required }: { id: string; name: string; label: string; value: string; max: number; required?: boolean }) {
  return (
    <p>
      <label for={id}>{escapeHtml(label)}</label>
      <br />
      <input id={id} type="text" name={name} required={required} maxlength={String(max)} value={escapeHtml(value)} />
    </p>
  );
}

export function automodPage(ctx: Ctx, web: Web, colony: ColonyRow, rules: AutomodRuleView[], flash: FlashView & { values?: Record<string, string> } = {}): string {
  const base = modBase(colony);
  const v = flash.values ?? {};
  const body = (
    <>
      <h2>Rules, in the order they run</h2>
      {rules.length ? (
        <ol class="rows">
          {rules.map((r) => (
            <li class="item">
              <p>
                <strong>{escapeHtml(r.name)}</strong> · {escapeHtml(r.scope)}
              </p>
              <p>When {escapeHtml(describe(r.triggers))}</p>
              <p>Then {escapeHtml(describe(r.actions))}</p>
              <Button web={web} action={`${base}/automod/${encodeURIComponent(r.id)}/delete`} label={`Remove rule ${r.name}`} />
            </li>
          ))}
        </ol>
      ) : (
        <p class="empty">No rules: nothing is filtered automatically.</p>
      )}
      <h2>Add a rule</h2>
      <form method="post" action={`${base}/automod`} class="stack">
        <CsrfField csrf={web.csrf} />
        <TextField id="am-name" name="name" label="Name" value={v.name ?? ""} max={120} required />
        <p>
          <label for="am-scope">Applies to</label>
          <br />
          <select id="am-scope" name="scope">
            <Option value="both" label="Posts and comments" selected={!v.scope || v.scope === "both"} />
            <Option value="post" label="Posts" selected={v.scope === "post"} />
            <Option value="comment" label="Comments" selected={v.scope === "comment"} />
          </select>
        </p>
        <TextField id="am-title" name="title_regex" label="Title matches (regular expression)" value={v.title_regex ?? ""} max={500} />
        <TextField id="am-body" name="body_regex" label="Body matches (regular expression)" value={v.body_regex ?? ""} max={500} />
        <TextField id="am-domains" name="has_link_domain" label="Links to any of these domains (comma separated)" value={v.has_link_domain ?? ""} max={1000} />
        <p>
          <label for="am-karma">Author's karma below</label>
          <br />
          <input id="am-karma" type="number" min="0" name="author_karma_below" value={escapeHtml(v.author_karma_below ?? "")} />
        </p>
        <p>
          <label for="am-action">Then</label>
          <br />
          <select id="am-action" name="action">
            <Option value="remove" label="Remove it (to the queue)" selected={!v.action || v.action === "remove"} />
            <Option value="report_to_mods" label="Report it to the moderators" selected={v.action === "report_to_mods"} />
            <Option value="lock" label="Lock the thread" selected={v.action === "lock"} />
            <Option value="approve" label="Approve it" selected={v.action === "approve"} />
          </select>
        </p>
        <TextField id="am-why" name="notify_author_reason" label="Reason told to the author (optional)" value={v.notify_author_reason ?? ""} max={500} />
        <p>
          <button type="submit">Add the rule</button>
        </p>
      </form>
    </>
  );
  return colonyModPage(ctx, web, colony, "/automod", "Automod", body, flash);
}

// ---- invites

export function invitesPage(ctx: Ctx, web: Web, colony: ColonyRow, invites: { invite: InviteRow; invitee: UserRow | null }[], flash: FlashView & { values?: Record<string, string> } = {}): string {
  const base = modBase(colony);
  const v = flash.values ?? {};
  const body = (
    <>
      <p>An invitation lasts 7 days.</p>
      {invites.length ? (
        <ul class="rows">
          {invites.map(({ invite, invitee }) => (
            <li>
              {escapeHtml(invitee?.username ?? "[deleted]")}: {escapeHtml(invite.roleOffered)}, sent <When ms={invite.createdAt} />, until <When ms={invite.expiresAt} />{" "}
              <Button web={web} action={`${base}/invites/${encodeURIComponent(invite.id)}/revoke`} label={`Withdraw the invitation of ${invitee?.username ?? "[deleted]"}`} />
            </li>
          ))}
        </ul>
      ) : (
        <p class="empty">No invitation is outstanding.</p>
      )}
      <h2>Invite a moderator</h2>
      <form method="post" action={`${base}/invites`} class="stack">
        <CsrfField csrf={web.csrf} />
        <TextField id="inv-user" name="username" label="Username" value={v.username ?? ""} max={64} required />
        <p>
          <label for="inv-role">Role</label>
          <br />
          <select id="inv-role" name="role">
            <Option value="moderator" label="Moderator" selected={v.role !== "admin"} />
            <Option value="admin" label="Colony admin (founder only)" selected={v.role === "admin"} />
          </select>
        </p>
        <p>
          <button type="submit">Send the invitation</button>
        </p>
      </form>
    </>
  );
  return colonyModPage(ctx, web, colony, "/invites", "Invites", body, flash);
}

// ---- settings

export const EDITABLE_TEXT = ["display_name", "description", "rules", "welcome_message"] as const;
export const EDITABLE_FLAGS = ["requires_post_approval", "show_rules_banner", "require_flair", "lockdown"] as const;

const FLAG_LABELS = {
  requires_post_approval: "Hold every new post for approval",
  show_rules_banner: "Show the rules above the colony's posts",
  require_flair: "Posts must carry a flair",
  lockdown: "Lockdown: only moderators may post or comment",
} as const satisfies Record<(typeof EDITABLE_FLAGS)[number], string>;

/** A setting's text: one line, or a text area (`area`). */
function SettingText({ id, label, value, max, area = false }: { id: string; label: string; value: string; max: number; area?: boolean }) {
  return (
    <p>
      <label for={`set-${id}`}>{escapeHtml(label)}</label>
      <br />
      {area ? (
        <textarea id={`set-${id}`} name={id} rows="5" maxlength={String(max)}>
          {escapeHtml(value)}
        </textarea>
      ) : (
        <input id={`set-${id}`} type="text" name={id} maxlength={String(max)} value={escapeHtml(value)} />
      )}
    </p>
  );
}

export function settingsPage(ctx: Ctx, web: Web, colony: ColonyRow, flash: FlashView = {}): string {
  const base = modBase(colony);
  const s = settingsOf(colony);
  const body = (
    <form method="post" action={`${base}/settings`} class="stack">
      <CsrfField csrf={web.csrf} />
      <SettingText id="display_name" label="Display name" value={colony.displayName} max={100} />
      <SettingText id="description" label="Description" value={colony.description ?? ""} max={1000} area />
      <SettingText id="rules" label="Rules" value={s.rules ?? ""} max={10000} area />
      <SettingText id="welcome_message" label="Welcome message for new members" value={s.welcome_message ?? ""} max={2000} area />
      <p>
        <label for="set-type">Who may read and join</label>
        <br />
        <select id="set-type" name="community_type">
          <Option value="public" label="Public" selected={colony.communityType === "public"} />
          <Option value="restricted" label="Restricted: anyone reads, members need approval" selected={colony.communityType === "restricted"} />
          <Option value="private" label="Private: approved members only" selected={colony.communityType === "private"} />
        </select>
      </p>
      <fieldset>
        <legend>Rules of posting</legend>
        {EDITABLE_FLAGS.map((k) => (
          <p>
            <input id={`set-${k}`} type="checkbox" name={k} value="on" checked={s[k] ? true : undefined} /> <label for={`set-${k}`}>{FLAG_LABELS[k]}</label>
          </p>
        ))}
      </fieldset>
      <p>
        <label for="set-threshold">Strikes before the strike action</label>
        <br />
        <input id="set-threshold" type="number" name="strike_threshold" min="1" max="100" value={String(s.strike_threshold)} />
      </p>
      <p>
        <label for="set-saction">Strike action</label>
        <br />
        <select id="set-saction" name="strike_action">
          <Option value="mute_7d" label="Ban for 7 days" selected={s.strike_action === "mute_7d"} />
          <Option value="mute_30d" label="Ban for 30 days" selected={s.strike_action === "mute_30d"} />
          <Option value="ban" label="Ban permanently" selected={s.strike_action === "ban"} />
        </select>
      </p>
      <p>
        <button type="submit">Save the settings</button>
      </p>
    </form>
  );
  return colonyModPage(ctx, web, colony, "/settings", "Settings", body, flash);
}
