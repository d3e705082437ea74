import { beforeAll, describe, expect, test } from "bun:test";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { ageAccount, makeColony, post } from "../posts/fixtures";

// One instance for the file: each test makes its own accounts when it starts and after each move
// of the clock by days (access tokens last 24 hours), and measures its windows from the clock as
// it finds it.
let h: Harness;
const vote = (u: TestUser, id: string) => h.req("POST", `/api/v1/posts/${id}/vote`, { token: u.token, body: { value: 1 } });

/** Three new accounts, a month old. */
async function freshUsers(): Promise<[TestUser, TestUser, TestUser]> {
  const users: [TestUser, TestUser, TestUser] = [await h.user(), await h.user(), await h.user()];
  for (const u of users) ageAccount(h, u, 24 * 30);
  return users;
}

beforeAll(() => {
  h = setup();
});

describe("GET /api/v1/trending/tags", () => {
  test("windows, counts, deprecated duplicates, private excluded, 30d is 422", async () => {
    const [first] = await freshUsers();
    const old = await post(h, first, { tags: ["oldtag"] });
    h.clock.advance(3 * 24 * 3600_000);
    const [a, b, c] = await freshUsers();
    const p1 = await post(h, a, { tags: ["ai", "rust"] });
    await post(h, b, { tags: ["ai"] });
    const priv = makeColony(h, c, "private");
    await post(h, c, { colony_id: priv.id, tags: ["secret"] });
    await vote(c, p1.id);
    await vote(b, p1.id);

    const r = await h.req("GET", "/api/v1/trending/tags");
    expect(r.status).toBe(200);
    const tags = r.body.items.map((i: any) => i.tag);
    expect(tags[0]).toBe("ai");
    expect(tags).toContain("rust");
    expect(tags).not.toContain("oldtag");
    expect(tags).not.toContain("secret");
    expect(r.body.items[0]).toMatchObject({ tag: "ai", posts: 2, votes: 2, unique_authors: 2, posts_24h: 2, votes_24h: 2 });
    expect(typeof r.body.items[0].trending_score).toBe("number");
    expect(r.body.total).toBe(2);

    const week = await h.req("GET", "/api/v1/trending/tags", { query: { window: "7d" } });
    expect(week.body.items.map((i: any) => i.tag)).toContain("oldtag");
    // An old post voted on inside the window counts its votes there.
    await vote(b, old.id);
    const now = await h.req("GET", "/api/v1/trending/tags");
    expect(now.body.items.find((i: any) => i.tag === "oldtag")).toMatchObject({ posts: 0, votes: 1 });

    h.clock.advance(2 * 24 * 3600_000);
    expect((await h.req("GET", "/api/v1/trending/tags")).body.items).toEqual([]);
    expect((await h.req("GET", "/api/v1/trending/tags", { query: { window: "30d" } })).status).toBe(422);
    const paged = await h.req("GET", "/api/v1/trending/tags", { query: { window: "7d", limit: 1, page: 2 } });
    expect(paged.body).toMatchObject({ page: 2, has_more: true });
    expect(paged.body.items).toHaveLength(1);
    expect((await h.req("GET", "/api/v1/trending/tags", { query: { limit: 0 } })).status).toBe(422);
  });
});

describe("GET /api/v1/trending/posts/rising", () => {
  test("young posts gathering votes outrank older ones with more votes; unvoted and private excluded", async () => {
    h.clock.advance(10 * 24 * 3600_000);
    const [a, b, c] = await freshUsers();
    const older = await post(h, a, { title: "older" });
    h.clock.advance(20 * 3600_000);
    await post(h, a, { title: "no votes" });
    const young = await post(h, a, { title: "young" });
    const priv = makeColony(h, a, "private");
    const hidden = await post(h, a, { colony_id: priv.id, title: "private" });
    await vote(b, older.id);
    await vote(c, older.id);
    await vote(b, young.id);
    const r = await h.req("GET", "/api/v1/trending/posts/rising", { token: a.token });
    expect(r.status).toBe(200);
    expect(r.body.items.map((p: any) => p.title)).toEqual(["young", "older"]);
    expect(r.body.items.map((p: any) => p.id)).not.toContain(hidden.id);
    expect(r.body).toMatchObject({ total: 2, has_more: false, next_cursor: null });
    expect(r.body.items[0].author.id).toBe(a.id);
    const p2 = await h.req("GET", "/api/v1/trending/posts/rising", { query: { limit: 1, offset: 1 } });
    expect(p2.body.items.map((p: any) => p.title)).toEqual(["older"]);
    // Votes older than the window no longer count.
    h.clock.advance(25 * 3600_000);
    expect((await h.req("GET", "/api/v1/trending/posts/rising")).body.items).toEqual([]);
  });
});
