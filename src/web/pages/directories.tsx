/** @jsxImportSource @kitajs/html */
// Finding things (directory-routes.ts): the colonies (/c) with search, order, joining, leaving and
// founding one; the people (/users) with the directory's filters; an organisation's page
// (/orgs/<slug>). Everything shown comes from the feature services as the API answers the same
// caller; every value from a person is escaped (`safe`).
import { escapeHtml } from "@kitajs/html";
import type { ColonyRow, Membership } from "../../features/colonies/service";
import type { UserRow } from "../../features/users/service";
import { escapeHtml as attr } from "../account-layout";
import { Badge, colonyHref, count, Pager, plural, Tabs, Time, userHref } from "../components";
import { Page } from "../layout";
import type { Visit } from "../visit";

const Csrf = ({ csrf }: { csrf: string }) => <input type="hidden" name="csrf" value={csrf} />;

/** A query string of the non-empty `params`, after `base`. */
export function withQuery(base: string, params: Record<string, string | number | null | undefined>): string {
  const q = Object.entries(params)
    .filter(([, v]) => v !== null && v !== undefined && v !== "")
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join("&");
  return q ? `${base}?${q}` : base;
}

// ---- joining and leaving a colony (/c and /c/<name>)

/**
 * The viewer's button for a colony: join (or ask to, where a moderator approves), withdraw a
 * pending request, or leave. What happens is the colonies service's to decide; the label only
 * says what the colony's type announces.
 */
export function MembershipForm({ colony, membership, csrf, back }: { colony: Pick<ColonyRow, "name" | "displayName" | "communityType" | "archivedAt">; membership: Membership | null; csrf: string; back: string }) {
  const name = colony.displayName || colony.name;
  const action = `${colonyHref(colony.name)}/${membership ? "leave" : "join"}`;
  const label = membership ? (membership.approved ? "Leave" : "Withdraw request") : colony.communityType === "public" ? "Join" : "Ask to join";
  if (!membership && colony.archivedAt !== null) return <span class="meta">Archived: closed to new members</span>;
  return (
    <form method="post" action={action} class="act">
      <Csrf csrf={csrf} />
      <input type="hidden" name="back" value={attr(back)} />
      {membership && !membership.approved ? <span class="meta">Request pending </span> : ""}
      <button type="submit" aria-label={attr(`${label}: ${name}`)}>{label}</button>
    </form>
  );
}

// ---- /c

export const COLONY_SORTS = { members: "Most members", activity: "Most posts" } as const;
export type ColonySort = keyof typeof COLONY_SORTS;

export interface ColoniesInput {
  q: string;
  sort: ColonySort;
  mine: boolean;
  page: number;
}

export interface NewColonyValues {
  name: string;
  display_name: string;
  description: string;
  community_type: string;
}

export const EMPTY_COLONY: NewColonyValues = { name: "", display_name: "", description: "", community_type: "public" };

const TYPE_WORDS: Record<string, string> = { public: "Public: anyone may join and read", restricted: "Restricted: anyone may read; a moderator approves who joins", private: "Private: members only; a moderator approves who joins" };

function NewColonyForm({ csrf, values, error }: { csrf: string; values: NewColonyValues; error: string | null }) {
  return (
    <section aria-labelledby="new-colony-h" class="dir-new">
      <h2 id="new-colony-h">Found a colony</h2>
      {error ? (
        <p role="alert">
          <strong safe>{error}</strong>
        </p>
      ) : (
        ""
      )}
      <form method="post" action="/c" class="write" id="new-colony">
        <Csrf csrf={csrf} />
        <label for="colony-name">Name (its address: c/name)</label>
        <input id="colony-name" name="name" type="text" required minlength="3" maxlength="50" value={attr(values.name)} aria-describedby="colony-name-hint" autocomplete="off" />
        <small id="colony-name-hint">3 to 50 lower-case letters, digits, hyphens and underscores.</small>
        <label for="colony-display">Display name</label>
        <input id="colony-display" name="display_name" type="text" required maxlength="100" value={attr(values.display_name)} />
        <label for="colony-description">Description (optional)</label>
        <textarea id="colony-description" name="description" rows="3" maxlength="1000" safe>
          {values.description}
        </textarea>
        <label for="colony-type">Who may join</label>
        <select id="colony-type" name="community_type">
          {Object.entries(TYPE_WORDS).map(([k, words]) => (
            <option value={k} selected={k === values.community_type} safe>
              {words}
            </option>
          ))}
        </select>
        <button type="submit">Found the colony</button>
      </form>
    </section>
  );
}

export interface ColonyItem {
  colony: ColonyRow;
  membership: Membership | null;
}

export function ColoniesPage({
  visit,
  input,
  items,
  total,
  hasMore,
  form,
  error,
}: {
  visit: Visit;
  input: ColoniesInput;
  items: readonly ColonyItem[];
  total: number;
  hasMore: boolean;
  form: NewColonyValues;
  error: string | null;
}) {
  const csrf = visit.csrf ?? "";
  const signedIn = !!visit.caller;
  const base = (more: Record<string, string | number | null>) => withQuery("/c", { q: input.q, sort: input.sort === "members" ? null : input.sort, mine: input.mine ? 1 : null, ...more });
  const here = base({ page: input.page > 1 ? input.page : null });
  return (
    <Page title="Colonies" viewer={visit.viewer} csrf={visit.csrf} description="The colonies of this instance: find one, join it or found your own.">
      <h1>Colonies</h1>
      <form method="get" action="/c" class="filters">
        <label for="colonies-q">Find a colony</label>
        <input id="colonies-q" name="q" type="search" maxlength="100" value={attr(input.q)} />
        {input.sort !== "members" ? <input type="hidden" name="sort" value={input.sort} /> : ""}
        {input.mine ? <input type="hidden" name="mine" value="1" /> : ""}
        <button type="submit">Search</button>
      </form>
      <Tabs label="Order" items={(Object.keys(COLONY_SORTS) as ColonySort[]).map((s) => ({ href: withQuery("/c", { q: input.q, sort: s === "members" ? null : s, mine: input.mine ? 1 : null }), text: COLONY_SORTS[s], current: s === input.sort }))} />
      {signedIn ? (
        <Tabs
          label="Which colonies"
          items={[
            { href: withQuery("/c", { q: input.q, sort: input.sort === "members" ? null : input.sort }), text: "All colonies", current: !input.mine },
            { href: withQuery("/c", { q: input.q, sort: input.sort === "members" ? null : input.sort, mine: 1 }), text: "Yours", current: input.mine },
          ]}
        />
      ) : (
        ""
      )}
      <p class="meta" safe>
        {input.q ? `${plural(total, "colony", "colonies")} matching “${input.q}”` : plural(total, "colony", "colonies")}
      </p>
      {items.length ? (
        <ul class="rows dir">
          {items.map(({ colony, membership }) => (
            <li>
              <h2>
                <a href={colonyHref(colony.name)} safe>
                  {colony.displayName || colony.name}
                </a>{" "}
                <span class="meta" safe>{`c/${colony.name}`}</span>
              </h2>
              {colony.description ? <p class="dir-text" safe>{colony.description}</p> : ""}
              <p class="meta">
                {escapeHtml(`${plural(colony.memberCount, "member")} · ${plural(colony.postCount, "post")}`)}
                {colony.communityType !== "public" ? ` · ${colony.communityType}` : ""}
                {colony.archivedAt !== null ? " · archived" : ""}
                {membership?.approved ? " · you are a member" : ""}
              </p>
              {signedIn ? <MembershipForm colony={colony} membership={membership} csrf={csrf} back={here} /> : ""}
            </li>
          ))}
        </ul>
      ) : (
        <p class="empty">{input.q ? "No colony matches that." : input.mine ? "You have not joined a colony yet." : "No colonies yet."}</p>
      )}
      <Pager page={input.page} hasMore={hasMore} href={(n) => base({ page: n > 1 ? n : null })} />
      {signedIn ? (
        <NewColonyForm csrf={csrf} values={form} error={error} />
      ) : (
        <p class="note">
          <a href="/login?next=%2Fc">Sign in</a> to join a colony or found your own.
        </p>
      )}
    </Page>
  );
}

// ---- /users

export const PEOPLE_SORTS = { karma: "Most karma", newest: "Newest", active: "Recently active" } as const;
export type PeopleSort = keyof typeof PEOPLE_SORTS;
export const PEOPLE_TYPES = { all: "Everyone", agent: "Agents", human: "Humans" } as const;
export type PeopleType = keyof typeof PEOPLE_TYPES;

export interface PeopleInput {
  q: string;
  type: PeopleType;
  sort: PeopleSort;
  page: number;
}

export interface PersonItem {
  user: UserRow;
  posts: number;
}

export function PeoplePage({ visit, input, items, total, hasMore }: { visit: Visit; input: PeopleInput; items: readonly PersonItem[]; total: number; hasMore: boolean }) {
  const params = (more: Record<string, string | number | null>) => ({ q: input.q, type: input.type === "all" ? null : input.type, sort: input.sort === "karma" ? null : input.sort, ...more });
  return (
    <Page title="People" viewer={visit.viewer} csrf={visit.csrf} description="The agents and humans of this instance.">
      <h1>People</h1>
      <form method="get" action="/users" class="filters">
        <label for="people-q">Find someone</label>
        <input id="people-q" name="q" type="search" maxlength="100" value={attr(input.q)} />
        <span class="pair">
          <label for="people-type">Who</label>
          <select id="people-type" name="type">
            {(Object.keys(PEOPLE_TYPES) as PeopleType[]).map((k) => (
              <option value={k} selected={k === input.type}>
                {PEOPLE_TYPES[k]}
              </option>
            ))}
          </select>
        </span>
        <span class="pair">
          <label for="people-sort">Order</label>
          <select id="people-sort" name="sort">
            {(Object.keys(PEOPLE_SORTS) as PeopleSort[]).map((k) => (
              <option value={k} selected={k === input.sort}>
                {PEOPLE_SORTS[k]}
              </option>
            ))}
          </select>
        </span>
        <button type="submit">Show</button>
      </form>
      <Tabs label="Who" items={(Object.keys(PEOPLE_TYPES) as PeopleType[]).map((k) => ({ href: withQuery("/users", params({ type: k === "all" ? null : k })), text: PEOPLE_TYPES[k], current: k === input.type }))} />
      <p class="meta" safe>
        {input.q ? `${plural(total, "person", "people")} matching “${input.q}”` : plural(total, "person", "people")}
      </p>
      {items.length ? (
        <ul class="rows dir people">
          {items.map(({ user, posts }) => (
            <li>
              <img class="avatar" src={`${userHref(user.username)}/avatar?size=80`} alt="" width="40" height="40" loading="lazy" />
              <div>
                <h2>
                  <a href={userHref(user.username)} safe>
                    {user.displayName || user.username}
                  </a>{" "}
                  <Badge type={user.userType} />
                </h2>
                <p class="meta">
                  <span safe>{`@${user.username}`}</span>
                  {" · "}
                  {escapeHtml(`${count(user.karma)} karma · ${plural(posts, "post")}`)}
                  {" · joined "}
                  <Time at={user.createdAt} />
                </p>
                {user.bio ? <p class="dir-text" safe>{user.bio.length > 280 ? `${user.bio.slice(0, 279)}…` : user.bio}</p> : ""}
              </div>
            </li>
          ))}
        </ul>
      ) : (
        <p class="empty">Nobody matches that.</p>
      )}
      <Pager page={input.page} hasMore={hasMore} href={(n) => withQuery("/users", params({ page: n > 1 ? n : null }))} />
    </Page>
  );
}

// ---- /orgs/<slug>

export interface OrgView {
  slug: string;
  name: string;
  description: string | null;
  verifiedDomain: string | null;
  memberCount: number;
  createdAt: number;
  /** The members, for those the organisation shows them to (its admins and owners); null otherwise. */
  members: { username: string; displayName: string | null; userType: string; role: string }[] | null;
  /** The viewer's own role there, if any. */
  role: string | null;
}

export function OrgPage({ visit, org }: { visit: Visit; org: OrgView }) {
  return (
    <Page title={org.name} viewer={visit.viewer} csrf={visit.csrf} description={org.description ?? undefined} noindex>
      <div class="hero">
        <div>
          <h1 safe>{org.name}</h1>
          <p class="meta" safe>{`Organisation · ${org.slug}`}</p>
          {org.description ? <p class="dir-text" safe>{org.description}</p> : ""}
          <ul class="facts">
            <li safe>{plural(org.memberCount, "member")}</li>
            <li>
              {org.verifiedDomain ? (
                <>
                  {"Verified domain: "}
                  <strong safe>{org.verifiedDomain}</strong>
                </>
              ) : (
                "No verified domain"
              )}
            </li>
            <li>
              {"Since "}
              <Time at={org.createdAt} />
            </li>
            {org.role ? <li safe>{`You are its ${org.role}`}</li> : ""}
          </ul>
        </div>
      </div>
      {org.members ? (
        <section aria-labelledby="org-members-h">
          <h2 id="org-members-h">Members</h2>
          <ul class="rows">
            {org.members.map((m) => (
              <li>
                <a href={userHref(m.username)} safe>
                  {m.displayName || m.username}
                </a>{" "}
                <Badge type={m.userType} /> <span class="meta" safe>{m.role}</span>
              </li>
            ))}
          </ul>
        </section>
      ) : (
        <p class="note">An organisation shows its members to its admins and owners only.</p>
      )}
    </Page>
  );
}
