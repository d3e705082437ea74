// Polls (spec Part 1 §2.3, §2.8, §3, §4.6): results, single and multiple choice, closing by the clock.
import { beforeAll, describe, expect, test } from "bun:test";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { DAY, HOUR } from "../../core/clock";
import { issueToken } from "../auth/service";
import { eventsOf, iso, join, makeColony, post } from "../posts/fixtures";

// One instance for the file: every test votes with its own accounts on its own polls, and mints
// tokens again after it moves the clock by days.
let h: Harness;
beforeAll(() => {
  h = setup();
});

const UNKNOWN = "00000000-0000-7000-8000-000000000000";
const results = (postId: string, u: TestUser | null = null) => h.req("GET", `/api/v1/polls/${postId}/results`, { token: u?.token ?? null });
const cast = (u: TestUser | null, postId: string, option_ids: unknown) => h.req("POST", `/api/v1/polls/${postId}/vote`, { token: u?.token ?? null, body: { option_ids } });

async function poll(author: TestUser, meta: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return post(h, author, {
    post_type: "poll",
    metadata: { poll_options: [{ id: "a", text: "Apples" }, { id: "b", text: "Bananas" }, { id: "c", text: "Cherries" }], show_results_before_voting: true, ...meta },
    ...extra,
  });
}

describe("GET /polls/{id}/results", () => {
  test("the reference shape, anonymous and authenticated", async () => {
    const author = await h.user();
    const p = await poll(author);
    const r = await results(p.id);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      total_votes: 0,
      user_voted: false,
      user_option_ids: [],
      options: [
        { id: "a", text: "Apples", vote_count: 0, percentage: 0 },
        { id: "b", text: "Bananas", vote_count: 0, percentage: 0 },
        { id: "c", text: "Cherries", vote_count: 0, percentage: 0 },
      ],
      is_closed: false,
      multiple_choice: false,
      show_results_before_voting: true,
      closing_soon: false,
    });
  });

  test("404 NOT_FOUND for unknown, hidden and non-poll posts", async () => {
    const author = await h.user();
    const plain = await post(h, author);
    const priv = makeColony(h, author, "private");
    const hidden = await poll(author, {}, { colony_id: priv.id });
    const stranger = await h.user();
    for (const id of [UNKNOWN, plain.id, hidden.id]) {
      const r = await results(id, stranger);
      expect(r.status).toBe(404);
      expect(r.body.detail.code).toBe("NOT_FOUND");
    }
    expect((await results(hidden.id, author)).status).toBe(200);
    expect((await results("not-a-uuid")).status).toBe(422);
  });
});

describe("POST /polls/{id}/vote", () => {
  test("single choice: one option, a second vote replaces the first", async () => {
    const author = await h.user();
    const p = await poll(author);
    const [u1, u2, u3] = [await h.user(), await h.user(), await h.user()];
    let r = await cast(u1, p.id, ["a"]);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ total_votes: 1, user_voted: true, user_option_ids: ["a"] });
    await cast(u2, p.id, ["a"]);
    await cast(u3, p.id, ["b"]);
    r = await cast(u1, p.id, ["c"]);
    expect(r.body.total_votes).toBe(3);
    expect(r.body.user_option_ids).toEqual(["c"]);
    expect(r.body.options.map((o: any) => [o.id, o.vote_count, o.percentage])).toEqual([["a", 1, 33.3], ["b", 1, 33.3], ["c", 1, 33.3]]);
    const anon = await results(p.id);
    expect(anon.body).toMatchObject({ total_votes: 3, user_voted: false, user_option_ids: [] });
    const ev = eventsOf(h, "poll_voted").filter((e) => e.payload.post_id === p.id);
    expect(ev).toHaveLength(4);
    expect(ev[0]).toMatchObject({ actor_id: u1.id, activity: 1, payload: { post_id: p.id, option_ids: ["a"] } });

    const two = await cast(u2, p.id, ["a", "b"]);
    expect(two.status).toBe(400);
    expect(two.body.detail.code).toBe("INVALID_INPUT");
  });

  test("multiple choice: 1..n distinct options replace the whole selection; percentages are of voters", async () => {
    const author = await h.user();
    const p = await poll(author, { multiple_choice: true });
    const [u1, u2] = [await h.user(), await h.user()];
    let r = await cast(u1, p.id, ["a", "b", "c"]);
    expect(r.status).toBe(200);
    expect(r.body.user_option_ids).toEqual(["a", "b", "c"]);
    r = await cast(u2, p.id, ["b"]);
    expect(r.body.total_votes).toBe(2);
    expect(r.body.options.map((o: any) => [o.id, o.vote_count, o.percentage])).toEqual([["a", 1, 50], ["b", 2, 100], ["c", 1, 50]]);
    r = await cast(u1, p.id, ["c", "a"]);
    expect(r.body.user_option_ids).toEqual(["a", "c"]);
    expect(r.body.options.map((o: any) => o.vote_count)).toEqual([1, 1, 1]);
    const dup = await cast(u1, p.id, ["a", "a"]);
    expect(dup.status).toBe(400);
    expect(dup.body.detail.code).toBe("INVALID_INPUT");
  });

  test("400 INVALID_INPUT for an unknown option; 422 for an empty or missing list", async () => {
    const author = await h.user();
    const p = await poll(author);
    const u = await h.user();
    const r = await cast(u, p.id, ["zzz"]);
    expect(r.status).toBe(400);
    expect(r.body.detail.code).toBe("INVALID_INPUT");
    expect((await cast(u, p.id, [])).status).toBe(422);
    expect((await h.req("POST", `/api/v1/polls/${p.id}/vote`, { token: u.token, body: {} })).status).toBe(422);
    expect((await results(p.id, u)).body.user_voted).toBe(false);
  });

  test("401 anonymously; 404 NOT_FOUND for non-poll, unknown and hidden posts; 403 FORBIDDEN for pending members", async () => {
    const author = await h.user();
    const p = await poll(author);
    expect((await cast(null, p.id, ["a"])).status).toBe(401);
    const u = await h.user();
    const plain = await post(h, author);
    const priv = makeColony(h, author, "private");
    const hidden = await poll(author, {}, { colony_id: priv.id });
    for (const id of [plain.id, UNKNOWN, hidden.id]) {
      const r = await cast(u, id, ["a"]);
      expect(r.status).toBe(404);
      expect(r.body.detail.code).toBe("NOT_FOUND");
    }
    const restricted = makeColony(h, author, "restricted");
    const gated = await poll(author, {}, { colony_id: restricted.id });
    await join(h, restricted, u);
    const pending = await cast(u, gated.id, ["a"]);
    expect(pending.status).toBe(403);
    expect(pending.body.detail.code).toBe("FORBIDDEN");
    await h.req("POST", `/api/v1/colonies/${restricted.id}/members/${u.id}/approve`, { token: author.token });
    expect((await cast(u, gated.id, ["a"])).status).toBe(200);
  });

  test("closes when the clock passes closes_at: 409 POLL_CLOSED, results marked closed", async () => {
    const author = await h.user();
    const p = await poll(author, { closes_at: iso(h.clock.now() + 2 * DAY) });
    const u = await h.user();
    expect((await results(p.id)).body).toMatchObject({ is_closed: false, closing_soon: false });
    expect((await cast(u, p.id, ["a"])).status).toBe(200);
    h.clock.advance(DAY + HOUR);
    expect((await results(p.id)).body).toMatchObject({ is_closed: false, closing_soon: true });
    h.clock.advance(DAY);
    u.token = (await issueToken(h.ctx, u.apiKey)).access_token;
    const r = await cast(u, p.id, ["b"]);
    expect(r.status).toBe(409);
    expect(r.body.detail.code).toBe("POLL_CLOSED");
    const after = await results(p.id);
    expect(after.body).toMatchObject({ is_closed: true, closing_soon: false, total_votes: 1 });
    expect(after.body.options[0].vote_count).toBe(1);
  });

  test("show_results_before_voting=false hides counts from non-voters until closed", async () => {
    const author = await h.user();
    const p = await poll(author, { show_results_before_voting: false, closes_at: iso(h.clock.now() + 2 * DAY) });
    const [voter, lurker] = [await h.user(), await h.user()];
    await cast(voter, p.id, ["b"]);
    for (const caller of [null, lurker]) {
      const r = await results(p.id, caller);
      expect(r.body).toMatchObject({ total_votes: 0, user_voted: false, show_results_before_voting: false });
      expect(r.body.options.every((o: any) => o.vote_count === 0 && o.percentage === 0)).toBe(true);
    }
    const mine = await results(p.id, voter);
    expect(mine.body).toMatchObject({ total_votes: 1, user_voted: true, user_option_ids: ["b"] });
    expect(mine.body.options[1]).toMatchObject({ vote_count: 1, percentage: 100 });
    expect((await results(p.id, author)).body.total_votes).toBe(1);
    h.clock.advance(2 * DAY);
    const closed = await results(p.id);
    expect(closed.body).toMatchObject({ is_closed: true, total_votes: 1 });
  });

  test("429 RATE_LIMIT_POLL_VOTE past the hourly limit", async () => {
    const author = await h.user();
    const p = await poll(author);
    const u = await h.user();
    let status = 200;
    let n = 0;
    let last: any;
    while (status === 200 && n < 200) {
      last = await cast(u, p.id, [n % 2 ? "a" : "b"]);
      status = last.status;
      n++;
    }
    expect(status).toBe(429);
    expect(last.body.detail.code).toBe("RATE_LIMIT_POLL_VOTE");
    expect(n).toBe(31);
  });
});
