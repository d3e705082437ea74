// Listings: close and reopen (tasks and offers; idempotent; events), the task list (filters,
// sorts, budget with no-budget last, deprecated sort=new, closed listings left out, private
// colonies), task_matched, and the webhook bodies of the marketplace's events.
import { describe, expect, test } from "bun:test";
import { setup } from "../../../test/harness";
import type { AnyDomainEvent } from "../../core/events";
import { planWebhookEvents } from "../webhooks/mapping";
import { eventsOf, join, makeColony, post } from "../posts/fixtures";
import { listPaidTasks } from "../posts/service";
import { updateProfile, findById } from "../users/service";
import { accept, bid, placed, setLightningAddress, task } from "./fixtures";
import { matchScore, taskTerms } from "./matching";

const h = setup();

const close = (postId: string, token?: string) => h.req("POST", `/api/v1/posts/${postId}/close`, { token });
const reopen = (postId: string, token?: string) => h.req("POST", `/api/v1/posts/${postId}/reopen`, { token });
const listingEvents = (type: string, postId: string) => eventsOf(h, type).filter((e) => e.payload.post_id === postId);

describe("POST /posts/{post_id}/close and /reopen", () => {
  test("the author closes a task: closed_at set, accepting_submissions false, status unchanged; again changes nothing; reopen clears it", async () => {
    const author = await h.user();
    const t = await task(h, author);
    await placed(h, await h.user(), t.id);
    expect(t.accepting_submissions).toBe(true);
    const r = await close(t.id, author.token);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: t.id, status: "bidding", accepting_submissions: false, closed_at: new Date(h.clock.now()).toISOString() });
    h.clock.advance(5_000);
    const again = await close(t.id, author.token);
    expect(again.status).toBe(200);
    expect(again.body.closed_at).toBe(r.body.closed_at);
    expect(listingEvents("listing_closed", t.id).map((e) => e.payload)).toEqual([{ recipient_ids: [author.id], post_id: t.id, post_title: t.title, post_type: "paid_task" }]);
    expect((await h.req("GET", `/api/v1/posts/${t.id}`)).body.closed_at).toBe(r.body.closed_at);
    const open = await reopen(t.id, author.token);
    expect(open.status).toBe(200);
    expect(open.body).toMatchObject({ closed_at: null, accepting_submissions: true, status: "bidding" });
    expect((await reopen(t.id, author.token)).body.closed_at).toBeNull();
    expect(listingEvents("listing_reopened", t.id)).toHaveLength(1);
    // The author acted: no notification to themself.
    expect(h.ctx.db.$client.query("select count(*) n from notifications where user_id = ? and kind like 'listing_%'").get(author.id)).toEqual({ n: 0 });
  });

  test("offers close and reopen too", async () => {
    const seller = await h.user();
    setLightningAddress(h, seller, "seller@example.com");
    const offer = await post(h, seller, { post_type: "paid_offer", metadata: { listed_rate_sats: 5_000 } });
    const r = await close(offer.id, seller.token);
    expect(r.body).toMatchObject({ accepting_submissions: false });
    expect(listingEvents("listing_closed", offer.id)[0]!.payload.post_type).toBe("paid_offer");
    expect((await reopen(offer.id, seller.token)).body.accepting_submissions).toBe(true);
  });

  test("refusals: another post type 400, anyone but the author 403, a post the caller cannot see 404, anonymous 401; nothing changes", async () => {
    const author = await h.user();
    const other = await h.user();
    const discussion = await post(h, author);
    const bad = await close(discussion.id, author.token);
    expect(bad.status).toBe(400);
    expect(bad.body.detail.code).toBe("INVALID_INPUT");
    const t = await task(h, author);
    for (const fn of [close, reopen]) {
      const r = await fn(t.id, other.token);
      expect(r.status).toBe(403);
      expect(r.body.detail.code).toBe("FORBIDDEN");
    }
    expect((await close(t.id)).status).toBe(401);
    expect((await close(crypto.randomUUID(), author.token)).status).toBe(404);
    const hidden = await task(h, author, undefined, { colony_id: makeColony(h, author, "private").id });
    expect((await close(hidden.id, other.token)).status).toBe(404);
    expect((await h.req("GET", `/api/v1/posts/${t.id}`)).body.closed_at).toBeNull();
    expect(listingEvents("listing_closed", t.id)).toHaveLength(0);
  });

  test("closing does not touch existing bids: pending ones stay and can be accepted", async () => {
    const author = await h.user();
    const t = await task(h, author);
    const b = await placed(h, await h.user(), t.id);
    await close(t.id, author.token);
    expect((await h.req("GET", `/api/v1/marketplace/${t.id}/bids`)).body.items[0].status).toBe("pending");
    expect(eventsOf(h, "bid_rejected").filter((e) => e.payload.post_id === t.id)).toHaveLength(0);
    expect((await accept(h, author, t.id, b.id)).status).toBe(200);
  });
});

test("marketplace metadata is not editable after creation: an edit naming it leaves the budget as created", async () => {
  const author = await h.user();
  const t = await task(h, author, { budget_min_sats: 100, budget_max_sats: 200 });
  const r = await h.req("PUT", `/api/v1/posts/${t.id}`, { token: author.token, body: { title: "Summarise this dataset, please", metadata: { budget_min_sats: 1, budget_max_sats: 100_000_000 } } });
  expect(r.status).toBe(200);
  expect(r.body.title).toBe("Summarise this dataset, please");
  expect(r.body.metadata_).toEqual({ budget_min_sats: 100, budget_max_sats: 200 });
  expect((await bid(h, await h.user(), t.id, 201)).status).toBe(400);
});

describe("GET /marketplace/tasks", () => {
  const mine = new Set<string>();
  const ids = (r: { body: { items: { id: string }[] } }) => r.body.items.map((i) => i.id).filter((id) => mine.has(id));
  const list = (query: Record<string, string | number> = {}, token?: string) => h.req("GET", "/api/v1/marketplace/tasks", { query: { limit: 100, ...query }, token });

  test("items: the post with budget, category, deliverable_type, deadline, bid_count, status, accepting_submissions and closed_at", async () => {
    const author = await h.user();
    const deadline = new Date(h.clock.now() + 7 * 24 * 3600_000).toISOString();
    const t = await task(h, author, { budget_min_sats: 500, budget_max_sats: 2_000, category: "research", deliverable_type: "document", deadline });
    mine.add(t.id);
    await placed(h, await h.user(), t.id, 600);
    const b = await placed(h, await h.user(), t.id, 700);
    await h.req("POST", `/api/v1/marketplace/${t.id}/bid/${b.id}/withdraw`, { token: (await h.user()).token });
    const r = await list();
    expect(r.status).toBe(200);
    const item = r.body.items.find((i: any) => i.id === t.id);
    expect(item).toMatchObject({
      post_type: "paid_task",
      title: t.title,
      status: "bidding",
      accepting_submissions: true,
      closed_at: null,
      budget_min_sats: 500,
      budget_max_sats: 2_000,
      category: "research",
      deliverable_type: "document",
      deadline,
      bid_count: 2,
    });
    expect(item.author.id).toBe(author.id);
    expect(r.body).toMatchObject({ has_more: false });
    expect(r.body.total).toBeGreaterThanOrEqual(1);
  });

  test("filters, sorts and paging", async () => {
    const a = await h.user();
    const b = await h.user();
    const t1 = await task(h, a, { budget_max_sats: 1_000, category: "writing" });
    h.clock.advance(1_000);
    const t2 = await task(h, a, {});
    h.clock.advance(1_000);
    const t3 = await task(h, b, { budget_min_sats: 10, budget_max_sats: 50_000, category: "writing" });
    h.clock.advance(1_000);
    const t4 = await task(h, b, { budget_max_sats: 5_000, category: "design" });
    for (const t of [t1, t2, t3, t4]) mine.add(t.id);
    await placed(h, await h.user(), t1.id);
    await h.req("POST", `/api/v1/posts/${t4.id}/vote`, { token: a.token, body: { value: 1 } });

    const newest = ids(await list());
    expect(newest.slice(0, 4)).toEqual([t4.id, t3.id, t2.id, t1.id]);
    // The budget sort: the highest ceiling first, tasks without a budget last.
    const budget = ids(await list({ sort: "budget" })).filter((id) => [t1.id, t2.id, t3.id, t4.id].includes(id));
    expect(budget).toEqual([t3.id, t4.id, t1.id, t2.id]);
    expect(ids(await list({ sort: "top" }))[0]).toBe(t4.id);
    // Deprecated spelling of newest.
    const old = await list({ sort: "new" });
    expect(old.status).toBe(200);
    expect(ids(old)).toEqual(newest);
    expect(old.headers.get("x-service-deprecated-values")).toBe("sort:new=newest");
    expect((await list({ sort: "hot" })).status).toBe(422);
    // Filters.
    expect(ids(await list({ category: "writing" })).filter((id) => [t1.id, t3.id, t2.id, t4.id].includes(id)).sort()).toEqual([t1.id, t3.id].sort());
    expect(ids(await list({ status: "bidding" }))).toContain(t1.id);
    expect(ids(await list({ status: "bidding" }))).not.toContain(t2.id);
    expect(ids(await list({ status: "open" }))).toContain(t2.id);
    expect((await list({ category: "cooking" })).status).toBe(422);
    expect((await list({ status: "claimed" })).status).toBe(422);
    // An empty filter does not bind.
    expect(ids(await list({ category: "" }))).toEqual(newest);
    // Paging.
    const p = await list({ limit: 2, page: 1 });
    expect(p.body.items).toHaveLength(2);
    expect(p.body).toMatchObject({ has_more: true, page: 1 });
    expect((await list({ limit: 101 })).status).toBe(422);
    expect((await list({ limit: 2, page: 2, offset: 0 })).status).toBe(400);
  });

  test("closed listings are left out, whatever their status; reopened they return", async () => {
    const author = await h.user();
    const open = await task(h, author);
    const closed = await task(h, author);
    mine.add(open.id);
    mine.add(closed.id);
    await close(closed.id, author.token);
    const r = ids(await list());
    expect(r).toContain(open.id);
    expect(r).not.toContain(closed.id);
    expect(ids(await list({ status: "open" }))).not.toContain(closed.id);
    await reopen(closed.id, author.token);
    expect(ids(await list())).toContain(closed.id);
  });

  test("private colonies: only their approved members see their tasks; held and other post types never show", async () => {
    const author = await h.user();
    const member = await h.user();
    const c = makeColony(h, author, "private");
    await join(h, c, member, author);
    const secret = await task(h, author, undefined, { colony_id: c.id });
    const discussion = await post(h, author);
    mine.add(secret.id);
    mine.add(discussion.id);
    expect(ids(await list())).not.toContain(secret.id);
    expect(ids(await list({}, (await h.user()).token))).not.toContain(secret.id);
    expect(ids(await list({}, member.token))).toContain(secret.id);
    expect(ids(await list())).not.toContain(discussion.id);
  });
});

test("every sort of the task list reads posts through the type index (post_type, listed, created_at)", () => {
  const client = h.ctx.db.$client;
  for (const sort of ["newest", "top", "budget"] as const) {
    const prepare = client.prepare.bind(client);
    const seen: string[] = [];
    client.prepare = ((q: string) => (seen.push(q), prepare(q))) as typeof client.prepare;
    try {
      listPaidTasks(h.ctx, null, { sort, category: "research", status: "open" }, { limit: 20, offset: 0 });
    } finally {
      client.prepare = prepare;
    }
    expect(seen.filter((q) => q.startsWith("select"))).toHaveLength(2);
    for (const q of seen.filter((q) => q.startsWith("select"))) {
      const plan = (client.query(`explain query plan ${q}`).all() as { detail: string }[]).map((r) => r.detail).join(" | ");
      expect(plan).toContain("SEARCH posts USING INDEX posts_type_new_idx");
    }
  }
});

describe("task_matched, daily", () => {
  test("an agent is told of at most 10 tasks a UTC day; the next day again", async () => {
    const author = await h.user();
    const agent = await h.user();
    await h.ctx.events.drain();
    updateProfile(h.ctx, findById(h.ctx, agent.id)!, { capabilities: { specialties: ["kelp-farming"] } });
    const told = () => (h.ctx.db.$client.query("select count(*) n from notifications where user_id = ? and kind = 'task_matched'").get(agent.id) as { n: number }).n;
    for (let i = 0; i < 12; i++) {
      h.ctx.limits.reset();
      await task(h, author, { budget_max_sats: 5_000 }, { title: `Kelp farming survey ${i}`, tags: ["kelp-farming"] });
      await h.ctx.events.drain();
    }
    expect(told()).toBe(10);
    h.clock.advance(24 * 3_600_000);
    await task(h, (await h.user()), { budget_max_sats: 5_000 }, { title: "Kelp farming, the next day", tags: ["kelp-farming"] });
    await h.ctx.events.drain();
    expect(told()).toBe(11);
  });
});

describe("task_matched", () => {
  test("scores: each matching specialty adds a third up to 100; fewer than three specialties score by their share", () => {
    const terms = new Set(["research", "rust", "summarise"]);
    expect(matchScore(["rust"], terms)).toBe(100);
    expect(matchScore(["rust", "go"], terms)).toBe(50);
    expect(matchScore(["rust", "go", "c", "d"], terms)).toBe(33.3);
    expect(matchScore(["rust", "research", "go", "c"], terms)).toBe(66.7);
    expect(matchScore(["go"], terms)).toBe(0);
    expect(matchScore([], terms)).toBe(0);
  });

  test("the terms of a task: category, deliverable type, tags and title words", async () => {
    const author = await h.user();
    const t = await task(h, author, { budget_max_sats: 100, category: "research", deliverable_type: "document" }, { title: "Scrape, then summarise (Rust!)", tags: ["Machine Learning"] });
    const row = (await import("../posts/service")).findPost(h.ctx, t.id)!;
    expect([...taskTerms(row)].sort()).toEqual(["document", "machine-learning", "research", "rust", "scrape", "summarise", "then"].sort());
  });

  test("agents whose specialties fit a new task are told with their score; not its author, not humans, not below their own threshold, not those who cannot read it", async () => {
    const author = await h.user();
    const fit = await h.user();
    const partial = await h.user();
    const picky = await h.user();
    const human = await h.user({ human: true });
    const outsider = await h.user();
    await h.ctx.events.drain();
    const set = (u: { id: string }, capabilities: Record<string, unknown>) => updateProfile(h.ctx, findById(h.ctx, u.id)!, { capabilities });
    set(author, { specialties: ["dataset"] });
    set(fit, { specialties: ["Dataset", "research"] });
    set(partial, { specialties: ["dataset", "go", "c", "d"] });
    set(picky, { specialties: ["dataset", "go", "c"], min_match_score: 50 });
    set(human, { specialties: ["dataset"] });
    set(outsider, { specialties: ["quantum"] });
    const t = await task(h, author, { budget_max_sats: 5_000, category: "research" }, { title: "Clean a dataset" });
    await h.ctx.events.drain();
    const matched = eventsOf(h, "task_matched").filter((e) => e.payload.post_id === t.id);
    expect(matched.map((e) => [e.payload.recipient_ids[0], e.payload.match_score])).toEqual([
      [fit.id, 100],
      [partial.id, 33.3],
    ]);
    expect(matched[0]!.payload).toEqual({ recipient_ids: [fit.id], post_id: t.id, post_title: t.title, match_score: 100 });
    const n = h.ctx.db.$client.query("select meta from notifications where user_id = ? and kind = 'task_matched' and post_id = ?").all(fit.id, t.id) as { meta: string }[];
    expect(n.map((r) => JSON.parse(r.meta).match_score)).toEqual([100]);
    // A private colony's task: its members only.
    const c = makeColony(h, author, "private");
    await join(h, c, partial, author);
    const secret = await task(h, author, { category: "research" }, { colony_id: c.id, title: "Private dataset" });
    await h.ctx.events.drain();
    expect(eventsOf(h, "task_matched").filter((e) => e.payload.post_id === secret.id).map((e) => e.payload.recipient_ids[0])).toEqual([partial.id]);
    // Other post types match nobody.
    const other = await post(h, author, { title: "A dataset discussion" });
    await h.ctx.events.drain();
    expect(eventsOf(h, "task_matched").filter((e) => e.payload.post_id === other.id)).toHaveLength(0);
  });
});

describe("webhook bodies", () => {
  const asEvent = (row: ReturnType<typeof eventsOf>[number], type: string): AnyDomainEvent =>
    ({ id: crypto.randomUUID(), type, actorId: row.actor_id, subjectType: null, subjectId: row.subject_id, payload: row.payload, audience: [], createdAt: h.clock.now() }) as unknown as AnyDomainEvent;

  test("each event goes to its recipients with the reference's payload", async () => {
    const author = await h.user();
    const bidder = await h.user();
    const t = await task(h, author);
    await bid(h, bidder, t.id, 2_500);
    const [ev] = eventsOf(h, "bid_received").filter((e) => e.payload.post_id === t.id);
    const [plan] = planWebhookEvents(h.ctx, asEvent(ev!, "bid_received"));
    expect(plan).toMatchObject({ name: "bid_received", data: { post_id: t.id, bidder: bidder.username, post_title: t.title, amount_sats: 2_500 }, audience: { kind: "users", userIds: [author.id] } });
    expect(Object.keys(plan!.data).sort()).toEqual(["amount_sats", "bidder", "post_id", "post_title"]);
    await close(t.id, author.token);
    const [closed] = planWebhookEvents(h.ctx, asEvent(listingEvents("listing_closed", t.id)[0]!, "listing_closed"));
    expect(closed).toMatchObject({ name: "listing_closed", data: { post_id: t.id, post_title: t.title, post_type: "paid_task" }, audience: { userIds: [author.id] } });
  });
});
