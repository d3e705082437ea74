import { describe, expect, test } from "bun:test";
import { DAY } from "../../core/clock";
import { setup } from "../../../test/harness";
import { updateProfile, findById } from "../users/service";

describe("GET /api/v1/users/directory", async () => {
  const h = setup();
  const alice = await h.user({ username: "alice", karma: 50 });
  h.clock.advance(1000);
  const bob = await h.user({ username: "bob", human: true, karma: 10 });
  h.clock.advance(1000);
  const carol = await h.user({ username: "carol", karma: 30 });
  updateProfile(h.ctx, findById(h.ctx, alice.id)!, { bio: "Rust wizard", current_model: "claude-opus-4", harness: "ClaudeCode", capabilities: { specialties: ["rust", "research"] } });
  updateProfile(h.ctx, findById(h.ctx, carol.id)!, { current_model: "gpt-5", harness: "codex", capabilities: { specialties: ["rusty"] } });
  const setActive = (id: string, at: number | null) => h.ctx.db.$client.query("update users set last_active_at = ? where id = ?").run(at, id);
  setActive(alice.id, h.clock.now() - 40 * DAY);
  setActive(bob.id, h.clock.now() - 2 * DAY);
  setActive(carol.id, null);
  const names = (r: any) => r.body.items.map((u: any) => u.username);
  const dir = (query: Record<string, any> = {}, token?: string) => h.req("GET", "/api/v1/users/directory", { query, token });

  test("anonymous, default sort karma, paged envelope with post_count", async () => {
    const r = await dir();
    expect(r.status).toBe(200);
    expect(names(r)).toEqual(["alice", "carol", "bob"]);
    expect(r.body).toMatchObject({ total: 3, has_more: false });
    expect(r.body.items[0]).toMatchObject({ post_count: 0, karma: 50, current_model: "claude-opus-4", lightning_address: null });
  });

  test.each([
    [{ q: "WIZ" }, ["alice"]],
    [{ q: "o" }, ["carol", "bob"]],
    [{ q: "%" }, []],
    [{ user_type: "human" }, ["bob"]],
    [{ user_type: "agent" }, ["alice", "carol"]],
    [{ model: "OPUS" }, ["alice"]],
    [{ harness: "code" }, ["alice", "carol"]],
    [{ specialty: "rust" }, ["alice"]],
    [{ specialty: "rus" }, []],
    [{ active_within: "7d" }, ["bob"]],
    [{ active_within: "60d" }, ["alice", "bob"]],
    [{ sort: "newest" }, ["carol", "bob", "alice"]],
    [{ sort: "active" }, ["bob", "alice", "carol"]],
    [{ harness: "code", sort: "newest" }, ["carol", "alice"]],
  ])("filter %o", async (query, expected) => {
    const r = await dir(query);
    expect(r.status).toBe(200);
    expect(names(r)).toEqual(expected);
    expect(r.body.total).toBe(expected.length);
  });

  test("paging with limit/offset/page", async () => {
    const r = await dir({ limit: 2 });
    expect(names(r)).toEqual(["alice", "carol"]);
    expect(r.body.has_more).toBe(true);
    const p2 = await dir({ limit: 2, page: 2 });
    expect(names(p2)).toEqual(["bob"]);
    expect(p2.body).toMatchObject({ page: 2, has_more: false, total: 3 });
    expect(names(await dir({ limit: 1, offset: 1 }))).toEqual(["carol"]);
  });

  test.each([{ active_within: "30" }, { active_within: "30h" }, { active_within: "0d" }, { active_within: "d" }, { sort: "top" }, { user_type: "system" }, { limit: 0 }, { limit: 101 }])(
    "422 for %o",
    async (query) => {
      const r = await dir(query);
      expect(r.status).toBe(422);
      expect(Array.isArray(r.body.detail)).toBe(true);
    },
  );

  test("only active accounts; the caller sees their own lightning address", async () => {
    // Its requests as bob and alice record their activity, which the filters above read: an
    // instance of its own.
    const h = setup();
    const alice = await h.user({ username: "alice" });
    const bob = await h.user({ username: "bob", human: true });
    const dir = (query: Record<string, any> = {}, token?: string) => h.req("GET", "/api/v1/users/directory", { query, token });
    const dave = await h.user({ username: "dave" });
    h.ctx.db.$client.query("update users set status = 'pending' where id = ?").run(dave.id);
    expect(names(await dir())).not.toContain("dave");
    updateProfile(h.ctx, findById(h.ctx, bob.id)!, { lightning_address: "bob@ln.example" });
    const mine = await dir({ q: "bob" }, bob.token);
    expect(mine.body.items[0].lightning_address).toBe("bob@ln.example");
    const other = await dir({ q: "bob" }, alice.token);
    expect(other.body.items[0].lightning_address).toBeNull();
  });

  test("does not shadow GET /users/{id}", async () => {
    const r = await h.req("GET", `/api/v1/users/${alice.id}`);
    expect(r.status).toBe(200);
    expect(r.body.username).toBe("alice");
  });
});
