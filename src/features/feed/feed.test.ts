import { describe, expect, test } from "bun:test";
import { setup } from "../../../test/harness";
import { GENERAL, QUESTIONS, makeColony, post } from "../posts/fixtures";
import { SNAPSHOT_REUSE_MS } from "./service";

const setScore = (h: ReturnType<typeof setup>, id: string, score: number, comments = 0) =>
  h.ctx.db.$client.query("update posts set score = ?, comment_count = ? where id = ?").run(score, comments, id);
const feed = (h: ReturnType<typeof setup>, token: string, query: Record<string, any> = {}) => h.req("GET", "/api/v1/feed/for-you", { token, query });

describe("GET /feed/for-you", () => {
  test("401 without a token; 401 suggestions", async () => {
    const h = setup();
    expect((await h.req("GET", "/api/v1/feed/for-you")).status).toBe(401);
    expect((await h.req("GET", "/api/v1/suggestions")).status).toBe(401);
  });

  test("brand-new user: all discovery, personalised false, own posts excluded, diversity caps", async () => {
    const h = setup();
    const me = await h.user();
    const mine = await post(h, me);
    setScore(h, mine.id, 10);
    const authors = await Promise.all([1, 2, 3, 4, 5, 6].map(() => h.user()));
    const ids: string[] = [];
    for (const [i, a] of authors.entries()) {
      const p = await post(h, a, { colony_id: GENERAL.id, post_type: "discussion" });
      setScore(h, p.id, 5 + i);
      ids.push(p.id);
    }
    const dup = await post(h, authors[0]);
    setScore(h, dup.id, 50); // a second post of the same author: at most one per author
    const low = await post(h, authors[1], { colony_id: QUESTIONS.id, post_type: "question" });
    setScore(h, low.id, 1); // below the discovery bar
    const r = await feed(h, me.token);
    expect(r.status).toBe(200);
    expect(r.body.personalised).toBe(false);
    const got = r.body.items.map((i: any) => i.post.id);
    expect(got).not.toContain(mine.id);
    expect(got).not.toContain(low.id);
    expect(r.body.items.every((i: any) => i.reason === "discovery")).toBe(true);
    const authorIds = r.body.items.map((i: any) => i.post.author.id);
    expect(new Set(authorIds).size).toBe(authorIds.length);
    // All candidates are in one colony and one type: caps keep a single item.
    expect(r.body.count).toBe(1);
  });

  test("discovery mixes colonies and types within caps; replies >= 4 qualify", async () => {
    const h = setup();
    const me = await h.user();
    const founder = await h.user();
    const extra = makeColony(h, founder);
    const spots: [string, string][] = [[GENERAL.id, "discussion"], [QUESTIONS.id, "question"], [extra.id, "finding"], [GENERAL.id, "analysis"], [QUESTIONS.id, "discussion"], [extra.id, "question"]];
    for (const [colony, type] of spots) {
      const p = await post(h, await h.user(), { colony_id: colony, post_type: type });
      setScore(h, p.id, 0, 4);
    }
    const r = await feed(h, me.token);
    const items = r.body.items;
    expect(items.length).toBe(6);
    const by = (f: (i: any) => string) => Math.max(...Object.values(items.reduce((m: any, i: any) => ((m[f(i)] = (m[f(i)] ?? 0) + 1), m), {})).map(Number));
    expect(by((i) => i.post.colony_id)).toBeLessThanOrEqual(2);
    expect(by((i) => i.post.post_type)).toBeLessThanOrEqual(3);
  });

  test("followed authors are personalised; demotion of upvoted/commented; kinds and post_type filters; discovery share", async () => {
    const h = setup();
    const me = await h.user();
    const friend = await h.user();
    await h.req("POST", `/api/v1/users/${friend.id}/follow`, { token: me.token });
    const a = await post(h, friend, { title: "AAA" });
    const b = await post(h, friend, { title: "BBB", post_type: "question", colony_id: QUESTIONS.id });
    const c = await post(h, friend, { title: "CCC" });
    const cm = await h.req("POST", `/api/v1/posts/${b.id}/comments`, { token: friend.token, body: { body: "friend comment" } });
    expect(cm.status).toBe(201);
    // Discovery candidates from strangers.
    for (let i = 0; i < 4; i++) setScore(h, (await post(h, await h.user(), { colony_id: [GENERAL.id, QUESTIONS.id][i % 2], post_type: ["finding", "analysis"][i % 2] })).id, 5);
    // Demote c (newest personalised post) by upvoting it and a by commenting on it.
    expect((await h.req("POST", `/api/v1/posts/${c.id}/vote`, { token: me.token, body: { value: 1 } })).status).toBeLessThan(300);
    expect((await h.req("POST", `/api/v1/posts/${a.id}/comments`, { token: me.token, body: { body: "mine" } })).status).toBe(201);
    const r = await feed(h, me.token, { limit: 100 });
    expect(r.body.personalised).toBe(true);
    const personal = r.body.items.filter((i: any) => i.reason !== "discovery");
    const disc = r.body.items.filter((i: any) => i.reason === "discovery");
    // 4 candidates in 2 colonies: the one-third colony cap keeps 2.
    expect(disc.length).toBe(2);
    const order = personal.map((i: any) => i.post?.id ?? `c:${i.comment.id}`);
    expect(order).toContain(c.id); // demoted, not hidden
    expect(order.indexOf(c.id)).toBeGreaterThan(order.indexOf(b.id));
    expect(order.indexOf(a.id)).toBeGreaterThan(order.indexOf(b.id));
    const comment = r.body.items.find((i: any) => i.kind === "comment");
    expect(comment.on_post_id).toBe(b.id);
    expect(comment.on_post_title).toBe("BBB");
    const onlyComments = await feed(h, me.token, { kinds: "comments" });
    expect(onlyComments.body.items.every((i: any) => i.kind === "comment")).toBe(true);
    expect(onlyComments.body.count).toBe(1);
    const onlyPosts = await feed(h, me.token, { kinds: "posts" });
    expect(onlyPosts.body.items.every((i: any) => i.kind === "post")).toBe(true);
    const q = await feed(h, me.token, { post_type: "question", kinds: "posts" });
    expect(q.body.items.map((i: any) => i.post.id)).toEqual([b.id]);
    expect((await feed(h, me.token, { kinds: "nope" })).status).toBe(422);
    expect((await feed(h, me.token, { limit: 0 })).status).toBe(422);
  });

  test("unengaged posts drop after 3 servings; engaged ones stay", async () => {
    const h = setup();
    const me = await h.user();
    const x = await post(h, await h.user());
    const y = await post(h, await h.user(), { colony_id: QUESTIONS.id, post_type: "question" });
    setScore(h, x.id, 5);
    setScore(h, y.id, 5);
    await h.req("POST", `/api/v1/posts/${y.id}/vote`, { token: me.token, body: { value: 1 } });
    // Each reading is a new ranking (the reuse window has passed); re-reading one ranking counts once.
    for (let i = 0; i < 3; i++) {
      expect((await feed(h, me.token)).body.items.map((i: any) => i.post.id).sort()).toEqual([x.id, y.id].sort());
      expect((await feed(h, me.token)).body.items).toHaveLength(2);
      h.clock.advance(SNAPSHOT_REUSE_MS);
    }
    expect((await feed(h, me.token)).body.items.map((i: any) => i.post.id)).toEqual([y.id]);
  });

  test("a first page re-read within a minute and with no write since reuses the ranking", async () => {
    const h = setup();
    const me = await h.user();
    const author = await h.user();
    const x = await post(h, author);
    const y = await post(h, await h.user(), { colony_id: QUESTIONS.id, post_type: "question" });
    setScore(h, x.id, 5);
    setScore(h, y.id, 6);
    // The snapshot a page came from, read from its next_cursor.
    const page = async (query: Record<string, any> = {}) => {
      const r = await feed(h, me.token, { limit: 1, ...query });
      return { ids: r.body.items.map((i: any) => i.post.id), snapshot: Buffer.from(r.body.next_cursor, "base64url").toString().split(":")[0] };
    };
    const served = (id: string) => (h.ctx.db.$client.query("select served_count as n from feed_served where post_id = ?").get(id) as { n: number } | null)?.n ?? 0;
    const first = await page();
    expect(first.ids).toEqual([y.id]);
    // Re-read: same ranking (a change made behind the server's back is not seen), not served again.
    setScore(h, x.id, 500);
    h.clock.advance(SNAPSHOT_REUSE_MS - 1);
    expect(await page()).toEqual(first);
    expect(served(y.id)).toBe(1);
    // Other kinds are ranked on their own.
    expect((await page({ kinds: "posts" })).snapshot).not.toBe(first.snapshot);
    expect((await page()).snapshot).toBe(first.snapshot);
    // Any write on the server (a vote by someone else) ends the reuse.
    await h.req("POST", `/api/v1/posts/${y.id}/vote`, { token: author.token, body: { value: 1 } });
    const afterWrite = await page();
    expect(afterWrite.snapshot).not.toBe(first.snapshot);
    expect(afterWrite.ids).toEqual([x.id]);
    // So does the clock: a minute after a ranking the first page is ranked again.
    setScore(h, y.id, 5000);
    expect((await page()).ids).toEqual([x.id]);
    h.clock.advance(SNAPSHOT_REUSE_MS);
    expect((await page()).ids).toEqual([y.id]);
  });

  test("cursor pages a frozen snapshot: new posts after page 1 do not shift page 2", async () => {
    const h = setup();
    const me = await h.user();
    const founder = await h.user();
    const cols = [GENERAL.id, QUESTIONS.id, makeColony(h, founder).id];
    const types = ["discussion", "question", "finding"];
    for (let i = 0; i < 9; i++) setScore(h, (await post(h, await h.user(), { colony_id: cols[i % 3], post_type: types[Math.floor(i / 3)] })).id, 3 + i);
    const full = (await feed(h, me.token, { limit: 100 })).body.items.map((i: any) => i.post.id);
    expect(full.length).toBe(9);
    const p1 = await feed(h, me.token, { limit: 4 });
    expect(p1.body.next_cursor).toBeString();
    for (let i = 0; i < 3; i++) setScore(h, (await post(h, await h.user(), { colony_id: cols[i], post_type: types[i] })).id, 100);
    const p2 = await feed(h, me.token, { limit: 4, cursor: p1.body.next_cursor });
    expect(p2.status).toBe(200);
    expect([...p1.body.items, ...p2.body.items].map((i: any) => i.post.id)).toEqual(full.slice(0, 8));
    const p3 = await feed(h, me.token, { limit: 4, cursor: p2.body.next_cursor });
    expect(p3.body.items.length).toBe(1);
    expect(p3.body.next_cursor).toBeNull();
    expect((await feed(h, me.token, { cursor: "garbage" })).status).toBe(400);
    const other = await h.user();
    expect((await feed(h, other.token, { cursor: p1.body.next_cursor })).status).toBe(400);
  });
});

describe("GET /suggestions", () => {
  test("state-derived suggestions with working actions; filters", async () => {
    const h = setup();
    const me = await h.user();
    const other = await h.user();
    const mine = await post(h, me);
    const cm = await h.req("POST", `/api/v1/posts/${mine.id}/comments`, { token: other.token, body: { body: "question for you" } });
    const r = await h.req("GET", "/api/v1/suggestions", { token: me.token });
    expect(r.status).toBe(200);
    const kinds = r.body.suggestions.map((s: any) => s.kind);
    expect(kinds).toContain("complete_profile");
    expect(kinds).toContain("reply_comment");
    expect(kinds).not.toContain("first_post");
    const reply = r.body.suggestions.find((s: any) => s.kind === "reply_comment");
    expect(reply.target.id).toBe(cm.body.id);
    // Execute the action through the app: the suggestion then disappears.
    const done = await h.req(reply.action.api_method, reply.action.api_path, { token: me.token, body: reply.action.api_body });
    expect(done.status).toBe(201);
    const profile = r.body.suggestions.find((s: any) => s.kind === "complete_profile");
    expect((await h.req(profile.action.api_method, profile.action.api_path, { token: me.token, body: profile.action.api_body })).status).toBe(200);
    const after = await h.req("GET", "/api/v1/suggestions", { token: me.token });
    expect(after.body.suggestions.map((s: any) => s.kind)).not.toContain("reply_comment");
    expect(after.body.suggestions.map((s: any) => s.kind)).not.toContain("complete_profile");
    const scores = after.body.suggestions.map((s: any) => s.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    const inbox = await h.req("GET", "/api/v1/suggestions", { token: me.token, query: { category: "onboarding,nothing" } });
    expect(inbox.body.suggestions.every((s: any) => s.category === "onboarding")).toBe(true);
    expect(inbox.body.count).toBe(inbox.body.suggestions.length);
    const k = await h.req("GET", "/api/v1/suggestions", { token: me.token, query: { kinds: "join_colony", limit: 1 } });
    expect(k.body.suggestions.map((s: any) => s.kind)).toEqual(["join_colony"]);
    expect((await h.req("GET", "/api/v1/suggestions", { token: me.token, query: { limit: 101 } })).status).toBe(422);
  });
});

describe("maintenance", () => {
  test("the purge-feed schedule drops expired snapshots and served records older than 30 days", async () => {
    const h = setup({ rateLimitMultiplier: 0 });
    const reader = await h.user();
    const author = await h.user();
    const p = await post(h, author, { colony_id: GENERAL.id });
    for (let i = 0; i < 3; i++) await h.req("POST", `/api/v1/posts/${p.id}/comments`, { token: author.token, body: { body: `c${i}` } });
    await h.req("POST", `/api/v1/posts/${p.id}/comments`, { token: reader.token, body: { body: "me too" } });
    const first = await h.req("GET", "/api/v1/feed/for-you", { token: reader.token });
    expect(first.status).toBe(200);
    const count = (table: string) => (h.ctx.db.$client.query(`select count(*) as n from ${table}`).get() as { n: number }).n;
    expect(count("feed_snapshots")).toBe(1);
    const served = count("feed_served");
    expect(served).toBeGreaterThan(0);

    h.clock.advance(31 * 60_000); // past the snapshot lifetime, not past the served retention
    await h.ctx.jobs.runRecurring("purge-feed");
    expect(count("feed_snapshots")).toBe(0);
    expect(count("feed_served")).toBe(served);

    h.clock.advance(30 * 24 * 3600_000);
    await h.ctx.jobs.runRecurring("purge-feed");
    expect(count("feed_served")).toBe(0);
  });
});
