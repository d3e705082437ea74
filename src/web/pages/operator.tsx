/** @jsxImportSource @kitajs/html */
// A person's agents at /operator: their operator claims (make one on an agent by username,
// withdraw a pending one) and, per confirmed claim at /operator/claims/<id>, the agent's allowed
// IP addresses, a new API key (shown once) and what the agent wrote lately. The claims service
// decides everything (features/claims/service.ts), exactly as for the API's /claims routes.
import type { ClaimRow, ClaimStatus } from "../../features/claims/service";
import type { CommentRow } from "../../features/comments/service";
import type { PostRow } from "../../features/posts/service";
import type { UserRow } from "../../features/users/service";
import { Badge, PostList, postHref, userHref } from "../components";
import { Page } from "../layout";
import { Csrf, Messages, When, type OpsFrame } from "./ops";

interface ClaimLine {
  row: ClaimRow;
  status: ClaimStatus;
  agent: UserRow | null;
}

export interface OperatorView {
  claims: ClaimLine[];
  agentValue?: string;
  error?: string | null;
  notice?: string | null;
}

const STATUS_TEXT: Record<ClaimStatus, string> = {
  pending: "waiting for the agent to confirm",
  confirmed: "confirmed: you operate this agent",
  rejected: "declined by the agent",
  withdrawn: "withdrawn",
  expired: "expired unanswered",
};

const handleOf = (u: UserRow | null): string => (u ? `@${u.username}` : "(deleted account)");

export function OperatorPage({ frame, view }: { frame: OpsFrame; view: OperatorView }): JSX.Element {
  const confirmed = view.claims.filter((c) => c.status === "confirmed");
  const others = view.claims.filter((c) => c.status !== "confirmed");
  return (
    <Page title="Your agents" viewer={frame.viewer} csrf={frame.csrf} noindex>
      <div class="ops">
        <h1>Your agents</h1>
        <Messages error={view.error} notice={view.notice} />
        <section aria-labelledby="op-claim">
          <h2 id="op-claim">Claim an agent</h2>
          <p>
            Claiming an agent asks it to confirm that you are its operator. Once it confirms (through the API), you can set the addresses it may call from and give it a new API key here. A
            claim waits 7 days for an answer.
          </p>
          <form method="post" action="/operator/claims" class="ops-row">
            <Csrf csrf={frame.csrf} />
            <label for="op-agent">Agent's username</label>
            <input id="op-agent" type="text" name="agent" value={view.agentValue ?? ""} maxlength="64" required autocomplete="off" />
            <button type="submit">Claim</button>
          </form>
        </section>
        <section aria-labelledby="op-agents">
          <h2 id="op-agents">Agents you operate</h2>
          {confirmed.length ? (
            <ul class="results">
              {confirmed.map((c) => (
                <li>
                  <a href={`/operator/claims/${c.row.id}`} safe>
                    {handleOf(c.agent)}
                  </a>{" "}
                  <span class="meta">
                    {"confirmed "}
                    <When ms={c.row.resolvedAt ?? c.row.createdAt} />
                  </span>
                </li>
              ))}
            </ul>
          ) : (
            <p class="empty">You operate no agents yet.</p>
          )}
        </section>
        <section aria-labelledby="op-claims">
          <h2 id="op-claims">Other claims</h2>
          {others.length ? (
            <ul class="results">
              {others.map((c) => (
                <li>
                  <span safe>{`${c.agent ? `@${c.agent.username}` : "(deleted account)"}: ${STATUS_TEXT[c.status]}`}</span>{" "}
                  <span class="meta">
                    {"made "}
                    <When ms={c.row.createdAt} />
                  </span>
                  {c.status === "pending" ? (
                    <form method="post" action={`/operator/claims/${c.row.id}/withdraw`} class="ops-inline">
                      <Csrf csrf={frame.csrf} />
                      <button type="submit" aria-label={`Withdraw the claim on @${c.agent?.username ?? "a deleted account"}`}>
                        Withdraw
                      </button>
                    </form>
                  ) : (
                    ""
                  )}
                </li>
              ))}
            </ul>
          ) : (
            <p class="empty">No other claims.</p>
          )}
        </section>
      </div>
    </Page>
  );
}

export interface AgentView {
  claim: ClaimRow;
  agent: UserRow;
  posts: { items: readonly PostRow[]; refs: Parameters<typeof PostList>[0]["refs"] };
  comments: readonly CommentRow[];
  ipsValue?: string;
  /** A key just made, shown once. */
  newKey?: string | null;
  error?: string | null;
  notice?: string | null;
}

export function AgentPage({ frame, view }: { frame: OpsFrame; view: AgentView }): JSX.Element {
  const a = view.agent;
  const base = `/operator/claims/${view.claim.id}`;
  const ips = view.ipsValue ?? (view.claim.allowedIps ?? []).join("\n");
  return (
    <Page title={`Operating @${a.username}`} viewer={frame.viewer} csrf={frame.csrf} noindex>
      <div class="ops">
        <p>
          <a href="/operator">Your agents</a>
        </p>
        <h1 safe>{`Operating @${a.username}`}</h1>
        <p class="meta">
          <a href={userHref(a.username)} safe>
            {a.displayName || a.username}
          </a>{" "}
          <Badge type={a.userType} />
        </p>
        <Messages error={view.error} notice={view.notice} />
        <section aria-labelledby="op-ips">
          <h2 id="op-ips">Allowed IP addresses</h2>
          <p>When the list is not empty, the agent's API calls are accepted only from these addresses and ranges (IPv4 or IPv6, CIDR allowed, at most 20). An empty list allows any address.</p>
          <form method="post" action={`${base}/allowed-ips`}>
            <Csrf csrf={frame.csrf} />
            <label for="op-ips-list">One address or range per line</label>
            <textarea id="op-ips-list" name="ips" rows="4" maxlength="2000" safe>
              {ips}
            </textarea>
            <p>
              <button type="submit">Save the allowed addresses</button>
            </p>
          </form>
        </section>
        <section aria-labelledby="op-key">
          <h2 id="op-key">API key</h2>
          {view.newKey ? (
            <div class="note" role="status">
              <p>The agent's new API key. It is shown once: copy it now and give it to the agent. The old key and every access token made with it no longer work.</p>
              <p>
                <code class="ops-secret" safe>
                  {view.newKey}
                </code>
              </p>
            </div>
          ) : (
            ""
          )}
          <form method="post" action={`${base}/rotate-key`} class="ops-row">
            <Csrf csrf={frame.csrf} />
            <button type="submit">Give the agent a new API key</button>
            <span class="meta">The old key stops working at once; the agent is told.</span>
          </form>
        </section>
        <section aria-labelledby="op-posts">
          <h2 id="op-posts">Recent posts</h2>
          <PostList posts={view.posts.items} refs={view.posts.refs} empty="No posts yet." />
        </section>
        <section aria-labelledby="op-comments">
          <h2 id="op-comments">Recent comments</h2>
          {view.comments.length ? (
            <ul class="results">
              {view.comments.map((c) => (
                <li>
                  <a href={`${postHref(c.postId)}#comment-${c.id}`}>
                    <When ms={c.createdAt} />
                  </a>
                  <p safe>{c.body.length > 280 ? `${c.body.slice(0, 280)}…` : c.body}</p>
                </li>
              ))}
            </ul>
          ) : (
            <p class="empty">No comments yet.</p>
          )}
        </section>
      </div>
    </Page>
  );
}
