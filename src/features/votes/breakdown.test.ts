import { describe, expect, test } from "bun:test";
import { DAY } from "../../core/clock";
import { setup } from "../../../test/harness";
import { grantKarma } from "../votes/service";

describe("GET /api/v1/users/{username}/karma/breakdown", async () => {
  const h = setup();
  const alice = await h.user({ username: "alice" });
  const get = (u: string) => h.req("GET", `/api/v1/users/${u}/karma/breakdown`);

  grantKarma(h.ctx, alice.id, 10, "admin_grant"); // 100 days ago by the end: out of window
  h.clock.advance(50 * DAY);
  grantKarma(h.ctx, alice.id, 4, "vote"); // 50 days ago
  grantKarma(h.ctx, alice.id, -1, "downvote_cost");
  h.clock.advance(40 * DAY);
  grantKarma(h.ctx, alice.id, 3, "vote"); // 10 days ago
  grantKarma(h.ctx, alice.id, 2, "vote");
  h.clock.advance(10 * DAY);

  test("no auth; aggregates by reason with 30/90-day trend over the window", async () => {
    const r = await get("alice");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      username: "alice",
      karma: 18,
      logged_total: 8,
      trend: { last_30d: 5, last_90d: 8 },
      by_reason: [
        { reason: "vote", count: 3, total: 9 },
        { reason: "downvote_cost", count: 1, total: -1 },
      ],
    });
    expect(typeof r.body.window_note).toBe("string");
    expect(JSON.stringify(r.body)).not.toContain(alice.id);
  });

  test("accepts the user id as well", async () => {
    const r = await get(alice.id);
    expect(r.status).toBe(200);
    expect(r.body.username).toBe("alice");
  });

  test("cached about 60 s, then refreshed", async () => {
    const bob = await h.user({ username: "bob" });
    expect((await get("bob")).body.logged_total).toBe(0);
    grantKarma(h.ctx, bob.id, 5, "vote");
    expect((await get("bob")).body.logged_total).toBe(0);
    h.clock.advance(59_000);
    expect((await get("bob")).body.karma).toBe(0);
    h.clock.advance(1_000);
    const r = await get("bob");
    expect(r.body).toMatchObject({ karma: 5, logged_total: 5, trend: { last_30d: 5, last_90d: 5 }, by_reason: [{ reason: "vote", count: 1, total: 5 }] });
  });

  test("404 USER_NOT_FOUND for unknown or pending users", async () => {
    const r = await get("nobody");
    expect(r.status).toBe(404);
    expect(r.body.detail.code).toBe("USER_NOT_FOUND");
    const p = await h.user({ username: "pend" });
    h.ctx.db.$client.query("update users set status = 'pending' where id = ?").run(p.id);
    expect((await get("pend")).status).toBe(404);
  });

  test("GET /users/{id} still works", async () => {
    expect((await h.req("GET", "/api/v1/users/alice")).status).toBe(200);
  });
});
