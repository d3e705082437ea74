// Ownership transfers (spec Part 2 §2.5, §3, §4.2, §6.2, §8; docs/decisions.md §35): propose,
// read, accept, decline, cancel, the 7-day expiry, the notifications and webhook events of both
// parties, and every permission rule.
import { beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { expectError, refused } from "../../../test/expect";
import { setup, type Harness } from "../../../test/harness";
import { DAY } from "../../core/clock";
import { planWebhookEvents } from "../webhooks/mapping";
import { advance, auditOf, cast, eventsOf, memberOf, notificationsOf, type Cast } from "./governance-fixtures";

let h: Harness;
let c: Cast;

beforeAll(() => {
  h = setup({ rateLimitMultiplier: 0 });
});

// Each test acts in a colony of its own, with a cast of its own.
beforeEach(async () => {
  c = await cast(h);
});

const propose = (token: string | null, recipient: string, colonyId = c.colony.id) =>
  h.req("POST", `/api/v1/colonies/${colonyId}/ownership-transfers`, { token, body: { recipient_username: recipient } });
const pending = (token: string | null, colonyId = c.colony.id) => h.req("GET", `/api/v1/colonies/${colonyId}/ownership-transfers`, { token });
const act = (token: string | null, id: string, what: "accept" | "decline" | "cancel") => h.req("POST", `/api/v1/colonies/ownership-transfers/${id}/${what}`, { token });

async function proposed(recipient = c.mod.username) {
  const res = await propose(c.founder.token, recipient);
  expect(res.status).toBe(201);
  return res.body;
}

const createdBy = () => (h.ctx.db.$client.query("select created_by from colonies where id = ?").get(c.colony.id) as { created_by: string }).created_by;

/** The webhook events the colony's latest domain event of `type` becomes (name, body, recipients). */
function webhooksOf(type: string) {
  const row = h.ctx.db.$client.query("select * from events where type = ? and subject_id = ? order by id desc").get(type, c.colony.id) as Record<string, any>;
  const ev = { id: row.id, type: row.type, actorId: row.actor_id, subjectType: row.subject_type, subjectId: row.subject_id, payload: JSON.parse(row.payload), audience: JSON.parse(row.audience ?? "[]"), createdAt: row.created_at };
  return planWebhookEvents(h.ctx, ev as never).map((p) => ({ name: p.name, data: p.data, to: p.audience.kind === "users" ? [...p.audience.userIds].sort() : p.audience.kind }));
}

describe("POST /colonies/{id}/ownership-transfers", () => {
  test("the founder proposes to a moderator: 201; the recipient is notified and gets the reference webhook payload", async () => {
    const res = await propose(c.founder.token, `@${c.mod.username}`);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      transfer_id: expect.any(String),
      colony_id: c.colony.id,
      initiator_id: c.founder.id,
      recipient_id: c.mod.id,
      status: "pending",
      created_at: new Date(h.clock.now()).toISOString(),
      expires_at: new Date(h.clock.now() + 7 * DAY).toISOString(),
      responded_at: null,
    });
    const [n] = await notificationsOf(h, c.mod);
    expect(n.kind).toBe("ownership_transfer_proposed");
    expect(n.message).toBe(`@${c.founder.username} proposed to hand c/${c.colony.name} over to you`);
    expect(n.meta).toMatchObject({ colony_name: c.colony.name, transfer_id: res.body.transfer_id, initiator: c.founder.username });
    expect(webhooksOf("ownership_transfer_proposed")).toEqual([
      { name: "ownership_transfer_proposed", data: { colony: c.colony.name, transfer_id: res.body.transfer_id, initiator: c.founder.username }, to: [c.mod.id] },
    ]);
    expect(auditOf(h, c.colony.id).map((a) => a.action)).toContain("ownership_transfer_proposed");
  });

  test("to a colony admin, by user id", async () => {
    const body = (await propose(c.founder.token, c.colonyAdmin.id)).body;
    expect(body.recipient_id).toBe(c.colonyAdmin.id);
  });

  test("founder only: anonymous 401; member, moderator, colony admin and site admin 403; a stranger of a private colony 404", async () => {
    expect((await propose(null, c.mod.username)).status).toBe(401);
    for (const u of [c.member, c.mod, c.colonyAdmin, c.siteAdmin, c.stranger]) expectError(await propose(u.token, c.mod.username), 403, "FORBIDDEN");
    const p = await cast(h, "private");
    expectError(await propose(c.stranger.token, p.mod.username, p.colony.id), 404, "NOT_FOUND");
  });

  test("errors: unknown 404, yourself 400, a plain member or outsider 400, a second pending one 409", async () => {
    await refused(h, () => propose(c.founder.token, "nobody-at-all"), 404, "USER_NOT_FOUND");
    await refused(h, () => propose(c.founder.token, c.founder.username), 400, "INVALID_INPUT");
    await refused(h, () => propose(c.founder.token, c.member.username), 400, "INVALID_INPUT");
    await refused(h, () => propose(c.founder.token, c.stranger.username), 400, "INVALID_INPUT");
    await refused(h, () => h.req("POST", `/api/v1/colonies/${c.colony.id}/ownership-transfers`, { token: c.founder.token, body: { recipient_username: "" } }), 422);
    await proposed();
    await refused(h, () => propose(c.founder.token, c.colonyAdmin.username), 409, "CONFLICT");
    expect(eventsOf(h, "ownership_transfer_proposed", c.colony.id)).toHaveLength(1);
  });
});

describe("GET /colonies/{id}/ownership-transfers", () => {
  test("the initiator and the recipient see the pending transfer; anyone else reads null", async () => {
    const t = await proposed();
    expect((await pending(c.founder.token)).body).toEqual({ pending: expect.objectContaining({ transfer_id: t.transfer_id, status: "pending" }) });
    expect((await pending(c.mod.token)).body.pending.transfer_id).toBe(t.transfer_id);
    for (const u of [c.member, c.colonyAdmin, c.siteAdmin, c.stranger]) expect((await pending(u.token)).body).toEqual({ pending: null });
    expect((await pending(null)).status).toBe(401);
  });

  test("null when there is none; 404 for an unknown colony", async () => {
    expect((await pending(c.founder.token)).body).toEqual({ pending: null });
    expectError(await pending(c.founder.token, "0190b2c4-0000-7000-8000-000000000000"), 404, "NOT_FOUND");
  });
});

describe("accept, decline, cancel", () => {
  test("accepting makes the recipient founder (and created_by) and the old founder a colony admin; both are told", async () => {
    const t = await proposed();
    const res = await act(c.mod.token, t.transfer_id, "accept");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "accepted", responded_at: new Date(h.clock.now()).toISOString() });
    expect(memberOf(h, c.colony.id, c.mod.id)?.role).toBe("founder_moderator");
    expect(memberOf(h, c.colony.id, c.founder.id)?.role).toBe("admin");
    expect(createdBy()).toBe(c.mod.id);
    for (const u of [c.founder, c.mod]) {
      const [n] = await notificationsOf(h, u);
      expect(n.kind).toBe("ownership_transfer_resolved");
      expect(n.meta.status).toBe("accepted");
    }
    expect(webhooksOf("ownership_transfer_resolved")).toEqual([
      { name: "ownership_transfer_resolved", data: { colony: c.colony.name, transfer_id: t.transfer_id, status: "accepted" }, to: [c.founder.id, c.mod.id].sort() },
    ]);
    // The new founder can now propose; the old one cannot.
    expectError(await propose(c.founder.token, c.colonyAdmin.username), 403, "FORBIDDEN");
    expect((await propose(c.mod.token, c.founder.username)).status).toBe(201);
    expect(auditOf(h, c.colony.id).map((a) => a.action)).toContain("ownership_transfer_accepted");
  });

  test("the recipient declines; the initiator cancels; nothing changes hands", async () => {
    const t = await proposed();
    expectError(await act(c.founder.token, t.transfer_id, "decline"), 403, "FORBIDDEN");
    expectError(await act(c.mod.token, t.transfer_id, "cancel"), 403, "FORBIDDEN");
    expect((await act(c.mod.token, t.transfer_id, "decline")).body.status).toBe("declined");
    expectError(await act(c.mod.token, t.transfer_id, "accept"), 409, "CONFLICT");
    const t2 = await proposed(c.colonyAdmin.username);
    expect((await act(c.founder.token, t2.transfer_id, "cancel")).body.status).toBe("cancelled");
    expectError(await act(c.colonyAdmin.token, t2.transfer_id, "accept"), 409, "CONFLICT");
    expect(memberOf(h, c.colony.id, c.founder.id)?.role).toBe("founder_moderator");
    expect(eventsOf(h, "ownership_transfer_resolved", c.colony.id).map((e) => e.payload.status)).toEqual(["declined", "cancelled"]);
    const [n] = await notificationsOf(h, c.colonyAdmin);
    expect(n).toMatchObject({ kind: "ownership_transfer_resolved", meta: expect.objectContaining({ status: "cancelled" }) });
  });

  test("the initiator cannot accept (403); strangers and other moderators get 404; anonymous 401", async () => {
    const t = await proposed();
    expectError(await act(c.founder.token, t.transfer_id, "accept"), 403, "FORBIDDEN");
    for (const u of [c.member, c.colonyAdmin, c.siteAdmin, c.stranger]) {
      for (const what of ["accept", "decline", "cancel"] as const) expectError(await act(u.token, t.transfer_id, what), 404, "NOT_FOUND");
    }
    expect((await act(null, t.transfer_id, "accept")).status).toBe(401);
    expectError(await act(c.mod.token, "nope", "accept"), 404, "NOT_FOUND");
  });

  test("a recipient demoted meanwhile cannot accept (409)", async () => {
    const t = await proposed();
    h.ctx.db.$client.query("update colony_members set role = 'member' where colony_id = ? and user_id = ?").run(c.colony.id, c.mod.id);
    expectError(await act(c.mod.token, t.transfer_id, "accept"), 409, "CONFLICT");
    expect(memberOf(h, c.colony.id, c.founder.id)?.role).toBe("founder_moderator");
  });
});

describe("7-day expiry", () => {
  test("past 7 days it reads expired and cannot be accepted; the job writes it and tells both parties", async () => {
    const t = await proposed();
    await advance(h, 7 * DAY, c.founder, c.mod);
    expect((await pending(c.mod.token)).body).toEqual({ pending: null });
    expectError(await act(c.mod.token, t.transfer_id, "accept"), 409, "CONFLICT");
    await h.ctx.jobs.runDue();
    expect((h.ctx.db.$client.query("select status from colony_ownership_transfers where id = ?").get(t.transfer_id) as { status: string }).status).toBe("expired");
    for (const u of [c.founder, c.mod]) expect((await notificationsOf(h, u))[0]).toMatchObject({ kind: "ownership_transfer_resolved", meta: expect.objectContaining({ status: "expired" }) });
    // A new proposal is possible.
    expect((await propose(c.founder.token, c.mod.username)).status).toBe(201);
  });

  test("an answered transfer is left alone by the job", async () => {
    const t = await proposed();
    await act(c.mod.token, t.transfer_id, "decline");
    await advance(h, 8 * DAY);
    await h.ctx.jobs.runDue();
    expect(eventsOf(h, "ownership_transfer_resolved", c.colony.id).map((e) => e.payload.status)).toEqual(["declined"]);
  });
});
