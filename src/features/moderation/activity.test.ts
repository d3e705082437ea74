// GET /colonies/{colony_id}/mod-activity (spec Part 2 §4.2; docs/decisions.md §43).
import { beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { expectError } from "../../../test/expect";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { HOUR } from "../../core/clock";
import { crew } from "../colonies/mod-fixtures";
import type { ColonyRow } from "../colonies/service";
import { createPost, makeColony, setColonySettings } from "../posts/fixtures";

let h: Harness;
let founder: TestUser;
let mod: TestUser;
let member: TestUser;
let admin: TestUser;
let colony: ColonyRow;

beforeAll(() => {
  h = setup();
});

// Each test acts in a colony of its own, with a crew of its own.
beforeEach(async () => {
  ({ founder, mod, member, admin, colony } = await crew(h));
});

const activity = (query: Record<string, string | number> = {}, token: string | null = mod.token) => h.req("GET", `/api/v1/colonies/${colony.id}/mod-activity`, { token, query });

async function held(): Promise<string> {
  setColonySettings(h, colony.id, { requires_post_approval: true });
  const r = await createPost(h, member, { colony_id: colony.id });
  setColonySettings(h, colony.id, {});
  return r.body.id;
}

const act = (token: string, source_id: string, action: string) =>
  h.req("POST", `/api/v1/colonies/${colony.id}/queue/action`, { token, body: { source: "pending_post", source_id, action } });

describe("GET /colonies/{colony_id}/mod-activity", () => {
  test("per-moderator counts, the median resolution time, the hourly histogram and the backlog", async () => {
    const a = await held();
    const b = await held();
    const c = await held();
    await held(); // stays open
    h.clock.advance(2 * HOUR);
    expect((await act(mod.token, a, "approve")).status).toBe(200);
    h.clock.advance(2 * HOUR);
    expect((await act(mod.token, b, "reject")).status).toBe(200);
    h.clock.advance(2 * HOUR);
    expect((await act(founder.token, c, "approve")).status).toBe(200);

    const r = await activity();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ colony_id: colony.id, window_days: 30, total_actions: 3, automod_actions: 0 });
    expect(r.body.health).toMatchObject({ open_total: 1, pending_appeal_count: 0, resolved_in_window: 3, median_resolution_seconds: 4 * 3600 });
    expect(r.body.health.open_by_source.pending_post).toBe(1);
    expect(r.body.mods.map((m: any) => [m.user_id, m.total, m.approvals, m.removals])).toEqual([
      [mod.id, 2, 1, 1],
      [founder.id, 1, 1, 0],
    ]);
    expect(r.body.mods[0].username).toBe(mod.username);
    expect(r.body.hourly).toHaveLength(24);
    expect(r.body.hourly.reduce((s: number, x: any) => s + x.actions, 0)).toBe(3);
    const hour = new Date(h.clock.now()).getUTCHours();
    expect(r.body.hourly[hour]).toEqual({ hour, actions: 1 });
  });

  test("window_days is 7, 30 or 90; other values snap to 30; older actions fall out of the window", async () => {
    const a = await held();
    await act(mod.token, a, "approve");
    // Ten days ago (moving the clock would expire the tokens).
    h.ctx.db.$client.query("update colony_mod_log set created_at = created_at - ?, opened_at = opened_at - ? where colony_id = ?").run(240 * HOUR, 240 * HOUR, colony.id);
    expect((await activity({ window_days: 7 })).body).toMatchObject({ window_days: 7, total_actions: 0 });
    expect((await activity({ window_days: 90 })).body).toMatchObject({ window_days: 90, total_actions: 1 });
    expect((await activity({ window_days: 12 })).body).toMatchObject({ window_days: 30, total_actions: 1 });
    expect((await activity({ window_days: "x" })).status).toBe(422);
  });

  test("automod's own actions are counted apart", async () => {
    await h.req("POST", `/api/v1/colonies/${colony.id}/automod-rules`, { token: mod.token, body: { name: "r", triggers: { body_regex: "spam" }, actions: { remove: true } } });
    await createPost(h, member, { colony_id: colony.id, body: "spam spam" });
    const r = await activity();
    expect(r.body).toMatchObject({ total_actions: 0, automod_actions: 1, mods: [] });
    expect(r.body.health.open_by_source.automod_removed_post).toBe(1);
  });

  test("roles: anonymous 401, member 403, founder and site admin 200, private colony 404 to non-members", async () => {
    expect((await activity({}, null)).status).toBe(401);
    expectError(await activity({}, member.token), 403, "FORBIDDEN");
    for (const u of [founder, admin]) expect((await activity({}, u.token)).status).toBe(200);
    const secret = makeColony(h, founder, "private");
    const r = await h.req("GET", `/api/v1/colonies/${secret.id}/mod-activity`, { token: member.token });
    expect(r.status).toBe(404);
  });
});
