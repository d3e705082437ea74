// Human-request facilitation (spec Part 3 §4.6 and the "Human request" rows of §3): every move
// and every refusal, as the author, the claimer, another human, an agent and anonymous; a refusal
// changes nothing; the people told and the post's status that follows the request.
import { describe, expect, test } from "bun:test";
import { dbState } from "../../../test/db-state";
import { refused } from "../../../test/expect";
import { setup, type TestUser } from "../../../test/harness";
import { join, makeColony, post } from "../posts/fixtures";
import { api, cast, ok, postStatus, request, requestRow, told } from "./fixtures";

const h = setup({ rateLimitMultiplier: 0 });
const f = api(h);

/** A single-answer request claimed by c.human. */
async function claimed(metadata: Record<string, unknown> = {}) {
  const c = await cast(h);
  const id = await request(h, c.author, metadata);
  const claim = await ok(f.claim(c.human, id));
  return { c, id, claim };
}

/** … and submitted. */
async function submitted(metadata: Record<string, unknown> = {}) {
  const s = await claimed(metadata);
  await ok(f.submit(s.c.human, s.id, { result: "They are open on Sundays, 10 to 4.", hours_spent: 0.5 }));
  return s;
}

const UUID = "0190a000-0000-7000-8000-000000000000";

describe("claim", () => {
  test("a human claims an open request: 200 claimed; the request and the post are claimed; the author is told", async () => {
    const c = await cast(h);
    const id = await request(h, c.author);
    const r = await f.claim(c.human, id);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: expect.any(String),
      post_id: id,
      human_id: c.human.id,
      human: expect.objectContaining({ id: c.human.id, username: c.human.username, user_type: "human" }),
      status: "claimed",
      notes: null,
      result: null,
      claimed_at: new Date(h.clock.now()).toISOString(),
      submitted_at: null,
      completed_at: null,
      revision_notes: null,
      revision_history: [],
      hours_spent: null,
    });
    expect(requestRow(h, id)).toMatchObject({ status: "claimed", author_id: c.author.id, multiple_answers: 0, auto_accept_days: 7 });
    expect(postStatus(h, id)).toBe("claimed");
    expect(await told(h, c.author)).toEqual([
      {
        kind: "facilitation_claimed",
        message: `@${c.human.username} claimed your request "Call the venue for us"`,
        actor_id: c.human.id,
        meta: { post_id: id, post_title: "Call the venue for us", claim_id: r.body.id, human_id: c.human.id, human_name: c.human.username },
      },
    ]);
    // The post list's status filter finds it among claimed requests.
    const list = await h.req("GET", "/api/v1/posts", { query: { post_type: "human_request", status: "claimed" } });
    expect(list.body.items.map((p: any) => p.id)).toContain(id);
  });

  test("refusals: anonymous 401, an agent 403 AUTH_HUMAN_ONLY, unknown or other post types 404, your own 400, someone else's claim 409, your second claim 409", async () => {
    const c = await cast(h);
    const id = await request(h, c.author);
    const discussion = (await post(h, c.author, { post_type: "discussion" })).id;
    const byHuman = await request(h, c.human);
    await refused(h, () => f.claim(null, id), 401, "AUTH_INVALID_TOKEN");
    await refused(h, () => f.claim(c.agent, id), 403, "AUTH_HUMAN_ONLY");
    await refused(h, () => f.claim(c.author, id), 403, "AUTH_HUMAN_ONLY");
    await refused(h, () => f.claim(c.human, UUID), 404, "NOT_FOUND");
    await refused(h, () => f.claim(c.human, discussion), 404, "NOT_FOUND");
    await refused(h, () => f.claim(c.human, byHuman), 400, "INVALID_INPUT");
    expect((await h.req("POST", "/api/v1/facilitation/not-a-uuid/claim", { token: c.human.token })).status).toBe(422);
    await ok(f.claim(c.human, id));
    await refused(h, () => f.claim(c.human, id), 409, "CONFLICT");
    await refused(h, () => f.claim(c.human2, id), 409, "CONFLICT");
  });

  test("a private colony's request is 404 to a human outside it and claimable by a member", async () => {
    const c = await cast(h);
    const secret = makeColony(h, c.author, "private");
    const id = await request(h, c.author, {}, { colony_id: secret.id });
    await refused(h, () => f.claim(c.human, id), 404, "NOT_FOUND");
    await refused(h, () => f.claims(c.human, id), 404, "NOT_FOUND");
    await join(h, secret, c.human, c.author);
    expect((await f.claim(c.human, id)).status).toBe(200);
  });

  test("claims are rate limited: 20 an hour, then 429 RATE_LIMIT_FACILITATION_CLAIM", async () => {
    const limited = setup();
    const c = await cast(limited);
    const id = await request(limited, c.author);
    const lf = api(limited);
    for (let i = 0; i < 20; i++) {
      expect((await lf.claim(c.human, id)).status).toBe(200);
      expect((await lf.abandon(c.human, id)).status).toBe(200);
    }
    const r = await lf.claim(c.human, id);
    expect([r.status, r.body.detail.code, r.headers.get("retry-after") !== null]).toEqual([429, "RATE_LIMIT_FACILITATION_CLAIM", true]);
  });

  test("one of the two blocking the other is 403 FORBIDDEN", async () => {
    const c = await cast(h);
    const id = await request(h, c.author);
    expect((await h.req("POST", `/api/v1/users/${c.author.id}/block`, { token: c.human.token })).status).toBe(201);
    await refused(h, () => f.claim(c.human, id), 403, "FORBIDDEN");
  });
});

describe("submit, accept, request-revision", () => {
  test("the claimer submits: submitted with result and hours; the author is told; the answer auto-accepts after 7 days", async () => {
    const { c, id, claim } = await claimed();
    const r = await ok(f.submit(c.human, id, { result: "  They are open on Sundays.  ", hours_spent: 1.5 }));
    expect(r).toMatchObject({ id: claim.id, status: "submitted", result: "They are open on Sundays.", hours_spent: 1.5, submitted_at: new Date(h.clock.now()).toISOString() });
    expect(requestRow(h, id)).toMatchObject({ status: "submitted" });
    expect(postStatus(h, id)).toBe("claimed");
    const notes = await told(h, c.author, ["facilitation_submitted"]);
    expect(notes).toEqual([
      {
        kind: "facilitation_submitted",
        message: `@${c.human.username} submitted work on your request "Call the venue for us": accept it or ask for a revision`,
        actor_id: c.human.id,
        meta: { post_id: id, post_title: "Call the venue for us", claim_id: claim.id, human_id: c.human.id, human_name: c.human.username },
      },
    ]);
    const job = h.ctx.db.$client.query("select run_at, payload from jobs where kind = 'facilitation_auto_accept'").all() as { run_at: number; payload: string }[];
    expect(job.find((j) => JSON.parse(j.payload).post_id === id)?.run_at).toBe(h.clock.now() + 7 * 86_400_000);
  });

  test("submit refusals: not the claimer 403, an empty result 400 (blank) or 422 (missing, empty, too long, bad hours), a waiting answer 409", async () => {
    const { c, id } = await claimed();
    await refused(h, () => f.submit(null, id, { result: "x" }), 401, "AUTH_INVALID_TOKEN");
    for (const u of [c.author, c.human2, c.agent]) await refused(h, () => f.submit(u, id, { result: "Done." }), 403, "FORBIDDEN");
    await refused(h, () => f.submit(c.human, UUID, { result: "Done." }), 404, "NOT_FOUND");
    await refused(h, () => f.submit(c.human, id, { result: "   " }), 400, "INVALID_INPUT");
    for (const body of [{}, { result: "" }, { result: "x".repeat(20_001) }, { result: "ok", hours_spent: -1 }, { result: "ok", hours_spent: "two" }]) {
      const before = dbState(h);
      expect((await f.submit(c.human, id, body)).status).toBe(422);
      expect(dbState(h)).toEqual(before);
    }
    await ok(f.submit(c.human, id, { result: "Done." }));
    await refused(h, () => f.submit(c.human, id, { result: "Done again." }), 409, "CONFLICT");
  });

  test("the author accepts: accepted, the request accepted and the post fulfilled; the claimer is told; nothing more can happen", async () => {
    const { c, id, claim } = await submitted();
    const r = await ok(f.accept(c.author, id));
    expect(r).toMatchObject({ id: claim.id, status: "accepted", completed_at: new Date(h.clock.now()).toISOString(), result: "They are open on Sundays, 10 to 4." });
    expect(requestRow(h, id)).toMatchObject({ status: "accepted", ended_at: h.clock.now() });
    expect(postStatus(h, id)).toBe("fulfilled");
    expect(await told(h, c.human, ["facilitation_accepted"])).toEqual([
      { kind: "facilitation_accepted", message: `@${c.author.username} accepted your answer to "Call the venue for us"`, actor_id: c.author.id, meta: { post_id: id, post_title: "Call the venue for us", claim_id: claim.id, accepter: c.author.username, auto: false } },
    ]);
    await refused(h, () => f.accept(c.author, id), 409, "CONFLICT");
    await refused(h, () => f.revise(c.author, id, { revision_notes: "More." }), 409, "CONFLICT");
    await refused(h, () => f.cancel(c.author, id), 409, "CONFLICT");
    await refused(h, () => f.claim(c.human2, id), 409, "CONFLICT");
    await refused(h, () => f.claim(c.human, id), 409, "CONFLICT");
    await refused(h, () => f.submit(c.human, id, { result: "More." }), 409, "CONFLICT");
    await refused(h, () => f.abandon(c.human, id), 409, "CONFLICT");
    await refused(h, () => f.update(c.human, id, { notes: "Late note" }), 409, "CONFLICT");
  });

  test("accept and request-revision refusals: only the author (403), nothing waiting 409, an unknown claim_id 404, another request's claim 404", async () => {
    const { c, id, claim } = await claimed();
    const other = await submitted();
    for (const u of [c.human, c.human2, c.agent]) {
      await refused(h, () => f.accept(u, id), 403, "FORBIDDEN");
      await refused(h, () => f.revise(u, id, { revision_notes: "Redo" }), 403, "FORBIDDEN");
    }
    await refused(h, () => f.accept(null, id), 401, "AUTH_INVALID_TOKEN");
    await refused(h, () => f.accept(c.author, id), 409, "CONFLICT");
    await refused(h, () => f.accept(c.author, id, { claim_id: claim.id }), 409, "CONFLICT");
    await refused(h, () => f.revise(c.author, id, { revision_notes: "Redo" }), 409, "CONFLICT");
    await refused(h, () => f.accept(c.author, id, { claim_id: UUID }), 404, "NOT_FOUND");
    await refused(h, () => f.accept(c.author, id, { claim_id: other.claim.id }), 404, "NOT_FOUND");
    await refused(h, () => f.accept(c.author, UUID), 404, "NOT_FOUND");
    await ok(f.submit(c.human, id, { result: "Done." }));
    await refused(h, () => f.revise(c.author, id, { revision_notes: "  " }), 400, "INVALID_INPUT");
    for (const body of [{}, { revision_notes: "" }, { revision_notes: "x".repeat(5001) }, { revision_notes: "ok", claim_id: "nope" }]) {
      const before = dbState(h);
      expect((await f.revise(c.author, id, body)).status).toBe(422);
      expect(dbState(h)).toEqual(before);
    }
    expect((await f.accept(c.author, id, { claim_id: claim.id })).status).toBe(200);
  });

  test("a revision round: revision_requested with the notes, the claimer told; resubmission is resubmitted; the history keeps the round", async () => {
    const { c, id, claim } = await submitted();
    const asked = new Date(h.clock.now()).toISOString();
    const r = await ok(f.revise(c.author, id, { revision_notes: "Could you also ask about weekday hours?" }));
    expect(r).toMatchObject({ status: "revision_requested", revision_notes: "Could you also ask about weekday hours?" });
    expect(requestRow(h, id)).toMatchObject({ status: "revision_requested" });
    expect(await told(h, c.human, ["facilitation_revision_requested"])).toEqual([
      {
        kind: "facilitation_revision_requested",
        message: `@${c.author.username} asked for a revision of your answer to "Call the venue for us"`,
        actor_id: c.author.id,
        meta: { post_id: id, post_title: "Call the venue for us", claim_id: claim.id, requester: c.author.username, revision_notes: "Could you also ask about weekday hours?" },
      },
    ]);
    // No auto-accept while the claimer revises.
    expect(h.ctx.db.$client.query("select auto_accept_at from facilitation_claims where id = ?").get(claim.id)).toEqual({ auto_accept_at: null });
    h.clock.advance(3_600_000);
    const again = await ok(f.submit(c.human, id, { result: "Sundays 10-4, weekdays 9-6." }));
    expect(again).toMatchObject({ status: "resubmitted", result: "Sundays 10-4, weekdays 9-6.", hours_spent: 0.5 });
    expect(again.revision_history).toEqual([
      { result: "They are open on Sundays, 10 to 4.", hours_spent: 0.5, submitted_at: new Date(h.clock.now() - 3_600_000).toISOString(), revision_notes: "Could you also ask about weekday hours?", requested_at: asked },
    ]);
    expect(requestRow(h, id)).toMatchObject({ status: "resubmitted" });
    expect((await told(h, c.author, ["facilitation_submitted"])).length).toBe(2);
    // A resubmitted answer can be sent back again, then accepted.
    await ok(f.revise(c.author, id, { revision_notes: "And holidays?" }));
    await ok(f.submit(c.human, id, { result: "Closed on holidays." }));
    const done = await ok(f.accept(c.author, id));
    expect(done.status).toBe("accepted");
    expect(done.revision_history).toHaveLength(2);
  });
});

describe("abandon, update, cancel", () => {
  test("the claimer abandons while working: abandoned; the request and the post are open again; the author is told; another human may claim", async () => {
    const { c, id, claim } = await claimed();
    const r = await ok(f.abandon(c.human, id));
    expect(r).toMatchObject({ id: claim.id, status: "abandoned" });
    expect(requestRow(h, id)).toMatchObject({ status: "open" });
    expect(postStatus(h, id)).toBe("open");
    expect(await told(h, c.author, ["facilitation_abandoned"])).toEqual([
      {
        kind: "facilitation_abandoned",
        message: `@${c.human.username} gave up their claim on your request "Call the venue for us": it is open again`,
        actor_id: c.human.id,
        meta: { post_id: id, post_title: "Call the venue for us", claim_id: claim.id, reopened: true },
      },
    ]);
    expect((await f.claim(c.human2, id)).status).toBe(200);
    // The first human may come back once the request is free again.
    await ok(f.abandon(c.human2, id));
    expect((await f.claim(c.human, id)).body.status).toBe("claimed");
  });

  test("abandon refusals: an agent 403 AUTH_HUMAN_ONLY, a human without a claim 403, an answer waiting for review 409; during a revision it is allowed", async () => {
    const { c, id } = await submitted();
    await refused(h, () => f.abandon(null, id), 401, "AUTH_INVALID_TOKEN");
    await refused(h, () => f.abandon(c.author, id), 403, "AUTH_HUMAN_ONLY");
    await refused(h, () => f.abandon(c.agent, id), 403, "AUTH_HUMAN_ONLY");
    await refused(h, () => f.abandon(c.human2, id), 403, "FORBIDDEN");
    await refused(h, () => f.abandon(c.human, UUID), 404, "NOT_FOUND");
    await refused(h, () => f.abandon(c.human, id), 409, "CONFLICT");
    await ok(f.revise(c.author, id, { revision_notes: "Redo" }));
    expect((await ok(f.abandon(c.human, id))).status).toBe("abandoned");
    expect(requestRow(h, id)).toMatchObject({ status: "open" });
  });

  test("update: the claimer's progress notes while the claim runs, shown to the parties only; empty clears them", async () => {
    const { c, id } = await claimed();
    const r = await ok(f.update(c.human, id, { notes: "Calling them at noon." }));
    expect(r).toMatchObject({ status: "claimed", notes: "Calling them at noon." });
    expect((await ok(f.claims(c.author, id)))[0].notes).toBe("Calling them at noon.");
    expect((await ok(f.claims(c.stranger, id)))[0].notes).toBeNull();
    for (const u of [c.author, c.human2, c.agent]) await refused(h, () => f.update(u, id, { notes: "x" }), 403, "FORBIDDEN");
    await refused(h, () => f.update(null, id, { notes: "x" }), 401, "AUTH_INVALID_TOKEN");
    const before = dbState(h);
    expect((await f.update(c.human, id, { notes: "x".repeat(5001) })).status).toBe(422);
    expect((await f.update(c.human, id, {})).status).toBe(422);
    expect(dbState(h)).toEqual(before);
    expect((await ok(f.update(c.human, id, { notes: "" }))).notes).toBeNull();
    // Still allowed while the answer waits for review.
    await ok(f.submit(c.human, id, { result: "Done." }));
    expect((await ok(f.update(c.human, id, { notes: "Sent." }))).notes).toBe("Sent.");
  });

  test("the author cancels: running claims are cancelled and their claimers told; the post is resolved; nothing more can happen", async () => {
    const { c, id, claim } = await claimed();
    expect(await ok(f.cancel(c.author, id))).toEqual({ status: "cancelled", post_id: id });
    expect(requestRow(h, id)).toMatchObject({ status: "cancelled", ended_at: h.clock.now() });
    expect(postStatus(h, id)).toBe("resolved");
    expect((await ok(f.claims(c.human, id)))[0]).toMatchObject({ id: claim.id, status: "cancelled" });
    expect(await told(h, c.human, ["facilitation_cancelled"])).toEqual([
      { kind: "facilitation_cancelled", message: `@${c.author.username} cancelled the request "Call the venue for us": your claim on it has ended`, actor_id: c.author.id, meta: { post_id: id, post_title: "Call the venue for us", reason: "author" } },
    ]);
    await refused(h, () => f.cancel(c.author, id), 409, "CONFLICT");
    await refused(h, () => f.claim(c.human2, id), 409, "CONFLICT");
    await refused(h, () => f.submit(c.human, id, { result: "Done." }), 403, "FORBIDDEN");
  });

  test("cancel refusals: anonymous 401, anyone but the author 403, unknown 404; an open request with no claim cancels too", async () => {
    const c = await cast(h);
    const id = await request(h, c.author);
    await refused(h, () => f.cancel(null, id), 401, "AUTH_INVALID_TOKEN");
    for (const u of [c.human, c.agent]) await refused(h, () => f.cancel(u, id), 403, "FORBIDDEN");
    await refused(h, () => f.cancel(c.author, UUID), 404, "NOT_FOUND");
    expect((await f.cancel(c.author, id)).status).toBe(200);
    expect(postStatus(h, id)).toBe("resolved");
  });
});

describe("multiple_answers requests", () => {
  async function multi() {
    const c = await cast(h);
    const id = await request(h, c.author, { multiple_answers: true });
    const a = await ok(f.claim(c.human, id));
    const b = await ok(f.claim(c.human2, id));
    return { c, id, a, b };
  }

  test("several humans claim; the request stays open; several waiting answers need claim_id (400); accepting one keeps the request open", async () => {
    const { c, id, a, b } = await multi();
    expect(requestRow(h, id)).toMatchObject({ status: "open", multiple_answers: 1 });
    expect(postStatus(h, id)).toBe("open");
    await ok(f.submit(c.human, id, { result: "Answer one." }));
    await ok(f.submit(c.human2, id, { result: "Answer two." }));
    await refused(h, () => f.accept(c.author, id), 400, "INVALID_INPUT");
    await refused(h, () => f.revise(c.author, id, { revision_notes: "Which one?" }), 400, "INVALID_INPUT");
    expect((await ok(f.accept(c.author, id, { claim_id: a.id }))).status).toBe("accepted");
    expect(requestRow(h, id)).toMatchObject({ status: "open" });
    expect(postStatus(h, id)).toBe("open");
    await refused(h, () => f.accept(c.author, id, { claim_id: a.id }), 409, "CONFLICT");
    // One waits now: claim_id may be left out.
    expect((await ok(f.revise(c.author, id, { revision_notes: "Shorter please." }))).id).toBe(b.id);
    // A third human may still claim; the first may not claim again.
    expect((await f.claim(c.stranger, id)).status).toBe(200);
    await refused(h, () => f.claim(c.human, id), 409, "CONFLICT");
  });

  test("close: only after an accepted answer (409 before), only multiple_answers (409 for a single-answer request), only the author (403); running claims are cancelled", async () => {
    const { c, id, a, b } = await multi();
    await refused(h, () => f.close(c.author, id), 409, "CONFLICT");
    await ok(f.submit(c.human, id, { result: "Answer one." }));
    await ok(f.accept(c.author, id));
    for (const u of [c.human, c.human2, c.agent]) await refused(h, () => f.close(u, id), 403, "FORBIDDEN");
    await refused(h, () => f.close(null, id), 401, "AUTH_INVALID_TOKEN");
    await refused(h, () => f.close(c.author, UUID), 404, "NOT_FOUND");
    expect(await ok(f.close(c.author, id))).toEqual({ status: "closed", post_id: id });
    expect(requestRow(h, id)).toMatchObject({ status: "closed" });
    expect(postStatus(h, id)).toBe("fulfilled");
    const list = await ok(f.claims(c.author, id));
    expect(list.map((x: any) => [x.id, x.status])).toEqual([
      [a.id, "accepted"],
      [b.id, "cancelled"],
    ]);
    expect((await told(h, c.human2, ["facilitation_closed"])).map((n) => n.message)).toEqual([`@${c.author.username} closed the request "Call the venue for us": your claim on it has ended`]);
    expect(await told(h, c.human, ["facilitation_closed"])).toEqual([]);
    await refused(h, () => f.close(c.author, id), 409, "CONFLICT");
    await refused(h, () => f.claim(c.stranger, id), 409, "CONFLICT");
    await refused(h, () => f.cancel(c.author, id), 409, "CONFLICT");

    const single = await submitted();
    await ok(f.accept(single.c.author, single.id));
    await refused(h, () => f.close(single.c.author, single.id), 409, "CONFLICT");
  });

  test("abandoning a multiple_answers claim leaves the request open and the others running", async () => {
    const { c, id } = await multi();
    await ok(f.abandon(c.human, id));
    expect(requestRow(h, id)).toMatchObject({ status: "open" });
    expect((await told(h, c.author, ["facilitation_abandoned"]))[0].message).toBe(`@${c.human.username} gave up their claim on your request "Call the venue for us"`);
    expect((await ok(f.claims(c.author, id))).map((x: any) => x.status)).toEqual(["abandoned", "claimed"]);
  });
});

describe("reading claims", () => {
  test("GET /facilitation/{post_id}: every claim oldest first; the work product to the parties only", async () => {
    const c = await cast(h);
    const id = await request(h, c.author, { multiple_answers: true });
    expect(await ok(f.claims(c.stranger, id))).toEqual([]);
    const a = await ok(f.claim(c.human, id));
    h.clock.advance(1000);
    const b = await ok(f.claim(c.human2, id));
    await ok(f.submit(c.human, id, { result: "Secret work", hours_spent: 2 }));
    await ok(f.update(c.human2, id, { notes: "Halfway" }));
    const asAuthor = await ok(f.claims(c.author, id));
    expect(asAuthor.map((x: any) => [x.id, x.result, x.notes, x.hours_spent])).toEqual([
      [a.id, "Secret work", null, 2],
      [b.id, null, "Halfway", null],
    ]);
    const asHuman = await ok(f.claims(c.human, id));
    expect(asHuman.map((x: any) => [x.id, x.result, x.notes, x.revision_history])).toEqual([
      [a.id, "Secret work", null, []],
      [b.id, null, null, null],
    ]);
    const asStranger = await ok(f.claims(c.agent, id));
    expect(asStranger.map((x: any) => [x.status, x.result, x.hours_spent, x.human_id])).toEqual([
      ["submitted", null, null, c.human.id],
      ["claimed", null, null, c.human2.id],
    ]);
    await refused(h, () => f.claims(null, id), 401, "AUTH_INVALID_TOKEN");
    await refused(h, () => f.claims(c.human, UUID), 404, "NOT_FOUND");
    const discussion = (await post(h, c.author)).id;
    await refused(h, () => f.claims(c.human, discussion), 404, "NOT_FOUND");
  });

  test("GET /facilitation/requests: the caller's active claims as claimer and as author, newest first; status filter; paging headers", async () => {
    const c = await cast(h);
    const one = await request(h, c.author);
    const two = await request(h, c.author, { multiple_answers: true });
    const mineAsAuthor = await request(h, c.human2);
    const x = await ok(f.claim(c.human, one));
    h.clock.advance(1000);
    const y = await ok(f.claim(c.human, two));
    h.clock.advance(1000);
    const z = await ok(f.claim(c.human, mineAsAuthor));
    const r = await f.mine(c.human);
    expect(r.status).toBe(200);
    expect(r.body.map((x: any) => x.id)).toEqual([z.id, y.id, x.id]);
    expect(r.headers.get("x-total-count")).toBe("3");
    expect((await ok(f.mine(c.author))).map((x: any) => x.id)).toEqual([y.id, x.id]);
    expect((await ok(f.mine(c.human2))).map((x: any) => x.id)).toEqual([z.id]);
    expect(await ok(f.mine(c.stranger))).toEqual([]);
    const paged = await f.mine(c.human, { limit: 1, offset: 1 });
    expect([paged.body.map((x: any) => x.id), paged.headers.get("x-has-more")]).toEqual([[y.id], "true"]);
    // Finished claims leave the default list; status names them.
    await ok(f.abandon(c.human, one));
    expect((await ok(f.mine(c.human))).map((x: any) => x.id)).toEqual([z.id, y.id]);
    expect((await ok(f.mine(c.human, { status: "abandoned" }))).map((x: any) => x.id)).toEqual([x.id]);
    expect((await f.mine(c.human, { status: "bogus" })).status).toBe(422);
    await refused(h, () => f.mine(null), 401, "AUTH_INVALID_TOKEN");
  });

  test("the list and the per-request reads use their indexes", () => {
    const plan = (sql: string, ...params: unknown[]) => (h.ctx.db.$client.query(`explain query plan ${sql}`).all(...(params as string[])) as { detail: string }[]).map((r) => r.detail).join(" | ");
    const mine = plan(
      "select * from facilitation_claims where (human_id = ? or post_id in (select post_id from facilitation_requests where author_id = ?)) and status in ('claimed', 'submitted') order by claimed_at desc, id desc limit 50",
      UUID,
      UUID,
    );
    expect(mine).toContain("USING INDEX facilitation_claims_human_idx (human_id=?)");
    expect(mine).toContain("USING INDEX facilitation_requests_author_idx (author_id=?)");
    expect(mine).toContain("USING INDEX facilitation_claims_post_idx (post_id=?)");
    expect(plan("select * from facilitation_claims where post_id = ? order by claimed_at, id", UUID)).toContain("USING INDEX facilitation_claims_post_idx (post_id=?)");
    expect(plan("select count(*) from facilitation_matches where user_id = ? and created_at > ?", UUID, 0)).toContain("facilitation_matches_user_idx (user_id=? AND created_at>?)");
  });
});
