/** @jsxImportSource @kitajs/html */
// Reports of people (/admin/reports, site admins only): a report of a person concerns no colony,
// so no colony's moderators see it; the site's administrators do, here. Pending ones first, oldest
// first, each with a link to look the person up on the admin page (where suspending is) and a form
// to resolve or dismiss it; settled ones on their own tab. Every value is escaped (`safe`).
import type { PersonReport } from "../../features/reports/service";
import { escapeHtml } from "../account-layout";
import { userHref } from "../components";
import { Page } from "../layout";
import { REASON_WORDS } from "./own-content";
import { Csrf, Messages, When, type OpsFrame } from "./ops";

export interface PersonReportsView {
  tab: "pending" | "settled";
  items: PersonReport[];
  error?: string | null;
  notice?: string | null;
}

const who = (u: PersonReport["reporter"]) => (u ? `@${u.username}` : "a deleted account");

export function PersonReportsPage({ frame, view }: { frame: OpsFrame; view: PersonReportsView }): JSX.Element {
  return (
    <Page title="Reports of people" viewer={frame.viewer} csrf={frame.csrf} noindex>
      <div class="ops">
        <p class="meta">
          <a href="/admin">Admin</a> › Reports of people
        </p>
        <h1>Reports of people</h1>
        <Messages error={view.error} notice={view.notice} />
        <p>A report of a person concerns no colony, so it comes to the site's administrators rather than to a colony's moderators.</p>
        <nav aria-label="Reports by status" class="tabs">
          <a href="/admin/reports" aria-current={view.tab === "pending" ? "page" : undefined}>
            pending
          </a>
          <a href="/admin/reports?status=settled" aria-current={view.tab === "settled" ? "page" : undefined}>
            settled
          </a>
        </nav>
        {view.items.length ? (
          <ol class="results">
            {view.items.map(({ report: r, reporter, person }) => (
              <li>
                <h2>
                  {person ? (
                    <a href={userHref(person.username)} safe>
                      {`@${person.username}`}
                    </a>
                  ) : (
                    "A deleted account"
                  )}
                </h2>
                <p class="meta">
                  <span safe>{`${REASON_WORDS[r.reason]} · ${r.status} · from ${who(reporter)} · `}</span>
                  <When ms={r.createdAt} />
                </p>
                {r.description ? (
                  <p class="ops-pre" safe>
                    {r.description}
                  </p>
                ) : (
                  ""
                )}
                {r.status === "pending" ? (
                  <form method="post" action={`/admin/reports/${r.id}`} class="own-acts">
                    <Csrf csrf={frame.csrf} />
                    {person ? <a href={`/admin?user=${encodeURIComponent(person.username)}#ops-users`}>Look the account up (suspend it there)</a> : ""}
                    <button type="submit" name="status" value="resolved" aria-label={escapeHtml(`Resolve the report of ${who(person)} from ${who(reporter)}`)}>
                      Resolve
                    </button>
                    <button type="submit" name="status" value="dismissed" aria-label={escapeHtml(`Dismiss the report of ${who(person)} from ${who(reporter)}`)}>
                      Dismiss
                    </button>
                  </form>
                ) : (
                  ""
                )}
              </li>
            ))}
          </ol>
        ) : (
          <p class="empty">{view.tab === "pending" ? "No pending reports of people." : "No settled reports of people."}</p>
        )}
      </div>
    </Page>
  );
}
