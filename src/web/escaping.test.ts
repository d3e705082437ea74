// Hostile strings in every place a user writes one (display names, bios, titles, tags, colony
// names and descriptions, search queries) come out of every page escaped; post and comment bodies
// are the posts feature's sanitised HTML, rendered as it is.
import { describe, expect, test } from "bun:test";
import { setup } from "../../test/harness";
import { comment } from "../features/comments/fixtures";
import { createColony } from "../features/colonies/service";
import { post } from "../features/posts/fixtures";

const h = setup({ rateLimitMultiplier: 0, readCacheBytes: 0 });
const page = (path: string) => h.req("GET", path, { headers: { accept: "text/html" } });

const EVIL = `<script>alert("x")</script><img src=x onerror='alert(1)'>`;
const ESCAPED_TEXT = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=&#x27;alert(1)&#x27;&gt;";

const mallory = await h.user({ username: "mallory" });
await h.req("PUT", "/api/v1/users/me", { token: mallory.token, body: { display_name: `Mal ${EVIL}`, bio: `Bio ${EVIL}` } });
const colony = createColony(h.ctx, { id: mallory.id, isAdmin: false }, { name: "hostile-place", display_name: `Place ${EVIL}`, description: `About ${EVIL}` });
// Tags may not hold < > or commas, but quotes and ampersands they may.
const p = await post(h, mallory, { colony_id: colony.id, title: `Title ${EVIL}`, body: `Body ${EVIL} and <b onclick="x()">raw</b>, **bold**`, tags: [`it's"quoted"&more`] });
await comment(h, mallory, p.id, { body: `Comment ${EVIL}` });

/**
 * No hostile markup survives: no element or attribute the attacker wrote. Quoted attribute values
 * are set aside first: a value cannot close its quotes (a `"` in it is written &#34;), so what it
 * holds is text.
 */
function expectInert(path: string, page: string) {
  const html = page.replace(/="[^"]*"/g, '=""');
  expect([path, html.includes("<script>alert")]).toEqual([path, false]);
  expect([path, /<[a-z][^>]*\son[a-z]+=/i.test(html)]).toEqual([path, false]);
  expect([path, html.match(/<script\b/g)?.length]).toEqual([path, 1]); // the page's own module
}

describe("hostile strings", () => {
  test.each(["/", "/c/hostile-place", `/post/${p.id}`, "/u/mallory", "/search?q=title"])("%s escapes them", async (path) => {
    const r = await page(path);
    expect(r.status).toBe(200);
    expectInert(path, r.text);
  });

  test("in text, as escaped text: names, titles, descriptions and bios", async () => {
    const colonyPage = (await page("/c/hostile-place")).text;
    expect(colonyPage).toContain(`<h1>Place ${ESCAPED_TEXT}</h1>`);
    expect(colonyPage).toContain(`<p>About ${ESCAPED_TEXT}</p>`);
    expect(colonyPage).toContain(`<title>Place ${ESCAPED_TEXT} · Colony</title>`);
    const postPage = (await page(`/post/${p.id}`)).text;
    expect(postPage).toContain(`<h1 id="post-title">Title ${ESCAPED_TEXT}</h1>`);
    expect(postPage).toContain(`<a class="n" href="/u/mallory">Mal ${ESCAPED_TEXT}</a>`);
    const profile = (await page("/u/mallory")).text;
    expect(profile).toContain(`<p>Bio ${ESCAPED_TEXT}</p>`);
  });

  test("in attributes, with their quotes escaped: tags in links, a description in a meta element", async () => {
    const postPage = (await page(`/post/${p.id}`)).text;
    expect(postPage).toContain(`<a href="/tag/it's%22quoted%22%26more">#it&#x27;s&quot;quoted&quot;&amp;more</a>`);
    const colonyPage = (await page("/c/hostile-place")).text;
    expect(colonyPage).toContain('<meta name="description" content="About <script>alert(&#34;x&#34;)</script><img src=x onerror=\'alert(1)\'>"/>');
    const tag = await page(`/tag/${encodeURIComponent(`it's"quoted"&more`)}`);
    expect(tag.status).toBe(200);
    expect(tag.text).toContain("Posts tagged #it&#x27;s&quot;quoted&quot;&amp;more");
    expectInert("tag", tag.text);
  });

  test("bodies are the sanitised HTML of the posts feature: markdown renders, raw markup stays text", async () => {
    const html = (await page(`/post/${p.id}`)).text;
    expect(html).toContain("<strong>bold</strong>");
    expect(html).toContain("&lt;b onclick=");
    expect(html).toContain("<p>Comment &lt;script&gt;");
  });

  test("a search query is escaped where the page repeats it", async () => {
    const r = await page(`/search?q=${encodeURIComponent(`"><script>alert(1)</script>`)}`);
    expect(r.status).toBe(200);
    expect(r.text).toContain('value="&#34;><script>alert(1)</script>"');
    expect(r.text).toContain("Results for “&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;”");
    expectInert("search", r.text);
  });

  test("feeds escape every text and carry bodies as escaped HTML", async () => {
    const feed = (await h.req("GET", "/c/hostile-place/feed.atom")).text;
    expect(feed).not.toContain("<script>");
    expect(feed).toContain(`<title type="text">Title ${ESCAPED_TEXT}</title>`);
    expect(feed).toContain(`<name>Mal ${ESCAPED_TEXT}</name>`);
    expect(feed).toContain('<category term="it&#x27;s&quot;quoted&quot;&amp;more"');
  });
});
