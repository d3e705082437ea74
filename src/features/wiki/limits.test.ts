// The wiki's limits (spec Part 3 §8; docs/decisions.md §89): create, edit, delete, lock and the
// editor routes per account, the list and new pages and edits per address, the daily counts with
// their lower ceilings for new and low-karma accounts, edits of one page, and the characters per
// UTC day. Every refusal is 429 with Retry-After and retry_after, and changes nothing.
import { beforeAll, describe, expect, test } from "bun:test";
import { DAY, HOUR, MINUTE } from "../../core/clock";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { issueToken } from "../auth/service";
import { makeColony } from "../colonies/fixtures";
import { DAILY_CHARS } from "./service";
import { refused } from "../../../test/expect";

let ipSeq = 0;
let n = 0;

/**
 * A client of `h` (rate limits on) sending from an address of its own unless told otherwise. Each
 * test makes its own accounts and pages, so the limits it meets are its own.
 */
function client(h: Harness) {
  let ip = `203.0.113.${++ipSeq}`;
  const req = (method: string, path: string, u: TestUser | null, opts: { body?: unknown; query?: Record<string, string>; from?: string } = {}) =>
    h.req(method, path, { token: u?.token ?? null, body: opts.body, query: opts.query, headers: { "x-forwarded-for": opts.from ?? ip } });
  /** A fresh access token for `u` (tokens last a day, and these tests move the clock by days). */
  const refresh = async (u: TestUser) => {
    u.token = (await issueToken(h.ctx, u.apiKey)).access_token;
    return u;
  };
  /** An account older than a day (out of the new-account ceilings): its creation is moved back. */
  const aged = async (opts: { karma?: number; admin?: boolean } = {}) => {
    const u = await h.user(opts);
    h.ctx.db.$client.query("update users set created_at = ? where id = ?").run(h.clock.now() - DAY - 1, u.id);
    return u;
  };
  const create = (u: TestUser, body: Record<string, unknown> = {}, from?: string) => req("POST", "/api/v1/wiki", u, { body: { title: "T", slug: `limited-${++n}`, ...body }, from });
  const edit = (u: TestUser, slug: string, content = `c${++n}`) => req("PUT", `/api/v1/wiki/${slug}`, u, { body: { content } });
  return { h, req, aged, refresh, create, edit, newIp: () => (ip = `198.51.100.${++ipSeq}`) };
}

let shared: Harness;
beforeAll(() => {
  shared = setup({ trustProxy: true });
});

/** A client of the file's instance, for the tests that move the clock by an hour at most. */
const instance = () => client(shared);

async function limited(h: Harness, run: () => ReturnType<Harness["req"]>, code: string) {
  const r = await refused(h, run, 429, code);
  expect(r.headers.get("retry-after")).toMatch(/^\d+$/);
  expect(r.body.detail.retry_after).toBe(Number(r.headers.get("retry-after")));
  return r;
}

describe("creating pages", () => {
  test("10 an hour per account (wiki_create)", async () => {
    const { h, aged, create } = instance();
    const u = await aged();
    for (let i = 0; i < 10; i++) expect((await create(u)).status).toBe(201);
    await limited(h, () => create(u), "RATE_LIMIT_WIKI_CREATE");
    h.clock.advance(HOUR);
    expect((await create(u)).status).toBe(201);
  });

  test("2 a day in an account's first day, 20 a day after it", async () => {
    const { h, aged, create } = instance();
    const young = await h.user();
    expect((await create(young)).status).toBe(201);
    expect((await create(young)).status).toBe(201);
    await limited(h, () => create(young), "RATE_LIMIT_WIKI_PAGES_DAILY");
    const old = await aged();
    for (let i = 0; i < 3; i++) expect((await create(old)).status).toBe(201);
  });

  test("1 a day below -10 karma; -10 itself is not below", async () => {
    const { h, aged, create } = instance();
    const low = await aged({ karma: -11 });
    const edge = await aged({ karma: -10 });
    expect((await create(low)).status).toBe(201);
    await limited(h, () => create(low), "RATE_LIMIT_WIKI_PAGES_DAILY");
    for (let i = 0; i < 3; i++) expect((await create(edge)).status).toBe(201);
  });

  test("20 an hour per address, whoever creates them", async () => {
    const { h, aged, create } = instance();
    const users: TestUser[] = [];
    for (let i = 0; i < 3; i++) users.push(await aged());
    for (let i = 0; i < 20; i++) expect((await create(users[i % 3]!)).status).toBe(201);
    await limited(h, () => create(users[0]!), "RATE_LIMIT_WIKI_PAGES_IP");
    expect((await create(users[0]!, {}, "192.0.2.77")).status).toBe(201);
  });

  test("a refused create is not charged: a 409 leaves the hour's budget whole", async () => {
    const { aged, create } = instance();
    const u = await aged();
    expect((await create(u, { slug: "taken-once" })).status).toBe(201);
    for (let i = 0; i < 5; i++) expect((await create(u, { slug: "taken-once" })).status).toBe(409);
    for (let i = 0; i < 9; i++) expect((await create(u)).status).toBe(201);
  });
});

describe("editing pages", () => {
  test("10 edits of one page an hour per account; other pages and other accounts go on", async () => {
    const { h, aged, create, edit } = instance();
    const u = await aged();
    const v = await aged();
    await create(u, { slug: "busy-page" });
    await create(u, { slug: "quiet-page" });
    for (let i = 0; i < 10; i++) expect((await edit(u, "busy-page")).status).toBe(200);
    await limited(h, () => edit(u, "busy-page"), "RATE_LIMIT_WIKI_PAGE_EDITS");
    expect((await edit(u, "quiet-page")).status).toBe(200);
    expect((await edit(v, "busy-page")).status).toBe(200);
  });

  test("20 edits an hour per account (wiki_edit), reverts included", async () => {
    const { h, aged, create, edit, req } = instance();
    const u = await aged();
    for (const s of ["e-a", "e-b", "e-c"]) await create(u, { slug: s });
    for (let i = 0; i < 10; i++) expect((await edit(u, "e-a")).status).toBe(200);
    for (let i = 0; i < 9; i++) expect((await edit(u, "e-b")).status).toBe(200);
    const rev = (await req("GET", "/api/v1/wiki/e-c/history", null)).body[0].id;
    expect((await req("POST", "/api/v1/wiki/e-c/revert", u, { body: { revision_id: rev } })).status).toBe(200);
    await limited(h, () => edit(u, "e-c"), "RATE_LIMIT_WIKI_EDIT");
  });

  test("10 edits a day in an account's first day; 3 below -10 karma", async () => {
    const { h, aged, create, edit, newIp } = instance();
    const owner = await aged();
    for (const s of ["d-a", "d-b"]) await create(owner, { slug: s });
    const young = await h.user();
    for (let i = 0; i < 6; i++) expect((await edit(young, "d-a")).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await edit(young, "d-b")).status).toBe(200);
    await limited(h, () => edit(young, "d-b"), "RATE_LIMIT_WIKI_EDITS_DAILY");
    newIp();
    const low = await aged({ karma: -11 });
    for (let i = 0; i < 3; i++) expect((await edit(low, "d-a")).status).toBe(200);
    await limited(h, () => edit(low, "d-b"), "RATE_LIMIT_WIKI_EDITS_DAILY");
  });

  test("60 edits an hour per address", async () => {
    const { h, aged, create, edit } = instance();
    const owner = await aged();
    const slugs = ["ip-a", "ip-b", "ip-c", "ip-d", "ip-e", "ip-f", "ip-g"];
    for (const s of slugs) await create(owner, { slug: s });
    const editors: TestUser[] = [];
    for (let i = 0; i < 3; i++) editors.push(await aged());
    for (let i = 0; i < 60; i++) expect((await edit(editors[i % 3]!, slugs[Math.floor(i / 9)]!)).status).toBe(200);
    const fresh = await aged();
    await limited(h, () => edit(fresh, "ip-g"), "RATE_LIMIT_WIKI_EDITS_IP");
  });
});

describe("characters per UTC day", () => {
  test(`${DAILY_CHARS} characters of title and content per account and UTC day, creates and edits alike; free again at UTC midnight`, async () => {
    // An instance of its own: the clock moves by days.
    const { h, aged, refresh, create, edit } = client(setup({ trustProxy: true }));
    const u = await aged();
    // Start the day at 01:00 UTC.
    h.clock.advance(DAY - (h.clock.now() % DAY) + HOUR);
    await refresh(u);
    const big = "x".repeat(199_990);
    for (let i = 0; i < 9; i++) expect((await create(u, { title: "t", slug: `big-${i}`, content: big })).status).toBe(201);
    // 9 × 199,991 written; this edit brings the day to exactly 1,999,910.
    expect((await edit(u, "big-0", big)).status).toBe(200);
    const r = await limited(h, () => edit(u, "big-1", "y".repeat(100)), "RATE_LIMIT_WIKI_CHARS_DAILY");
    expect(r.body.detail.retry_after).toBe(23 * 3600);
    h.clock.advance(23 * HOUR);
    await refresh(u);
    expect((await edit(u, "big-1", "y".repeat(100))).status).toBe(200);
  });
});

describe("the other wiki limits", () => {
  test("the list: 30 a minute per address, signed in or not", async () => {
    const { h, req, aged } = instance();
    const u = await aged();
    for (let i = 0; i < 30; i++) expect((await req("GET", "/api/v1/wiki", i % 2 ? u : null)).status).toBe(200);
    await limited(h, () => req("GET", "/api/v1/wiki", null), "RATE_LIMIT_WIKI_LIST");
    h.clock.advance(MINUTE);
    expect((await req("GET", "/api/v1/wiki", null)).status).toBe(200);
  });

  test("revision diffs: 60 a minute per address", async () => {
    const { h, req, aged, create } = instance();
    const u = await aged();
    await create(u, { slug: "diffed" });
    const rev = (await req("GET", "/api/v1/wiki/diffed/history", null)).body[0].id;
    for (let i = 0; i < 60; i++) expect((await req("GET", `/api/v1/wiki/diffed/revision/${rev}/diff`, i % 2 ? u : null)).status).toBe(200);
    await limited(h, () => req("GET", `/api/v1/wiki/diffed/revision/${rev}/diff`, null), "RATE_LIMIT_WIKI_DIFF");
  });

  test("delete: 5 an hour per account", async () => {
    const { h, aged, create, req } = instance();
    const u = await aged();
    for (let i = 0; i < 6; i++) await create(u, { slug: `del-${i}` });
    for (let i = 0; i < 5; i++) expect((await req("DELETE", `/api/v1/wiki/del-${i}`, u)).status).toBe(204);
    await limited(h, () => req("DELETE", "/api/v1/wiki/del-5", u), "RATE_LIMIT_WIKI_DELETE");
  });

  test("lock and unlock: 60 an hour per account together", async () => {
    const { h, aged, create, req } = instance();
    const admin = await aged({ admin: true });
    await create(admin, { slug: "lockable" });
    for (let i = 0; i < 60; i++) expect((await req(i % 2 ? "DELETE" : "POST", "/api/v1/wiki/lockable/lock", admin)).status).toBe(200);
    await limited(h, () => req("POST", "/api/v1/wiki/lockable/lock", admin), "RATE_LIMIT_WIKI_LOCK");
  });

  test("wiki editors: 120 reads and 60 writes an hour per account", async () => {
    const { h, aged, req } = instance();
    const founder = await aged();
    const c = makeColony(h, founder);
    const path = `/api/v1/colonies/${c.id}/wiki-editors`;
    for (let i = 0; i < 120; i++) expect((await req("GET", path, founder)).status).toBe(200);
    await limited(h, () => req("GET", path, founder), "RATE_LIMIT_WIKI_EDITOR_READ");
    const target = await h.user();
    for (let i = 0; i < 30; i++) {
      expect((await req("POST", path, founder, { body: { username: target.username } })).status).toBe(201);
      expect((await req("DELETE", `${path}/${target.id}`, founder)).status).toBe(204);
    }
    await limited(h, () => req("POST", path, founder, { body: { username: target.username } }), "RATE_LIMIT_WIKI_EDITOR_WRITE");
  });
});
