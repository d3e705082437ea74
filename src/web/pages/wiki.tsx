/** @jsxImportSource @kitajs/html */
// A wiki on the web, a colony's (/c/<colony>/wiki…) or the site's (/wiki…): its pages, one page rendered, its history, one
// revision, what changed between two revisions, and the forms to write it. The routes
// (web/wiki-routes.ts) call the wiki service as the visitor; these functions show what it
// returned. A diff is drawn from the service's unified diff, line by line: every added or removed
// line says so in words and with a sign, not by colour alone.
import type { Children } from "@kitajs/html";
import type { ColonyRow } from "../../features/colonies/service";
import type { WIKI_EDIT_POLICIES } from "../../features/colonies/tables";
import type { EditorListing } from "../../features/wiki/editors";
import type { UserRow } from "../../features/users/service";
import type { PageRow, RevisionRow } from "../../features/wiki/service";
import { CONTENT_MAX, SLUG_MAX, SUMMARY_MAX, TITLE_MAX, CATEGORY_MAX } from "../../features/wiki/service";
import { Hidden } from "../account-layout";
import { colonyHref, Pager, Time } from "../components";
import type { Visit } from "../visit";
import { areaPage, escapeHtml, Flash, Person, PostForm, SignInToTakePart, TextArea, TextField, type FlashView } from "./area-parts";

/** A wiki's address: a colony's by its name, the site wiki's for "". */
export const wikiHref = (colony: string, slug?: string, rest = "") =>
  `${colony ? `/c/${encodeURIComponent(colony)}` : ""}/wiki${slug ? `/${encodeURIComponent(slug)}` : ""}${rest}`;

/** What wikiHref takes for a wiki: its colony's name, or "" for the site wiki (null). */
export const wikiName = (colony: ColonyRow | null) => colony?.name ?? "";

/** Whether the visitor may write, as the service's write gate answered: null when they may, else its reason. */
export type WriteGate = { refusal: string | null };

function Crumbs({ colony, page, sub }: { colony: ColonyRow | null; page?: PageRow; sub?: string }) {
  return (
    <nav aria-label="Breadcrumb" class="crumbs">
      {colony ? (
        <>
          <a href={colonyHref(colony.name)} safe>
            {colony.displayName || colony.name}
          </a>
          {" › "}
        </>
      ) : (
        ""
      )}
      {page ? (
        <>
          <a href={wikiHref(wikiName(colony))}>Wiki</a>
          {" › "}
          <a href={wikiHref(wikiName(colony), page.slug)} safe>
            {page.title}
          </a>
        </>
      ) : sub ? (
        <>
          <a href={wikiHref(wikiName(colony))}>Wiki</a>
          {" › "}
          <span safe>{sub}</span>
        </>
      ) : (
        <span>Wiki</span>
      )}
    </nav>
  );
}

/** A page of a wiki in the site's layout: its crumbs, its heading (the title unless `heading` says otherwise), and the rest. */
function wikiPage(
  visit: Visit,
  title: string,
  crumbs: { colony: ColonyRow | null; page?: PageRow; sub?: string },
  body: Children,
  opts: { article?: boolean; heading?: string } = {},
): string {
  const inner = (
    <>
      <Crumbs {...crumbs} />
      <h1 safe>{opts.heading ?? title}</h1>
      {body}
    </>
  );
  return areaPage(visit, title, opts.article ? <article class="area wiki">{inner}</article> : <section class="area wiki">{inner}</section>);
}

type Policy = (typeof WIKI_EDIT_POLICIES)[number];

/** Who may edit a colony's wiki under each policy, in words (docs/decisions.md §84). */
export const POLICY_WORDS: Record<Policy, string> = {
  anyone: "anyone who may take part in the colony",
  members: "the colony's members",
  karma_or_editors: "members with enough karma, and its approved wiki editors",
  editors: "its approved wiki editors",
  moderators: "its moderators",
  off: "nobody",
};

/** Why the visitor cannot write here, or nothing. */
function GateNote({ visit, gate, next }: { visit: Visit; gate: WriteGate; next: string }) {
  if (!visit.caller) return <SignInToTakePart next={next} what="write in this wiki" />;
  if (gate.refusal) return <p class="note" safe>{`You cannot edit this wiki: ${gate.refusal}`}</p>;
  return "";
}

export interface WikiListView {
  /** The colony whose wiki it is; null for the site wiki. */
  colony: ColonyRow | null;
  items: PageRow[];
  editors: Map<string, UserRow>;
  total: number;
  page: number;
  hasMore: boolean;
  q: string;
  gate: WriteGate;
  /** Whether the visitor moderates the wiki (the deleted pages are theirs to see). */
  moderates: boolean;
  /** The colony's wiki_edit_policy; null for the site wiki, which takes writes from every account. */
  policy: Policy | null;
  flash: FlashView;
}

export function wikiListPage(visit: Visit, v: WikiListView): string {
  const base = wikiHref(wikiName(v.colony));
  const title = v.colony ? `Wiki of ${v.colony.displayName || v.colony.name}` : "Wiki";
  return wikiPage(
    visit,
    title,
    { colony: v.colony },
    <>
      <Flash {...v.flash} />
      <form method="get" action={escapeHtml(base)} class="filters" role="search" aria-label="This wiki">
        <label for="wiki-q">Find a page</label>
        <input id="wiki-q" name="q" type="search" value={v.q ? escapeHtml(v.q) : undefined} maxlength="200" />
        <button type="submit">Search</button>
      </form>
      {visit.caller && !v.gate.refusal ? (
        <p>
          <a class="btn" href={`${base}/_new`}>
            New page
          </a>
        </p>
      ) : (
        <GateNote visit={visit} gate={v.gate} next={base} />
      )}
      <p class="meta">{escapeHtml(v.policy ? `Who may edit: ${POLICY_WORDS[v.policy]}, and its moderators.` : "Anyone with an account may edit; site admins moderate it.")}</p>
      <p class="meta" safe>
        {v.q ? `${v.total} ${v.total === 1 ? "page matches" : "pages match"} “${v.q}”` : `${v.total} ${v.total === 1 ? "page" : "pages"}`}
      </p>
      {v.items.length ? (
        <ul class="rows">
          {v.items.map((p) => (
            <li class="item">
              <h2 class="h3">
                <a href={wikiHref(wikiName(v.colony), p.slug)} safe>
                  {p.title}
                </a>
              </h2>
              <p class="meta">
                {p.category ? <span safe>{`${p.category} · `}</span> : ""}
                {p.lockedAt !== null ? "Locked · " : ""}
                {escapeHtml(`Revision ${p.revisionCount}, edited `)}
                <Time at={p.updatedAt} />
                {" by "}
                <Person user={v.editors.get(p.updatedBy)} />
              </p>
            </li>
          ))}
        </ul>
      ) : (
        <p class="empty">{v.q ? "No page matches." : "This wiki has no pages yet."}</p>
      )}
      <Pager page={v.page} hasMore={v.hasMore} href={(n) => `${base}?${v.q ? `q=${encodeURIComponent(v.q)}&` : ""}page=${n}`} />
      {v.moderates ? (
        <p>
          <a href={`${base}/_deleted`}>Deleted pages</a>
          {v.colony ? (
            <>
              {" · "}
              <a href={`${base}/_editors`}>Wiki editors</a>
            </>
          ) : (
            ""
          )}
        </p>
      ) : (
        ""
      )}
    </>,
  );
}

export interface WikiDeletedView {
  /** The colony whose wiki it is; null for the site wiki. */
  colony: ColonyRow | null;
  items: PageRow[];
  people: Map<string, UserRow>;
  page: number;
  hasMore: boolean;
  flash: FlashView;
}

/** A wiki's deleted pages, for its moderators: each can be restored as it was. */
export function wikiDeletedPage(visit: Visit, v: WikiDeletedView): string {
  const base = wikiHref(wikiName(v.colony));
  return wikiPage(
    visit,
    "Deleted wiki pages",
    { colony: v.colony, sub: "Deleted pages" },
    <>
      <Flash {...v.flash} />
      {v.items.length ? (
        <ul class="rows">
          {v.items.map((p) => (
            <li class="item">
              <h2 class="h3" safe>
                {p.title}
              </h2>
              <p class="meta">
                {"Deleted "}
                {p.deletedAt !== null ? <Time at={p.deletedAt} /> : ""}
                {" by "}
                <Person user={p.deletedBy ? v.people.get(p.deletedBy) : undefined} />
              </p>
              <PostForm visit={visit} action={wikiHref(wikiName(v.colony), p.slug, "/restore")} label={`Restore “${p.title}”`} />
            </li>
          ))}
        </ul>
      ) : (
        <p class="empty">No deleted pages.</p>
      )}
      <Pager page={v.page} hasMore={v.hasMore} href={(n) => `${base}/_deleted?page=${n}`} />
    </>,
  );
}

export interface WikiPageView {
  /** The colony whose wiki it is; null for the site wiki. */
  colony: ColonyRow | null;
  page: PageRow;
  /** The content rendered as the site renders markdown (sanitised). */
  html: string;
  createdBy: UserRow | undefined;
  updatedBy: UserRow | undefined;
  gate: WriteGate;
  moderates: boolean;
  flash: FlashView;
}

export function wikiPageView(visit: Visit, v: WikiPageView): string {
  const { page, colony } = v;
  const here = wikiHref(wikiName(colony), page.slug);
  const locked = page.lockedAt !== null;
  const safeHtml = v.html;
  return wikiPage(
    visit,
    page.title,
    { colony, page },
    <>
      <p class="meta">
        {page.category ? <span safe>{`${page.category} · `}</span> : ""}
        {escapeHtml(`Revision ${page.revisionCount}, edited `)}
        <Time at={page.updatedAt} />
        {" by "}
        <Person user={v.updatedBy} />
        {" · created by "}
        <Person user={v.createdBy} />
        {" · "}
        <a href={`${here}/history`}>History</a>
      </p>
      {locked ? (
        <p class="note">
          <strong>Locked:</strong> nobody can edit this page until a moderator unlocks it.
        </p>
      ) : (
        ""
      )}
      <Flash {...v.flash} />
      <div class="body wiki-body">{safeHtml || <p class="empty">This page is empty.</p>}</div>
      <div class="act">
        {visit.caller && !v.gate.refusal && !locked ? (
          <a class="btn" href={`${here}/edit`}>
            Edit this page
          </a>
        ) : locked ? (
          ""
        ) : (
          <GateNote visit={visit} gate={v.gate} next={here} />
        )}
        {v.moderates ? <PostForm visit={visit} action={`${here}/${locked ? "unlock" : "lock"}`} label={locked ? "Unlock the page" : "Lock the page"} /> : ""}
        {v.moderates || (visit.caller && visit.caller.id === page.createdBy) ? <PostForm visit={visit} action={`${here}/delete`} label="Delete the page" /> : ""}
      </div>
    </>,
    { article: true },
  );
}

export interface WikiFormValues {
  title: string;
  slug: string;
  category: string;
  content: string;
  summary: string;
}

export interface WikiEditView {
  /** The colony whose wiki it is; null for the site wiki. */
  colony: ColonyRow | null;
  /** The page being edited; null for a new page. */
  page: PageRow | null;
  values: WikiFormValues;
  /** The revision the edit was started from (the page's revision count then). */
  baseRevision: number;
  error?: string | null;
}

export function wikiEditPage(visit: Visit, v: WikiEditView): string {
  const title = v.page ? `Edit “${v.page.title}”` : "New wiki page";
  const action = v.page ? wikiHref(wikiName(v.colony), v.page.slug, "/edit") : wikiHref(wikiName(v.colony), undefined, "/_new");
  return wikiPage(
    visit,
    title,
    { colony: v.colony, page: v.page ?? undefined, sub: "New page" },
    <>
      <Flash error={v.error} />
      <form method="post" action={escapeHtml(action)} class="stack">
        <Hidden name="csrf" value={visit.csrf ?? ""} />
        {v.page ? <Hidden name="base_revision" value={String(v.baseRevision)} /> : ""}
        <TextField id="wiki-title" name="title" label="Title" value={v.values.title} required maxlength={TITLE_MAX} />
        {v.page ? (
          ""
        ) : (
          <TextField id="wiki-slug" name="slug" label="Address (slug)" value={v.values.slug} required maxlength={SLUG_MAX} hint="Lowercase letters and digits, words joined by single hyphens (getting-started). It never changes." />
        )}
        <TextField id="wiki-category" name="category" label="Category (optional)" value={v.values.category} maxlength={CATEGORY_MAX} />
        <TextArea id="wiki-content" name="content" label="Content" value={v.values.content} rows={16} maxlength={CONTENT_MAX} hint="Markdown." />
        <TextField id="wiki-summary" name="summary" label="Summary of the change (optional)" value={v.values.summary} maxlength={SUMMARY_MAX} />
        <p>
          <button type="submit">{v.page ? "Save the page" : "Create the page"}</button>
        </p>
      </form>
    </>,
  );
}

export interface WikiHistoryView {
  /** The colony whose wiki it is; null for the site wiki. */
  colony: ColonyRow | null;
  page: PageRow;
  revisions: RevisionRow[];
  authors: Map<string, UserRow>;
  pageNo: number;
  hasMore: boolean;
}

export function wikiHistoryPage(visit: Visit, v: WikiHistoryView): string {
  const here = wikiHref(wikiName(v.colony), v.page.slug);
  const title = `History of “${v.page.title}”`;
  return wikiPage(
    visit,
    title,
    { colony: v.colony, page: v.page },
    <>
      <p safe>{`${v.page.revisionCount} ${v.page.revisionCount === 1 ? "revision" : "revisions"}, newest first. Choose two to compare them.`}</p>
      <form method="get" action={escapeHtml(`${here}/diff`)}>
        <table class="grid">
          <thead>
            <tr>
              <th scope="col">Compare</th>
              <th scope="col">Revision</th>
              <th scope="col">By</th>
              <th scope="col">Summary</th>
            </tr>
          </thead>
          <tbody>
            {v.revisions.map((r, i) => (
              <tr>
                <td class="pick">
                  <label>
                    <input type="radio" name="from" value={r.id} checked={i === 1 || undefined} /> from<span class="vh">{escapeHtml(` revision ${r.number}`)}</span>
                  </label>{" "}
                  <label>
                    <input type="radio" name="to" value={r.id} checked={i === 0 || undefined} /> to<span class="vh">{escapeHtml(` revision ${r.number}`)}</span>
                  </label>
                </td>
                <td>
                  <a href={`${here}/revisions/${r.id}`}>{escapeHtml(`Revision ${r.number}`)}</a>
                  {", "}
                  <Time at={r.createdAt} />
                  {" · "}
                  <a href={`${here}/diff?to=${r.id}`}>
                    changes<span class="vh">{escapeHtml(` made in revision ${r.number}`)}</span>
                  </a>
                </td>
                <td>
                  <Person user={v.authors.get(r.authorId)} />
                </td>
                <td safe>{r.summary ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {v.page.revisionCount > 1 ? (
          <p>
            <button type="submit">Compare the chosen revisions</button>
          </p>
        ) : (
          ""
        )}
      </form>
      <Pager page={v.pageNo} hasMore={v.hasMore} href={(n) => `${here}/history?page=${n}`} />
    </>,
  );
}

export interface WikiRevisionView {
  /** The colony whose wiki it is; null for the site wiki. */
  colony: ColonyRow | null;
  page: PageRow;
  revision: RevisionRow;
  html: string;
  author: UserRow | undefined;
  gate: WriteGate;
}

export function wikiRevisionPage(visit: Visit, v: WikiRevisionView): string {
  const here = wikiHref(wikiName(v.colony), v.page.slug);
  const r = v.revision;
  const latest = r.number === v.page.revisionCount;
  const safeHtml = v.html;
  return wikiPage(
    visit,
    `Revision ${r.number} of “${v.page.title}”`,
    { colony: v.colony, page: v.page },
    <>
      <p class="note">
        {escapeHtml(`Revision ${r.number} of ${v.page.revisionCount}${latest ? " (the current one)" : ""}, by `)}
        <Person user={v.author} />
        {", "}
        <Time at={r.createdAt} />
        {r.summary ? <span safe>{`: “${r.summary}”`}</span> : ""}
        {" · "}
        <a href={`${here}/diff?to=${r.id}`}>What it changed</a>
        {" · "}
        <a href={`${here}/history`}>History</a>
      </p>
      <div class="body wiki-body">{safeHtml || <p class="empty">This revision is empty.</p>}</div>
      {!latest && visit.caller && !v.gate.refusal && v.page.lockedAt === null ? (
        <PostForm visit={visit} action={`${here}/revert`} label={`Restore revision ${r.number}`} cls="stack">
          <Hidden name="revision_id" value={r.id} />
          <TextField id="revert-summary" name="summary" label="Summary (optional)" maxlength={SUMMARY_MAX} />
        </PostForm>
      ) : (
        ""
      )}
    </>,
    { article: true, heading: r.title },
  );
}

/** One line of a unified diff as the page shows it. */
interface DiffLine {
  kind: "add" | "del" | "same" | "hunk" | "note";
  text: string;
}

/** The lines of a unified diff (`diff -u` layout), its file headers left out. */
export function diffLines(diff: string): DiffLine[] {
  const out: DiffLine[] = [];
  const lines = diff.split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (const line of lines) {
    if (line.startsWith("===") || line.startsWith("Index:") || line.startsWith("--- ") || line.startsWith("+++ ")) continue;
    if (line.startsWith("@@")) {
      const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
      out.push({ kind: "hunk", text: m ? `Lines ${m[3]} to ${Number(m[3]) + Math.max(Number(m[4] ?? 1) - 1, 0)} of the newer revision` : line });
    } else if (line.startsWith("+")) out.push({ kind: "add", text: line.slice(1) });
    else if (line.startsWith("-")) out.push({ kind: "del", text: line.slice(1) });
    else if (line.startsWith("\\")) out.push({ kind: "note", text: line.slice(2) });
    else out.push({ kind: "same", text: line.slice(1) });
  }
  return out;
}

export interface WikiDiffView {
  /** The colony whose wiki it is; null for the site wiki. */
  colony: ColonyRow | null;
  page: PageRow;
  /** The older side; null for the empty page before the first revision. */
  from: RevisionRow | null;
  to: RevisionRow;
  diff: string;
  additions: number;
  deletions: number;
}

const revName = (r: RevisionRow | null) => (r ? `revision ${r.number}` : "the empty page");

export function wikiDiffPage(visit: Visit, v: WikiDiffView): string {
  const here = wikiHref(wikiName(v.colony), v.page.slug);
  const title = `Changes to “${v.page.title}”`;
  const lines = diffLines(v.diff);
  return wikiPage(
    visit,
    title,
    { colony: v.colony, page: v.page },
    <>
      <p>
        {"From "}
        {v.from ? <a href={`${here}/revisions/${v.from.id}`}>{escapeHtml(revName(v.from))}</a> : "the empty page"}
        {" to "}
        <a href={`${here}/revisions/${v.to.id}`}>{escapeHtml(revName(v.to))}</a>
        {escapeHtml(`: ${v.additions} ${v.additions === 1 ? "line" : "lines"} added, ${v.deletions} removed.`)}
        {" "}
        <a href={`${here}/history`}>History</a>
      </p>
      {v.from && v.from.title !== v.to.title ? (
        <p safe>{`The title changed from “${v.from.title}” to “${v.to.title}”.`}</p>
      ) : (
        ""
      )}
      {lines.length ? (
        <ol class="diff" aria-label="Changed lines">
          {lines.map((l) =>
            l.kind === "add" ? (
              <li class="add">
                <span aria-hidden="true">+ </span>
                <ins>
                  <span class="vh">Added: </span>
                  <span safe>{l.text}</span>
                </ins>
              </li>
            ) : l.kind === "del" ? (
              <li class="del">
                <span aria-hidden="true">− </span>
                <del>
                  <span class="vh">Removed: </span>
                  <span safe>{l.text}</span>
                </del>
              </li>
            ) : l.kind === "hunk" ? (
              <li class="hunk" safe>
                {l.text}
              </li>
            ) : l.kind === "note" ? (
              <li class="same note-line" safe>
                {`(${l.text})`}
              </li>
            ) : (
              <li class="same">
                <span aria-hidden="true">{"  "}</span>
                <span safe>{l.text}</span>
              </li>
            ),
          )}
        </ol>
      ) : (
        <p class="empty">The content did not change.</p>
      )}
    </>,
  );
}

export interface WikiEditorsView {
  colony: ColonyRow;
  items: EditorListing[];
  policy: Policy;
  page: number;
  hasMore: boolean;
  username: string;
  flash: FlashView;
}

/** A colony's approved wiki editors, kept by those who manage its settings. */
export function wikiEditorsPage(visit: Visit, v: WikiEditorsView): string {
  const base = wikiHref(v.colony.name);
  return wikiPage(
    visit,
    "Wiki editors",
    { colony: v.colony, sub: "Editors" },
    <>
      <p safe>{`Who may edit this wiki now: ${POLICY_WORDS[v.policy]}, and its moderators. The editor list counts under the “approved editors” policies; a colony's settings choose the policy.`}</p>
      <Flash {...v.flash} />
      <form method="post" action={escapeHtml(`${base}/_editors`)} class="filters">
        <Hidden name="csrf" value={visit.csrf ?? ""} />
        <label for="editor-username">Add an editor by username</label>
        <input id="editor-username" name="username" type="text" required maxlength="64" value={v.username ? escapeHtml(v.username) : undefined} />
        <button type="submit">Add</button>
      </form>
      {v.items.length ? (
        <ul class="rows">
          {v.items.map((e) => (
            <li class="item">
              <p>
                <Person user={e.user} />
                <span class="meta">
                  {" · added "}
                  <Time at={e.editor.createdAt} />
                  {e.addedBy ? (
                    <>
                      {" by "}
                      <Person user={e.addedBy} />
                    </>
                  ) : (
                    ""
                  )}
                </span>
              </p>
              <PostForm visit={visit} action={`${base}/_editors/${encodeURIComponent(e.editor.userId)}/remove`} label={`Remove ${e.user?.username ?? "this editor"}`} />
            </li>
          ))}
        </ul>
      ) : (
        <p class="empty">No approved editors yet.</p>
      )}
      <Pager page={v.page} hasMore={v.hasMore} href={(n) => `${base}/_editors?page=${n}`} />
    </>,
  );
}
