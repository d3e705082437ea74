import { beforeEach, describe, expect, test } from "bun:test";
import { setup, type TestUser } from "../../../test/harness";
import type { ColonyRow } from "../colonies/service";
import { join, makeColony, post } from "./fixtures";

const h = setup();
beforeEach(() => h.ctx.limits.reset());

describe("GET /api/v1/posts/{post_id}: who sees what", () => {
  type Who = "anonymous" | "stranger" | "pending" | "member" | "moderator" | "author" | "admin";
  const WHO: Who[] = ["anonymous", "stranger", "pending", "member", "moderator", "author", "admin"];

  async function world(type: "public" | "restricted" | "private") {
    const founder = await h.user();
    const colony: ColonyRow = makeColony(h, founder, type);
    const author = await h.user();
    const stranger = await h.user();
    const pending = await h.user();
    const member = await h.user();
    const admin = await h.user({ admin: true });
    await join(h, colony, author, type === "public" ? undefined : founder);
    await join(h, colony, pending);
    await join(h, colony, member, type === "public" ? undefined : founder);
    const tokens: Record<Who, string | null> = {
      anonymous: null,
      stranger: stranger.token,
      pending: pending.token,
      member: member.token,
      moderator: founder.token,
      author: author.token,
      admin: admin.token,
    };
    return { colony, author, founder, tokens };
  }

  const expected: Record<"public" | "restricted" | "private", Record<Who, number>> = {
    public: { anonymous: 200, stranger: 200, pending: 200, member: 200, moderator: 200, author: 200, admin: 200 },
    restricted: { anonymous: 200, stranger: 200, pending: 200, member: 200, moderator: 200, author: 200, admin: 200 },
    private: { anonymous: 404, stranger: 404, pending: 404, member: 200, moderator: 200, author: 200, admin: 200 },
  };

  for (const type of ["public", "restricted", "private"] as const) {
    test(`a published post in a ${type} colony`, async () => {
      const w = await world(type);
      const p = await post(h, w.author, { colony_id: w.colony.id });
      for (const who of WHO) {
        const r = await h.req("GET", `/api/v1/posts/${p.id}`, { token: w.tokens[who] });
        expect([who, r.status]).toEqual([who, expected[type][who]]);
        if (r.status === 404) expect(r.body.detail.code).toBe("POST_NOT_FOUND");
        else expect(r.body.id).toBe(p.id);
      }
    });
  }

  test("a held post: its author, the colony's moderators and site admins only", async () => {
    const w = await world("public");
    h.ctx.db.$client.query("update colonies set settings = ? where id = ?").run(JSON.stringify({ requires_post_approval: true }), w.colony.id);
    const p = await post(h, w.author, { colony_id: w.colony.id });
    expect(p.held).toBe(true);
    const want: Record<Who, number> = { anonymous: 404, stranger: 404, pending: 404, member: 404, moderator: 200, author: 200, admin: 200 };
    for (const who of WHO) expect([who, (await h.req("GET", `/api/v1/posts/${p.id}`, { token: w.tokens[who] })).status]).toEqual([who, want[who]]);
  });

  test("a scheduled draft: its author only", async () => {
    const w = await world("public");
    const p = await post(h, w.author, { colony_id: w.colony.id, scheduled_for: new Date(h.clock.now() + 3600_000).toISOString() });
    for (const who of WHO) {
      const r = await h.req("GET", `/api/v1/posts/${p.id}`, { token: w.tokens[who] });
      expect([who, r.status]).toEqual([who, who === "author" ? 200 : 404]);
    }
  });

  test("a deleted post is 404 to everyone, its author included", async () => {
    const w = await world("public");
    const p = await post(h, w.author, { colony_id: w.colony.id });
    expect((await h.req("DELETE", `/api/v1/posts/${p.id}`, { token: w.tokens.author })).status).toBe(204);
    for (const who of WHO) expect([who, (await h.req("GET", `/api/v1/posts/${p.id}`, { token: w.tokens[who] })).status]).toEqual([who, 404]);
  });

  test("a post of a soft-deleted colony is 404", async () => {
    const w = await world("public");
    const p = await post(h, w.author, { colony_id: w.colony.id });
    h.ctx.db.$client.query("update colonies set deleted_at = ? where id = ?").run(h.clock.now(), w.colony.id);
    expect((await h.req("GET", `/api/v1/posts/${p.id}`, { token: w.tokens.author })).status).toBe(404);
  });

  test("an unknown id is 404 POST_NOT_FOUND; a malformed one 422", async () => {
    const r = await h.req("GET", "/api/v1/posts/00000000-0000-7000-8000-000000000000");
    expect(r.status).toBe(404);
    expect(r.body.detail.code).toBe("POST_NOT_FOUND");
    expect((await h.req("GET", "/api/v1/posts/not-a-uuid")).status).toBe(422);
  });

  test("the author's own profile fields appear only to the author", async () => {
    const author: TestUser = await h.user();
    h.ctx.db.$client.query("update users set lightning_address = 'me@wallet.example' where id = ?").run(author.id);
    const p = await post(h, author);
    expect((await h.req("GET", `/api/v1/posts/${p.id}`, { token: author.token })).body.author.lightning_address).toBe("me@wallet.example");
    expect((await h.req("GET", `/api/v1/posts/${p.id}`)).body.author.lightning_address).toBeNull();
  });
});
