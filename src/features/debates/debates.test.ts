// Debates (spec Part 3 §4.9): the karma gate, accept takes the other side, turns enforced
// (whose_turn), the 48-hour vote read from the clock, debaters cannot vote, the closing job
// records the winner once, delete before acceptance, list filters and sorts, notifications.
import { describe, expect, test } from "bun:test";
import { dbState } from "../../../test/db-state";
import { setup, type Harness } from "../../../test/harness";
import { HOUR } from "../../core/clock";

const h = setup();
type U = Awaited<ReturnType<Harness["user"]>>;

const fresh = h.fresh;
const debater = () => h.user({ karma: 5 });
const start = async (u: U, body: Record<string, unknown> = {}) => {
  const r = await h.req("POST", "/api/v1/debates", { token: u.token, body: { proposition: "Agents should sign their posts", creator_side: "for", ...body } });
  expect(r.status).toBe(201);
  return r.body;
};
const argue = (u: U, id: string, text = "Because accountability matters a great deal.") => h.req("POST", `/api/v1/debates/${id}/argue`, { token: u.token, body: { body: text } });
const vote = (u: U, id: string, voted_for: string) => h.req("POST", `/api/v1/debates/${id}/vote`, { token: u.token, body: { voted_for } });

/** A debate with every argument in: voting is open. */
async function toVoting(): Promise<{ creator: U; opponent: U; id: string }> {
  const [creator, opponent] = [await debater(), await debater()];
  const d = await start(creator);
  await h.req("POST", `/api/v1/debates/${d.id}/accept`, { token: opponent.token });
  for (let i = 0; i < 6; i++) expect((await argue(i % 2 === 0 ? creator : opponent, d.id)).status).toBe(200);
  return { creator, opponent, id: d.id };
}

describe("debates", () => {
  test("create answers an open debate waiting for an opponent", async () => {
    const a = await debater();
    const d = await start(a, { description: "Signing helps trust.", creator_side: "against" });
    expect(d).toEqual({
      id: expect.any(String),
      proposition: "Agents should sign their posts",
      description: "Signing helps trust.",
      creator: { id: a.id, username: a.username, display_name: expect.any(String) },
      creator_side: "against",
      opponent: null,
      opponent_side: null,
      status: "open",
      turn_number: 0,
      whose_turn: null,
      voting_ends_at: null,
      creator_votes: 0,
      opponent_votes: 0,
      winner: null,
      arguments: [],
      created_at: expect.any(String),
    });
  });

  test("karma below 5 is 403 KARMA_TOO_LOW for create, accept, argue and vote", async () => {
    const low = await h.user({ karma: 4 });
    const a = await debater();
    const d = await start(a);
    const before = dbState(h);
    for (const [path, body] of [
      ["/api/v1/debates", { proposition: "A proposition of length", creator_side: "for" }],
      [`/api/v1/debates/${d.id}/accept`, undefined],
      [`/api/v1/debates/${d.id}/argue`, { body: "A long enough argument" }],
      [`/api/v1/debates/${d.id}/vote`, { voted_for: "creator" }],
    ] as const) {
      const r = await h.req("POST", path, { token: low.token, body });
      expect([path, r.status, r.body.detail.code]).toEqual([path, 403, "KARMA_TOO_LOW"]);
    }
    expect(dbState(h)).toEqual(before);
  });

  test("accept takes the other side; your own is 400; a taken debate is 409", async () => {
    const [a, b, c] = [await debater(), await debater(), await debater()];
    const d = await start(a, { creator_side: "for" });
    const own = await h.req("POST", `/api/v1/debates/${d.id}/accept`, { token: a.token });
    expect([own.status, own.body.detail.code]).toEqual([400, "INVALID_INPUT"]);
    const r = await h.req("POST", `/api/v1/debates/${d.id}/accept`, { token: b.token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "active", opponent: { id: b.id }, opponent_side: "against", whose_turn: "creator" });
    const late = await h.req("POST", `/api/v1/debates/${d.id}/accept`, { token: c.token });
    expect([late.status, late.body.detail.code]).toEqual([409, "CONFLICT"]);
  });

  test("turns alternate, the creator first; out of turn and outsiders are refused; six arguments open the vote", async () => {
    const [a, b, c] = [await debater(), await debater(), await debater()];
    const d = await start(a);
    const early = await argue(a, d.id);
    expect([early.status, early.body.detail.code]).toEqual([409, "CONFLICT"]);
    await h.req("POST", `/api/v1/debates/${d.id}/accept`, { token: b.token });
    const outOfTurn = await argue(b, d.id);
    expect([outOfTurn.status, outOfTurn.body.detail.code]).toEqual([409, "CONFLICT"]);
    const outsider = await argue(c, d.id);
    expect([outsider.status, outsider.body.detail.code]).toEqual([403, "FORBIDDEN"]);
    const first = await argue(a, d.id, "Opening: signatures make accountability possible.");
    expect(first.body).toMatchObject({ turn_number: 1, whose_turn: "opponent", status: "active" });
    expect(first.body.arguments).toEqual([
      { id: expect.any(String), author: { id: a.id, username: a.username, display_name: expect.any(String) }, turn_number: 1, body: "Opening: signatures make accountability possible.", content: "Opening: signatures make accountability possible.", created_at: expect.any(String) },
    ]);
    expect((await argue(a, d.id)).status).toBe(409);
    for (let i = 1; i < 5; i++) expect((await argue(i % 2 === 1 ? b : a, d.id)).body.whose_turn).toBe(i % 2 === 1 ? "creator" : "opponent");
    const last = await argue(b, d.id);
    expect(last.body).toMatchObject({ turn_number: 6, status: "voting", whose_turn: null, voting_ends_at: new Date(h.clock.now() + 48 * HOUR).toISOString() });
    expect((await argue(a, d.id)).status).toBe(409);
    const short = await argue(a, d.id, "too short");
    expect(short.status).toBe(422);
  });

  test("the deprecated content spelling of an argument works and is flagged", async () => {
    const [a, b] = [await debater(), await debater()];
    const d = await start(a);
    await h.req("POST", `/api/v1/debates/${d.id}/accept`, { token: b.token });
    const r = await h.req("POST", `/api/v1/debates/${d.id}/argue`, { token: a.token, body: { content: "The old spelling still argues." } });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-colony-deprecated-body-fields")).toBe("content=body");
  });

  test("voting: only during the 48 hours, not by debaters, a second vote replaces the first; then closed with the winner", async () => {
    const { creator, opponent, id } = await toVoting();
    const [v1, v2, v3] = [await debater(), await debater(), await debater()];
    const own = await vote(creator, id, "creator");
    expect([own.status, own.body.detail.code]).toEqual([403, "FORBIDDEN"]);
    expect((await vote(opponent, id, "opponent")).status).toBe(403);
    expect((await vote(v1, id, "creator")).body).toMatchObject({ creator_votes: 1, opponent_votes: 0 });
    expect((await vote(v1, id, "creator")).body).toMatchObject({ creator_votes: 1, opponent_votes: 0 });
    expect((await vote(v1, id, "opponent")).body).toMatchObject({ creator_votes: 0, opponent_votes: 1 });
    await vote(v2, id, "creator");
    await vote(v3, id, "creator");
    h.clock.advance(48 * HOUR);
    // Read from the clock: closed at once, before the job runs, with the winner.
    const read = (await h.req("GET", `/api/v1/debates/${id}`)).body;
    expect(read).toMatchObject({ status: "closed", creator_votes: 2, opponent_votes: 1, winner: { id: creator.id } });
    const late = await vote(await fresh(await debater()), id, "opponent");
    expect([late.status, late.body.detail.code]).toEqual([409, "CONFLICT"]);
    const notes = async (u: U) => (await h.req("GET", "/api/v1/notifications", { token: (await fresh(u)).token })).body.filter((n: any) => n.notification_type === "debate_closed");
    await h.ctx.jobs.runDue();
    await h.ctx.events.drain();
    expect(h.ctx.db.$client.query("select state, winner_id from debates where id = ?").get(id)).toEqual({ state: "closed", winner_id: creator.id });
    expect(await notes(creator)).toHaveLength(1);
    expect((await notes(opponent))[0].message).toBe('The vote on the debate "Agents should sign their posts" has closed (2 to 1)');
    const { closeDebate } = await import("./service");
    closeDebate(h.ctx, id);
    await h.ctx.events.drain();
    expect(await notes(creator)).toHaveLength(1);
  });

  test("a tie has no winner; voting before the arguments are in is 409", async () => {
    const [a, b, v] = [await debater(), await debater(), await debater()];
    const d = await start(a);
    expect((await vote(v, d.id, "creator")).status).toBe(409);
    await h.req("POST", `/api/v1/debates/${d.id}/accept`, { token: b.token });
    expect((await vote(v, d.id, "creator")).status).toBe(409);
    const { id } = await toVoting();
    h.clock.advance(48 * HOUR);
    await h.ctx.jobs.runDue();
    expect((await h.req("GET", `/api/v1/debates/${id}`)).body).toMatchObject({ status: "closed", winner: null });
  });

  test("delete: the creator before acceptance (204); others 403; after acceptance 409", async () => {
    const [a, b] = [await debater(), await debater()];
    const d = await start(a);
    expect((await h.req("DELETE", `/api/v1/debates/${d.id}`, { token: b.token })).status).toBe(403);
    expect((await h.req("DELETE", `/api/v1/debates/${d.id}`, { token: a.token })).status).toBe(204);
    expect((await h.req("GET", `/api/v1/debates/${d.id}`)).status).toBe(404);
    const e = await start(a);
    await h.req("POST", `/api/v1/debates/${e.id}/accept`, { token: b.token });
    const r = await h.req("DELETE", `/api/v1/debates/${e.id}`, { token: a.token });
    expect([r.status, r.body.detail.code]).toEqual([409, "CONFLICT"]);
  });

  test("list: status as of now and active_first", async () => {
    const { id: voting } = await toVoting();
    const a = await debater();
    const open = await start(a);
    const b = await debater();
    const active = await start(b);
    await h.req("POST", `/api/v1/debates/${active.id}/accept`, { token: a.token });
    const ids = async (query: Record<string, string>) => (await h.req("GET", "/api/v1/debates", { query: { limit: "100", ...query } })).body.items.map((d: any) => d.id);
    expect(await ids({ status: "voting" })).toContain(voting);
    expect(await ids({ status: "open" })).toContain(open.id);
    expect(await ids({ status: "active" })).toContain(active.id);
    const order = (await ids({ sort: "active_first" })).filter((x: string) => [voting, open.id, active.id].includes(x));
    expect(order).toEqual([active.id, voting, open.id]);
    h.clock.advance(48 * HOUR);
    expect(await ids({ status: "closed" })).toContain(voting);
    expect(await ids({ status: "voting" })).not.toContain(voting);
    const item = (await h.req("GET", "/api/v1/debates", { query: { status: "active" } })).body.items[0];
    expect(Object.keys(item).sort()).toEqual(["created_at", "creator", "creator_side", "creator_votes", "id", "opponent", "opponent_votes", "proposition", "status", "turn_number", "winner"]);
  });

  test("the creator hears of the acceptance; each debater of their turn", async () => {
    const [a, b] = [await debater(), await debater()];
    const d = await start(a);
    await h.req("POST", `/api/v1/debates/${d.id}/accept`, { token: b.token });
    await argue(a, d.id);
    await h.ctx.events.drain();
    const kinds = async (u: U) => (await h.req("GET", "/api/v1/notifications", { token: u.token })).body.map((n: any) => n.notification_type);
    expect(await kinds(a)).toEqual(["debate_accepted"]);
    expect(await kinds(b)).toEqual(["debate_your_turn"]);
  });
});
