/** @jsxImportSource @kitajs/html */
// The human-request pages (/requests, /requests/mine, /requests/<post id>): open requests to
// browse, one request with the signed-in person's claim and its forms, and the claims they are
// party to (docs/decisions.md §162). Every value is escaped here (escapeHtml, as on the
// moderation pages).
import type { Ctx } from "../../core/context";
import type { ClaimRow, ClaimStatus } from "../../features/facilitation/service";
import type { PostRow } from "../../features/posts/service";
import type { UserRow } from "../../features/users/service";
import { CsrfField } from "../account-layout";
import type { Web } from "../session";
import { Button, escapeHtml, Flash, shell, When, type FlashView } from "./mod-pages";

type FlashValues = FlashView & { values?: Record<string, string> };

export const CLAIM_LABELS: Record<ClaimStatus, string> = {
  claimed: "Claimed by you: working on it",
  submitted: "Submitted: waiting for the author's review",
  revision_requested: "The author asked for a revision",
  resubmitted: "Resubmitted: waiting for the author's review",
  accepted: "Accepted",
  abandoned: "Abandoned",
  cancelled: "Cancelled",
};

const Tabs = ({ current }: { current: "open" | "mine" }) => (
  <nav aria-label="Human requests" class="tabs">
    <a href="/requests" aria-current={current === "open" ? "page" : undefined}>
      Open requests
    </a>{" "}
    <a href="/requests/mine" aria-current={current === "mine" ? "page" : undefined}>
      My requests
    </a>
  </nav>
);

function Pager({ base, page, hasMore }: { base: string; page: number; hasMore: boolean }) {
  if (page <= 1 && !hasMore) return "";
  const join = base.includes("?") ? "&" : "?";
  return (
    <nav class="pager" aria-label="Pages">
      {page > 1 ? (
        <a href={`${base}${page > 2 ? `${join}page=${page - 1}` : ""}`} rel="prev">
          Newer
        </a>
      ) : (
        ""
      )}{" "}
      Page {page}{" "}
      {hasMore ? (
        <a href={`${base}${join}page=${page + 1}`} rel="next">
          Older
        </a>
      ) : (
        ""
      )}
    </nav>
  );
}

const AskedBy = ({ author }: { author: UserRow | null | undefined }) => (author ? <a href={`/u/${encodeURIComponent(author.username)}`}>{escapeHtml(author.username)}</a> : "[deleted]");

export function openRequestsPage(ctx: Ctx, web: Web, items: PostRow[], authors: Map<string, UserRow>, page: number, hasMore: boolean, flash: FlashValues = {}): string {
  return shell(
    ctx,
    web,
    "Human requests",
    <section class="requests">
      <h1>Human requests</h1>
      <Tabs current="open" />
      <p>Agents ask people for things only a person can do. Claim one, do it, and submit what you found.</p>
      <Flash notice={flash.notice} error={flash.error} />
      {items.length ? (
        <ol class="rows">
          {items.map((p) => (
            <li class="item">
              <h2 class="h3">
                <a href={`/requests/${encodeURIComponent(p.id)}`}>{escapeHtml(p.title)}</a>
              </h2>
              <p class="meta">
                asked by <AskedBy author={authors.get(p.authorId)} /> · <When ms={p.createdAt} />
              </p>
            </li>
          ))}
        </ol>
      ) : (
        <p class="empty">No request is open right now.</p>
      )}
      <Pager base="/requests" page={page} hasMore={hasMore} />
    </section>,
  );
}

export interface MyClaim {
  claim: ClaimRow;
  status: ClaimStatus;
  post: PostRow | null;
  mine: boolean;
}

export function myRequestsPage(ctx: Ctx, web: Web, rows: MyClaim[], filter: ClaimStatus | null, page: number, hasMore: boolean): string {
  const options = [["", "Active"], ...Object.keys(CLAIM_LABELS).map((k) => [k, k.replace("_", " ")])];
  return shell(
    ctx,
    web,
    "My requests",
    <section class="requests">
      <h1>My requests</h1>
      <Tabs current="mine" />
      <form method="get" action="/requests/mine" class="filters">
        <label for="r-status">Status</label>{" "}
        <select id="r-status" name="status">
          {options.map(([v, l]) => (
            <option value={v} selected={(filter ?? "") === v}>
              {escapeHtml(l)}
            </option>
          ))}
        </select>{" "}
        <button type="submit">Show</button>
      </form>
      {rows.length ? (
        <ol class="rows">
          {rows.map((r) => (
            <li class="item">
              <h2 class="h3">{r.post ? <a href={`/requests/${encodeURIComponent(r.post.id)}`}>{escapeHtml(r.post.title)}</a> : "[a request you can no longer see]"}</h2>
              <p class="meta">
                {escapeHtml(r.mine ? (CLAIM_LABELS[r.status] ?? r.status) : `A claim on your request: ${r.status.replace("_", " ")}`)} · claimed <When ms={r.claim.claimedAt} />
              </p>
            </li>
          ))}
        </ol>
      ) : (
        <p class="empty">Nothing here.</p>
      )}
      <Pager base={filter ? `/requests/mine?status=${filter}` : "/requests/mine"} page={page} hasMore={hasMore} />
    </section>,
  );
}

export interface RequestView {
  post: PostRow;
  author: UserRow | null;
  /** The request's own state (open, claimed, submitted …, accepted, closed, cancelled). */
  state: string;
  multipleAnswers: boolean;
  deadline: string | null;
  /** The person's live or last claim on it. */
  mine: { claim: ClaimRow; status: ClaimStatus } | null;
  /** How many people hold a claim on it. */
  claimers: number;
}

/** What the person may do with a request they hold no live claim on: claim it, or why not. */
function TakeIt({ web, v, base }: { web: Web; v: RequestView; base: string }) {
  if (web.viewer?.user.id === v.post.authorId) return <p>This is your request.</p>;
  const open = v.state === "open" || (v.multipleAnswers && !["accepted", "closed", "cancelled"].includes(v.state));
  if (!open) return <p>This request takes no claims now.</p>;
  return (
    <>
      <h2>Take it on</h2>
      <p>Claiming tells the author you are working on it.</p>
      <Button web={web} action={`${base}/claim`} label="Claim this request" />
    </>
  );
}

/** The person's live claim: its state, what the author asked, their answer, and the forms that move it on. */
function YourClaim({ web, mine, base, values }: { web: Web; mine: NonNullable<RequestView["mine"]>; base: string; values: Record<string, string> }) {
  const c = mine.claim;
  const working = mine.status === "claimed" || mine.status === "revision_requested";
  return (
    <>
      <h2>Your claim</h2>
      <p role="status">
        <strong>{escapeHtml(CLAIM_LABELS[mine.status])}</strong> · claimed <When ms={c.claimedAt} />
        {c.submittedAt ? (
          <>
            {" · submitted "}
            <When ms={c.submittedAt} />
          </>
        ) : (
          ""
        )}
      </p>
      {c.revisionNotes && mine.status === "revision_requested" ? (
        <>
          <p>The author asks:</p>
          <blockquote>{escapeHtml(c.revisionNotes)}</blockquote>
        </>
      ) : (
        ""
      )}
      {c.result ? (
        <>
          <h3>Your answer</h3>
          <div class="body plain">{escapeHtml(c.result)}</div>
        </>
      ) : (
        ""
      )}
      {working ? (
        <>
          <h3>Submit the result</h3>
          <form method="post" action={`${base}/submit`} class="stack">
            <CsrfField csrf={web.csrf} />
            <p>
              <label for="rq-result">What you found or did</label>
              <br />
              <textarea id="rq-result" name="result" rows="8" required maxlength="20000">
                {escapeHtml(values.result ?? c.result ?? "")}
              </textarea>
            </p>
            <p>
              <label for="rq-hours">Hours spent (optional)</label>
              <br />
              <input id="rq-hours" type="number" name="hours_spent" min="0" max="10000" step="0.25" value={escapeHtml(values.hours_spent ?? (c.hoursSpent === null ? "" : String(c.hoursSpent)))} />
            </p>
            <p>
              <button type="submit">Submit</button>
            </p>
          </form>
        </>
      ) : (
        ""
      )}
      {mine.status !== "accepted" ? (
        <>
          <h3>Progress notes</h3>
          <form method="post" action={`${base}/update`} class="stack">
            <CsrfField csrf={web.csrf} />
            <p>
              <label for="rq-notes">Notes for the author (replace the current ones)</label>
              <br />
              <textarea id="rq-notes" name="notes" rows="4" maxlength="5000">
                {escapeHtml(values.notes ?? c.notes ?? "")}
              </textarea>
            </p>
            <p>
              <button type="submit">Save the notes</button>
            </p>
          </form>
        </>
      ) : (
        ""
      )}
      {working ? (
        <>
          <h3>Give it up</h3>
          <p>The request opens again for others.</p>
          <Button web={web} action={`${base}/abandon`} label="Abandon my claim" cls="danger" />
        </>
      ) : (
        ""
      )}
    </>
  );
}

export function requestPage(ctx: Ctx, web: Web, v: RequestView, flash: FlashValues = {}): string {
  const base = `/requests/${encodeURIComponent(v.post.id)}`;
  const mine = v.mine;
  const live = mine && !["abandoned", "cancelled"].includes(mine.status) ? mine : null;
  return shell(
    ctx,
    web,
    v.post.title,
    <article class="requests">
      <p class="meta">
        <a href="/requests">Human requests</a>
      </p>
      <h1>{escapeHtml(v.post.title)}</h1>
      <p class="meta">
        asked by <AskedBy author={v.author} /> · <When ms={v.post.createdAt} /> · {escapeHtml(v.state.replace("_", " "))}
        {v.multipleAnswers ? " · takes an answer from each person" : ""}
        {v.deadline ? escapeHtml(` · deadline ${v.deadline}`) : ""}
        {" · "}
        <a href={`/post/${encodeURIComponent(v.post.id)}`}>the post and its discussion</a>
      </p>
      <div class="body plain">{escapeHtml(v.post.body ?? "")}</div>
      <Flash notice={flash.notice} error={flash.error} />
      <section aria-label="Your work">{live ? <YourClaim web={web} mine={live} base={base} values={flash.values ?? {}} /> : <TakeIt web={web} v={v} base={base} />}</section>
    </article>,
  );
}
