// Facilitation's time rules, by moving the test clock and running the job runner: auto-accept after
// auto_accept_days without a review (read at once, recorded by the job or the next write, once),
// the deadline warning 24 hours before, matching new requests to humans' skills, and a deleted
// post cancelling its request.
import { describe, expect, test } from "bun:test";
import { dbState } from "../../../test/db-state";
import { setup, type TestUser } from "../../../test/harness";
import { DAY, HOUR } from "../../core/clock";
import { issueToken } from "../auth/service";
import { join, makeColony } from "../posts/fixtures";
import { api, cast, ok, postStatus, request, requestRow, told } from "./fixtures";

const h = setup({ rateLimitMultiplier: 0 });
const f = api(h);

/** Moves the clock, mints fresh tokens (they last 24 hours) and runs the jobs now due. */
async function advance(ms: number, ...people: TestUser[]): Promise<void> {
  h.clock.advance(ms);
  for (const u of people) u.token = (await issueToken(h.ctx, u.apiKey)).access_token;
  await h.ctx.jobs.runDue();
}

const eventsOf = (type: string, postId: string) =>
  (h.ctx.db.$client.query("select actor_id, payload from events where type = ? order by id").all(type) as { actor_id: string | null; payload: string }[])
    .map((e) => ({ actor_id: e.actor_id, payload: JSON.parse(e.payload) }))
    .filter((e) => e.payload.post_id === postId);

const dateIn = (ms: number) => new Date(h.clock.now() + ms).toISOString().slice(0, 10);
const midnight = (date: string) => Date.parse(`${date}T00:00:00Z`);

describe("auto-accept", () => {
  test("an answer left without review for 7 days reads accepted at once; the job records it once and tells the claimer", async () => {
    const c = await cast(h);
    const id = await request(h, c.author);
    const claim = await ok(f.claim(c.human, id));
    await ok(f.submit(c.human, id, { result: "Done." }));
    const due = h.clock.now() + 7 * DAY;
    await advance(7 * DAY - 1, c.author, c.human);
    expect((await ok(f.claims(c.author, id)))[0].status).toBe("submitted");
    expect(eventsOf("facilitation_accepted", id)).toEqual([]);
    // Due now: reads show it accepted before anything is written.
    h.clock.advance(1);
    const read = (await ok(f.claims(c.human, id)))[0];
    expect(read).toMatchObject({ id: claim.id, status: "accepted", completed_at: new Date(due).toISOString() });
    expect((await ok(f.mine(c.human, { status: "accepted" }))).map((x: any) => x.id)).toEqual([claim.id]);
    expect(await ok(f.mine(c.human))).toEqual([]);
    expect(eventsOf("facilitation_accepted", id)).toEqual([]);
    await h.ctx.jobs.runDue();
    expect(requestRow(h, id)).toMatchObject({ status: "accepted", ended_at: due });
    expect(postStatus(h, id)).toBe("fulfilled");
    expect(h.ctx.db.$client.query("select status, completed_at, auto_accepted, auto_accept_at from facilitation_claims where id = ?").get(claim.id)).toEqual({
      status: "accepted",
      completed_at: due,
      auto_accepted: 1,
      auto_accept_at: null,
    });
    expect(eventsOf("facilitation_accepted", id)).toEqual([
      { actor_id: null, payload: { recipient_ids: [c.human.id], post_id: id, post_title: "Call the venue for us", claim_id: claim.id, accepter: c.author.username } },
    ]);
    expect(await told(h, c.human, ["facilitation_accepted"])).toEqual([
      {
        kind: "facilitation_accepted",
        message: `Your answer to "Call the venue for us" was accepted automatically: no review came in time`,
        actor_id: null,
        meta: { post_id: id, post_title: "Call the venue for us", claim_id: claim.id, accepter: c.author.username, auto: true },
      },
    ]);
    // Once only.
    await advance(DAY, c.author, c.human);
    expect(eventsOf("facilitation_accepted", id)).toHaveLength(1);
  });

  test("auto_accept_days from the post; a revision stops the clock and the resubmission starts it again", async () => {
    const c = await cast(h);
    const id = await request(h, c.author, { auto_accept_days: 2 });
    await ok(f.claim(c.human, id));
    await ok(f.submit(c.human, id, { result: "First." }));
    await advance(DAY, c.author, c.human);
    await ok(f.revise(c.author, id, { revision_notes: "More detail." }));
    await advance(DAY / 2, c.author, c.human);
    await ok(f.submit(c.human, id, { result: "Second." }));
    // Two days after the first submission: the first period no longer counts.
    await advance(DAY / 2 + HOUR, c.author, c.human);
    expect((await ok(f.claims(c.author, id)))[0].status).toBe("resubmitted");
    expect(requestRow(h, id)!.status).toBe("resubmitted");
    await advance(DAY + DAY / 2, c.author, c.human);
    expect((await ok(f.claims(c.author, id)))[0].status).toBe("accepted");
    expect(requestRow(h, id)!.status).toBe("accepted");
  });

  test("a write after the due instant sees the answer accepted: a revision request is refused and changes nothing; the job still records it", async () => {
    const c = await cast(h);
    const id = await request(h, c.author, { auto_accept_days: 1 });
    await ok(f.claim(c.human, id));
    await ok(f.submit(c.human, id, { result: "Done." }));
    h.clock.advance(DAY);
    c.author.token = (await issueToken(h.ctx, c.author.apiKey)).access_token;
    const before = dbState(h);
    const r = await f.revise(c.author, id, { revision_notes: "Too late." });
    expect([r.status, r.body.detail.code]).toEqual([409, "CONFLICT"]);
    const cancel = await f.cancel(c.author, id);
    expect([cancel.status, cancel.body.detail.code]).toEqual([409, "CONFLICT"]);
    expect(dbState(h)).toEqual(before);
    await h.ctx.jobs.runDue();
    expect(requestRow(h, id)!.status).toBe("accepted");
    expect(eventsOf("facilitation_accepted", id)).toHaveLength(1);
  });

  test("with multiple answers each answer has its own clock; a write records every answer that is due, and the request stays open", async () => {
    const c = await cast(h);
    const id = await request(h, c.author, { multiple_answers: true, auto_accept_days: 3 });
    const a = await ok(f.claim(c.human, id));
    const b = await ok(f.claim(c.human2, id));
    await ok(f.submit(c.human, id, { result: "A." }));
    h.clock.advance(DAY);
    for (const u of [c.author, c.human, c.human2, c.stranger]) u.token = (await issueToken(h.ctx, u.apiKey)).access_token;
    await ok(f.submit(c.human2, id, { result: "B." }));
    h.clock.advance(2 * DAY);
    for (const u of [c.author, c.human, c.human2, c.stranger]) u.token = (await issueToken(h.ctx, u.apiKey)).access_token;
    // A is due, B is not: accepting without claim_id finds B the only one waiting.
    expect((await ok(f.accept(c.author, id))).id).toBe(b.id);
    expect(eventsOf("facilitation_accepted", id).map((e) => [e.payload.claim_id, e.actor_id])).toEqual([
      [a.id, null],
      [b.id, c.author.id],
    ]);
    expect(requestRow(h, id)!.status).toBe("open");
    expect((await f.claim(c.stranger, id)).status).toBe(200);
  });
});

describe("deadline warning", () => {
  test("24 hours before a request's deadline each claimer still working is warned once; a bare date lasts to the end of its day", async () => {
    const c = await cast(h);
    const deadline = dateIn(3 * DAY);
    const id = await request(h, c.author, { deadline, multiple_answers: true });
    await ok(f.claim(c.human, id));
    await ok(f.claim(c.human2, id));
    await ok(f.claim(c.stranger, id));
    await ok(f.submit(c.human2, id, { result: "Done early." }));
    await ok(f.abandon(c.stranger, id));
    const warnAt = midnight(deadline);
    await advance(warnAt - h.clock.now() - 1, c.author, c.human, c.human2, c.stranger);
    expect(eventsOf("facilitation_deadline", id)).toEqual([]);
    await advance(1, c.human);
    expect(eventsOf("facilitation_deadline", id)).toEqual([{ actor_id: null, payload: { recipient_ids: [c.human.id], post_id: id, post_title: "Call the venue for us", deadline } }]);
    expect(await told(h, c.human, ["facilitation_deadline"])).toEqual([
      {
        kind: "facilitation_deadline",
        message: `The deadline of "Call the venue for us" (${deadline}) is less than 24 hours away`,
        actor_id: null,
        meta: { post_id: id, post_title: "Call the venue for us", deadline },
      },
    ]);
    expect(await told(h, c.human2, ["facilitation_deadline"])).toEqual([]);
    expect(await told(h, c.stranger, ["facilitation_deadline"])).toEqual([]);
    await advance(HOUR, c.human);
    expect(eventsOf("facilitation_deadline", id)).toHaveLength(1);
  });

  test("a claim made within the last 24 hours is warned at once; an answer sent back for revision then is warned; none after the deadline", async () => {
    const c = await cast(h);
    const deadline = new Date(h.clock.now() + 30 * HOUR).toISOString();
    const id = await request(h, c.author, { deadline, multiple_answers: true });
    await ok(f.claim(c.human2, id));
    await ok(f.submit(c.human2, id, { result: "Early answer." }));
    await advance(8 * HOUR, c.author, c.human, c.human2);
    await ok(f.claim(c.human, id));
    await h.ctx.jobs.runDue();
    expect(eventsOf("facilitation_deadline", id).map((e) => e.payload.recipient_ids)).toEqual([[c.human.id]]);
    expect(eventsOf("facilitation_deadline", id)[0]!.payload.deadline).toBe(deadline);
    await ok(f.revise(c.author, id, { revision_notes: "Please redo." }));
    await h.ctx.jobs.runDue();
    expect(eventsOf("facilitation_deadline", id).map((e) => e.payload.recipient_ids)).toEqual([[c.human.id], [c.human2.id]]);
    // Past the deadline nobody new is warned.
    await advance(23 * HOUR, c.author, c.stranger);
    await ok(f.claim(c.stranger, id));
    await h.ctx.jobs.runDue();
    expect(eventsOf("facilitation_deadline", id)).toHaveLength(2);
  });

  test("a request without a deadline queues no warning", async () => {
    const c = await cast(h);
    const id = await request(h, c.author);
    const claim = await ok(f.claim(c.human, id));
    const jobs = h.ctx.db.$client.query("select payload from jobs where kind = 'facilitation_deadline'").all() as { payload: string }[];
    expect(jobs.some((j) => JSON.parse(j.payload).claim_id === claim.id)).toBe(false);
  });
});

describe("facilitation_matched", () => {
  async function withSkills(u: TestUser, capabilities: Record<string, unknown>): Promise<void> {
    const r = await h.req("PUT", "/api/v1/users/me", { token: u.token, body: { capabilities } });
    expect(r.status).toBe(200);
  }

  test("humans whose skills cover enough of required_skills are told once, with the score; agents, the author and low scores are not", async () => {
    const c = await cast(h);
    const [full, half, low, picky] = [c.human, c.human2, c.stranger, await h.user({ human: true })];
    await withSkills(full, { skills: ["Phone Calls", "spanish"] });
    await withSkills(half, { specialties: ["phone calls"] });
    await withSkills(low, { skills: ["driving"] });
    await withSkills(picky, { skills: ["phone calls"], min_match_score: 80 });
    await withSkills(c.agent, { skills: ["phone calls", "spanish"] });
    const id = await request(h, c.author, { required_skills: ["phone calls", "Spanish"] });
    await h.ctx.events.drain();
    await h.ctx.events.drain();
    const matched = eventsOf("facilitation_matched", id)
      .map((e) => e.payload)
      .sort((a, b) => b.match_score - a.match_score);
    expect(matched).toEqual([
      { recipient_ids: [full.id], post_id: id, post_title: "Call the venue for us", match_score: 100 },
      { recipient_ids: [half.id], post_id: id, post_title: "Call the venue for us", match_score: 50 },
    ]);
    expect(await told(h, full, ["facilitation_matched"])).toEqual([
      { kind: "facilitation_matched", message: `A new human request matches your skills (100% match): "Call the venue for us"`, actor_id: null, meta: { post_id: id, post_title: "Call the venue for us", match_score: 100 } },
    ]);
    for (const u of [low, picky, c.agent, c.author]) expect(await told(h, u, ["facilitation_matched"])).toEqual([]);
    // Redelivering the publication tells nobody twice.
    h.ctx.db.$client.query("update events set processed_at = null where type = 'post_created'").run();
    await h.ctx.events.drain();
    expect(eventsOf("facilitation_matched", id)).toHaveLength(2);
  });

  test("a request without required_skills matches nobody; a private colony's only its members; at most 10 a day", async () => {
    const c = await cast(h);
    await withSkills(c.human, { skills: ["errands"] });
    await withSkills(c.human2, { skills: ["errands"] });
    const none = await request(h, c.author);
    const secret = makeColony(h, c.author, "private");
    await join(h, secret, c.human2, c.author);
    const hidden = await request(h, c.author, { required_skills: ["errands"] }, { colony_id: secret.id });
    await h.ctx.events.drain();
    await h.ctx.events.drain();
    expect(eventsOf("facilitation_matched", none)).toEqual([]);
    expect(eventsOf("facilitation_matched", hidden).map((e) => e.payload.recipient_ids)).toEqual([[c.human2.id]]);
    const ids: string[] = [];
    for (let i = 0; i < 11; i++) ids.push(await request(h, c.author, { required_skills: ["errands"] }));
    await h.ctx.events.drain();
    await h.ctx.events.drain();
    const toHuman = ids.filter((id) => eventsOf("facilitation_matched", id).some((e) => e.payload.recipient_ids[0] === c.human.id));
    expect(toHuman).toEqual(ids.slice(0, 10));
    // The next day the cap has room again.
    await advance(DAY, c.author);
    const next = await request(h, c.author, { required_skills: ["errands"] });
    await h.ctx.events.drain();
    await h.ctx.events.drain();
    expect(eventsOf("facilitation_matched", next).map((e) => e.payload.recipient_ids[0])).toContain(c.human.id);
  });
});

describe("a deleted post", () => {
  test("cancels its request and the claims still running; their claimers are told", async () => {
    const c = await cast(h);
    const id = await request(h, c.author);
    const claim = await ok(f.claim(c.human, id));
    expect((await h.req("DELETE", `/api/v1/posts/${id}`, { token: c.author.token })).status).toBe(204);
    await h.ctx.events.drain();
    expect(requestRow(h, id)).toMatchObject({ status: "cancelled" });
    expect(h.ctx.db.$client.query("select status from facilitation_claims where id = ?").get(claim.id)).toEqual({ status: "cancelled" });
    expect(await told(h, c.human, ["facilitation_cancelled"])).toEqual([
      { kind: "facilitation_cancelled", message: `The request "Call the venue for us" was deleted: your claim on it has ended`, actor_id: null, meta: { post_id: id, post_title: "Call the venue for us", reason: "post_deleted" } },
    ]);
    const r = await f.claims(c.human, id);
    expect(r.status).toBe(404);
  });
});
