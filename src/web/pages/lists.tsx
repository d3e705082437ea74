/** @jsxImportSource @kitajs/html */
// The pages that list posts: the front page (every colony), a colony and a tag, each in hot, new
// or top order (top over a period), 20 to a page (docs/decisions.md §134). The posts come from the
// posts service's list, as GET /api/v1/posts answers them to the same caller.
import { DAY, iso } from "../../core/clock";
import type { Ctx } from "../../core/context";
import { invalid } from "../../core/errors";
import { MAX_OFFSET } from "../../core/paging";
import * as colonies from "../../features/colonies/service";
import type { ColonyRow } from "../../features/colonies/service";
import * as posts from "../../features/posts/service";
import type { ListFilters, PostRow } from "../../features/posts/service";
import * as users from "../../features/users/service";
import { colonyHref, PostList, Pager, plural, tagHref, Tabs, type PostRefs } from "../components";
import { currentSettings } from "../../features/instance/service";
import { Page, SITE_NAME } from "../layout";
import type { Visit } from "../visit";
import { MembershipForm } from "./directories";

export const PAGE_SIZE = 20;

const SORTS = ["hot", "new", "top"] as const;
type Sort = (typeof SORTS)[number];
const PERIODS = { day: DAY, week: 7 * DAY, month: 30 * DAY, year: 365 * DAY, all: null } as const;
type Period = keyof typeof PERIODS;
const PERIOD_LABELS: Record<Period, string> = { day: "Today", week: "This week", month: "This month", year: "This year", all: "All time" };
const SORT_LABELS: Record<Sort, string> = { hot: "Hot", new: "New", top: "Top" };
const SERVICE_SORT: Record<Sort, NonNullable<ListFilters["sort"]>> = { hot: "hot", new: "newest", top: "top" };
const DEFAULT_PERIOD: Period = "week";

export interface ListInput {
  /** Null: the list's default order (hot on the front page and tags, the colony's own in a colony). */
  sort: Sort | null;
  period: Period;
  page: number;
}

/** The page number of `?page=` (1 when absent); anything but 1..the deepest page is a 400. */
export function pageNumber(raw: string | undefined, size = PAGE_SIZE): number {
  if (raw === undefined || raw === "") return 1;
  const n = /^\d{1,7}$/.test(raw) ? Number(raw) : NaN;
  const last = Math.floor(MAX_OFFSET / size) + 1;
  if (!Number.isInteger(n) || n < 1 || n > last) throw invalid(`page must be a whole number from 1 to ${last}`);
  return n;
}

/** `?sort=`, `?t=` and `?page=` of a list page; anything else in them is a 400. */
export function listInput(query: Record<string, string | undefined>): ListInput {
  const sort = query.sort === undefined || query.sort === "" ? null : (SORTS as readonly string[]).includes(query.sort) ? (query.sort as Sort) : null;
  if (sort === null && query.sort) throw invalid("sort must be hot, new or top");
  const t = query.t === undefined || query.t === "" ? DEFAULT_PERIOD : query.t;
  if (!(t in PERIODS)) throw invalid("t must be day, week, month, year or all");
  return { sort, period: t as Period, page: pageNumber(query.page) };
}

/** The part of the cache key a list's input makes. */
export const listKey = (i: ListInput) => `${i.sort ?? "-"}|${i.sort === "top" ? i.period : "-"}|${i.page}`;

/** The authors and colony names a page of posts shows, one query each. */
export function postRefs(ctx: Ctx, rows: readonly PostRow[]): PostRefs {
  return { authors: users.findManyByIds(ctx, rows.map((r) => r.authorId)), colonies: colonies.colonyLabels(ctx, rows.map((r) => r.colonyId)) };
}

/** One page of the list in the given order, through the posts service. */
export function listPage(ctx: Ctx, visit: Visit, filters: ListFilters, sort: Sort, input: ListInput) {
  const f: ListFilters = { ...filters, sort: SERVICE_SORT[sort] };
  const span = sort === "top" ? PERIODS[input.period] : null;
  // Whole minutes, so that repeated reads share the list's cached total.
  if (span !== null) f.since = iso(Math.floor((ctx.clock.now() - span) / 60_000) * 60_000);
  const r = posts.listPosts(ctx, visit.caller, f, { limit: PAGE_SIZE, offset: (input.page - 1) * PAGE_SIZE });
  return { items: r.items, hasMore: r.has_more, refs: postRefs(ctx, r.items) };
}

function query(base: string, params: Record<string, string | number | null>): string {
  const q = Object.entries(params)
    .filter(([, v]) => v !== null && v !== "")
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join("&");
  return q ? `${base}?${q}` : base;
}

/** Sort tabs, period tabs for top, the posts and the pager of one list. */
function Listing({ base, sort, input, list, showColony, empty }: { base: string; sort: Sort; input: ListInput; list: ReturnType<typeof listPage>; showColony: boolean; empty: string }) {
  const period = sort === "top" ? input.period : null;
  return (
    <>
      <Tabs label="Order" items={SORTS.map((s) => ({ href: query(base, { sort: s }), text: SORT_LABELS[s], current: s === sort }))} />
      {period ? (
        <Tabs
          label="Period"
          items={(Object.keys(PERIODS) as Period[]).map((p) => ({ href: query(base, { sort: "top", t: p }), text: PERIOD_LABELS[p], current: p === period }))}
        />
      ) : (
        ""
      )}
      <PostList posts={list.items} refs={list.refs} showColony={showColony} empty={empty} />
      <Pager page={input.page} hasMore={list.hasMore} href={(n) => query(base, { sort: input.sort, t: period && input.period !== DEFAULT_PERIOD ? input.period : null, page: n > 1 ? n : null })} />
    </>
  );
}

/** What an admin of an instance without posts reads on its front page: where to set it up. */
function AdminStart() {
  const s = currentSettings();
  return (
    <section class="note start" aria-labelledby="admin-start">
      <h2 id="admin-start">Setting up this instance</h2>
      <p>
        You are a site admin. The <a href="/admin">admin page</a> has the instance's health, people, invite codes and backups; name the instance, describe it,
        write its rules and choose who may sign up under <a href="/admin/settings">Instance settings</a>.
      </p>
      {s.set.name ? "" : <p class="meta">This instance is still called by its built-in name.</p>}
    </section>
  );
}

/** What the front page says while the instance waits for its first administrator (features/instance/setup.ts). */
function SetupPending() {
  return (
    <section class="note start" aria-labelledby="setup-pending">
      <h2 id="setup-pending">This instance is being set up</h2>
      <p>
        It has no administrator yet. If you run it: the server printed a one-time setup link in its log when it started; open it, or <code>/setup</code> in a
        browser on the server's own machine, to create the first administrator.
      </p>
    </section>
  );
}

export function HomePage(ctx: Ctx, visit: Visit, input: ListInput): JSX.Element {
  const sort = input.sort ?? "hot";
  const list = listPage(ctx, visit, {}, sort, input);
  return (
    <Page title={SITE_NAME} viewer={visit.viewer} csrf={visit.csrf} description="Posts from every colony of this instance.">
      <h1>{sort === "hot" ? "Hot posts" : sort === "new" ? "New posts" : "Top posts"} across all colonies</h1>
      {/* The posts' titles are h3 (components.tsx PostItem): a heading of their own keeps the outline in order. */}
      <h2 class="vh">Posts</h2>
      <Listing base="/" sort={sort} input={input} list={list} showColony empty="No posts yet." />
      {visit.viewer?.isAdmin && !list.items.length && input.page === 1 ? <AdminStart /> : ""}
      {currentSettings().awaitingSetup && !visit.viewer?.isAdmin ? <SetupPending /> : ""}
    </Page>
  );
}

/** A colony's order when the page names none: its default_sort where that is one of ours, else new. */
function colonySort(colony: ColonyRow): Sort {
  const d = colonies.settingsOf(colony).default_sort;
  return d === "hot" || d === "top" ? d : "new";
}

export function ColonyPage(ctx: Ctx, visit: Visit, name: string, input: ListInput): JSX.Element {
  const colony = colonies.getReadableColonyByName(ctx, visit.caller, name);
  const sort = input.sort ?? colonySort(colony);
  const list = listPage(ctx, visit, { colony_id: colony.id }, sort, input);
  const base = colonyHref(colony.name);
  const title = colony.displayName || colony.name;
  return (
    <Page title={title} viewer={visit.viewer} csrf={visit.csrf} description={colony.description ?? undefined} feed={{ title: `${title}: new posts`, href: `${base}/feed.atom` }}>
      <div class="hero">
        <div>
          <h1 safe>{title}</h1>
          <p class="meta" safe>{`c/${colony.name}`}</p>
          {colony.description ? <p safe>{colony.description}</p> : ""}
          <ul class="facts">
            <li safe>{plural(colony.memberCount, "member")}</li>
            <li safe>{plural(colony.postCount, "post")}</li>
            {colony.communityType !== "public" ? <li>{colony.communityType}</li> : ""}
            <li>
              <a href={`${base}/wiki`}>Wiki</a>
            </li>
            <li>
              <a href={`${base}/feed.atom`}>Atom feed</a>
            </li>
            {visit.caller && visit.csrf ? (
              <li>
                <MembershipForm colony={colony} membership={colonies.membershipOf(ctx, colony.id, visit.caller.id)} csrf={visit.csrf} back={base} />
              </li>
            ) : (
              ""
            )}
            {visit.viewer ? (
              <li>
                <a href={`/submit?colony=${encodeURIComponent(colony.name)}`} class="btn">
                  New post
                </a>
              </li>
            ) : (
              ""
            )}
          </ul>
        </div>
      </div>
      <h2 class="vh">Posts</h2>
      <Listing base={base} sort={sort} input={input} list={list} showColony={false} empty="This colony has no posts yet." />
    </Page>
  );
}

/** Tags as the posts service stores them: lower case, without a leading `#`. */
export function normaliseTag(raw: string): string {
  const tag = raw.trim().toLowerCase().replace(/^#+/, "");
  if (!tag || tag.length > 50) throw invalid("A tag has 1 to 50 characters");
  return tag;
}

export function TagPage(ctx: Ctx, visit: Visit, tag: string, input: ListInput): JSX.Element {
  const sort = input.sort ?? "hot";
  const list = listPage(ctx, visit, { tag }, sort, input);
  const base = tagHref(tag);
  return (
    <Page title={`#${tag}`} viewer={visit.viewer} csrf={visit.csrf} feed={{ title: `#${tag}: new posts`, href: `${base}/feed.atom` }}>
      <h1 safe>{`Posts tagged #${tag}`}</h1>
      <p class="meta">
        <a href={`${base}/feed.atom`}>Atom feed</a>
      </p>
      <h2 class="vh">Posts</h2>
      <Listing base={base} sort={sort} input={input} list={list} showColony empty="No posts carry this tag." />
    </Page>
  );
}
