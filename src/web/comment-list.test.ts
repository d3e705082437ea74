// One comment list for every viewer (docs/decisions.md §180): the list is rendered once per forum
// version and kept in the read cache; each signed-in page puts the viewer's own votes and
// reactions back; held comments keep their audiences; writes and the time to live bring it up to
// date; the signed-in page of 200 comments stays small.
import { describe, expect, test } from "bun:test";
import { Browser, signedInBrowser } from "../../test/browser";
import { setup, type TestUser } from "../../test/harness";
import { READ_CACHE_TTL_MS } from "../http/read-cache";
import { comment } from "../features/comments/fixtures";
import { join, makeColony, post } from "../features/posts/fixtures";
import { human } from "../features/sessions/fixtures";
import { LIVE_SCRIPT, SCRIPT, STYLESHEET } from "./assets";

// One harness for the file; each test has its own colony, people and browsers.
const h = setup({ rateLimitMultiplier: 0 }, { countQueries: true });

/** A colony of a new founder, with two new members, Ann and Ben, and a signed-in browser for each of them (made once per test). */
async function cast() {
  const founder = await human(h);
  const ann = await human(h);
  const ben = await human(h);
  const colony = makeColony(h, founder, "public");
  await join(h, colony, ann);
  await join(h, colony, ben);
  const browsers = new Map<string, Browser>();
  const as = async (u: TestUser) => {
    let b = browsers.get(u.username);
    if (!b) browsers.set(u.username, (b = await signedInBrowser(h, u.username)));
    return b;
  };
  return { founder, ann, ben, colony, as };
}

/** The actions bar of a comment on a page. */
function actsOf(html: string, id: string): string {
  const at = html.indexOf(`id="comment-${id}"`);
  expect(at).toBeGreaterThan(0);
  const start = html.indexOf('<div class="acts">', at);
  return html.slice(start, html.indexOf("</div>", start) + 6);
}

const threadReads = (sql: string[]) => sql.filter((s) => /from "comments"/.test(s) && /order by "comments"."created_at"/.test(s)).length;

describe("one list for every viewer", () => {
  test("each comment's actions are its own, in its own article; the second reader's page reads no thread", async () => {
    const { founder, ann, ben, colony, as } = await cast();
    const p = await post(h, founder, { colony_id: colony.id, title: "Shared list" });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await comment(h, founder, p.id, { body: `comment ${i}`, parent_id: i % 3 ? ids[i - 1] : undefined })).id);
    const a = await as(ann);
    const b = await as(ben);
    const first = await h.queries!.during(() => a.get(`/post/${p.id}`));
    expect(threadReads(first.sql)).toBe(1);
    for (const id of ids) expect(actsOf(first.result.text, id)).toContain(`formaction="/comment/${id}/vote"`);
    expect(first.result.text).toContain(`<form id="act" method="post" hidden><input type="hidden" name="csrf" value="${a.csrf}"/></form>`);
    // Whether the reader has a held comment there: the partial index of held comments answers it.
    const heldBy = first.sql.find((q) => /"held" = 1 limit 1/.test(q));
    expect(heldBy).toBeDefined();
    const plan = h.ctx.db.$client.query(`explain query plan ${heldBy}`).all(p.id, ann.id) as { detail: string }[];
    expect(plan.map((r) => r.detail).join(" | ")).toContain("comments_held_author_idx");
    const second = await h.queries!.during(() => b.get(`/post/${p.id}`));
    expect(threadReads(second.sql)).toBe(0);
    expect(second.result.text).toContain(`name="csrf" value="${b.csrf}"`);
    expect(second.result.text).not.toContain(a.csrf!);
    // Anonymous readers have a list of their own, without actions.
    const anonymous = await h.req("GET", `/post/${p.id}`, { headers: { accept: "text/html" } });
    expect(anonymous.text).not.toContain('<div class="acts">');
    expect(anonymous.text).not.toContain('id="act"');
  });

  test("a reader's own votes and reactions are pressed on their page only; another's vote shows in the score at once", async () => {
    const { founder, ann, ben, colony, as } = await cast();
    const p = await post(h, founder, { colony_id: colony.id, title: "Votes apart" });
    const c1 = await comment(h, founder, p.id, { body: "first" });
    const c2 = await comment(h, founder, p.id, { body: "second" });
    const a = await as(ann);
    const b = await as(ben);
    await a.get(`/post/${p.id}`);
    await b.get(`/post/${p.id}`);
    expect((await a.post(`/comment/${c1.id}/vote`, { value: "1" })).status).toBe(303);
    expect((await b.post(`/comment/${c2.id}/react`, { emoji: "fire" })).status).toBe(303);
    const pa = (await a.get(`/post/${p.id}`)).text;
    const pb = (await b.get(`/post/${p.id}`)).text;
    expect(actsOf(pa, c1.id)).toContain('value="1" aria-pressed="true"');
    expect(actsOf(pa, c1.id)).toContain('<span class="score">1 point</span>');
    expect(actsOf(pb, c1.id)).toContain('value="1" aria-pressed="false"');
    expect(actsOf(pb, c1.id)).toContain('<span class="score">1 point</span>');
    expect(actsOf(pb, c2.id)).toContain('<span class="mine"><span class="vh">fire</span> 1<span class="vh"> (yours)</span></span>');
    expect(actsOf(pa, c2.id)).toContain('<span><span class="vh">fire</span> 1</span>');
    // The same list otherwise: only the pressed states and the token differ.
    const neutral = (html: string) => html.replaceAll(/aria-pressed="(true|false)"/g, "").replaceAll(/<span class="mine">|<span class="vh"> \(yours\)<\/span>/g, "").replace(/name="csrf" value="[^"]*"/g, "").replaceAll('<span>', "");
    const list = (html: string) => html.slice(html.indexOf('<ol class="thread">'), html.indexOf("</section>"));
    expect(neutral(list(pa))).toBe(neutral(list(pb)));
  });

  test("a held comment: its author and the moderators see it, other readers never, whoever read first", async () => {
    const { founder, ann, ben, colony, as } = await cast();
    const p = await post(h, founder, { colony_id: colony.id, title: "Held here" });
    const open = await comment(h, ann, p.id, { body: "an open comment" });
    const held = await comment(h, ann, p.id, { body: "a held comment" });
    h.ctx.db.$client.query("update comments set held = 1 where id = ?").run(held.id);
    for (const order of [
      [ann, ben, founder],
      [ben, ann, founder],
      [founder, ben, ann],
    ]) {
      for (const u of order) {
        const html = (await (await as(u)).get(`/post/${p.id}`)).text;
        expect(html).toContain(`id="comment-${open.id}"`);
        expect(html.includes(`id="comment-${held.id}"`)).toBe(u !== ben);
      }
      h.clock.advance(READ_CACHE_TTL_MS);
    }
    expect((await h.req("GET", `/post/${p.id}`, { headers: { accept: "text/html" } })).text).not.toContain(held.id);
  });

  test("a new comment, an edit and the time to live bring the list up to date", async () => {
    const { founder, ann, ben, colony, as } = await cast();
    const p = await post(h, founder, { colony_id: colony.id, title: "Fresh list" });
    const c = await comment(h, ann, p.id, { body: "before" });
    const b = await as(ben);
    expect((await b.get(`/post/${p.id}`)).text).toContain("<p>before</p>");
    const added = await comment(h, founder, p.id, { body: "a second one" });
    const after = (await b.get(`/post/${p.id}`)).text;
    expect(after).toContain(`id="comment-${added.id}"`);
    expect(after).toContain("2 comments");
    expect((await h.req("PUT", `/api/v1/comments/${c.id}`, { token: ann.token, body: { body: "after" } })).status).toBe(200);
    expect((await b.get(`/post/${p.id}`)).text).toContain("<p>after</p>");
    // A change no event announces (a display name set in the database) shows once the copy expires.
    h.ctx.db.$client.query("update users set display_name = 'Ann Renamed' where id = ?").run(ann.id);
    expect((await b.get(`/post/${p.id}`)).text).not.toContain("Ann Renamed");
    h.clock.advance(READ_CACHE_TTL_MS);
    expect((await b.get(`/post/${p.id}`)).text).toContain("Ann Renamed");
  });
});

describe("the reply and reaction pages", () => {
  test("signed out: sent to sign in and back; an unknown, malformed or hidden comment is a 404 page", async () => {
    const { founder, ben, colony, as } = await cast();
    const p = await post(h, founder, { colony_id: colony.id });
    const c = await comment(h, founder, p.id, { body: "reply to me" });
    for (const what of ["reply", "react"]) {
      const r = await new Browser(h).get(`/comment/${c.id}/${what}`);
      expect(r.status).toBe(303);
      expect(r.location).toBe(`/login?next=${encodeURIComponent(`/comment/${c.id}/${what}`)}`);
    }
    const held = await comment(h, founder, p.id, { body: "held" });
    h.ctx.db.$client.query("update comments set held = 1 where id = ?").run(held.id);
    const b = await as(ben);
    for (const id of ["00000000-0000-7000-8000-000000000000", "not-a-uuid", held.id]) {
      const r = await b.get(`/comment/${id}/reply`);
      expect(r.status).toBe(404);
      expect(r.text).toContain("There is nothing here, or it is not visible to you.");
    }
    const react = await b.get(`/comment/${c.id}/react`);
    expect(react.status).toBe(200);
    expect(react.text).toContain(`<h1>React to ${founder.username}&#x27;s comment</h1>`);
    expect(react.text).toContain(`<form method="post" action="/comment/${c.id}/react" class="act react" aria-label="Reactions">`);
  });
});

describe("weight", () => {
  test("a signed-in page of 200 comments weighs under 60 KB as sent, with the list from the cache", async () => {
    const { founder, ann, ben, colony, as } = await cast();
    const p = await post(h, founder, { colony_id: colony.id, title: "A long signed-in page" });
    const readers: TestUser[] = [];
    for (let i = 0; i < 20; i++) readers.push(await h.user());
    for (const r of readers) await join(h, colony, r);
    const ids: string[] = [];
    for (let i = 0; i < 200; i++) {
      const parent = i % 4 === 0 || !ids.length ? undefined : ids[ids.length - 1 - (i % 3)];
      const body = `Comment ${i}: I looked at this again and the numbers hold up, though the second table reads oddly. See **the appendix** and [the source](https://example.org/${i}) before replying.`;
      ids.push((await comment(h, readers[i % readers.length], p.id, { body, parent_id: parent })).id);
    }
    const b = await as(ben);
    const page = await b.get(`/post/${p.id}`);
    // As sent: the page's head and tail compressed for this answer around the list compressed once (gzip.ts).
    const sent = await b.request("GET", `/post/${p.id}`, { headers: { "accept-encoding": "gzip, deflate, br" } });
    expect(sent.headers.get("content-encoding")).toBe("gzip");
    expect(sent.text).toBe(page.text);
    expect(sent.bytes.byteLength).toBeLessThan(Bun.gzipSync(page.text, { level: 1 }).byteLength);
    const gz = (s: string) => Bun.gzipSync(s).byteLength;
    // A signed-in page loads the live-updates script as well.
    const total = sent.bytes.byteLength + gz(STYLESHEET.body) + gz(SCRIPT.body) + gz(LIVE_SCRIPT.body);
    console.log(`signed-in post page, 200 comments: HTML ${page.text.length} B (${sent.bytes.byteLength} B as sent); sent with CSS and JS ${total} B`);
    expect(total).toBeLessThan(60 * 1024);
    const again = await h.queries!.during(() => b.get(`/post/${p.id}`));
    expect(threadReads(again.sql)).toBe(0);
    expect(again.result.text).toBe(page.text);
    // A reader who voted there has their page compressed whole, their vote pressed in it.
    const a = await as(ann);
    await a.get(`/post/${p.id}`);
    expect((await a.post(`/comment/${ids[7]}/vote`, { value: "1" })).status).toBe(303);
    const voted = await a.request("GET", `/post/${p.id}`, { headers: { "accept-encoding": "gzip" } });
    expect(voted.headers.get("content-encoding")).toBe("gzip");
    expect(actsOf(voted.text, ids[7])).toContain('aria-pressed="true"');
  }, 60_000);
});
