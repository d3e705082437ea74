// The personal webhook events of colony moderation (spec Part 2 §6.2; reference catalogue
// payloads): colony_banned (with expires_at), colony_unbanned and colony_strike to the affected
// user, ban_appeal_filed to every moderator and colony admin — to nobody else.
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { setup } from "../../../test/harness";
import { DAY } from "../../core/clock";
import { receiverHooks } from "../webhooks/fixtures";
import { startReceiver } from "../webhooks/test-receiver";
import { LIFT_EXPIRED_BANS_TASK } from "./bans";
import { advance, crew, modApi } from "./mod-fixtures";

const h = setup({ allowPrivateWebhooks: true, webhookTimeoutMs: 2000, rateLimitMultiplier: 0 });
const rx = startReceiver();
afterAll(() => rx.stop());
beforeEach(() => rx.clear());

const { hook, flush, got } = receiverHooks(h, rx, "m");
/** What a webhook received, in a fixed order: deliveries are concurrent, so they arrive in any order. */
const received = (w: { path: string }) => got(w).sort((a, b) => a.event.localeCompare(b.event) || (a.active_count ?? 0) - (b.active_count ?? 0));
const api = modApi(h);
const EVENTS = ["colony_banned", "colony_unbanned", "colony_strike", "ban_appeal_filed"];

describe("colony moderation webhooks", () => {
  test("colony_banned and colony_unbanned reach the affected user only, in the catalogue shape", async () => {
    const c = await crew(h);
    const wMember = await hook(c.member, EVENTS);
    const wMod = await hook(c.mod, EVENTS);
    const wStranger = await hook(c.stranger, EVENTS);
    expect((await api.ban(c.colony, c.member.id, c.mod.token, { duration_days: 7, reason: "Repeated spam." })).status).toBe(201);
    const expires = new Date(h.clock.now() + 7 * DAY).toISOString();
    expect((await api.unban(c.colony, c.member.id, c.mod.token)).status).toBe(204);
    await flush();
    expect(received(wMember)).toEqual([
      { event: "colony_banned", colony: c.colony.name, reason: "Repeated spam.", expires_at: expires },
      { event: "colony_unbanned", colony: c.colony.name },
    ]);
    expect(got(wMod)).toEqual([]);
    expect(got(wStranger)).toEqual([]);
  });

  test("a permanent ban carries expires_at null; a timed ban lifted by the sweep sends colony_unbanned", async () => {
    const c = await crew(h);
    const w = await hook(c.member, EVENTS);
    await api.ban(c.colony, c.member.id, c.mod.token);
    await flush();
    expect(got(w)).toEqual([{ event: "colony_banned", colony: c.colony.name, reason: null, expires_at: null }]);
    rx.clear();
    await api.ban(c.colony, c.member.id, c.mod.token, { duration_days: 1 });
    await advance(h, DAY, c);
    await h.ctx.jobs.runRecurring(LIFT_EXPIRED_BANS_TASK);
    await flush();
    expect(got(w).map((b) => b.event).sort()).toEqual(["colony_banned", "colony_unbanned"]); // deliveries are concurrent
  });

  test("colony_strike to the struck member, with the action it fired", async () => {
    const c = await crew(h);
    await api.patch(c.colony, c.founder.token, { strike_threshold: 2 });
    const w = await hook(c.member, EVENTS);
    const wMod = await hook(c.mod, EVENTS);
    await api.strike(c.colony, c.member.id, c.mod.token, { reason: "Off-topic posting.", severity: "minor" });
    await api.strike(c.colony, c.member.id, c.mod.token, { reason: "Again.", severity: "major" });
    await flush();
    const bodies = received(w);
    expect(bodies.filter((b) => b.event === "colony_strike")).toEqual([
      { event: "colony_strike", colony: c.colony.name, reason: "Off-topic posting.", severity: "minor", active_count: 1, threshold: 2, fired_action: null },
      { event: "colony_strike", colony: c.colony.name, reason: "Again.", severity: "major", active_count: 2, threshold: 2, fired_action: "mute_7d" },
    ]);
    expect(bodies.filter((b) => b.event === "colony_banned")).toHaveLength(1);
    expect(got(wMod)).toEqual([]);
  });

  test("ban_appeal_filed to every moderator of the colony, not the appellant nor outsiders", async () => {
    const c = await crew(h);
    const wFounder = await hook(c.founder, EVENTS);
    const wMod = await hook(c.mod, EVENTS);
    const wAdmin = await hook(c.admin, EVENTS);
    await api.ban(c.colony, c.member.id, c.mod.token);
    const wMember = await hook(c.member, ["ban_appeal_filed"]);
    const r = await api.appeal(c.colony, c.member.token);
    await flush();
    const expected = { event: "ban_appeal_filed", colony: c.colony.name, appeal_id: r.body.appeal_id, appellant: c.member.username, appellant_id: c.member.id };
    expect(got(wFounder)).toEqual([expected]);
    expect(got(wMod)).toEqual([expected]);
    expect(got(wAdmin)).toEqual([]);
    expect(got(wMember)).toEqual([]);
  });
});
