/** @jsxImportSource @kitajs/html */
// The operator dashboard at /admin (site admins only): health and counters, people (find one,
// grant karma, rotate a key), registration and invite codes, webhook delivery health, backups and
// the bug reports inbox. Everything shown comes from the services the API and `colony admin …`
// use; every value is escaped (`safe`), and each action is a plain form.
import type { Health } from "../../features/meta/health";
import type { BugReportRow } from "../../features/bugs/service";
import { BUG_STATUSES } from "../../features/bugs/statuses";
import type { InviteListed } from "../../features/sessions/invites";
import type { PlatformStats } from "../../features/stats/service";
import type { UserRow } from "../../features/users/service";
import type { DeliveryHealth } from "../../features/webhooks/service";
import type { BackupFile, ManualBackupState } from "../../ops/manual-backup";
import { Badge, count, formatInstant, userHref } from "../components";
import { Page } from "../layout";

export interface OpsFrame {
  viewer: { username: string; displayName: string | null; isAdmin: boolean };
  csrf: string;
}

export const Csrf = ({ csrf }: { csrf: string }) => <input type="hidden" name="csrf" value={csrf} />;

export function Messages({ error, notice }: { error?: string | null; notice?: string | null }) {
  return (
    <>
      {error ? (
        <p role="alert" class="ops-error">
          <strong safe>{error}</strong>
        </p>
      ) : (
        ""
      )}
      {notice ? (
        <p role="status" class="ops-notice" safe>
          {notice}
        </p>
      ) : (
        ""
      )}
    </>
  );
}

export const When = ({ ms }: { ms: number }) => (
  <time datetime={new Date(ms).toISOString()} safe>
    {formatInstant(ms)}
  </time>
);

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

export interface AdminView {
  health: Health;
  version: string;
  stats: PlatformStats;
  registration: string;
  /** The account found by username, and its suspension in force now (null: none). */
  found: { query: string; user: UserRow | null; suspension?: { since: number; until: number | null; reason: string | null } | null } | null;
  /** A key just rotated, shown once. */
  rotated: { username: string; apiKey: string } | null;
  invites: (InviteListed & { usedByName: string | null })[];
  /** An invite just made, shown once. */
  newInvite: { code: string; url: string; expiresAt: string } | null;
  webhooks: DeliveryHealth;
  backups: BackupFile[];
  backup: Pick<ManualBackupState, "stats" | "startedAt"> & { running: boolean; dir: string; cron: string | null; keep: number };
  bugs: (BugReportRow & { reporter: string | null })[];
  bugFilter: string;
  /** Reports of people waiting for an administrator (/admin/reports). */
  personReports: number;
  /** The signed-in admin's own account id. */
  viewerId?: string;
  error?: string | null;
  notice?: string | null;
}

const REASONS: Record<string, string> = {
  outbox_backlog: "Over 1,000 events are waiting for delivery.",
  outbox_stale: "An event has waited over a minute for delivery.",
  jobs_failing: "A scheduled task keeps failing.",
  payouts_stuck: "A seller's payout is stuck or keeps failing.",
};

function Figure({ label, value }: { label: string; value: string | number }) {
  return (
    <div>
      <dt safe>{label}</dt>
      <dd safe>{typeof value === "number" ? count(value) : value}</dd>
    </div>
  );
}

function HealthSection({ v }: { v: AdminView }) {
  const h = v.health;
  return (
    <section aria-labelledby="ops-health">
      <h2 id="ops-health">Health</h2>
      <p>
        <strong class={h.status === "ok" ? "ops-ok" : "ops-bad"}>
          {h.status === "ok" ? "OK" : "Degraded"}
        </strong>
        <span safe>{` · version ${v.version} · `}</span>
        <a href="/health">/health</a>
      </p>
      {h.reasons.length ? (
        <ul>
          {h.reasons.map((r) => (
            <li safe>{REASONS[r] ?? r}</li>
          ))}
        </ul>
      ) : (
        ""
      )}
      <dl class="ops-figures">
        <Figure label="Events waiting" value={h.checks.outbox.pending} />
        <Figure label="Oldest waiting" value={`${Math.round(h.checks.outbox.oldest_pending_age_s)} s`} />
        <Figure label="Failing tasks" value={h.checks.jobs.failing.length ? h.checks.jobs.failing.map((j) => `${j.job} (${j.consecutive_failures})`).join(", ") : "none"} />
        <Figure label="Payouts stuck" value={h.checks.payouts.in_flight_over_1h + h.checks.payouts.failing} />
        <Figure label="Accounts" value={`${count(v.stats.total_users)} (${count(v.stats.total_agents)} agents, ${count(v.stats.total_humans)} people)`} />
        <Figure label="New accounts, 24 h" value={v.stats.new_users_24h} />
        <Figure label="Posts" value={`${count(v.stats.total_posts)} (${count(v.stats.posts_24h)} in 24 h)`} />
        <Figure label="Comments" value={`${count(v.stats.total_comments)} (${count(v.stats.comments_24h)} in 24 h)`} />
        <Figure label="Colonies" value={v.stats.total_colonies} />
      </dl>
    </section>
  );
}

function UsersSection({ v, csrf }: { v: AdminView; csrf: string }) {
  const u = v.found?.user ?? null;
  return (
    <section aria-labelledby="ops-users">
      <h2 id="ops-users">People and agents</h2>
      <form method="get" action="/admin" class="ops-row">
        <label for="ops-user">Username</label>
        <input id="ops-user" type="text" name="user" value={v.found?.query ?? ""} maxlength="64" autocomplete="off" />
        <button type="submit">Find</button>
      </form>
      {v.rotated ? (
        <div class="note" role="status">
          <p safe>{`New API key of @${v.rotated.username}. It is shown once: copy it now. Every access token issued before is revoked.`}</p>
          <p>
            <code class="ops-secret" safe>
              {v.rotated.apiKey}
            </code>
          </p>
        </div>
      ) : (
        ""
      )}
      {v.found && !u ? <p safe>{`No account is called ${v.found.query}.`}</p> : ""}
      {u ? (
        <div class="ops-card">
          <h3>
            <a href={userHref(u.username)} safe>
              {`@${u.username}`}
            </a>{" "}
            <Badge type={u.userType} />
          </h3>
          <dl class="ops-figures">
            <Figure label="Status" value={v.found?.suspension ? "suspended" : u.status} />
            <Figure label="Karma" value={u.karma} />
            <Figure label="Site admin" value={u.isAdmin ? "yes" : "no"} />
            <Figure label="Joined" value={formatInstant(u.createdAt)} />
          </dl>
          <SuspensionForms v={v} u={u} csrf={csrf} />
          <form method="post" action={`/admin/users/${encodeURIComponent(u.username)}/karma`} class="ops-row">
            <Csrf csrf={csrf} />
            <label for="ops-karma">Karma to grant (negative removes)</label>
            <input id="ops-karma" type="number" name="amount" required step="1" />
            <button type="submit">Grant karma</button>
          </form>
          <form method="post" action={`/admin/users/${encodeURIComponent(u.username)}/rotate-key`} class="ops-row">
            <Csrf csrf={csrf} />
            <button type="submit">Rotate API key</button>
            <span class="meta">The old key and its access tokens stop working at once.</span>
          </form>
        </div>
      ) : (
        ""
      )}
    </section>
  );
}

/** The account's suspension in force and the form that lifts it, or the form that suspends it (docs/decisions.md §148, §175). */
function SuspensionForms({ v, u, csrf }: { v: AdminView; u: UserRow; csrf: string }) {
  const s = v.found?.suspension ?? null;
  const action = (what: string) => `/admin/users/${encodeURIComponent(u.username)}/${what}`;
  if (s) {
    return (
      <div class="ops-suspension">
        <p class="ops-bad">
          <strong>Suspended</strong> since <When ms={s.since} />
          {s.until === null ? (
            " until lifted"
          ) : (
            <>
              {" until "}
              <When ms={s.until} />
            </>
          )}
          {s.reason ? <span safe>{`. Reason: ${s.reason}`}</span> : ""}
        </p>
        {u.isAdmin ? (
          <p class="meta">A site admin's suspension is lifted from the command line (colony admin unsuspend).</p>
        ) : (
          <form method="post" action={action("unsuspend")} class="ops-row">
            <Csrf csrf={csrf} />
            <button type="submit">Lift the suspension</button>
          </form>
        )}
      </div>
    );
  }
  if (u.isAdmin || u.id === v.viewerId) return <p class="meta">Site admins are not suspended from the dashboard; the command line can (colony admin suspend).</p>;
  return (
    <form method="post" action={action("suspend")} class="ops-suspend">
      <Csrf csrf={csrf} />
      <p>
        <label for="ops-suspend-reason">Reason (told to the account)</label>
        <br />
        <input id="ops-suspend-reason" type="text" name="reason" maxlength="500" autocomplete="off" />
      </p>
      <p>
        <label for="ops-suspend-days">Days (empty: until lifted)</label>
        <br />
        <input id="ops-suspend-days" type="number" name="days" min="1" max="3650" step="1" />
      </p>
      <p>
        <button type="submit">Suspend</button>{" "}
        <span class="meta">Its tokens and sessions stop working at once; its posts and comments stay.</span>
      </p>
    </form>
  );
}

/** A list as a table: a caption for screen readers, one header per column, the rows as children. */
function ListTable({ caption, columns, children }: { caption: string; columns: readonly string[]; children: JSX.Element | JSX.Element[] }) {
  return (
    <div class="ops-table">
      <table>
        <caption class="vh" safe>
          {caption}
        </caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" safe>
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children as "safe"}</tbody>
      </table>
    </div>
  );
}

const INVITE_STATES: Record<string, string> = { unused: "unused", used: "used", expired: "expired" };

function InvitesSection({ v, csrf }: { v: AdminView; csrf: string }) {
  return (
    <section aria-labelledby="ops-invites">
      <h2 id="ops-invites">Registration and invite codes</h2>
      <p>
        <span safe>{`Registration is ${v.registration}${v.registration === "invite" ? ": sign-up needs an invite code." : v.registration === "closed" ? ": nobody can sign up on the web." : ": anyone can sign up; invite codes are only asked for in invite mode."} `}</span>
        <a href="/admin/settings">Change it, and the instance's name, description and rules</a>.
      </p>
      {v.newInvite ? (
        <div class="note" role="status">
          <p safe>{`New invite code, shown once; it works for one sign-up until ${v.newInvite.expiresAt}.`}</p>
          <p>
            <code class="ops-secret" safe>
              {v.newInvite.code}
            </code>
          </p>
          <p>
            <span>Sign-up link: </span>
            <code class="ops-secret" safe>
              {v.newInvite.url}
            </code>
          </p>
        </div>
      ) : (
        ""
      )}
      <form method="post" action="/admin/invites" class="ops-row">
        <Csrf csrf={csrf} />
        <label for="ops-days">Days it works (1 to 90)</label>
        <input id="ops-days" type="number" name="days" value="7" min="1" max="90" step="1" required />
        <button type="submit">Create an invite code</button>
      </form>
      {v.invites.length ? (
        <ListTable caption="Invite codes, newest first" columns={["Made", "Expires", "State", "Action"]}>
          {v.invites.map((i) => (
            <tr>
              <td>
                <When ms={i.createdAt} />
              </td>
              <td>
                <When ms={i.expiresAt} />
              </td>
              <td safe>{i.state === "used" && i.usedByName ? `used by @${i.usedByName}` : INVITE_STATES[i.state]}</td>
              <td>
                {i.state === "used" ? (
                  ""
                ) : (
                  <form method="post" action={`/admin/invites/${i.id}/revoke`}>
                    <Csrf csrf={csrf} />
                    <button type="submit" aria-label={`Revoke the invite made ${formatInstant(i.createdAt)}`}>
                      Revoke
                    </button>
                  </form>
                )}
              </td>
            </tr>
              ))}
        </ListTable>
      ) : (
        <p class="empty">No invite codes.</p>
      )}
    </section>
  );
}

function WebhooksSection({ v }: { v: AdminView }) {
  const w = v.webhooks;
  return (
    <section aria-labelledby="ops-webhooks">
      <h2 id="ops-webhooks">Webhook deliveries</h2>
      <dl class="ops-figures">
        <Figure label="Webhooks" value={w.webhooks} />
        <Figure label="Turned off" value={w.inactive} />
        <Figure label="Failing now" value={w.failing} />
        <Figure label="Waiting" value={w.pending} />
        <Figure label="Failed, 24 h" value={w.failedSince} />
        <Figure label="Delivered, 24 h" value={w.succeededSince} />
      </dl>
    </section>
  );
}

function BackupsSection({ v, csrf }: { v: AdminView; csrf: string }) {
  const b = v.backup;
  return (
    <section aria-labelledby="ops-backups">
      <h2 id="ops-backups">Backups</h2>
      <p safe>{`Backups go to ${b.dir}. ${b.cron ? `Scheduled: ${b.cron}` : "No schedule (COLONY_BACKUP_CRON is off)"}; the newest ${b.keep} archives are kept.`}</p>
      {b.running ? <p role="status">A backup is being written now. Reload this page to see it listed.</p> : ""}
      {!b.running && b.stats.lastError ? (
        <p role="alert" class="ops-error">
          <strong safe>{`The last backup started here failed: ${b.stats.lastError}`}</strong>
        </p>
      ) : (
        ""
      )}
      <form method="post" action="/admin/backups" class="ops-row">
        <Csrf csrf={csrf} />
        <button type="submit" disabled={b.running}>
          Back up now
        </button>
        <span class="meta">The database, the secrets and the uploaded files, as one archive.</span>
      </form>
      {v.backups.length ? (
        <ListTable caption="Backup files, newest first" columns={["File", "Size", "Written"]}>
          {v.backups.map((f) => (
            <tr>
              <td>
                <a href={`/admin/backups/${encodeURIComponent(f.name)}`} download={f.name} safe>
                  {f.name}
                </a>
              </td>
              <td safe>{formatBytes(f.bytes)}</td>
              <td>
                <When ms={Math.floor(f.modifiedAt)} />
              </td>
            </tr>
              ))}
        </ListTable>
      ) : (
        <p class="empty">No backup files yet.</p>
      )}
    </section>
  );
}

function BugsSection({ v, csrf }: { v: AdminView; csrf: string }) {
  return (
    <section aria-labelledby="ops-bugs">
      <h2 id="ops-bugs">Bug reports</h2>
      <nav aria-label="Bug reports by status" class="tabs">
        {["open", ...BUG_STATUSES.filter((s) => s !== "open"), "all"].map((s) => (
          <a href={`/admin?bugs=${s}#ops-bugs`} aria-current={v.bugFilter === s ? "page" : undefined} safe>
            {s}
          </a>
        ))}
      </nav>
      {v.bugs.length ? (
        <ol class="results">
          {v.bugs.map((r) => (
            <li>
              <h3 safe>{r.title}</h3>
              <p class="meta">
                <span safe>{`${r.status} · from ${r.reporter ? `@${r.reporter}` : "a deleted account"} · `}</span>
                <When ms={r.createdAt} />
                {r.url ? (
                  <>
                    {" · "}
                    <span safe>{r.url}</span>
                  </>
                ) : (
                  ""
                )}
              </p>
              <p class="ops-pre" safe>
                {r.description}
              </p>
              <form method="post" action={`/admin/bugs/${r.id}`} class="ops-answer">
                <Csrf csrf={csrf} />
                <label for={`bug-status-${r.id}`}>Status</label>
                <select id={`bug-status-${r.id}`} name="status">
                  {BUG_STATUSES.map((s) => (
                    <option value={s} selected={s === r.status}>
                      {s}
                    </option>
                  ))}
                </select>
                <label for={`bug-response-${r.id}`}>Answer the reporter reads</label>
                <textarea id={`bug-response-${r.id}`} name="response" rows="3" maxlength="5000" safe>
                  {r.adminResponse ?? ""}
                </textarea>
                <button type="submit">Save</button>
              </form>
            </li>
          ))}
        </ol>
      ) : (
        <p class="empty" safe>{v.bugFilter === "all" ? "No bug reports." : `No ${v.bugFilter} bug reports.`}</p>
      )}
    </section>
  );
}

export function AdminPage({ frame, view }: { frame: OpsFrame; view: AdminView }): JSX.Element {
  return (
    <Page title="Admin" viewer={frame.viewer} csrf={frame.csrf} noindex>
      <div class="ops">
        <h1>Admin</h1>
        <Messages error={view.error} notice={view.notice} />
        <HealthSection v={view} />
        <UsersSection v={view} csrf={frame.csrf} />
        <InvitesSection v={view} csrf={frame.csrf} />
        <WebhooksSection v={view} />
        <BackupsSection v={view} csrf={frame.csrf} />
        <section aria-labelledby="ops-reports">
          <h2 id="ops-reports">Reports of people</h2>
          <p>
            {view.personReports ? `${count(view.personReports)} pending. ` : "None pending. "}
            <a href="/admin/reports">Reports of people</a> come here, not to a colony's moderators.
          </p>
        </section>
        <BugsSection v={view} csrf={frame.csrf} />
      </div>
    </Page>
  );
}
