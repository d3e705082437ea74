// Votes and karma (spec Part 1 §4.6, §8.2): the four karma_reason rules, budgets, the ledger.
import { beforeAll, describe, expect, test } from "bun:test";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { DAY, HOUR } from "../../core/clock";
import { comment } from "../comments/fixtures";
import { ageAccount, eventsOf, join, makeColony, post } from "../posts/fixtures";
import { issueToken } from "../auth/service";
import { grantKarma, ledgerSum, voteOf } from "./service";

// One instance for the file: every test makes its own authors, voters and posts (budgets and
// limits are per account), and mints tokens again after it moves the clock.
let h: Harness;
beforeAll(() => {
  h = setup();
});

const UNKNOWN = "00000000-0000-7000-8000-000000000000";

const vote = (u: TestUser | null, postId: string, value: unknown) => h.req("POST", `/api/v1/posts/${postId}/vote`, { token: u?.token ?? null, body: { value } });
const voteComment = (u: TestUser | null, commentId: string, value: unknown) => h.req("POST", `/api/v1/comments/${commentId}/vote`, { token: u?.token ?? null, body: { value } });
const karmaOf = (id: string) => (h.ctx.db.$client.query("select karma from users where id = ?").get(id) as { karma: number }).karma;
const scoreOf = (postId: string) => (h.ctx.db.$client.query("select score from posts where id = ?").get(postId) as { score: number }).score;
const ledger = (userId: string) => h.ctx.db.$client.query("select delta, reason, actor_id, source_type, source_id from karma_ledger where user_id = ? order by id").all(userId) as any[];
/** The vote_cast events about one post or comment. */
const votesCastOn = (subjectId: string) => eventsOf(h, "vote_cast").filter((e) => e.subject_id === subjectId);
const budgets = async (u: TestUser) => {
  const r = await h.req("GET", "/api/v1/limits/me", { token: u.token });
  return Object.fromEntries(r.body.karma_budgets.map((b: any) => [b.action, b])) as Record<string, any>;
};

/** Moves the clock and mints fresh access tokens (they last 24 hours). */
async function advance(ms: number, ...people: TestUser[]): Promise<void> {
  h.clock.advance(ms);
  for (const u of people) u.token = (await issueToken(h.ctx, u.apiKey)).access_token;
}

/** An established voter: has posted, account 8 days old (not new, past the first hour). */
async function voter(opts: { karma?: number; admin?: boolean } = {}): Promise<TestUser> {
  const u = await h.user({ admin: opts.admin });
  await post(h, u);
  ageAccount(h, u, 8 * 24);
  if (opts.karma) grantKarma(h.ctx, u.id, opts.karma);
  return u;
}

/** A new voter: past the first hour, under 7 days old, never posted. */
async function newVoter(): Promise<TestUser> {
  const u = await h.user();
  ageAccount(h, u, 2);
  return u;
}

describe("POST /posts/{id}/vote: basics", () => {
  test("an upvote moves score and author karma; karma_reason null; vote_cast emitted", async () => {
    const author = await h.user();
    const p = await post(h, author);
    const v = await voter();
    const r = await vote(v, p.id, 1);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ new_score: 1, karma_conferred: true, karma_reason: null });
    expect(scoreOf(p.id)).toBe(1);
    expect(karmaOf(author.id)).toBe(1);
    expect(ledger(author.id)).toEqual([{ delta: 1, reason: "vote", actor_id: v.id, source_type: "post", source_id: p.id }]);
    expect(voteOf(h.ctx, v.id, "post", p.id)).toBe(1);
    expect(voteOf(h.ctx, author.id, "post", p.id)).toBeNull();
    const ev = votesCastOn(p.id);
    expect(ev).toHaveLength(1);
    expect(ev[0]).toMatchObject({ actor_id: v.id, subject_id: p.id, activity: 1 });
    expect(ev[0].payload).toMatchObject({ target_type: "post", target_id: p.id, post_id: p.id, author_id: author.id, value: 1, karma_conferred: true, karma_reason: null });
  });

  test("a downvote moves score and karma down", async () => {
    const author = await h.user();
    const p = await post(h, author);
    const v = await voter();
    const r = await vote(v, p.id, -1);
    expect(r.body).toEqual({ new_score: -1, karma_conferred: true, karma_reason: null });
    expect(karmaOf(author.id)).toBe(-1);
    expect(voteOf(h.ctx, v.id, "post", p.id)).toBe(-1);
  });

  test("the hot rank follows the score", async () => {
    const author = await h.user();
    const p = await post(h, author);
    const hotOf = () => (h.ctx.db.$client.query("select hot from posts where id = ?").get(p.id) as { hot: number }).hot;
    const before = hotOf();
    const admin = await voter({ admin: true });
    await vote(admin, p.id, 1);
    expect(hotOf()).toBeGreaterThan(before);
  });

  test("422 for any value but 1 or -1, and for a missing value", async () => {
    const author = await h.user();
    const p = await post(h, author);
    const v = await voter();
    for (const value of [0, 2, -2, "1", null, 1.5]) {
      const r = await vote(v, p.id, value);
      expect(r.status).toBe(422);
    }
    const r = await h.req("POST", `/api/v1/posts/${p.id}/vote`, { token: v.token, body: {} });
    expect(r.status).toBe(422);
    expect(scoreOf(p.id)).toBe(0);
  });

  test("401 anonymously; 404 NOT_FOUND for unknown and hidden posts; 400 VOTE_SELF_VOTE on your own post", async () => {
    const author = await h.user();
    const p = await post(h, author);
    const anon = await vote(null, p.id, 1);
    expect(anon.status).toBe(401);
    expect(anon.body.detail.code).toBe("AUTH_INVALID_TOKEN");

    const v = await voter();
    const missing = await vote(v, UNKNOWN, 1);
    expect(missing.status).toBe(404);
    expect(missing.body.detail.code).toBe("NOT_FOUND");

    const founder = await h.user();
    const priv = makeColony(h, founder, "private");
    const hidden = await post(h, founder, { colony_id: priv.id });
    const stranger = await vote(v, hidden.id, 1);
    expect(stranger.status).toBe(404);
    expect(stranger.body.detail.code).toBe("NOT_FOUND");

    const self = await vote(author, p.id, 1);
    expect(self.status).toBe(400);
    expect(self.body.detail.code).toBe("VOTE_SELF_VOTE");
    expect(scoreOf(p.id)).toBe(0);
    expect(scoreOf(hidden.id)).toBe(0);
  });

  test("403 FORBIDDEN for a pending member of a restricted colony; approved members vote", async () => {
    const founder = await h.user();
    const colony = makeColony(h, founder, "restricted");
    const p = await post(h, founder, { colony_id: colony.id });
    const v = await voter();
    await join(h, colony, v);
    const r = await vote(v, p.id, 1);
    expect(r.status).toBe(403);
    expect(r.body.detail.code).toBe("FORBIDDEN");
    await h.req("POST", `/api/v1/colonies/${colony.id}/members/${v.id}/approve`, { token: founder.token });
    expect((await vote(v, p.id, 1)).status).toBe(200);
  });

  test("403 KARMA_TOO_LOW below the colony's min_karma_to_vote", async () => {
    const founder = await h.user();
    const colony = makeColony(h, founder, "public");
    h.ctx.db.$client.query("update colonies set settings = ? where id = ?").run(JSON.stringify({ min_karma_to_vote: 10 }), colony.id);
    const p = await post(h, founder, { colony_id: colony.id });
    const low = await voter({ karma: 3 });
    const r = await vote(low, p.id, 1);
    expect(r.status).toBe(403);
    expect(r.body.detail.code).toBe("KARMA_TOO_LOW");
    const ok = await voter({ karma: 10 });
    expect((await vote(ok, p.id, 1)).status).toBe(200);
  });
});

describe("karma_reason rules", () => {
  test("no_op: the same vote again changes nothing and answers the existing score", async () => {
    const author = await h.user();
    const p = await post(h, author);
    const v = await voter();
    const other = await voter();
    await vote(v, p.id, 1);
    await vote(other, p.id, 1);
    const r = await vote(v, p.id, 1);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ new_score: 2, karma_conferred: false, karma_reason: "no_op" });
    expect(karmaOf(author.id)).toBe(2);
    expect(ledger(author.id)).toHaveLength(2);
    expect(votesCastOn(p.id)).toHaveLength(2);
  });

  test("account_age: in the voter's first hour votes rank but move no karma; budgets read untouched", async () => {
    const author = await h.user();
    const p = await post(h, author);
    const fresh = await h.user();
    const r = await vote(fresh, p.id, 1);
    expect(r.body).toEqual({ new_score: 1, karma_conferred: false, karma_reason: "account_age" });
    expect(karmaOf(author.id)).toBe(0);
    expect(ledger(author.id)).toEqual([]);
    const down = await vote(fresh, (await post(h, author)).id, -1);
    expect(down.body).toEqual({ new_score: -1, karma_conferred: false, karma_reason: "account_age" });
    const b = await budgets(fresh);
    expect(b.karma_grant).toMatchObject({ current: 0, blocked: true, blocked_reason: "account_age" });
    expect(b.karma_deduct).toMatchObject({ current: 0, blocked: true, blocked_reason: "account_age" });

    // One hour later the same account confers karma.
    h.clock.advance(HOUR);
    const later = await vote(fresh, (await post(h, author)).id, 1);
    expect(later.body).toMatchObject({ karma_conferred: true, karma_reason: null });
  });

  test("budget_exhausted: past the daily grant budget (5 at karma <= 5) upvotes still count but confer nothing", async () => {
    const author = await h.user();
    const v = await voter();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await post(h, author)).id);
    for (let i = 0; i < 5; i++) expect((await vote(v, ids[i], 1)).body).toEqual({ new_score: 1, karma_conferred: true, karma_reason: null });
    const r = await vote(v, ids[5], 1);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ new_score: 1, karma_conferred: false, karma_reason: "budget_exhausted" });
    expect(scoreOf(ids[5])).toBe(1);
    expect(karmaOf(author.id)).toBe(5);
    const b = await budgets(v);
    expect(b.karma_grant).toMatchObject({ max: 5, current: 5, remaining: 0, blocked: true, blocked_reason: "budget_exhausted" });
    expect(b.karma_grant.retry_after).toBeGreaterThan(0);

    // The window is a rolling 24 hours.
    await advance(DAY, author, v);
    const next = await post(h, author);
    expect((await vote(v, next.id, 1)).body.karma_reason).toBeNull();
  });

  test("grant budget tiers count karma points: 10 at karma 6-50", async () => {
    const author = await h.user();
    const v = await voter({ karma: 20 });
    const results: (string | null)[] = [];
    for (let i = 0; i < 11; i++) results.push((await vote(v, (await post(h, author)).id, 1)).body.karma_reason);
    expect(results.slice(0, 10)).toEqual(Array(10).fill(null));
    expect(results[10]).toBe("budget_exhausted");
    expect((await budgets(v)).karma_grant).toMatchObject({ max: 10, current: 10 });
  });

  test("author_new_voter_limit: new voters move at most 5 of an author's karma a day, per direction", async () => {
    const author = await h.user();
    const up = await post(h, author);
    const voters: TestUser[] = [];
    for (let i = 0; i < 7; i++) voters.push(await newVoter());
    for (let i = 0; i < 5; i++) expect((await vote(voters[i], up.id, 1)).body.karma_reason).toBeNull();
    const r = await vote(voters[5], up.id, 1);
    expect(r.body).toEqual({ new_score: 6, karma_conferred: false, karma_reason: "author_new_voter_limit" });
    expect(karmaOf(author.id)).toBe(5);

    // The other direction has its own cap.
    const down = await post(h, author);
    expect((await vote(voters[6], down.id, -1)).body).toEqual({ new_score: -1, karma_conferred: true, karma_reason: null });
    expect(karmaOf(author.id)).toBe(4);

    // An established voter is not affected.
    const old = await voter();
    expect((await vote(old, up.id, 1)).body.karma_reason).toBeNull();

    // A new voter who has posted is still new while under 7 days old.
    await post(h, voters[6]);
    expect((await vote(voters[6], up.id, 1)).body.karma_reason).toBe("author_new_voter_limit");
  });

  test("author_new_voter_limit: 20 a week", async () => {
    const author = await h.user();
    const voters: TestUser[] = [];
    for (let i = 0; i < 5; i++) voters.push(await newVoter());
    for (let day = 0; day < 4; day++) {
      const p = await post(h, author);
      for (const v of voters) expect((await vote(v, p.id, 1)).body.karma_reason).toBeNull();
      await advance(DAY, author, ...voters);
    }
    expect(karmaOf(author.id)).toBe(20);
    const p = await post(h, author);
    expect((await vote(voters[0], p.id, 1)).body.karma_reason).toBe("author_new_voter_limit");
  });

  test("an old account that never posted or commented is a new voter", async () => {
    const author = await h.user();
    const p = await post(h, author);
    const lurker = await h.user();
    ageAccount(h, lurker, 30 * 24);
    for (let i = 0; i < 5; i++) {
      const v = await newVoter();
      await vote(v, p.id, 1);
    }
    expect((await vote(lurker, p.id, 1)).body.karma_reason).toBe("author_new_voter_limit");
    // Commenting once makes the account established.
    const p2 = await post(h, author);
    await comment(h, lurker, p2.id);
    expect((await vote(lurker, p2.id, 1)).body.karma_reason).toBeNull();
  });
});

describe("downvotes, flips and weights", () => {
  test("downvotes draw on a hard daily budget (3 at karma <= 5): over it 429 RATE_LIMIT_KARMA_GRANT and nothing changes", async () => {
    const author = await h.user();
    const v = await voter();
    for (let i = 0; i < 3; i++) expect((await vote(v, (await post(h, author)).id, -1)).body.karma_reason).toBeNull();
    const p = await post(h, author);
    const r = await vote(v, p.id, -1);
    expect(r.status).toBe(429);
    expect(r.body.detail.code).toBe("RATE_LIMIT_KARMA_GRANT");
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(scoreOf(p.id)).toBe(0);
    expect(voteOf(h.ctx, v.id, "post", p.id)).toBeNull();
    expect(karmaOf(author.id)).toBe(-3);
    const b = await budgets(v);
    expect(b.karma_deduct).toMatchObject({ max: 3, current: 3, remaining: 0, blocked: true, blocked_reason: "budget_exhausted" });
    // The refused vote was not charged to vote_hourly (4 successful votes).
    const limits = (await h.req("GET", "/api/v1/limits/me", { token: v.token })).body.limits;
    expect(limits.find((l: any) => l.action === "vote_hourly").current).toBe(3);
    // Upvotes are unaffected.
    expect((await vote(v, p.id, 1)).status).toBe(200);
  });

  test("above 50 karma a downvote also costs the voter 1 karma", async () => {
    const author = await h.user();
    const p = await post(h, author);
    const v = await voter({ karma: 60 });
    await vote(v, p.id, -1);
    expect(karmaOf(v.id)).toBe(59);
    expect(ledger(v.id).at(-1)).toEqual({ delta: -1, reason: "downvote_cost", actor_id: v.id, source_type: "post", source_id: p.id });
    const cheap = await voter({ karma: 50 });
    await vote(cheap, p.id, -1);
    expect(karmaOf(cheap.id)).toBe(50);
  });

  test("a flipped vote moves score and karma by 2 and charges the budget double", async () => {
    const author = await h.user();
    const p = await post(h, author);
    const v = await voter();
    await vote(v, p.id, 1);
    const r = await vote(v, p.id, -1);
    expect(r.body).toEqual({ new_score: -1, karma_conferred: true, karma_reason: null });
    expect(karmaOf(author.id)).toBe(-1);
    expect(ledger(author.id).map((e) => e.delta)).toEqual([1, -2]);
    const b = await budgets(v);
    expect(b.karma_grant.current).toBe(1);
    expect(b.karma_deduct.current).toBe(2);
    const back = await vote(v, p.id, 1);
    expect(back.body).toEqual({ new_score: 1, karma_conferred: true, karma_reason: null });
    expect((await budgets(v)).karma_grant.current).toBe(3);
    expect(karmaOf(author.id)).toBe(1);
  });

  test("a flip that would cross the deduct budget is refused whole", async () => {
    const author = await h.user();
    const v = await voter();
    await vote(v, (await post(h, author)).id, -1);
    await vote(v, (await post(h, author)).id, -1);
    const p = await post(h, author);
    await vote(v, p.id, 1);
    const r = await vote(v, p.id, -1); // needs 2, 1 left
    expect(r.status).toBe(429);
    expect(r.body.detail.code).toBe("RATE_LIMIT_KARMA_GRANT");
    expect(voteOf(h.ctx, v.id, "post", p.id)).toBe(1);
    expect(scoreOf(p.id)).toBe(1);
  });

  test("an admin's vote weighs 3 points (score and karma) against the admin budget", async () => {
    const author = await h.user();
    const p = await post(h, author);
    const admin = await voter({ admin: true });
    expect((await vote(admin, p.id, 1)).body).toEqual({ new_score: 3, karma_conferred: true, karma_reason: null });
    expect(karmaOf(author.id)).toBe(3);
    expect((await vote(admin, p.id, -1)).body).toEqual({ new_score: -3, karma_conferred: true, karma_reason: null });
    expect(karmaOf(author.id)).toBe(-3);
    const b = await budgets(admin);
    expect(b.karma_grant).toMatchObject({ max: 900, current: 3 });
    expect(b.karma_deduct).toMatchObject({ max: 100, current: 6 });
  });
});

describe("vote_hourly and the ledger", () => {
  test("posts and comments share the vote_hourly bucket: the 11th vote is 429 RATE_LIMIT_VOTE_HOURLY", async () => {
    const author = await h.user();
    const v = await voter({ karma: 5 });
    const p = await post(h, author);
    const c = await comment(h, author, p.id);
    for (let i = 0; i < 5; i++) expect((await vote(v, (await post(h, author)).id, 1)).status).toBe(200);
    // Comment votes: flip back and forth on one comment (flips are votes too).
    for (let i = 0; i < 5; i++) expect((await voteComment(v, c.id, i % 2 ? -1 : 1)).status).toBe(200);
    const r = await vote(v, p.id, 1);
    expect(r.status).toBe(429);
    expect(r.body.detail.code).toBe("RATE_LIMIT_VOTE_HOURLY");
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    const cr = await voteComment(v, c.id, -1);
    expect(cr.status).toBe(429);
    expect(cr.body.detail.code).toBe("RATE_LIMIT_VOTE_HOURLY");
    h.clock.advance(HOUR);
    expect((await vote(v, p.id, 1)).status).toBe(200);
  });

  test("admins get 100 votes an hour", async () => {
    const author = await h.user();
    const admin = await voter({ admin: true });
    const limits = (await h.req("GET", "/api/v1/limits/me", { token: admin.token })).body.limits;
    expect(limits.find((l: any) => l.action === "vote_hourly").max).toBe(100);
    const p = await post(h, author);
    for (let i = 0; i < 11; i++) expect((await vote(admin, p.id, 1)).status).toBe(200);
  });

  test("the ledger's sum is users.karma for every account", async () => {
    const a = await h.user();
    const b = await h.user();
    const pa = await post(h, a);
    const pb = await post(h, b);
    const big = await voter({ karma: 100 });
    const small = await voter();
    const n1 = await newVoter();
    await vote(big, pa.id, 1);
    await vote(big, pb.id, -1);
    await vote(small, pa.id, -1);
    await vote(small, pa.id, 1);
    await vote(n1, pb.id, 1);
    await vote(big, pb.id, 1);
    for (const u of [a, b, big, small, n1]) expect(ledgerSum(h.ctx, u.id)).toBe(karmaOf(u.id));
    expect(karmaOf(a.id)).toBe(2);
    expect(karmaOf(b.id)).toBe(2);
    expect(karmaOf(big.id)).toBe(99);
  });

  test("/limits/me karma_budgets track votes as they happen", async () => {
    const author = await h.user();
    const v = await voter();
    const before = await budgets(v);
    expect(before.karma_grant).toMatchObject({ max: 5, current: 0, remaining: 5, blocked: false, blocked_reason: null, retry_after: null });
    expect(before.karma_deduct).toMatchObject({ max: 3, current: 0, remaining: 3, blocked: false });
    await vote(v, (await post(h, author)).id, 1);
    await vote(v, (await post(h, author)).id, 1);
    await vote(v, (await post(h, author)).id, -1);
    const after = await budgets(v);
    expect(after.karma_grant).toMatchObject({ current: 2, remaining: 3 });
    expect(after.karma_deduct).toMatchObject({ current: 1, remaining: 2 });
    await advance(DAY + 1, v);
    expect((await budgets(v)).karma_grant.current).toBe(0);
  });
});

describe("POST /comments/{id}/vote", () => {
  test("moves the comment's score, up/down counts and its author's karma", async () => {
    const author = await h.user();
    const commenter = await h.user();
    const p = await post(h, author);
    const c = await comment(h, commenter, p.id);
    const v = await voter();
    const r = await voteComment(v, c.id, 1);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ new_score: 1, karma_conferred: true, karma_reason: null });
    expect(karmaOf(commenter.id)).toBe(1);
    expect(karmaOf(author.id)).toBe(0);
    const flip = await voteComment(v, c.id, -1);
    expect(flip.body.new_score).toBe(-1);
    const row = h.ctx.db.$client.query("select score, upvotes, downvotes from comments where id = ?").get(c.id) as any;
    expect(row).toEqual({ score: -1, upvotes: 0, downvotes: 1 });
    expect(voteOf(h.ctx, v.id, "comment", c.id)).toBe(-1);
    expect(eventsOf(h, "vote_cast").at(-1)!.payload).toMatchObject({ target_type: "comment", comment_id: c.id, post_id: p.id, author_id: commenter.id });
    expect((await voteComment(v, c.id, -1)).body).toEqual({ new_score: -1, karma_conferred: false, karma_reason: "no_op" });
  });

  test("errors: 401, 404 NOT_FOUND, 400 VOTE_SELF_VOTE, 422", async () => {
    const author = await h.user();
    const p = await post(h, author);
    const c = await comment(h, author, p.id);
    const v = await voter();
    expect((await voteComment(null, c.id, 1)).status).toBe(401);
    const missing = await voteComment(v, UNKNOWN, 1);
    expect(missing.status).toBe(404);
    expect(missing.body.detail.code).toBe("NOT_FOUND");
    const self = await voteComment(author, c.id, 1);
    expect(self.status).toBe(400);
    expect(self.body.detail.code).toBe("VOTE_SELF_VOTE");
    expect((await voteComment(v, c.id, 0)).status).toBe(422);
  });
});
