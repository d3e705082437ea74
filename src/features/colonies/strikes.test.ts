// Strikes: POST and GET .../members/{user}/strikes (spec Part 2 §2.4, §2.5, §3, §4.2;
// docs/decisions.md §33): the threshold firing the colony's strike_action in the same request, mutes
// expiring with the clock, strikes expiring, who may read them.
import { beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { expectError, refused } from "../../../test/expect";
import { setup, type Harness } from "../../../test/harness";
import { DAY } from "../../core/clock";
import { LIFT_EXPIRED_BANS_TASK } from "./bans";
import { eventsOf, makeColony, setRole } from "./fixtures";
import { advance, auditRows, banRow, crew, joinAs, kindsOf, modApi, notificationsOf, rolesOf, type Crew } from "./mod-fixtures";

let h: Harness;
let api: ReturnType<typeof modApi>;
let c: Crew;

beforeAll(() => {
  h = setup({ rateLimitMultiplier: 0 });
  api = modApi(h);
});

// Each test acts in a colony of its own, with a crew of its own.
beforeEach(async () => {
  c = await crew(h);
});

const iso = (ms: number) => new Date(ms).toISOString();
const strikeRows = (colonyId: string) => (h.ctx.db.$client.query("select count(*) as n from colony_strikes where colony_id = ?").get(colonyId) as { n: number }).n;
const settings = (body: Record<string, unknown>) => api.patch(c.colony, c.founder.token, body);

describe("POST .../members/{user_id}/strikes", () => {
  test("a minor strike: 201 StrikeIssuedOut, counted for 30 days, audit row, event and a notification at once", async () => {
    const r = await api.strike(c.colony, c.member.id, c.mod.token, { reason: "Off-topic posting.", severity: "minor" });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      strike: {
        strike_id: expect.any(String),
        reason: "Off-topic posting.",
        severity: "minor",
        issued_by: c.mod.id,
        created_at: iso(h.clock.now()),
        expires_at: iso(h.clock.now() + 30 * DAY),
      },
      active_count: 1,
      threshold: 3,
      fired_action: null,
    });
    const id = r.body.strike.strike_id;
    expect(auditRows(h, c.colony.id, "strike")).toEqual([
      {
        actor_id: c.mod.id,
        action: "strike",
        target_type: "strike",
        target_id: id,
        target_user_id: c.member.id,
        reason: "Off-topic posting.",
        meta: { severity: "minor", active_count: 1, threshold: 3, fired_action: null },
        opened_at: null,
      },
    ]);
    expect(eventsOf(h, "colony_strike", c.colony.id).map((e) => e.payload)).toEqual([
      {
        colony_id: c.colony.id,
        colony_name: c.colony.name,
        strike_id: id,
        user_id: c.member.id,
        username: c.member.username,
        reason: "Off-topic posting.",
        severity: "minor",
        active_count: 1,
        threshold: 3,
        fired_action: null,
      },
    ]);
    const [n] = await notificationsOf(h, c.member);
    expect(n.kind).toBe("colony_strike");
    expect(n.message).toBe(`You received a minor strike in c/${c.colony.name}`);
    expect(n.meta).toMatchObject({ reason: "Off-topic posting.", severity: "minor", active_count: 1, threshold: 3, fired_action: null });
    expect(rolesOf(h, c.colony.id)[c.member.id]).toBe("member");
  });

  test("severity defaults to minor; a major strike counts for 90 days", async () => {
    expect((await api.strike(c.colony, c.member.username, c.mod.token, { reason: "r" })).body.strike.severity).toBe("minor");
    const major = await api.strike(c.colony, c.member.id, c.mod.token, { reason: "r", severity: "major" });
    expect(major.body.strike.expires_at).toBe(iso(h.clock.now() + 90 * DAY));
    expect(major.body.active_count).toBe(2);
  });

  test("the default threshold (3) fires the default action (mute_7d): a 7-day ban in the same request", async () => {
    for (const n of [1, 2]) expect((await api.strike(c.colony, c.member.id, c.mod.token)).body.fired_action).toBeNull();
    const third = await api.strike(c.colony, c.member.id, c.mod.token, { reason: "Third time" });
    expect(third.status).toBe(201);
    expect(third.body).toMatchObject({ active_count: 3, threshold: 3, fired_action: "mute_7d" });
    expect(banRow(h, c.colony.id, c.member.id)).toEqual({ expires_at: h.clock.now() + 7 * DAY, reason: "3 active strikes (threshold 3): Third time" });
    expect(rolesOf(h, c.colony.id)[c.member.id]).toBeUndefined();
    expect(auditRows(h, c.colony.id).map((a) => a.action)).toEqual(["strike", "strike", "strike", "strike_mute_7d"]);
    const kinds = await kindsOf(h, c.member);
    expect(kinds.slice(0, 2).sort()).toEqual(["colony_banned", "colony_strike"]);
    expect((await notificationsOf(h, c.member)).find((n) => n.kind === "colony_strike")?.meta.fired_action).toBe("mute_7d");
    expectError(await api.join(c.colony, c.member.token), 403, "FORBIDDEN");
  });

  test("a mute expires with the clock: the sweep lifts it and the member may join again", async () => {
    await settings({ strike_threshold: 1, strike_action: "mute_7d" });
    expect((await api.strike(c.colony, c.member.id, c.mod.token)).body.fired_action).toBe("mute_7d");
    await advance(h, 7 * DAY - 1, c);
    await h.ctx.jobs.runRecurring(LIFT_EXPIRED_BANS_TASK);
    expectError(await api.join(c.colony, c.member.token), 403, "FORBIDDEN");
    await advance(h, 1, c);
    await h.ctx.jobs.runRecurring(LIFT_EXPIRED_BANS_TASK);
    expect(banRow(h, c.colony.id, c.member.id)).toBeNull();
    expect(eventsOf(h, "colony_unbanned", c.colony.id).map((e) => e.payload.how)).toEqual(["expired"]);
    expect((await api.join(c.colony, c.member.token)).status).toBe(204);
  });

  test("mute_30d is a 30-day ban; ban is permanent", async () => {
    await settings({ strike_threshold: 1, strike_action: "mute_30d" });
    expect((await api.strike(c.colony, c.member.id, c.mod.token)).body.fired_action).toBe("mute_30d");
    expect(banRow(h, c.colony.id, c.member.id)?.expires_at).toBe(h.clock.now() + 30 * DAY);
    await settings({ strike_action: "ban" });
    const other = await h.user();
    await joinAs(h, c.colony, other, c.founder);
    expect((await api.strike(c.colony, other.id, c.mod.token)).body.fired_action).toBe("ban");
    expect(banRow(h, c.colony.id, other.id)?.expires_at).toBeNull();
    expect(auditRows(h, c.colony.id).map((a) => a.action).filter((a) => a.startsWith("strike_"))).toEqual(["strike_mute_30d", "strike_ban"]);
  });

  test("expired strikes stop counting: two minor strikes 31 days old leave the count at the new one", async () => {
    await api.strike(c.colony, c.member.id, c.mod.token);
    await api.strike(c.colony, c.member.id, c.mod.token);
    await advance(h, 31 * DAY, c);
    const third = await api.strike(c.colony, c.member.id, c.mod.token);
    expect(third.body).toMatchObject({ active_count: 1, fired_action: null });
    const list = await api.strikes(c.colony, c.member.id, c.mod.token);
    expect(list.body.strikes).toHaveLength(3);
    expect(list.body.active_count).toBe(1);
  });

  test("anonymous 401; stranger and member 403; founder and site admin may strike", async () => {
    await refused(h, () => api.strike(c.colony, c.member.id, null), 401);
    await refused(h, () => api.strike(c.colony, c.member.id, c.stranger.token), 403, "FORBIDDEN");
    const other = await h.user();
    await joinAs(h, c.colony, other, c.founder);
    await refused(h, () => api.strike(c.colony, c.member.id, other.token), 403, "FORBIDDEN");
    expect(strikeRows(c.colony.id)).toBe(0);
    expect((await api.strike(c.colony, c.member.id, c.founder.token)).status).toBe(201);
    expect((await api.strike(c.colony, c.member.id, c.admin.token)).status).toBe(201);
  });

  test("a moderator without can_ban is 403 (a strike can fire a ban)", async () => {
    h.ctx.db.$client.query("update colony_members set permissions = ? where colony_id = ? and user_id = ?").run(JSON.stringify(["can_remove"]), c.colony.id, c.mod.id);
    expectError(await api.strike(c.colony, c.member.id, c.mod.token), 403, "FORBIDDEN");
  });

  test("targets: yourself 400; the founder never by a moderator; a moderator only by the founder or a site admin; a non-member 404", async () => {
    expectError(await api.strike(c.colony, c.mod.id, c.mod.token), 400, "INVALID_INPUT");
    expectError(await api.strike(c.colony, c.founder.id, c.mod.token), 403, "FORBIDDEN");
    const second = await h.user();
    await joinAs(h, c.colony, second, c.founder);
    setRole(h, c.colony.id, second.id, "moderator");
    expectError(await api.strike(c.colony, second.id, c.mod.token), 403, "FORBIDDEN");
    expect((await api.strike(c.colony, second.id, c.founder.token)).status).toBe(201);
    expectError(await api.strike(c.colony, c.stranger.id, c.mod.token), 404, "NOT_FOUND");
    expectError(await api.strike(c.colony, "nobody-at-all", c.mod.token), 404, "NOT_FOUND");
  });

  test("body: reason required (422), blank reason 400, unknown severity 422; nothing written", async () => {
    await refused(h, () => api.strike(c.colony, c.member.id, c.mod.token, {}), 422);
    await refused(h, () => api.strike(c.colony, c.member.id, c.mod.token, { reason: "" }), 422);
    await refused(h, () => api.strike(c.colony, c.member.id, c.mod.token, { reason: "x".repeat(1001) }), 422);
    await refused(h, () => api.strike(c.colony, c.member.id, c.mod.token, { reason: "r", severity: "extreme" }), 422);
    await refused(h, () => api.strike(c.colony, c.member.id, c.mod.token, { reason: "   " }), 400, "INVALID_INPUT");
    expect(strikeRows(c.colony.id)).toBe(0);
  });

  test("a strike whose action would ban the last moderator is 409 CONFLICT and leaves no strike", async () => {
    const solo = makeColony(h, c.founder);
    await api.patch(solo, c.founder.token, { strike_threshold: 1 });
    await refused(h, () => api.strike(solo, c.founder.id, c.admin.token), 409, "CONFLICT");
    expect(strikeRows(solo.id)).toBe(0);
    expect(auditRows(h, solo.id, "strike")).toEqual([]);
    expect(await kindsOf(h, c.founder)).not.toContain("colony_strike");
  });
});

describe("GET .../members/{user_id}/strikes", () => {
  test("moderators read anyone's strikes, newest first, with active_count, threshold and strike_action", async () => {
    await api.strike(c.colony, c.member.id, c.mod.token, { reason: "first" });
    h.clock.advance(1000);
    await api.strike(c.colony, c.member.id, c.mod.token, { reason: "second", severity: "major" });
    const r = await api.strikes(c.colony, c.member.username, c.mod.token);
    expect(r.status).toBe(200);
    expect(r.body.strikes.map((s: any) => [s.reason, s.severity, s.issued_by])).toEqual([
      ["second", "major", c.mod.id],
      ["first", "minor", c.mod.id],
    ]);
    expect(r.body).toMatchObject({ active_count: 2, threshold: 3, strike_action: "mute_7d" });
    await settings({ strike_threshold: 5, strike_action: "ban" });
    expect((await api.strikes(c.colony, c.member.id, c.founder.token)).body).toMatchObject({ threshold: 5, strike_action: "ban" });
    expect((await api.strikes(c.colony, c.member.id, c.admin.token)).status).toBe(200);
    expect((await api.strikes(c.colony, c.stranger.id, c.mod.token)).body).toEqual({ strikes: [], active_count: 0, threshold: 5, strike_action: "ban" });
  });

  test("a member reads their own; another member or a stranger 403; anonymous 401; an unknown user 404 to moderators", async () => {
    await api.strike(c.colony, c.member.id, c.mod.token);
    expect((await api.strikes(c.colony, c.member.id, c.member.token)).body.active_count).toBe(1);
    expect((await api.strikes(c.colony, c.member.username, c.member.token)).status).toBe(200);
    const other = await h.user();
    await joinAs(h, c.colony, other, c.founder);
    expectError(await api.strikes(c.colony, c.member.id, other.token), 403, "FORBIDDEN");
    expectError(await api.strikes(c.colony, c.member.id, c.stranger.token), 403, "FORBIDDEN");
    expectError(await api.strikes(c.colony, "nobody-at-all", other.token), 403, "FORBIDDEN");
    expect((await api.strikes(c.colony, c.member.id, null)).status).toBe(401);
    expectError(await api.strikes(c.colony, "nobody-at-all", c.mod.token), 404, "USER_NOT_FOUND");
  });

  test("in a private colony: a stranger gets 404; a member muted out of it still reads their own strikes", async () => {
    const p = await crew(h, "private");
    await api.patch(p.colony, p.founder.token, { strike_threshold: 1 });
    expect((await api.strike(p.colony, p.member.id, p.mod.token)).body.fired_action).toBe("mute_7d");
    expect(rolesOf(h, p.colony.id)[p.member.id]).toBeUndefined();
    expect((await api.strikes(p.colony, p.member.id, p.member.token)).body.active_count).toBe(1);
    expectError(await api.strikes(p.colony, p.member.id, p.stranger.token), 404, "NOT_FOUND");
  });
});
