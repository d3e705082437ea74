/** @jsxImportSource @kitajs/html */
// The marketplace's pages share these: the frame (the site's layout, the marketplace's tabs, the
// notice or error of a form just sent), amounts in sats, one-button forms and the lists of paid
// tasks, service offers and documents for sale (/marketplace, /marketplace/offers,
// /marketplace/documents). Every value from a person or the database is escaped here (the `safe`
// attribute or escapeHtml); the routes (web/market-*.ts) call the feature services and hand
// these functions what they answered.
import type { Children } from "@kitajs/html";
import type { ColonyLabel } from "../../features/colonies/service";
import type { DocumentRow } from "../../features/documents/service";
import type { PostRow } from "../../features/posts/service";
import type { UserRow } from "../../features/users/service";
import { CsrfField, escapeHtml } from "../account-layout";
import { Author, colonyHref, count, Pager, postHref, Tabs, Time } from "../components";
import { Page } from "../layout";
import type { Visit } from "../visit";

/** "1,000 sats". */
export const sats = (n: number) => `${count(n)} ${n === 1 ? "sat" : "sats"}`;

/** A word of a stored value for people ("payout_pending" → "payout pending"). */
export const words = (v: string) => v.replaceAll("_", " ");

export const taskHref = (id: string) => `/marketplace/tasks/${id}`;
export const offerHref = (id: string) => `/marketplace/offers/${id}`;
export const orderHref = (id: string) => `/marketplace/orders/${id}`;
export const documentHref = (id: string) => `/marketplace/documents/${id}`;
export const purchaseHref = (id: string) => `/marketplace/purchases/${id}`;
export const tipHref = (id: string) => `/marketplace/tips/${id}`;

/** The notice or error above a page's content: the moderation pages' own. */
export { Flash, type FlashView } from "../account-layout";

type Section = "tasks" | "offers" | "documents" | "orders" | "purchases";

/** The marketplace's own navigation; a signed-in reader also has their orders and purchases. */
function MarketTabs({ current, signedIn }: { current: Section | null; signedIn: boolean }) {
  const items: [Section, string, string][] = [
    ["tasks", "/marketplace", "Paid tasks"],
    ["offers", "/marketplace/offers", "Service offers"],
    ["documents", "/marketplace/documents", "Documents"],
  ];
  if (signedIn) items.push(["orders", "/marketplace/orders", "My orders"], ["purchases", "/marketplace/purchases", "My purchases"]);
  return <Tabs label="Marketplace" items={items.map(([key, href, text]) => ({ href, text, current: key === current }))} />;
}

/** A marketplace page in the site's layout: the tabs, then `body`. */
export function marketPage(visit: Visit, title: string, current: Section | null, body: Children, opts: { noindex?: boolean } = {}): string {
  return Page({
    title,
    viewer: visit.viewer,
    csrf: visit.csrf,
    noindex: opts.noindex,
    children: (
      <div class="market">
        <MarketTabs current={current} signedIn={!!visit.caller} />
        {body}
      </div>
    ),
  });
}

/** A form of one button (`children`: its other fields), posted with the page's CSRF token. */
/** The head of a listing's page: its title, who listed it where and when, and its facts. */
export function ListingHead({ post, kind, author, colony, id }: { post: PostRow; kind: string; author: UserRow | undefined; colony: { name: string; displayName: string | null }; id: string }) {
  return (
    <>
      <h1 id={id} safe>
        {post.title}
      </h1>
      <p class="meta">
        {escapeHtml(kind)} by <Author user={author} avatar={20} />
        {" in "}
        <a href={colonyHref(colony.name)} safe>
          {colony.displayName || colony.name}
        </a>
        {" · "}
        <Time at={post.createdAt} />
        {" · "}
        <a href={postHref(post.id)}>discussion</a>
      </p>
    </>
  );
}

/** A listing's facts (budget, price, category …) as a definition list. */
export function Facts({ facts }: { facts: readonly [string, string][] }) {
  return (
    <dl class="facts">
      {facts.map(([k, val]) => (
        <div>
          <dt safe>{k}</dt>
          <dd safe>{val}</dd>
        </div>
      ))}
    </dl>
  );
}

export function ActButton({ csrf, action, label, cls, children }: { csrf: string; action: string; label: string; cls?: string; children?: Children }) {
  return (
    <form method="post" action={escapeHtml(action)} class="inline">
      <CsrfField csrf={csrf} />
      {children}
      <button type="submit" class={cls || undefined}>
        {escapeHtml(label)}
      </button>
    </form>
  );
}

/** "Sign in to …", coming back to `back` afterwards. */
export const SignInTo = ({ back, to }: { back: string; to: string }) => (
  <p class="note">
    <a href={`/login?next=${encodeURIComponent(back)}`}>Sign in</a> {escapeHtml(to)}
  </p>
);

/** A number field of a form, with its label and hint. */
export function SatsInput({ id, name, label, min, max, value, hint }: { id: string; name: string; label: string; min: number; max: number; value?: string; hint?: string }) {
  return (
    <p>
      <label for={id}>{escapeHtml(label)}</label>
      <br />
      <input
        id={id}
        name={name}
        type="number"
        inputmode="numeric"
        min={String(min)}
        max={String(max)}
        step="1"
        required
        value={value ? escapeHtml(value) : undefined}
        aria-describedby={hint ? `${id}-hint` : undefined}
      />
      {hint ? (
        <>
          <br />
          <small id={`${id}-hint`}>{escapeHtml(hint)}</small>
        </>
      ) : (
        ""
      )}
    </p>
  );
}

// ---- the lists

/** Metadata of a listing as the page shows it: a number, a word, or nothing. */
export const metaNumber = (post: PostRow, key: string): number | null => (typeof post.metadata?.[key] === "number" ? (post.metadata[key] as number) : null);
export const metaText = (post: PostRow, key: string): string | null => (typeof post.metadata?.[key] === "string" ? (post.metadata[key] as string) : null);

/** A task's budget in words: "100 – 10,000 sats", "up to 5,000 sats", or null without one. */
export function budgetText(post: PostRow): string | null {
  const min = metaNumber(post, "budget_min_sats");
  const max = metaNumber(post, "budget_max_sats");
  if (max === null) return min === null ? null : `from ${sats(min)}`;
  return min === null ? `up to ${sats(max)}` : `${count(min)} – ${sats(max)}`;
}

export interface ListRefs {
  authors: Map<string, UserRow>;
  colonies: Map<string, ColonyLabel>;
}

function InColony({ post, refs }: { post: PostRow; refs: ListRefs }) {
  const colony = refs.colonies.get(post.colonyId);
  return colony ? (
    <>
      {" in "}
      <a href={colonyHref(colony.name)} safe>
        {colony.displayName || colony.name}
      </a>
    </>
  ) : (
    ""
  );
}

/** One listing of a list: its title linking to it, its facts (`children`), and who posted it, where and when. */
function ListingItem({ post, href, refs, children }: { post: PostRow; href: string; refs: ListRefs; children: Children }) {
  return (
    <li>
      <h2>
        <a href={href} safe>
          {post.title}
        </a>
      </h2>
      <p class="meta">{children}</p>
      <p class="meta">
        by <Author user={refs.authors.get(post.authorId)} avatar={16} />
        <InColony post={post} refs={refs} /> · <Time at={post.createdAt} />
      </p>
    </li>
  );
}

export interface TaskFilters {
  category: string;
  status: string;
  sort: string;
}

const FILTER_LABELS = { category: "Category", status: "Status", sort: "Order" } as const;

/** The list's filters as a GET form: every choice the API's filter takes, and "any". */
function FilterForm({ action, filters, options }: { action: string; filters: Record<string, string>; options: Record<string, readonly string[]> }) {
  return (
    <form method="get" action={action} class="filters" aria-label="Filters">
      {Object.entries(options).map(([name, values]) => (
        <>
          <label for={`f-${name}`}>{escapeHtml(FILTER_LABELS[name as keyof typeof FILTER_LABELS] ?? name)}</label>
          <select id={`f-${name}`} name={name}>
            {name === "sort" ? "" : <option value="">any</option>}
            {values.map((v) => (
              <option value={escapeHtml(v)} selected={filters[name] === v}>
                {escapeHtml(words(v))}
              </option>
            ))}
          </select>
        </>
      ))}
      <button type="submit">Show</button>
    </form>
  );
}

/** The query string of a list's page `n` with its filters (those set). */
export function listHref(base: string, filters: Record<string, string>, n: number): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v) q.set(k, v);
  if (n > 1) q.set("page", String(n));
  const s = q.toString();
  return s ? `${base}?${s}` : base;
}

export function TasksPage(
  visit: Visit,
  v: { items: PostRow[]; bidCounts: Map<string, number>; refs: ListRefs; filters: TaskFilters; options: Record<keyof TaskFilters, readonly string[]>; page: number; hasMore: boolean },
): string {
  return marketPage(
    visit,
    "Marketplace",
    "tasks",
    <>
      <h1>Paid tasks</h1>
      <p>Work paid in sats over Lightning: bid on a task, and its author accepts one bid and pays its invoice; the platform keeps 5 % and forwards the rest to the worker.</p>
      {visit.caller ? (
        <p>
          <a class="btn" href="/marketplace/new?kind=task">
            Post a paid task
          </a>
        </p>
      ) : (
        ""
      )}
      <FilterForm action="/marketplace" filters={{ ...v.filters }} options={v.options} />
      {v.items.length ? (
        <ol class="rows listings">
          {v.items.map((p) => {
            const budget = budgetText(p);
            const category = metaText(p, "category");
            const bids = v.bidCounts.get(p.id) ?? 0;
            return (
              <ListingItem post={p} href={taskHref(p.id)} refs={v.refs}>
                <span class="b">{escapeHtml(words(p.status ?? "open"))}</span> {budget ? <strong safe>{budget}</strong> : "no budget set"}
                {category ? escapeHtml(` · ${words(category)}`) : ""}
                {escapeHtml(` · ${bids === 1 ? "1 bid" : `${count(bids)} bids`}`)}
              </ListingItem>
            );
          })}
        </ol>
      ) : (
        <p class="empty">No task matches: try other filters.</p>
      )}
      <Pager page={v.page} hasMore={v.hasMore} href={(n) => listHref("/marketplace", { ...v.filters }, n)} />
    </>,
  );
}

export function OffersPage(visit: Visit, v: { items: PostRow[]; refs: ListRefs; page: number; hasMore: boolean }): string {
  return marketPage(
    visit,
    "Service offers",
    "offers",
    <>
      <h1>Service offers</h1>
      <p>Services at a fixed price: order one, and once its seller accepts, pay the invoice; the seller delivers and is paid.</p>
      {visit.caller ? (
        <p>
          <a class="btn" href="/marketplace/new?kind=offer">
            Offer a service
          </a>
        </p>
      ) : (
        ""
      )}
      {v.items.length ? (
        <ol class="rows listings">
          {v.items.map((p) => {
            const rate = metaNumber(p, "listed_rate_sats");
            const category = metaText(p, "category");
            const days = metaNumber(p, "delivery_days");
            return (
              <ListingItem post={p} href={offerHref(p.id)} refs={v.refs}>
                {rate === null ? "no price set" : <strong safe>{sats(rate)}</strong>}
                {category ? escapeHtml(` · ${words(category)}`) : ""}
                {days === null ? "" : escapeHtml(` · delivered in ${days === 1 ? "1 day" : `${count(days)} days`}`)}
                {p.closedAt !== null ? " · closed" : ""}
              </ListingItem>
            );
          })}
        </ol>
      ) : (
        <p class="empty">No service is offered yet.</p>
      )}
      <Pager page={v.page} hasMore={v.hasMore} href={(n) => listHref("/marketplace/offers", {}, n)} />
    </>,
  );
}

export function DocumentsPage(visit: Visit, v: { items: DocumentRow[]; sellers: Map<string, UserRow>; q: string; page: number; hasMore: boolean }): string {
  return marketPage(
    visit,
    "Documents for sale",
    "documents",
    <>
      <h1>Documents for sale</h1>
      <p>Text documents sold by their authors: read the free preview, pay the invoice, download the file.</p>
      <form method="get" action="/marketplace/documents" class="filters" role="search" aria-label="Documents">
        <label for="doc-q">Title or description</label>
        <input id="doc-q" type="search" name="q" value={v.q ? escapeHtml(v.q) : undefined} maxlength="200" />
        <button type="submit">Search</button>
      </form>
      {v.items.length ? (
        <ol class="rows listings">
          {v.items.map((d) => (
            <li>
              <h2>
                <a href={documentHref(d.id)} safe>
                  {d.title}
                </a>
              </h2>
              <p class="meta">
                <strong safe>{sats(d.priceSats)}</strong>
                {escapeHtml(` · ${d.filename} · ${count(d.contentSize)} bytes`)}
              </p>
              {d.description ? (
                <p class="meta" safe>
                  {d.description}
                </p>
              ) : (
                ""
              )}
              <p class="meta">
                by <Author user={v.sellers.get(d.sellerId)} avatar={16} /> · <Time at={d.createdAt} />
              </p>
            </li>
          ))}
        </ol>
      ) : (
        <p class="empty">{v.q ? "No document matches." : "No document is for sale yet."}</p>
      )}
      <Pager page={v.page} hasMore={v.hasMore} href={(n) => listHref("/marketplace/documents", { q: v.q }, n)} />
    </>,
  );
}
