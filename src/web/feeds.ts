// Atom 1.0 feeds (RFC 4287) of a colony's, a tag's and a person's newest posts, read as an
// anonymous reader always (a feed reader has no session): a private colony has no feed
// (docs/decisions.md §136). Every text is escaped; post bodies go as escaped HTML content.
import { iso } from "../core/clock";
import type { Ctx } from "../core/context";
import * as colonies from "../features/colonies/service";
import * as posts from "../features/posts/service";
import type { ListFilters, PostRow } from "../features/posts/service";
import * as users from "../features/users/service";
import { colonyHref, postHref, tagHref, userHref, type PostRefs } from "./components";
import { SITE_NAME, siteName } from "./layout";
import { postRefs } from "./pages/lists";

export const FEED_ENTRIES = 20;
export const ATOM_TYPE = "application/atom+xml; charset=utf-8";

const esc = (s: string) => Bun.escapeHTML(s);

function entry(base: string, p: PostRow, refs: PostRefs): string {
  const author = refs.authors.get(p.authorId);
  const colony = refs.colonies.get(p.colonyId);
  const name = author ? author.displayName || author.username : "[deleted]";
  return [
    "<entry>",
    `<id>urn:uuid:${p.id}</id>`,
    `<title type="text">${esc(p.title)}</title>`,
    `<link rel="alternate" type="text/html" href="${esc(base + postHref(p.id))}"/>`,
    `<published>${iso(p.createdAt)}</published>`,
    `<updated>${iso(Math.max(p.updatedAt, p.createdAt))}</updated>`,
    `<author><name>${esc(name)}</name>${author ? `<uri>${esc(base + userHref(author.username))}</uri>` : ""}</author>`,
    colony ? `<category term="${esc(colony.name)}" label="${esc(colony.displayName || colony.name)}" scheme="${esc(`${base}/c/`)}"/>` : "",
    ...(p.tags ?? []).map((t) => `<category term="${esc(t)}" scheme="${esc(`${base}/tag/`)}"/>`),
    `<content type="html">${esc(p.bodyHtml)}</content>`,
    "</entry>",
  ].join("");
}

/** A feed document: `self` is its own path, `alternate` the page it follows. */
function atomFeed(ctx: Ctx, feed: { title: string; subtitle?: string | null; self: string; alternate: string; items: readonly PostRow[] }): string {
  const base = ctx.config.publicUrl.replace(/\/+$/, "");
  const refs = postRefs(ctx, feed.items);
  const updated = feed.items.reduce((max, p) => Math.max(max, p.updatedAt, p.createdAt), 0);
  return [
    `<?xml version="1.0" encoding="utf-8"?>\n`,
    `<feed xmlns="http://www.w3.org/2005/Atom" xml:base="${esc(`${base}/`)}">`,
    `<id>${esc(base + feed.self)}</id>`,
    `<title type="text">${esc(`${feed.title} · ${siteName()}`)}</title>`,
    feed.subtitle ? `<subtitle type="text">${esc(feed.subtitle)}</subtitle>` : "",
    `<link rel="self" type="application/atom+xml" href="${esc(base + feed.self)}"/>`,
    `<link rel="alternate" type="text/html" href="${esc(base + feed.alternate)}"/>`,
    `<updated>${iso(updated || ctx.clock.now())}</updated>`,
    // The software that made the feed; the title names the instance.
    `<generator>${SITE_NAME}</generator>`,
    ...feed.items.map((p) => entry(base, p, refs)),
    "</feed>\n",
  ].join("");
}

/** The newest listed posts an anonymous reader may see, narrowed by `filters`. */
const newest = (ctx: Ctx, filters: ListFilters) => posts.listPosts(ctx, null, { ...filters, sort: "newest" }, { limit: FEED_ENTRIES, offset: 0 }).items;

export function colonyFeed(ctx: Ctx, name: string): string {
  const colony = colonies.getReadableColonyByName(ctx, null, name);
  const href = colonyHref(colony.name);
  return atomFeed(ctx, { title: colony.displayName || colony.name, subtitle: colony.description, self: `${href}/feed.atom`, alternate: href, items: newest(ctx, { colony_id: colony.id }) });
}

export function tagFeed(ctx: Ctx, tag: string): string {
  const href = tagHref(tag);
  return atomFeed(ctx, { title: `#${tag}`, self: `${href}/feed.atom`, alternate: href, items: newest(ctx, { tag }) });
}

export function userFeed(ctx: Ctx, name: string): string {
  const u = users.getActiveUser(ctx, name);
  const href = userHref(u.username);
  return atomFeed(ctx, { title: u.displayName || u.username, subtitle: u.bio, self: `${href}/feed.atom`, alternate: href, items: newest(ctx, { author_id: u.id }) });
}
