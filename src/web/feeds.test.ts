// Atom feeds of a colony, a tag and a person: well-formed Atom 1.0 with what RFC 4287 requires,
// the 20 newest listed posts an anonymous reader may see, and 404 for what is not there.
import { describe, expect, test } from "bun:test";
import { setup } from "../../test/harness";
import { makeColony, post } from "../features/posts/fixtures";
import { FEED_ENTRIES } from "./feeds";

const h = setup({ rateLimitMultiplier: 0, readCacheBytes: 0 });

/** Throws unless `xml` is well-formed: balanced elements, quoted attributes, only XML's own entities. */
function expectWellFormed(xml: string) {
  const body = xml.replace(/^<\?xml [^?]*\?>\n/, "");
  const stack: string[] = [];
  for (const m of body.matchAll(/<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>|<|&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/g)) {
    if (!m[2]) throw new Error(`stray ${m[0]} at ${m.index}: ${body.slice(m.index! - 40, m.index! + 40)}`);
    if (m[4]) continue;
    if (m[1]) {
      const open = stack.pop();
      if (open !== m[2]) throw new Error(`</${m[2]}> closes <${open}>`);
    } else stack.push(m[2]);
  }
  expect(stack).toEqual([]);
}

const entries = (xml: string) => xml.split("<entry>").slice(1);

/** A new writer with a public colony of FEED_ENTRIES + 2 posts tagged `tag`, and a post in a private colony. */
async function writer(tag: string) {
  const author = await h.user();
  const colony = makeColony(h, author, "public");
  const hidden = makeColony(h, author, "private");
  const made = [];
  for (let i = 0; i < FEED_ENTRIES + 2; i++) made.push(await post(h, author, { colony_id: colony.id, title: `Feed post ${i} & more`, body: `Body ${i} with **bold**`, tags: [tag] }));
  await post(h, author, { colony_id: hidden.id, title: "Not for feeds" });
  return { author, colony, hidden, made };
}

// Made once, before any test, and only read: a writer's colony, tag and profile with more posts
// than a feed lists, and a private colony of theirs.
const { author, colony, hidden, made } = await writer("feeds");

describe("Atom feeds", () => {
  test("a colony's: its newest 20 posts, newest first, each with id, title, link, times, author, categories and HTML content", async () => {
    const r = await h.req("GET", `/c/${colony.name}/feed.atom`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/atom+xml; charset=utf-8");
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
    const xml = r.text;
    expectWellFormed(xml);
    expect(xml).toStartWith('<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://localhost/">');
    expect(xml).toContain(`<id>http://localhost/c/${colony.name}/feed.atom</id>`);
    expect(xml).toContain(`<link rel="self" type="application/atom+xml" href="http://localhost/c/${colony.name}/feed.atom"/>`);
    expect(xml).toContain(`<link rel="alternate" type="text/html" href="http://localhost/c/${colony.name}"/>`);
    expect(xml).toMatch(/<updated>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z<\/updated>/);
    const list = entries(xml);
    expect(list).toHaveLength(FEED_ENTRIES);
    const newest = made[made.length - 1];
    expect(list[0]).toContain(`<id>urn:uuid:${newest.id}</id>`);
    expect(list[0]).toContain(`<title type="text">Feed post ${FEED_ENTRIES + 1} &amp; more</title>`);
    expect(list[0]).toContain(`<link rel="alternate" type="text/html" href="http://localhost/post/${newest.id}"/>`);
    expect(list[0]).toContain(`<published>${newest.created_at}</published>`);
    expect(list[0]).toContain(`<author><name>${author.username}</name><uri>http://localhost/u/${author.username}</uri></author>`);
    expect(list[0]).toContain('<category term="feeds" scheme="http://localhost/tag/"/>');
    expect(list[0]).toContain("<content type=\"html\">&lt;p&gt;Body 21 with &lt;strong&gt;bold&lt;/strong&gt;&lt;/p&gt;");
    expect(xml).not.toContain("Not for feeds");
  });

  test("a tag's and a person's, linked from their pages", async () => {
    const tag = await h.req("GET", "/tag/feeds/feed.atom");
    expect(tag.status).toBe(200);
    expectWellFormed(tag.text);
    expect(entries(tag.text)).toHaveLength(FEED_ENTRIES);
    const person = await h.req("GET", `/u/${author.username}/feed.atom`);
    expect(person.status).toBe(200);
    expectWellFormed(person.text);
    expect(entries(person.text)).toHaveLength(FEED_ENTRIES);
    expect(person.text).toContain(`<link rel="alternate" type="text/html" href="http://localhost/u/${author.username}"/>`);
    expect(person.text).not.toContain("Not for feeds");
    expect((await h.req("GET", "/tag/feeds")).text).toContain('<link rel="alternate" type="application/atom+xml" title="#feeds: new posts" href="/tag/feeds/feed.atom"/>');
    const empty = await h.req("GET", "/tag/unused-tag/feed.atom");
    expectWellFormed(empty.text);
    expect(entries(empty.text)).toHaveLength(0);
  });

  test("private, unknown and malformed: 404 and 400 pages", async () => {
    expect((await h.req("GET", `/c/${hidden.name}/feed.atom`)).status).toBe(404);
    expect((await h.req("GET", "/c/nowhere/feed.atom")).status).toBe(404);
    expect((await h.req("GET", "/u/nobody-here/feed.atom")).status).toBe(404);
    expect((await h.req("GET", `/tag/${"y".repeat(60)}/feed.atom`)).status).toBe(400);
  });
});
