/** @jsxImportSource @kitajs/html */
// A post and its comments. One read of everything (docs/decisions.md §135): the post and its
// colony (the posts service's visibility rule), the whole thread in one statement (the comments
// service's threadOf, as the context pack reads it), every author in one query, the post's
// reactions and, for a poll, its results. Comments nest; replies past OPEN_DEPTH start folded
// (<details>, no script needed) and past MAX_DEPTH continue on a page of their own
// (`?thread=<comment id>`), each comment keeps its permalink (#comment-<id>).
// The comment list is the same for everyone who sees the same comments (docs/decisions.md §180):
// it is rendered once per version of the forum and kept in the read cache, cut where each
// comment's actions go, and a signed-in viewer's page puts their votes and reactions back in.
import { escapeHtml } from "@kitajs/html";
import type { Ctx } from "../../core/context";
import { notFound } from "../../core/errors";
import { isUuid } from "../../core/ids";
import * as comments from "../../features/comments/service";
import type { CommentRow } from "../../features/comments/service";
import type { ColonyRow } from "../../features/colonies/service";
import * as polls from "../../features/polls/service";
import * as posts from "../../features/posts/service";
import type { PostRow } from "../../features/posts/service";
import * as reactions from "../../features/reactions/service";
import * as users from "../../features/users/service";
import { isBookmarked } from "../../features/bookmarks/service";
import * as collections from "../../features/collections/service";
import { voteOf, votersOf, votesOf } from "../../features/votes/service";
import { readCacheOf, stampOf } from "../../http/read-cache";
import type { UserRow } from "../../features/users/service";
import { Author, colonyHref, count, plural, POST_TYPE_LABELS, postHref, Tags, Time } from "../components";
import { Page, sync } from "../layout";
import { keptPiece, keptPieceBytes, Spliced, type KeptPiece } from "../gzip";
import type { Visit } from "../visit";
import * as tips from "../../features/tips/service";
import { AddToCollectionForm } from "./collections";
import { TipLine } from "./market-tips";
import { ActForm, BookmarkForm, CommentActs, CommentForm, PollForm, ReactForm, VoteForm } from "./part";

/** Replies of comments this deep or deeper start folded. */
export const OPEN_DEPTH = 3;
/** Comments this deep show no replies in place: a link continues the thread on its own page. */
export const MAX_DEPTH = 6;

/** Cuts the list where each comment's actions go; a random mark no comment's HTML can contain. */
const SLOT = `<!--acts-${crypto.randomUUID()}-->`;

interface Thread {
  children: Map<string | null, CommentRow[]>;
  /** Replies at every depth below a comment. */
  descendants: Map<string, number>;
  authors: Map<string, UserRow>;
  /** Each author's rendered byline, once per page: a thread repeats its authors. */
  bylines: Map<string, string>;
  /** For a signed-in audience: the comments whose actions the list leaves a SLOT for, in order. */
  slots?: CommentRow[];
}

/** A comment's actions in a kept list: where they sit in its markup, and what they show. */
interface Slot {
  id: string;
  /** Its author and when it was posted: the author's own links (edit, delete) follow from them. */
  authorId: string;
  createdAt: number;
  score: number;
  /** Its reaction counts, as nobody's (user_reacted false). */
  counts: reactions.ReactionCount[];
  start: number;
  end: number;
}

function byline(t: Thread, authorId: string): string {
  let html = t.bylines.get(authorId);
  if (html === undefined) t.bylines.set(authorId, (html = sync(<Author user={t.authors.get(authorId)} />)));
  return html;
}

/** Groups the rows (oldest first) by parent; a row whose parent is not among them goes to the top. */
function threadOf(rows: readonly CommentRow[], authors: Map<string, UserRow>): Thread {
  const ids = new Set(rows.map((r) => r.id));
  const children = new Map<string | null, CommentRow[]>();
  for (const r of rows) {
    const parent = r.parentId && ids.has(r.parentId) ? r.parentId : null;
    let list = children.get(parent);
    if (!list) children.set(parent, (list = []));
    list.push(r);
  }
  const descendants = new Map<string, number>();
  const below = (id: string): number => {
    let n = descendants.get(id);
    if (n === undefined) {
      n = 0;
      for (const c of children.get(id) ?? []) n += 1 + below(c.id);
      descendants.set(id, n);
    }
    return n;
  };
  for (const r of rows) below(r.id);
  return { children, descendants, authors, bylines: new Map() };
}

function Comment({ c, depth, t, postId }: { c: CommentRow; depth: number; t: Thread; postId: string }): string {
  const replies = t.children.get(c.id) ?? [];
  const gone = c.deletedAt !== null;
  const more = t.descendants.get(c.id) ?? 0;
  // The slot is taken before the replies render theirs: slots follow the markup's order.
  let acts = "";
  if (t.slots && !gone) {
    t.slots.push(c);
    acts = SLOT;
  }
  let below = "";
  if (replies.length && depth + 1 >= MAX_DEPTH) {
    below = (
      <p class="more">
        <a href={`${postHref(postId)}?thread=${c.id}#comment-${c.id}`} safe>{`Continue this thread (${plural(more, "more reply", "more replies")}) →`}</a>
      </p>
    ) as string;
  } else if (replies.length) {
    const list = (<CommentList rows={replies} depth={depth + 1} t={t} postId={postId} />) as string;
    below =
      depth + 1 >= OPEN_DEPTH
        ? ((
            <details>
              <summary safe>{plural(more, "more reply", "more replies")}</summary>
              {list as "safe"}
            </details>
          ) as string)
        : list;
  }
  return (
    <li>
      <article class={gone ? "c gone" : "c"} id={`comment-${c.id}`} aria-label={gone ? "Deleted comment" : undefined}>
        <div class="h">
          {gone ? <span>[deleted]</span> : (byline(t, c.authorId) as "safe")}
          <a href={`#comment-${c.id}`}>
            <Time at={c.createdAt} />
          </a>
          <span safe>{plural(c.score, "point")}</span>
        </div>
        <div class="body">{gone ? "[deleted]" : (c.bodyHtml as "safe")}</div>
        {acts as "safe"}
        {below as "safe"}
      </article>
    </li>
  ) as string;
}

function CommentList({ rows, depth, t, postId }: { rows: readonly CommentRow[]; depth: number; t: Thread; postId: string }): string {
  let out = "";
  for (const c of rows) out += Comment({ c, depth, t, postId });
  return (<ol class="thread">{out as "safe"}</ol>) as string;
}

/** A post's comment list as one audience sees it, with or without actions (docs/decisions.md §180). */
interface SharedList {
  /** The list's markup with every comment's actions as nobody's (or the "no comments" line). */
  html: string;
  /** The comments with actions, in the markup's order, each with where its actions sit in `html`. */
  slots: Slot[];
  /** Who has voted or reacted on the list's comments: anyone else's page is `html` as it is. */
  actors: Set<string>;
  count: number;
  truncated: boolean;
  /** Whether the list is kept in the read cache: then its gzip is made once, on first use (gzip.ts). */
  kept?: boolean;
  piece?: KeptPiece;
}

function renderList(ctx: Ctx, caller: Visit["caller"], post: PostRow, colony: ColonyRow, audience: comments.ThreadAudience, acts: boolean, focus: string | null): SharedList {
  const thread = comments.threadOf(ctx, caller, post, colony, audience);
  const authorIds: string[] = [];
  for (const c of thread.items) if (c.deletedAt === null) authorIds.push(c.authorId);
  const t = threadOf(thread.items, users.findManyByIds(ctx, authorIds));
  if (acts) t.slots = [];
  let top: readonly CommentRow[] = t.children.get(null) ?? [];
  if (focus) {
    const root = thread.items.find((c) => c.id === focus);
    if (!root) throw notFound("Comment not found");
    top = [root];
  }
  const html = top.length ? CommentList({ rows: top, depth: 0, t, postId: post.id }) : (<p class="empty">No comments yet.</p>) as string;
  const withActs = t.slots ?? [];
  const ids = withActs.map((c) => c.id);
  // Counts as nobody's: the viewer's own reactions are put back per page.
  const counts = reactions.summaries(ctx, null, "comment", ids);
  const actors = votersOf(ctx, "comment", ids);
  for (const id of reactions.reactorsOf(ctx, "comment", ids)) actors.add(id);
  const pieces = html.split(SLOT);
  let out = pieces[0];
  const slots = withActs.map((c, i): Slot => {
    const slot = { id: c.id, authorId: c.authorId, createdAt: c.createdAt, score: c.score, counts: counts.get(c.id) ?? [], start: out.length, end: 0 };
    out += slotActs(slot, null, false);
    slot.end = out.length;
    out += pieces[i + 1];
    return slot;
  });
  return { html: out, slots, actors, count: thread.items.length, truncated: thread.truncated };
}

const LIST_SCOPES: readonly string[] = ["forum"];

/** The list from the read cache, or rendered and kept there while no forum write happens and for at most its time to live. */
function sharedList(ctx: Ctx, caller: Visit["caller"], post: PostRow, colony: ColonyRow, audience: comments.ThreadAudience, acts: boolean, focus: string | null): SharedList {
  const cache = readCacheOf(ctx);
  if (cache.budget <= 0) return renderList(ctx, caller, post, colony, audience, acts, focus);
  const stamps = stampOf(ctx);
  const key = `web.comments ${audience}${acts ? "+acts" : ""} ${post.id} ${focus ?? ""}`;
  const hit = cache.value<SharedList>(key, stamps);
  if (hit) return hit;
  // Taken before reading: a write landing meanwhile makes this copy stale at once.
  const stamp = stamps(LIST_SCOPES);
  const list = renderList(ctx, caller, post, colony, audience, acts, focus);
  list.kept = true;
  cache.keep(key, list, list.html.length * 2 + keptPieceBytes(list.html) + list.slots.length * 160 + list.actors.size * 96, LIST_SCOPES, stamp);
  return list;
}

/**
 * A comment's actions in a list: CommentActs, then its Report link and, for its author while the
 * comments service's edit window lasts, Edit and Delete, inside the same row of actions.
 */
function slotActs(s: Pick<Slot, "id" | "score" | "counts">, vote: 1 | -1 | null, own: boolean, counts = s.counts): string {
  const acts = CommentActs({ id: s.id, score: s.score, counts, vote }) as string;
  const more = (own ? `<a href="/comment/${s.id}/edit">Edit</a><a href="/comment/${s.id}/delete">Delete</a>` : "") + `<a href="/comment/${s.id}/report">Report</a>`;
  // CommentActs is one <div>: the links go before its end.
  return `${acts.slice(0, -"</div>".length)}${more}</div>`;
}

/** Whether a comment's author may still edit it (the comments service's window; a POST past it is refused there). */
const ownEditable = (ctx: Ctx, s: Slot, viewerId: string) => s.authorId === viewerId && ctx.clock.now() - s.createdAt <= comments.EDIT_WINDOW_MS;

/**
 * The list's markup for one viewer: the actions of comments they voted or reacted on rendered
 * with their state, and of their own comments still in the edit window with Edit and Delete.
 */
function listHtml(ctx: Ctx, viewerId: string | null, list: SharedList): string {
  if (!viewerId) return list.html;
  const own = new Set(list.slots.filter((s) => ownEditable(ctx, s, viewerId)).map((s) => s.id));
  // Someone who never voted or reacted there and wrote nothing still editable sees the list as it is.
  if (!list.actors.has(viewerId) && !own.size) return list.html;
  const ids = list.slots.map((s) => s.id);
  const acted = list.actors.has(viewerId);
  const votes = acted ? votesOf(ctx, viewerId, "comment", ids) : new Map<string, 1 | -1>();
  const mine = acted ? reactions.reactedBy(ctx, viewerId, "comment", ids) : new Set<string>();
  const reactedOn = new Set<string>();
  for (const k of mine) reactedOn.add(k.slice(0, k.indexOf("|")));
  let out = "";
  let from = 0;
  for (const s of list.slots) {
    const vote = votes.get(s.id) ?? null;
    if (vote === null && !reactedOn.has(s.id) && !own.has(s.id)) continue;
    const counts = reactedOn.has(s.id) ? s.counts.map((c) => ({ ...c, user_reacted: mine.has(`${s.id}|${c.emoji}`) })) : s.counts;
    out += list.html.slice(from, s.start) + slotActs(s, vote, own.has(s.id), counts);
    from = s.end;
  }
  return out + list.html.slice(from);
}

function Poll({ results, shown }: { results: polls.PollResults; shown: boolean }) {
  return (
    <section class="poll" aria-labelledby="poll-h">
      <h2 id="poll-h">Poll{results.is_closed ? " (closed)" : results.closing_soon ? " (closing soon)" : ""}</h2>
      <ol>
        {results.options.map((o) => (
          <li>
            <span safe>{o.text}</span>
            {shown ? (
              <>
                {escapeHtml(` — ${plural(o.vote_count, "vote")} (${o.percentage}%)`)}
                <br />
                <meter min="0" max="100" value={String(o.percentage)} aria-label={`${o.percentage}% of voters`}></meter>
              </>
            ) : (
              ""
            )}
          </li>
        ))}
      </ol>
      <p class="meta">
        {shown ? plural(results.total_votes, "voter") : "Results are shown once you have voted, or when the poll closes."}
        {results.multiple_choice ? " · several choices allowed" : ""}
      </p>
    </section>
  );
}

/** The viewer's collections (all of them: at most MAX_COLLECTIONS), for the form that adds the post to one. */
const collectionsOf = (ctx: Ctx, viewer: NonNullable<Visit["caller"]>) =>
  collections.listCollections(ctx, viewer, viewer.id, { limit: collections.MAX_COLLECTIONS, offset: 0 }).items.map((c) => ({ id: c.id, title: c.title }));

/**
 * The author's Edit and Delete while the posts service's windows last (a draft has none); past
 * them the links go, and a POST sent anyway is refused by the service with its reason.
 */
function OwnPostLinks({ ctx, post, viewerId }: { ctx: Ctx; post: PostRow; viewerId: string }) {
  if (post.authorId !== viewerId) return "";
  const age = ctx.clock.now() - post.createdAt;
  const open = (window: number) => post.state !== "published" || age <= window;
  return (
    <>
      {open(posts.EDIT_WINDOW_MS) ? <a href={`${postHref(post.id)}/edit`}>Edit</a> : ""}
      {open(posts.DELETE_WINDOW_MS) ? <a href={`${postHref(post.id)}/delete`}>Delete</a> : ""}
    </>
  );
}

/** A paid task or service offer: where its bids, orders and invoices are handled. */
function ListingLink({ post }: { post: PostRow }) {
  if (post.postType !== "paid_task" && post.postType !== "paid_offer") return "";
  const task = post.postType === "paid_task";
  return (
    <p class="listing-link">
      <a href={`/marketplace/${task ? "tasks" : "offers"}/${post.id}`}>{task ? "Bids and delivery on the marketplace" : "Order this on the marketplace"}</a>
    </p>
  );
}

/** The post's paid tips and, for anyone but its author, a way to tip (the page is cached for anonymous readers: tip_received reaches the forum's read scope). */
function PostTips({ ctx, visit, post }: { ctx: Ctx; visit: Visit; post: PostRow }) {
  const s = tips.postStats(ctx, visit.caller, post.id);
  return <TipLine postId={post.id} totalTips={s.total_tips} totalSats={s.total_sats} own={visit.caller?.id === post.authorId} />;
}

function PostArticle({ ctx, visit, post, colony }: { ctx: Ctx; visit: Visit; post: PostRow; colony: ColonyRow }) {
  const counts = reactions.summary(ctx, visit.caller, "post", post.id);
  const poll = post.postType === "poll" ? polls.getResults(ctx, visit.caller, post.id) : null;
  const marked = !!visit.caller && isBookmarked(ctx, visit.caller.id, post.id);
  return (
    <article class="post" aria-labelledby="post-title">
      <header>
        <h1 id="post-title" safe>
          {post.title}
        </h1>
        <p class="meta">
          {POST_TYPE_LABELS[post.postType]}
          {" in "}
          <a href={colonyHref(colony.name)} safe>
            {colony.displayName || colony.name}
          </a>
          {" by "}
          <Author user={users.findById(ctx, post.authorId) ?? undefined} avatar={24} />
          {" · "}
          <Time at={post.createdAt} />
          {" · "}
          {escapeHtml(plural(post.score, "point"))}
          {" · "}
          {escapeHtml(plural(post.commentCount, "comment"))}
        </p>
        <Tags tags={post.tags} />
      </header>
      <div class="body">{post.bodyHtml as "safe"}</div>
      <ListingLink post={post} />
      <PostTips ctx={ctx} visit={visit} post={post} />
      {poll ? <Poll results={poll} shown={polls.countsShown(poll, visit.caller, post)} /> : ""}
      {poll && visit.caller && visit.csrf ? <PollForm postId={post.id} csrf={visit.csrf} results={poll} /> : ""}
      {visit.caller && visit.csrf ? (
        <div class="acts">
          <VoteForm action={`${postHref(post.id)}/vote`} csrf={visit.csrf} current={voteOf(ctx, visit.caller.id, "post", post.id)} score={post.score} what="post" />
          <ReactForm action={`${postHref(post.id)}/react`} csrf={visit.csrf} counts={counts} />
          <BookmarkForm action={`${postHref(post.id)}/bookmark`} csrf={visit.csrf} marked={marked} />
          {marked ? <a href="/bookmarks">Your bookmarks</a> : ""}
          <OwnPostLinks ctx={ctx} post={post} viewerId={visit.caller.id} />
          <a href={`${postHref(post.id)}/report`}>Report</a>
          <AddToCollectionForm postId={post.id} csrf={visit.csrf} collections={collectionsOf(ctx, visit.caller)} />
        </div>
      ) : counts.length ? (
        <ul class="reactions" aria-label="Reactions">
          {counts.map((r) => (
            <li title={r.emoji}>
              <span aria-hidden="true" safe>
                {r.emoji_char}
              </span>{" "}
              <span class="vh" safe>
                {r.emoji.replaceAll("_", " ")}
              </span>{" "}
              {r.count}
            </li>
          ))}
        </ul>
      ) : (
        ""
      )}
    </article>
  );
}

/** `?thread=` names a comment of the post whose replies are shown on their own; anything else is not found. */
export function threadParam(raw: string | undefined): string | null {
  if (raw === undefined || raw === "") return null;
  if (!isUuid(raw)) throw notFound("Comment not found");
  return raw.toLowerCase();
}

/** Where a kept list goes in a signed-in page, for the page to be cut there (see `Spliced`). */
const LIST_MARK = `<!--comments ${crypto.randomUUID()}-->`;

export function PostPage(ctx: Ctx, visit: Visit, postId: string, focus: string | null): string | Spliced {
  if (!isUuid(postId)) throw posts.postNotFound();
  const { post, colony } = posts.getVisiblePost(ctx, visit.caller, postId);
  const signedIn = !!(visit.caller && visit.csrf);
  const audience = comments.threadAudience(ctx, visit.caller, post, colony);
  // An author of a held comment there sees a list of their own: rendered for them, never kept.
  const list = audience === "author" ? renderList(ctx, visit.caller, post, colony, audience, signedIn, focus) : sharedList(ctx, visit.caller, post, colony, audience, signedIn, focus);
  const mine = listHtml(ctx, signedIn ? visit.caller!.id : null, list);
  // Signed-in readers are answered per request; those who see the kept list as it is share its gzip.
  const spliced = signedIn && list.kept === true && mine === list.html;
  const page = sync(
    <Page title={post.title} viewer={visit.viewer} csrf={visit.csrf} description={`${POST_TYPE_LABELS[post.postType]} in ${colony.displayName || colony.name}`}>
      <PostArticle ctx={ctx} visit={visit} post={post} colony={colony} />
      <section id="comments" aria-labelledby="comments-h" data-live-post={visit.caller ? post.id : undefined}>
        <h2 id="comments-h" safe>{focus ? "A thread of the comments" : plural(list.count, "comment")}</h2>
        {focus ? (
          <p class="note">
            <a href={`${postHref(post.id)}#comment-${focus}`}>← Back to all comments</a>
          </p>
        ) : (
          ""
        )}
        {list.truncated ? <p class="note" safe>{`Only the first ${count(comments.THREAD_MAX)} comments are shown.`}</p> : ""}
        {signedIn && !focus ? (
          <CommentForm postId={post.id} csrf={visit.csrf!} />
        ) : !visit.caller ? (
          <p class="note">
            <a href={`/login?next=${encodeURIComponent(postHref(post.id))}`}>Sign in</a> to comment.
          </p>
        ) : (
          ""
        )}
        {signedIn ? <ActForm csrf={visit.csrf!} /> : ""}
        {(spliced ? LIST_MARK : mine) as "safe"}
      </section>
    </Page>,
  );
  if (!spliced) return page;
  // The list kept for many readers is compressed once: the page's answer compresses only its ends.
  const at = page.lastIndexOf(LIST_MARK);
  return new Spliced(page.slice(0, at), { html: list.html, piece: () => (list.piece ??= keptPiece(list.html)) }, page.slice(at + LIST_MARK.length));
}
