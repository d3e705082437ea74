import { beforeAll, describe, expect, test } from "bun:test";
import { setup, type TestUser } from "../../../test/harness";
import type { ColonyRow } from "../colonies/service";
import { GENERAL, QUESTIONS, join, makeColony, post, setColonySettings } from "./fixtures";
import { adjustCommentCount, applyScoreDelta, buildListQuery, hotRank, markSentinelScanned } from "./service";
import { posts } from "./tables";

const h = setup();
const HOUR = 3600_000;
const T0 = Date.UTC(2026, 0, 1, 12);

let alice: TestUser; // agent
let bob: TestUser; // human
let carol: TestUser; // agent
let dave: TestUser; // founder of the restricted and private colonies
let restricted: ColonyRow;
let priv: ColonyRow;
const P: Record<string, any> = {};

const ids = (r: { body: { items: { id: string }[] } }) => r.body.items.map((p) => p.id);
const list = (query: Record<string, string | number | boolean | undefined> = {}, token?: string) => h.req("GET", "/api/v1/posts", { query, token });

beforeAll(async () => {
  h.ctx.limits.reset();
  alice = await h.user({ username: "alice" });
  bob = await h.user({ username: "bob", human: true });
  carol = await h.user({ username: "carol" });
  dave = await h.user({ username: "dave" });
  restricted = makeColony(h, dave, "restricted", "restricted-club");
  priv = makeColony(h, dave, "private", "secret-club");
  await join(h, restricted, alice, dave);
  await join(h, priv, alice, dave);
  await join(h, priv, bob); // pending: grants nothing

  h.clock.set(T0);
  P.p1 = await post(h, alice, { colony_id: GENERAL.id, post_type: "finding", title: "Neural nets", body: "About transformers", tags: ["ml", "ai"] });
  h.clock.set(T0 + 1 * HOUR);
  P.p2 = await post(h, bob, { colony_id: GENERAL.id, post_type: "question", title: "How to cook", body: "pasta 100%_done", tags: ["ai"] });
  h.clock.set(T0 + 2 * HOUR);
  P.p3 = await post(h, carol, { colony_id: QUESTIONS.id, post_type: "analysis", title: "Market analysis", body: "Numbers" });
  h.clock.set(T0 + 3 * HOUR);
  P.p4 = await post(h, alice, { colony_id: restricted.id, title: "Restricted talk", body: "members only writing" });
  h.clock.set(T0 + 4 * HOUR);
  P.p5 = await post(h, alice, { colony_id: priv.id, title: "Private talk", body: "secret transformers" });
  h.clock.set(T0 + 5 * HOUR);
  P.p6 = await post(h, carol, { colony_id: GENERAL.id, post_type: "poll", title: "Pick one", body: "Vote", metadata: { poll_options: ["a", "b"] } });
  // Never listed: a scheduled draft, a deleted post, a held post.
  await post(h, alice, { title: "Scheduled transformers", scheduled_for: new Date(T0 + 7 * HOUR).toISOString() });
  const gone = await post(h, alice, { title: "Deleted transformers" });
  await h.req("DELETE", `/api/v1/posts/${gone.id}`, { token: alice.token });
  const heldColony = makeColony(h, dave, "public", "held-colony");
  setColonySettings(h, heldColony.id, { requires_post_approval: true });
  expect((await post(h, alice, { colony_id: heldColony.id, title: "Held transformers" })).held).toBe(true);

  h.ctx.db.transaction((tx) => {
    applyScoreDelta(tx, P.p1.id, 5);
    applyScoreDelta(tx, P.p2.id, -2);
    applyScoreDelta(tx, P.p3.id, 10);
    adjustCommentCount(tx, P.p1.id, 1, T0 + 5 * HOUR);
    adjustCommentCount(tx, P.p2.id, 7, T0 + 5 * HOUR);
    adjustCommentCount(tx, P.p3.id, 3, T0 + 5 * HOUR);
    markSentinelScanned(tx, P.p3.id, T0 + 5 * HOUR);
  });
  h.ctx.db.$client.query("update posts set status = 'resolved' where id = ?").run(P.p2.id);
  h.clock.set(T0 + 6 * HOUR);
});

describe("GET /api/v1/posts: envelope and paging", () => {
  test("CursorPaginatedList envelope; newest first by default; full bodies", async () => {
    const r = await list();
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["has_more", "items", "next_cursor", "total"]);
    // Private colonies never appear in an unfiltered list (not even to members); drafts, deleted and held posts never.
    expect(ids(r)).toEqual([P.p6.id, P.p4.id, P.p3.id, P.p2.id, P.p1.id]);
    expect(r.body.total).toBe(5);
    expect(r.body.has_more).toBe(false);
    expect(r.body.next_cursor).toBeNull();
    expect(r.body.items[4].body).toBe("About transformers");
    expect((await list({}, alice.token)).body.total).toBe(5);
  });

  test("limit 1-100 (422 outside), offset, page; page and offset that disagree are 400", async () => {
    expect((await list({ limit: 0 })).status).toBe(422);
    expect((await list({ limit: 101 })).status).toBe(422);
    expect((await list({ offset: 100001 })).status).toBe(422);
    const r = await list({ limit: 2, offset: 2 });
    expect(ids(r)).toEqual([P.p3.id, P.p2.id]);
    expect(r.body.has_more).toBe(true);
    const byPage = await list({ limit: 2, page: 2 });
    expect(ids(byPage)).toEqual([P.p3.id, P.p2.id]);
    expect(byPage.body.page).toBe(2);
    expect((await list({ limit: 2, page: 2, offset: 2 })).status).toBe(200);
    const bad = await list({ limit: 2, page: 2, offset: 3 });
    expect(bad.status).toBe(400);
    expect(bad.body.detail.code).toBe("INVALID_INPUT");
  });

  test("cursor paging with sort=newest walks every post once", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 5; i++) {
      const r = await list({ limit: 2, cursor });
      expect(r.status).toBe(200);
      seen.push(...ids(r));
      expect(r.body.total).toBe(5);
      if (!r.body.has_more) {
        expect(r.body.next_cursor).toBeNull();
        break;
      }
      cursor = r.body.next_cursor;
      expect(typeof cursor).toBe("string");
    }
    expect(seen).toEqual([P.p6.id, P.p4.id, P.p3.id, P.p2.id, P.p1.id]);
  });

  test("a cursor is ignored by other sorts, which send no next_cursor; a forged cursor is 400", async () => {
    const first = await list({ limit: 2 });
    const top = await list({ limit: 2, sort: "top", cursor: first.body.next_cursor });
    expect(ids(top)).toEqual([P.p3.id, P.p1.id]);
    expect(top.body.next_cursor).toBeNull();
    const bad = await list({ cursor: "not-a-cursor" });
    expect(bad.status).toBe(400);
    expect(bad.body.detail.code).toBe("INVALID_INPUT");
  });
});

describe("GET /api/v1/posts: sorts", () => {
  test("top: score descending", async () => {
    expect(ids(await list({ sort: "top" }))).toEqual([P.p3.id, P.p1.id, P.p6.id, P.p4.id, P.p2.id]);
  });

  test("hot: the precomputed rank, time-monotonic", async () => {
    const r = await list({ sort: "hot" });
    const ranks = r.body.items.map((p: any) => hotRank(p.score, Date.parse(p.created_at)));
    expect([...ranks].sort((a, b) => b - a)).toEqual(ranks);
    // 1 + 2h/12.5h, log10(5) + 0, 0 + 5h/12.5h, 0 + 3h/12.5h, -log10(2) + 1h/12.5h
    expect(ids(r)).toEqual([P.p3.id, P.p1.id, P.p6.id, P.p4.id, P.p2.id]);
  });

  test("discussed: comment count descending", async () => {
    expect(ids(await list({ sort: "discussed" }))).toEqual([P.p2.id, P.p3.id, P.p1.id, P.p6.id, P.p4.id]);
    expect((await list({ sort: "discussed" })).body.items[0].last_comment_at).toBe(new Date(T0 + 5 * HOUR).toISOString());
  });

  test("sort=new is the deprecated spelling of newest (X-Service-Deprecated-Values); an unknown sort is 422", async () => {
    const r = await list({ sort: "new" });
    expect(r.status).toBe(200);
    expect(ids(r)).toEqual(ids(await list({ sort: "newest" })));
    expect(r.headers.get("x-service-deprecated-values")).toBe("sort:new=newest");
    expect(r.headers.get("x-colony-deprecated-values")).toBe("sort:new=newest");
    expect((await list({ sort: "best" })).status).toBe(422);
  });
});

describe("GET /api/v1/posts: filters", () => {
  type Row = { name: string; query: Record<string, string | number | boolean>; want: () => string[]; token?: () => string };
  const rows: Row[] = [
    { name: "colony_id", query: { colony_id: GENERAL.id }, want: () => [P.p6.id, P.p2.id, P.p1.id] },
    { name: "colony (name)", query: { colony: "questions" }, want: () => [P.p3.id] },
    { name: "colony name in any case", query: { colony: "QUESTIONS" }, want: () => [P.p3.id] },
    { name: "unknown colony matches nothing", query: { colony: "no-such-colony" }, want: () => [] },
    { name: "private colony by id, anonymous: nothing", query: { colony: "secret-club" }, want: () => [] },
    { name: "private colony by name, approved member", query: { colony: "secret-club" }, want: () => [P.p5.id], token: () => alice.token },
    { name: "private colony by name, pending member: nothing", query: { colony: "secret-club" }, want: () => [], token: () => bob.token },
    { name: "restricted colony, anonymous", query: { colony: "restricted-club" }, want: () => [P.p4.id] },
    { name: "post_type", query: { post_type: "question" }, want: () => [P.p2.id] },
    { name: "status", query: { status: "resolved" }, want: () => [P.p2.id] },
    { name: "status open", query: { status: "open" }, want: () => [P.p6.id, P.p4.id, P.p3.id, P.p1.id] },
    { name: "author_type human", query: { author_type: "human" }, want: () => [P.p2.id] },
    { name: "author_type agent", query: { author_type: "agent" }, want: () => [P.p6.id, P.p4.id, P.p3.id, P.p1.id] },
    { name: "author_id empty does not bind", query: { author_id: "" }, want: () => [P.p6.id, P.p4.id, P.p3.id, P.p2.id, P.p1.id] },
    { name: "author_id by username", query: { author_id: "carol" }, want: () => [P.p6.id, P.p3.id] },
    { name: "author by username", query: { author: "Alice" }, want: () => [P.p4.id, P.p1.id] },
    { name: "author_id that is an unknown id matches nothing", query: { author_id: "00000000-0000-7000-8000-000000000000" }, want: () => [] },
    { name: "tag", query: { tag: "ai" }, want: () => [P.p2.id, P.p1.id] },
    { name: "tag in any case", query: { tag: "ML" }, want: () => [P.p1.id] },
    { name: "q over title", query: { q: "neural" }, want: () => [P.p1.id] },
    { name: "q over body (private posts excluded)", query: { q: "transformers" }, want: () => [P.p1.id] },
    { name: "q with punctuation and wildcards is never interpreted", query: { q: "100%_" }, want: () => [P.p2.id] },
    { name: "q matches word stems (full-text index)", query: { q: "cooking" }, want: () => [P.p2.id] },
    { name: "q prefix and phrase", query: { q: 'coo* "to cook"' }, want: () => [P.p2.id] },
    { name: "q holding no word matches nothing", query: { q: "%%" }, want: () => [] },
    { name: "q that matches nothing", query: { q: "zzzz" }, want: () => [] },
    { name: "min_score inclusive", query: { min_score: 5 }, want: () => [P.p3.id, P.p1.id] },
    { name: "max_score inclusive", query: { max_score: 0 }, want: () => [P.p6.id, P.p4.id, P.p2.id] },
    { name: "min_score negative", query: { min_score: -2, max_score: -2 }, want: () => [P.p2.id] },
    { name: "since inclusive", query: { since: new Date(T0 + 2 * HOUR).toISOString() }, want: () => [P.p6.id, P.p4.id, P.p3.id] },
    { name: "until exclusive", query: { until: new Date(T0 + 2 * HOUR).toISOString() }, want: () => [P.p2.id, P.p1.id] },
    { name: "since and until", query: { since: new Date(T0 + 1 * HOUR).toISOString(), until: new Date(T0 + 3 * HOUR).toISOString() }, want: () => [P.p3.id, P.p2.id] },
    { name: "since as a bare date is midnight UTC", query: { since: "2026-01-01" }, want: () => [P.p6.id, P.p4.id, P.p3.id, P.p2.id, P.p1.id] },
    { name: "until as a bare date excludes that day", query: { until: "2026-01-01" }, want: () => [] },
    { name: "since without a zone is UTC", query: { since: "2026-01-01T17:00:00" }, want: () => [P.p6.id] },
    { name: "sentinel_scanned=true", query: { sentinel_scanned: true }, want: () => [P.p3.id] },
    { name: "sentinel_scanned=false", query: { sentinel_scanned: false }, want: () => [P.p6.id, P.p4.id, P.p2.id, P.p1.id] },
    { name: "an empty value does not bind", query: { post_type: "", colony: "" }, want: () => [P.p6.id, P.p4.id, P.p3.id, P.p2.id, P.p1.id] },
    { name: "an undeclared parameter is ignored", query: { flavour: "x" }, want: () => [P.p6.id, P.p4.id, P.p3.id, P.p2.id, P.p1.id] },
    { name: "member_colonies=true: approved member colonies, private included", query: { member_colonies: true }, want: () => [P.p5.id, P.p4.id], token: () => alice.token },
    { name: "member_colonies=false: only outside them", query: { member_colonies: false }, want: () => [P.p6.id, P.p3.id, P.p2.id, P.p1.id], token: () => alice.token },
    { name: "member_colonies=true: a pending join does not count", query: { member_colonies: true }, want: () => [], token: () => bob.token },
    { name: "member_colonies=false for a pending member", query: { member_colonies: false }, want: () => [P.p6.id, P.p4.id, P.p3.id, P.p2.id, P.p1.id], token: () => bob.token },
    { name: "filters combine", query: { colony_id: GENERAL.id, author_type: "agent", min_score: 1 }, want: () => [P.p1.id] },
  ];
  for (const row of rows) {
    test(row.name, async () => {
      const r = await list(row.query, row.token?.());
      expect(r.status).toBe(200);
      expect(ids(r)).toEqual(row.want());
      expect(r.body.total).toBe(row.want().length);
    });
  }

  test("author_id by user id", async () => {
    expect(ids(await list({ author_id: bob.id }))).toEqual([P.p2.id]);
    expect(ids(await list({ author: bob.id }))).toEqual([P.p2.id]);
  });

  test("an unknown username in author or author_id is 404 USER_NOT_FOUND", async () => {
    for (const key of ["author", "author_id"]) {
      const r = await list({ [key]: "nobody-here" });
      expect(r.status).toBe(404);
      expect(r.body.detail.code).toBe("USER_NOT_FOUND");
    }
  });

  test("author and author_id naming different users is 400; the same user is fine", async () => {
    const r = await list({ author: "alice", author_id: "bob" });
    expect(r.status).toBe(400);
    expect(r.body.detail.code).toBe("INVALID_INPUT");
    expect(ids(await list({ author: "alice", author_id: alice.id }))).toEqual([P.p4.id, P.p1.id]);
  });

  test("member_colonies without authentication is 401", async () => {
    for (const v of [true, false]) {
      const r = await list({ member_colonies: v });
      expect(r.status).toBe(401);
      expect(r.body.detail.code).toBe("AUTH_INVALID_TOKEN");
    }
  });

  test("colony_name is the deprecated spelling of colony (X-Service-Deprecated-Params); both different is 400", async () => {
    const r = await list({ colony_name: "questions" });
    expect(ids(r)).toEqual([P.p3.id]);
    expect(r.headers.get("x-service-deprecated-params")).toBe("colony_name=colony");
    expect(r.headers.get("x-colony-deprecated-params")).toBe("colony_name=colony");
    const both = await list({ colony_name: "questions", colony: "general" });
    expect(both.status).toBe(400);
    expect(both.body.detail.code).toBe("INVALID_INPUT");
    expect((await list({ colony_name: "general", colony: "general" })).status).toBe(200);
  });

  test("search is the deprecated spelling of q", async () => {
    const r = await list({ search: "neural" });
    expect(ids(r)).toEqual([P.p1.id]);
    expect(r.headers.get("x-service-deprecated-params")).toBe("search=q");
  });

  test("bad values: q of 1 or 201 characters, a non-timestamp since, a non-integer score, an unknown post_type are 422", async () => {
    for (const query of [{ q: "a" }, { q: "x".repeat(201) }, { since: "yesterday" }, { until: "2026-13-01" }, { min_score: "high" }, { post_type: "essay" }, { status: "done" }, { author_type: "robot" }, { since: "2026-01-01T12:00:00 00:00" }]) {
      const r = await list(query as unknown as Record<string, string>);
      expect([JSON.stringify(query), r.status]).toEqual([JSON.stringify(query), 422]);
    }
  });
});

describe("GET /api/v1/posts: query plans", () => {
  const plan = (f: Parameters<typeof buildListQuery>[2], caller: any = null) => {
    const q = buildListQuery(h.ctx, caller, f)!;
    const built = h.ctx.db.select().from(posts).where(q.where).orderBy(...q.order).limit(20).toSQL();
    const rows = h.ctx.db.$client.query(`explain query plan ${built.sql}`).all(...(built.params as any[])) as { detail: string }[];
    return rows.map((r) => r.detail).join("\n");
  };
  const cases: [string, Parameters<typeof buildListQuery>[2], RegExp][] = [
    ["newest", {}, /posts_listed_new_idx/],
    ["hot", { sort: "hot" }, /posts_listed_hot_idx/],
    ["top", { sort: "top" }, /posts_listed_top_idx/],
    ["discussed", { sort: "discussed" }, /posts_listed_discussed_idx/],
    ["colony newest", { colony_id: GENERAL.id }, /posts_colony_new_idx/],
    ["colony hot", { colony_id: GENERAL.id, sort: "hot" }, /posts_colony_hot_idx/],
    ["colony top", { colony_id: GENERAL.id, sort: "top" }, /posts_colony_top_idx/],
    ["post_type newest", { post_type: "poll" }, /posts_type_new_idx|posts_listed_new_idx/],
    ["tag", { tag: "ai" }, /post_tags/],
  ];
  for (const [name, f, index] of cases) {
    test(`${name} uses an index${name.includes("tag") ? "" : " and no sort step"}`, () => {
      const p = plan(f);
      expect(p).toMatch(index);
      expect(p).not.toMatch(/SCAN posts(?! USING)/);
      if (!name.includes("tag") && !name.includes("post_type")) expect(p).not.toMatch(/TEMP B-TREE/);
    });
  }
  test("author newest uses the author index", () => {
    expect(plan({ author_id: alice.id })).toMatch(/posts_author_new_idx/);
  });
});
