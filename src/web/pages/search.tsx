/** @jsxImportSource @kitajs/html */
// /search?q=: the search service's posts (ranked, with snippets), people and wiki pages (of the
// site wiki and the colony wikis the visitor may read), as GET /api/v1/search answers them, and the
// colony directory's matches by name.
import { escapeHtml } from "@kitajs/html";
import type { Ctx } from "../../core/context";
import { invalid } from "../../core/errors";
import * as colonies from "../../features/colonies/service";
import * as search from "../../features/search/service";
import { Badge, colonyHref, count, Pager, plural, postHref, Time, userHref } from "../components";
import { Page } from "../layout";
import { pageNumber, postRefs } from "./lists";
import { wikiHref } from "./wiki";
import type { Visit } from "../visit";

export const SEARCH_PAGE_SIZE = 20;
const COLONIES_SHOWN = 10;
const Q_MAX = 200;

interface SearchPageInput {
  q: string;
  page: number;
}

export function searchInput(query: Record<string, string | undefined>): SearchPageInput {
  const q = (query.q ?? "").trim();
  if (q.length > Q_MAX) throw invalid(`A search has at most ${Q_MAX} characters`);
  return { q, page: pageNumber(query.page, SEARCH_PAGE_SIZE) };
}

/** A snippet marks its matches with `**`: escaped, then the marks become <mark>. */
function snippetHtml(snippet: string): string {
  return Bun.escapeHTML(snippet).replace(/\*\*(.+?)\*\*/g, "<mark>$1</mark>");
}

function SearchForm({ q }: { q: string }) {
  return (
    // Named apart from the header's search (layout.tsx, "Site search"): two search landmarks of one page.
    <form role="search" method="get" action="/search" class="pager" aria-label="Search posts, people, colonies and wiki pages">
      <label for="search-q" class="vh">
        Search
      </label>
      <input id="search-q" type="search" name="q" value={q} maxlength={String(Q_MAX)} />
      <button type="submit">Search</button>
    </form>
  );
}

export async function SearchPage(ctx: Ctx, visit: Visit, input: SearchPageInput): Promise<JSX.Element> {
  const { q } = input;
  if (q.length < 2) {
    return (
      <Page title="Search" viewer={visit.viewer} csrf={visit.csrf} noindex>
        <h1>Search</h1>
        <SearchForm q={q} />
        <p class="empty">{q ? "Type at least two characters." : "Search posts, people, colonies and wiki pages."}</p>
      </Page>
    );
  }
  const offset = (input.page - 1) * SEARCH_PAGE_SIZE;
  const r = await search.search(ctx, visit.caller, { q }, { limit: SEARCH_PAGE_SIZE, offset });
  const refs = postRefs(ctx, r.items);
  const found = input.page === 1 ? colonies.listColonies(ctx, visit.caller, { q }, { limit: COLONIES_SHOWN, offset: 0 }).items : [];
  const people = input.page === 1 ? r.users : [];
  const wikiPages = input.page === 1 ? r.wikiPages : [];
  return (
    <Page title={`Search: ${q}`} viewer={visit.viewer} csrf={visit.csrf} noindex>
      <h1 safe>{`Results for “${q}”`}</h1>
      <SearchForm q={q} />
      {found.length ? (
        <section aria-labelledby="found-colonies">
          <h2 id="found-colonies">Colonies</h2>
          <ul class="results">
            {found.map((c) => (
              <li>
                <a href={colonyHref(c.name)} safe>
                  {c.displayName || c.name}
                </a>{" "}
                <span class="meta" safe>
                  {plural(c.memberCount, "member")}
                </span>
                {c.description ? <p class="meta" safe>{c.description}</p> : ""}
              </li>
            ))}
          </ul>
        </section>
      ) : (
        ""
      )}
      {people.length ? (
        <section aria-labelledby="found-people">
          <h2 id="found-people">People</h2>
          <ul class="results">
            {people.map((u) => (
              <li>
                <a href={userHref(u.username)} safe>
                  {u.displayName || u.username}
                </a>{" "}
                <span class="meta" safe>{`@${u.username}`}</span> <Badge type={u.userType} />
              </li>
            ))}
          </ul>
        </section>
      ) : (
        ""
      )}
      {wikiPages.length ? (
        <section aria-labelledby="found-wiki">
          <h2 id="found-wiki">Wiki pages</h2>
          <ul class="results">
            {wikiPages.map((w) => (
              <li>
                <a href={wikiHref(w.colony_name ?? "", w.slug)} safe>
                  {w.title}
                </a>{" "}
                <span class="meta">{escapeHtml(w.colony_name ? `in the wiki of ${w.colony_name}` : "in the site wiki")}</span>
                {w.excerpt ? <p class="meta" safe>{w.excerpt}</p> : ""}
              </li>
            ))}
          </ul>
        </section>
      ) : (
        ""
      )}
      <section aria-labelledby="found-posts">
        <h2 id="found-posts" safe>
          {`Posts (${count(r.total)})`}
        </h2>
        {r.items.length ? (
          <ol class="results">
            {r.items.map((p) => {
              const colony = refs.colonies.get(p.colonyId);
              const author = refs.authors.get(p.authorId);
              return (
                <li>
                  <h3>
                    <a href={postHref(p.id)} safe>
                      {p.title}
                    </a>
                  </h3>
                  <p>{snippetHtml(r.snippets.get(p.id) ?? "") as "safe"}</p>
                  <p class="meta">
                    {colony ? (
                      <a href={colonyHref(colony.name)} safe>
                        {colony.displayName || colony.name}
                      </a>
                    ) : (
                      ""
                    )}
                    {author ? (
                      <>
                        {" · "}
                        <a href={userHref(author.username)} safe>
                          {author.displayName || author.username}
                        </a>
                      </>
                    ) : (
                      ""
                    )}
                    {" · "}
                    <Time at={p.createdAt} />
                    {escapeHtml(` · ${plural(p.score, "point")}`)}
                  </p>
                </li>
              );
            })}
          </ol>
        ) : (
          <p class="empty">No posts match.</p>
        )}
      </section>
      <Pager page={input.page} hasMore={offset + r.items.length < r.total} href={(n) => `/search?q=${encodeURIComponent(q)}${n > 1 ? `&page=${n}` : ""}`} />
    </Page>
  );
}
