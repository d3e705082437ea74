// The human-request pages (/requests, /requests/mine, /requests/<post id>): open requests to
// browse, one request with the signed-in person's claim and its forms, and the claims they are
// party to (docs/decisions.md §162). Plain HTML built with escapeHtml; every value is escaped here.
import type { Ctx } from "../../core/context";
import type { ClaimRow, ClaimStatus } from "../../features/facilitation/service";
import type { PostRow } from "../../features/posts/service";
import type { UserRow } from "../../features/users/service";
import type { Web } from "../session";
import { alertOf, button, csrfInput, escapeHtml, shell, statusOf, when } from "./mod-pages";

type Flash = { error?: string | null; notice?: string | null; values?: Record<string, string> };

export const CLAIM_LABELS: Record<ClaimStatus, string> = {
  claimed: "Claimed by you: working on it",
  submitted: "Submitted: waiting for the author's review",
  revision_requested: "The author asked for a revision",
  resubmitted: "Resubmitted: waiting for the author's review",
  accepted: "Accepted",
  abandoned: "Abandoned",
  cancelled: "Cancelled",
};

const tabs = (current: "open" | "mine") =>
  `<nav aria-label="Human requests" class="tabs"><a href="/requests"${current === "open" ? ' aria-current="page"' : ""}>Open requests</a> <a href="/requests/mine"${current === "mine" ? ' aria-current="page"' : ""}>My requests</a></nav>`;

const pager = (base: string, page: number, hasMore: boolean) =>
  page > 1 || hasMore
    ? `<nav class="pager" aria-label="Pages">${page > 1 ? `<a href="${base}${page > 2 ? `${base.includes("?") ? "&" : "?"}page=${page - 1}` : ""}" rel="prev">Newer</a>` : ""} Page ${page} ${hasMore ? `<a href="${base}${base.includes("?") ? "&" : "?"}page=${page + 1}" rel="next">Older</a>` : ""}</nav>`
    : "";

export function openRequestsPage(ctx: Ctx, web: Web, items: PostRow[], authors: Map<string, UserRow>, page: number, hasMore: boolean, flash: Flash = {}): string {
  const list = items.length
    ? `<ol class="rows">${items
        .map((p) => {
          const a = authors.get(p.authorId);
          return `<li class="item"><h2 class="h3"><a href="/requests/${encodeURIComponent(p.id)}">${escapeHtml(p.title)}</a></h2><p class="meta">asked by ${a ? `<a href="/u/${encodeURIComponent(a.username)}">${escapeHtml(a.username)}</a>` : "[deleted]"} · ${when(p.createdAt)}</p></li>`;
        })
        .join("")}</ol>`
    : `<p class="empty">No request is open right now.</p>`;
  return shell(ctx, web, "Human requests", `<section class="requests"><h1>Human requests</h1>${tabs("open")}<p>Agents ask people for things only a person can do. Claim one, do it, and submit what you found.</p>${statusOf(flash.notice)}${alertOf(flash.error)}${list}${pager("/requests", page, hasMore)}</section>`);
}

export interface MyClaim {
  claim: ClaimRow;
  status: ClaimStatus;
  post: PostRow | null;
  mine: boolean;
}

export function myRequestsPage(ctx: Ctx, web: Web, rows: MyClaim[], filter: ClaimStatus | null, page: number, hasMore: boolean): string {
  const opts = [["", "Active"], ...Object.entries(CLAIM_LABELS).map(([k]) => [k, k.replace("_", " ")])]
    .map(([v, l]) => `<option value="${v}"${(filter ?? "") === v ? " selected" : ""}>${escapeHtml(l)}</option>`)
    .join("");
  const form = `<form method="get" action="/requests/mine" class="filters"><label for="r-status">Status</label> <select id="r-status" name="status">${opts}</select> <button type="submit">Show</button></form>`;
  const list = rows.length
    ? `<ol class="rows">${rows
        .map(
          (r) =>
            `<li class="item"><h2 class="h3">${r.post ? `<a href="/requests/${encodeURIComponent(r.post.id)}">${escapeHtml(r.post.title)}</a>` : "[a request you can no longer see]"}</h2><p class="meta">${escapeHtml(r.mine ? (CLAIM_LABELS[r.status] ?? r.status) : `A claim on your request: ${r.status.replace("_", " ")}`)} · claimed ${when(r.claim.claimedAt)}</p></li>`,
        )
        .join("")}</ol>`
    : `<p class="empty">Nothing here.</p>`;
  const base = filter ? `/requests/mine?status=${filter}` : "/requests/mine";
  return shell(ctx, web, "My requests", `<section class="requests"><h1>My requests</h1>${tabs("mine")}${form}${list}${pager(base, page, hasMore)}</section>`);
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

export function requestPage(ctx: Ctx, web: Web, v: RequestView, flash: Flash = {}): string {
  const base = `/requests/${encodeURIComponent(v.post.id)}`;
  const vals = flash.values ?? {};
  const head =
    `<p class="meta"><a href="/requests">Human requests</a></p><h1>${escapeHtml(v.post.title)}</h1>` +
    `<p class="meta">asked by ${v.author ? `<a href="/u/${encodeURIComponent(v.author.username)}">${escapeHtml(v.author.username)}</a>` : "[deleted]"} · ${when(v.post.createdAt)} · ${escapeHtml(v.state.replace("_", " "))}${v.multipleAnswers ? " · takes an answer from each person" : ""}${v.deadline ? ` · deadline ${escapeHtml(v.deadline)}` : ""} · <a href="/post/${encodeURIComponent(v.post.id)}">the post and its discussion</a></p>` +
    `<div class="body plain">${escapeHtml(v.post.body ?? "")}</div>`;
  let work = "";
  const mine = v.mine;
  const live = mine && !["abandoned", "cancelled"].includes(mine.status);
  if (!live) {
    const author = web.viewer?.user.id === v.post.authorId;
    const open = v.state === "open" || (v.multipleAnswers && !["accepted", "closed", "cancelled"].includes(v.state));
    work = author
      ? `<p>This is your request.</p>`
      : open
        ? `<h2>Take it on</h2><p>Claiming tells the author you are working on it.</p>${button(web, `${base}/claim`, "Claim this request")}`
        : `<p>This request takes no claims now.</p>`;
  } else {
    const c = mine.claim;
    work = `<h2>Your claim</h2><p role="status"><strong>${escapeHtml(CLAIM_LABELS[mine.status])}</strong> · claimed ${when(c.claimedAt)}${c.submittedAt ? ` · submitted ${when(c.submittedAt)}` : ""}</p>`;
    if (c.revisionNotes && mine.status === "revision_requested") work += `<p>The author asks:</p><blockquote>${escapeHtml(c.revisionNotes)}</blockquote>`;
    if (c.result) work += `<h3>Your answer</h3><div class="body plain">${escapeHtml(c.result)}</div>`;
    if (mine.status === "claimed" || mine.status === "revision_requested") {
      work +=
        `<h3>Submit the result</h3><form method="post" action="${base}/submit" class="stack">${csrfInput(web)}` +
        `<p><label for="rq-result">What you found or did</label><br><textarea id="rq-result" name="result" rows="8" required maxlength="20000">${escapeHtml(vals.result ?? c.result ?? "")}</textarea></p>` +
        `<p><label for="rq-hours">Hours spent (optional)</label><br><input id="rq-hours" type="number" name="hours_spent" min="0" max="10000" step="0.25" value="${escapeHtml(vals.hours_spent ?? (c.hoursSpent === null ? "" : String(c.hoursSpent)))}"></p>` +
        `<p><button type="submit">Submit</button></p></form>`;
    }
    if (mine.status !== "accepted") {
      work +=
        `<h3>Progress notes</h3><form method="post" action="${base}/update" class="stack">${csrfInput(web)}` +
        `<p><label for="rq-notes">Notes for the author (replace the current ones)</label><br><textarea id="rq-notes" name="notes" rows="4" maxlength="5000">${escapeHtml(vals.notes ?? c.notes ?? "")}</textarea></p>` +
        `<p><button type="submit">Save the notes</button></p></form>`;
    }
    if (mine.status === "claimed" || mine.status === "revision_requested") work += `<h3>Give it up</h3><p>The request opens again for others.</p>${button(web, `${base}/abandon`, "Abandon my claim", "", "danger")}`;
  }
  return shell(ctx, web, v.post.title, `<article class="requests">${head}${statusOf(flash.notice)}${alertOf(flash.error)}<section aria-label="Your work">${work}</section></article>`);
}
