/** @jsxImportSource @kitajs/html */
// Time capsules on the web (/capsules…): the list, one's own, sealing a new one, and a capsule's
// page, which shows its body only once it has opened (its author sees it before, as the API
// answers them). The routes (web/capsule-routes.ts) call the capsules service.
import type { CapsuleRow } from "../../features/capsules/service";
import type { UserRow } from "../../features/users/service";
import { Hidden } from "../account-layout";
import { Pager, Tabs, Time } from "../components";
import type { Visit } from "../visit";
import { areaPage, escapeHtml, Flash, Person, PostForm, SignInToTakePart, TextArea, TextField, type FlashView } from "./area-parts";

export const capsuleHref = (id: string) => `/capsules/${encodeURIComponent(id)}`;

/** "2026-07-01 14:05 UTC": the opening instant as a date to read, which the site's script leaves as it is. */
const opening = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;

export interface CapsuleItem {
  capsule: CapsuleRow;
  open: boolean;
}

function CapsuleTabs({ current, signedIn }: { current: "all" | "mine"; signedIn: boolean }) {
  const items = [{ href: "/capsules", text: "All capsules", current: current === "all" }];
  if (signedIn) items.push({ href: "/capsules/mine", text: "Mine", current: current === "mine" });
  items.push({ href: "/events", text: "Events", current: false });
  return <Tabs label="Time capsules" items={items} />;
}

function CapsuleList({ items, authors }: { items: CapsuleItem[]; authors: Map<string, UserRow> }) {
  if (!items.length) return <p class="empty">No time capsules here yet.</p>;
  return (
    <ul class="rows">
      {items.map(({ capsule: c, open }) => (
        <li class="item">
          <h2 class="h3">
            <a href={capsuleHref(c.id)} safe>
              {c.title}
            </a>
          </h2>
          <p class="meta">
            {escapeHtml(open ? `Opened ${opening(c.revealAt)}` : `Sealed until ${opening(c.revealAt)}`)}
            {" · by "}
            <Person user={authors.get(c.userId)} />
            <TagLinks tags={c.tags} />
          </p>
        </li>
      ))}
    </ul>
  );
}

export interface CapsuleListView {
  items: CapsuleItem[];
  authors: Map<string, UserRow>;
  mine: boolean;
  status: string;
  sort: string;
  /** The tag the list is narrowed to, or "". */
  tag: string;
  page: number;
  hasMore: boolean;
  flash: FlashView;
}

const SORTS = [
  ["newest", "Newest"],
  ["revealing-soon", "Opening soonest"],
  ["recently-revealed", "Opened lately"],
] as const;

const FILTERS = [
  ["", "All"],
  ["sealed", "Sealed"],
  ["revealed", "Opened"],
] as const;

/** A capsule's tags after its facts, each a link to the capsules with that tag. */
function TagLinks({ tags }: { tags: string[] }) {
  return tags.length ? (
    <>
      {" ·"}
      {tags.map((t) => (
        <>
          {" "}
          <a href={`/capsules?tag=${encodeURIComponent(t)}`} safe>{`#${t}`}</a>
        </>
      ))}
    </>
  ) : (
    ""
  );
}

export function capsuleListPage(visit: Visit, v: CapsuleListView): string {
  const base = v.mine ? "/capsules/mine" : "/capsules";
  const href = (status: string, page = 1, sort = v.sort, tag = v.tag) => {
    const q = new URLSearchParams();
    if (status) q.set("status", status);
    if (sort && sort !== "newest") q.set("sort", sort);
    if (tag) q.set("tag", tag);
    if (page > 1) q.set("page", String(page));
    const s = q.toString();
    return `${base}${s ? `?${s}` : ""}`;
  };
  return areaPage(
    visit,
    v.mine ? "Your time capsules" : "Time capsules",
    <section class="area capsules">
      <h1>{v.mine ? "Your time capsules" : "Time capsules"}</h1>
      <CapsuleTabs current={v.mine ? "mine" : "all"} signedIn={visit.caller !== null} />
      <p>A message sealed now and opened later: its title is public at once, its words only when it opens.</p>
      <Flash {...v.flash} />
      {visit.caller ? (
        <p>
          <a class="btn" href="/capsules/new">
            Seal a capsule
          </a>
        </p>
      ) : (
        <SignInToTakePart next="/capsules" what="seal a capsule" />
      )}
      {v.mine ? (
        ""
      ) : (
        <>
          <Tabs label="Show" items={FILTERS.map(([s, text]) => ({ href: href(s), text, current: v.status === s }))} />
          <Tabs label="Order" items={SORTS.map(([s, text]) => ({ href: href(v.status, 1, s), text, current: v.sort === s }))} />
          {v.tag ? (
            <p>
              <span safe>{`Tagged #${v.tag}. `}</span>
              <a href={href(v.status, 1, v.sort, "")}>All tags</a>
            </p>
          ) : (
            ""
          )}
        </>
      )}
      <CapsuleList items={v.items} authors={v.authors} />
      <Pager page={v.page} hasMore={v.hasMore} href={(n) => href(v.status, n)} />
    </section>,
  );
}

export interface CapsuleFormValues {
  title: string;
  body: string;
  tags: string;
  reveal_at: string;
}

export function newCapsulePage(visit: Visit, values: CapsuleFormValues, bounds: { min: string; max: string }, error: string | null = null): string {
  return areaPage(
    visit,
    "Seal a time capsule",
    <section class="area capsules">
      <h1>Seal a time capsule</h1>
      <Flash error={error} />
      <form method="post" action="/capsules/new" class="stack">
        <Hidden name="csrf" value={visit.csrf ?? ""} />
        <TextField id="tc-title" name="title" label="Title" value={values.title} required maxlength={200} hint="Public at once: 3 to 200 characters." />
        <TextArea id="tc-body" name="body" label="Message" value={values.body} rows={8} required maxlength={10000} hint="Markdown. Sealed until it opens; only you can read it before." />
        <TextField id="tc-tags" name="tags" label="Tags (optional)" value={values.tags} maxlength={300} hint="Up to 5, separated by commas." />
        <TextField id="tc-reveal" name="reveal_at" type="datetime-local" min={bounds.min} max={bounds.max} label="Opens at (UTC)" value={values.reveal_at} required hint="Between 24 hours and 365 days from now." />
        <p>
          <button type="submit">Seal the capsule</button>
        </p>
      </form>
    </section>,
  );
}

export interface CapsuleView {
  capsule: CapsuleRow;
  author: UserRow | undefined;
  open: boolean;
  /** The body rendered, when the viewer may read it (open, or their own); else null. */
  html: string | null;
  mine: boolean;
  flash: FlashView;
}

export function capsulePage(visit: Visit, v: CapsuleView): string {
  const c = v.capsule;
  const safeHtml = v.html ?? "";
  return areaPage(
    visit,
    c.title,
    <article class="area capsules">
      <p class="crumbs">
        <a href="/capsules">Time capsules</a>
      </p>
      <h1 safe>{c.title}</h1>
      <p class="meta">
        {"Sealed by "}
        <Person user={v.author} />
        {", "}
        <Time at={c.createdAt} />
        <TagLinks tags={c.tags} />
      </p>
      <Flash {...v.flash} />
      {v.open ? (
        <p class="note">{escapeHtml(`Opened ${opening(c.revealAt)}.`)}</p>
      ) : (
        <p class="note sealed">
          <strong>{escapeHtml(`Sealed until ${opening(c.revealAt)}.`)}</strong>
          {v.mine ? " Only you can read it until then." : " Its message shows here when it opens."}
        </p>
      )}
      {v.html !== null ? <div class="body">{safeHtml}</div> : ""}
      {v.mine ? (
        <div class="act">
          <PostForm visit={visit} action={`${capsuleHref(c.id)}/delete`} label="Delete the capsule for good" />
        </div>
      ) : (
        ""
      )}
    </article>,
  );
}
