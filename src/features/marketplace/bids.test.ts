// Bids on paid tasks: the budget range and the 21-sat floor, who may bid, one pending bid each,
// closed listings, the bid list; accept (the others rejected, the invoice issued once, 502 and
// nothing changed when the wallet fails), reject and withdraw; every event of them.
import { describe, expect, test } from "bun:test";
import { setup } from "../../../test/harness";
import { eventsOf, join, makeColony, post } from "../posts/fixtures";
import { accept, bid, bidStatus, count, invoicesOf, placed, statusOf, task } from "./fixtures";

const h = setup();

const notifications = (userId: string, kind: string) => h.ctx.db.$client.query("select meta, actor_id from notifications where user_id = ? and kind = ? order by id").all(userId, kind) as { meta: string; actor_id: string | null }[];

describe("PUT /posts/{id} on a task", () => {
  test("the author edits a task without bids; once it has one (even withdrawn), 400 CONFLICT and nothing changes", async () => {
    const author = await h.user();
    const t = await task(h, author);
    const edit = (title: string) => h.req("PUT", `/api/v1/posts/${t.id}`, { token: author.token, body: { title } });
    expect((await edit("A task still without bids")).status).toBe(200);
    const bidder = await h.user();
    const b = await bid(h, bidder, t.id);
    expect(b.status).toBe(201);
    const r = await edit("Changed after a bid");
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatchObject({ code: "CONFLICT", message: "This task already has bids and can no longer be edited" });
    expect((await h.req("GET", `/api/v1/posts/${t.id}`)).body.title).toBe("A task still without bids");
    expect((await h.req("POST", `/api/v1/marketplace/${t.id}/bid/${b.body.id}/withdraw`, { token: bidder.token })).status).toBe(200);
    expect((await edit("Changed after a withdrawn bid")).status).toBe(400);
  });
});

describe("POST /marketplace/{post_id}/bid", () => {
  test("201 with the reference's BidOut; the first bid moves the task to bidding and tells its author", async () => {
    const author = await h.user();
    const bidder = await h.user();
    const t = await task(h, author);
    expect(t.status).toBe("open");
    const r = await bid(h, bidder, t.id, 2_500, "  Nightly digest, done by 06:00 UTC.  ");
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ post_id: t.id, bid_amount_sats: 2_500, bid_description: "Nightly digest, done by 06:00 UTC.", status: "pending" });
    expect(r.body.bidder).toMatchObject({ id: bidder.id, username: bidder.username });
    expect(r.body.created_at).toMatch(/Z$/);
    expect(statusOf(h, t.id)).toBe("bidding");
    const [ev] = eventsOf(h, "bid_received").filter((e) => e.payload.post_id === t.id);
    expect(ev!.payload).toEqual({ recipient_ids: [author.id], post_id: t.id, bidder: bidder.username, post_title: t.title, amount_sats: 2_500 });
    expect(ev!.subject_id).toBe(r.body.id);
    const told = notifications(author.id, "bid_received");
    expect(told).toHaveLength(1);
    expect(JSON.parse(told[0]!.meta)).toMatchObject({ post_title: t.title, amount_sats: 2_500, bid_id: r.body.id });
    // The notification reads as a sentence.
    const list = await h.req("GET", "/api/v1/notifications", { token: author.token });
    expect(JSON.stringify(list.body)).toContain(`bid 2,500 sats on your task`);
    // A second bidder leaves the task bidding.
    expect((await bid(h, await h.user(), t.id, 3_000)).status).toBe(201);
    expect(statusOf(h, t.id)).toBe("bidding");
  });

  test("the amount must fall within the budget range (inclusive)", async () => {
    const author = await h.user();
    const t = await task(h, author, { budget_min_sats: 1_000, budget_max_sats: 5_000 });
    for (const [amount, status] of [
      [999, 400],
      [1_000, 201],
      [5_000, 201],
      [5_001, 400],
    ] as const) {
      const r = await bid(h, await h.user(), t.id, amount);
      expect(r.status).toBe(status);
      if (status === 400) {
        expect(r.body.detail.code).toBe("INVALID_INPUT");
        expect(r.body.detail.message).toContain("1,000 to 5,000");
      }
    }
  });

  test("every bid is at least 21 sats: the floor raises a budget minimum below it", async () => {
    const author = await h.user();
    const t = await task(h, author, { budget_min_sats: 5, budget_max_sats: 100 });
    expect((await bid(h, await h.user(), t.id, 20)).status).toBe(400);
    expect((await bid(h, await h.user(), t.id, 21)).status).toBe(201);
    const onlyMax = await task(h, author, { budget_max_sats: 50 });
    expect((await bid(h, await h.user(), onlyMax.id, 20)).body.detail.message).toContain("21 to 50");
    expect((await bid(h, await h.user(), onlyMax.id, 50)).status).toBe(201);
  });

  test("without a budget: 21 to 100,000,000 sats; past it the schema refuses (422)", async () => {
    const author = await h.user();
    const t = await task(h, author, {});
    expect(t.metadata_).toEqual({});
    const low = await bid(h, await h.user(), t.id, 20);
    expect(low.status).toBe(400);
    expect(low.body.detail.message).toContain("declares no budget");
    expect((await bid(h, await h.user(), t.id, 21)).status).toBe(201);
    expect((await bid(h, await h.user(), t.id, 100_000_000)).status).toBe(201);
    expect((await bid(h, await h.user(), t.id, 100_000_001)).status).toBe(422);
    const onlyMin = await task(h, author, { budget_min_sats: 500 });
    expect((await bid(h, await h.user(), onlyMin.id, 499)).status).toBe(400);
    expect((await bid(h, await h.user(), onlyMin.id, 100_000_000)).status).toBe(201);
  });

  test("bad bodies: 422 for a missing, fractional, zero or text amount and a description under 10 characters; 400 when only spaces make it 10", async () => {
    const author = await h.user();
    const bidder = await h.user();
    const t = await task(h, author);
    for (const body of [
      { bid_description: "A fine description" },
      { bid_amount_sats: 1.5, bid_description: "A fine description" },
      { bid_amount_sats: 0, bid_description: "A fine description" },
      { bid_amount_sats: "lots", bid_description: "A fine description" },
      { bid_amount_sats: 500, bid_description: "too short" },
      { bid_amount_sats: 500, bid_description: "x".repeat(5_001) },
      { bid_amount_sats: 500 },
    ]) {
      const r = await h.req("POST", `/api/v1/marketplace/${t.id}/bid`, { token: bidder.token, body });
      expect(r.status).toBe(422);
    }
    const padded = await bid(h, bidder, t.id, 500, "   short    ");
    expect(padded.status).toBe(400);
    expect(padded.body.detail.code).toBe("INVALID_INPUT");
    expect(count(h, "bids where post_id = ?", t.id)).toBe(0);
    expect(statusOf(h, t.id)).toBe("open");
  });

  test("refusals: your own task 400, anonymous 401, a post of another type or one you cannot see 404, a second pending bid 409", async () => {
    const author = await h.user();
    const bidder = await h.user();
    const t = await task(h, author);
    const own = await bid(h, author, t.id);
    expect(own.status).toBe(400);
    expect(own.body.detail.code).toBe("INVALID_INPUT");
    expect((await h.req("POST", `/api/v1/marketplace/${t.id}/bid`, { body: { bid_amount_sats: 500, bid_description: "A fine description" } })).status).toBe(401);
    const discussion = await post(h, author);
    expect((await bid(h, bidder, discussion.id)).status).toBe(404);
    expect((await bid(h, bidder, crypto.randomUUID())).status).toBe(404);
    const secret = makeColony(h, author, "private");
    const hidden = await task(h, author, undefined, { colony_id: secret.id });
    expect((await bid(h, bidder, hidden.id)).body.detail.code).toBe("NOT_FOUND");
    expect((await bid(h, bidder, t.id)).status).toBe(201);
    const again = await bid(h, bidder, t.id, 2_000);
    expect(again.status).toBe(409);
    expect(again.body.detail.code).toBe("CONFLICT");
    expect(count(h, "bids where post_id = ? and bidder_id = ?", t.id, bidder.id)).toBe(1);
  });

  test("a restricted colony's non-member is refused (403) and an approved member may bid", async () => {
    const author = await h.user();
    const bidder = await h.user();
    const c = makeColony(h, author, "restricted");
    const t = await task(h, author, undefined, { colony_id: c.id });
    const r = await bid(h, bidder, t.id);
    expect(r.status).toBe(403);
    await join(h, c, bidder, author);
    expect((await bid(h, bidder, t.id)).status).toBe(201);
  });

  test("a closed listing refuses new bids with 400 CONFLICT and its closed_at; reopened, it takes them again", async () => {
    const author = await h.user();
    const t = await task(h, author);
    const closed = await h.req("POST", `/api/v1/posts/${t.id}/close`, { token: author.token });
    const r = await bid(h, await h.user(), t.id);
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatchObject({ code: "CONFLICT", closed_at: closed.body.closed_at });
    await h.req("POST", `/api/v1/posts/${t.id}/reopen`, { token: author.token });
    expect((await bid(h, await h.user(), t.id)).status).toBe(201);
  });

  test("once a bid is accepted the task takes no more bids (400 INVALID_INPUT)", async () => {
    const author = await h.user();
    const t = await task(h, author);
    const b = await placed(h, await h.user(), t.id);
    expect((await accept(h, author, t.id, b.id)).status).toBe(200);
    const late = await bid(h, await h.user(), t.id);
    expect(late.status).toBe(400);
    expect(late.body.detail).toMatchObject({ code: "INVALID_INPUT" });
    expect(late.body.detail.message).toContain("accepted");
  });

  test("bids are limited to 10 an hour per bidder (429)", async () => {
    const authors = [await h.user(), await h.user()];
    const bidder = await h.user();
    const tasks = [];
    for (let i = 0; i < 11; i++) tasks.push(await task(h, authors[i % 2]!));
    const answers = [];
    for (const t of tasks) answers.push((await bid(h, bidder, t.id)).status);
    expect(answers.slice(0, 10).every((s) => s === 201)).toBe(true);
    expect(answers[10]).toBe(429);
  });
});

describe("GET /marketplace/{post_id}/bids", () => {
  test("every bid newest first, whatever its status, to anyone who can see the task; paged", async () => {
    const author = await h.user();
    const t = await task(h, author);
    const a = await placed(h, await h.user(), t.id, 100);
    h.clock.advance(1_000);
    const b = await placed(h, await h.user(), t.id, 200);
    h.clock.advance(1_000);
    const c = await placed(h, await h.user(), t.id, 300);
    await h.req("POST", `/api/v1/marketplace/${t.id}/bid/${a.id}/reject`, { token: author.token });
    const r = await h.req("GET", `/api/v1/marketplace/${t.id}/bids`);
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(3);
    expect(r.body.has_more).toBe(false);
    expect(r.body.items.map((x: any) => [x.id, x.status])).toEqual([
      [c.id, "pending"],
      [b.id, "pending"],
      [a.id, "rejected"],
    ]);
    const page = await h.req("GET", `/api/v1/marketplace/${t.id}/bids`, { query: { limit: 1, page: 2 } });
    expect(page.body).toMatchObject({ total: 3, has_more: true, page: 2 });
    expect(page.body.items[0].id).toBe(b.id);
  });

  test("404 for another post type, an unknown id and a task the caller cannot see", async () => {
    const author = await h.user();
    expect((await h.req("GET", `/api/v1/marketplace/${(await post(h, author)).id}/bids`)).status).toBe(404);
    expect((await h.req("GET", `/api/v1/marketplace/${crypto.randomUUID()}/bids`)).status).toBe(404);
    const hidden = await task(h, author, undefined, { colony_id: makeColony(h, author, "private").id });
    expect((await h.req("GET", `/api/v1/marketplace/${hidden.id}/bids`, { token: (await h.user()).token })).status).toBe(404);
    expect((await h.req("GET", `/api/v1/marketplace/${hidden.id}/bids`, { token: author.token })).status).toBe(200);
  });
});

describe("POST …/bid/{bid_id}/accept", () => {
  test("accepts the bid, rejects every other pending bid, moves the task to accepted and issues one invoice; events to each side", async () => {
    const author = await h.user();
    const [w, x, y] = [await h.user(), await h.user(), await h.user()];
    const t = await task(h, author);
    const win = await placed(h, w, t.id, 4_000);
    const lose1 = await placed(h, x, t.id, 3_000);
    const lose2 = await placed(h, y, t.id, 2_000);
    await h.req("POST", `/api/v1/marketplace/${t.id}/bid/${lose2.id}/withdraw`, { token: y.token });
    const r = await accept(h, author, t.id, win.id);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: win.id, status: "accepted", bid_amount_sats: 4_000 });
    expect(statusOf(h, t.id)).toBe("accepted");
    expect([bidStatus(h, lose1.id), bidStatus(h, lose2.id)]).toEqual(["rejected", "withdrawn"]);
    expect(invoicesOf(h, win.id)).toBe(1);
    const inv = h.ctx.db.$client.query("select amount_sats, status, expires_at from invoices where subject_id = ?").get(win.id) as { amount_sats: number; status: string; expires_at: number };
    expect(inv).toMatchObject({ amount_sats: 4_000, status: "pending", expires_at: h.clock.now() + 24 * 3600_000 });
    expect(eventsOf(h, "bid_accepted").filter((e) => e.payload.post_id === t.id).map((e) => e.payload)).toEqual([{ recipient_ids: [w.id], post_id: t.id, poster: author.username, post_title: t.title }]);
    expect(eventsOf(h, "bid_rejected").filter((e) => e.payload.post_id === t.id).map((e) => e.payload)).toEqual([{ recipient_ids: [x.id], post_id: t.id, post_title: t.title, poster: author.username }]);
    expect(notifications(w.id, "bid_accepted")).toHaveLength(1);
    expect(notifications(x.id, "bid_rejected")).toHaveLength(1);
    expect(notifications(y.id, "bid_rejected")).toHaveLength(0);
  });

  test("a second accept is 400 CONFLICT and never a second invoice, one after the other or both at once", async () => {
    const author = await h.user();
    const t = await task(h, author);
    const b = await placed(h, await h.user(), t.id);
    const [one, two] = await Promise.all([accept(h, author, t.id, b.id), accept(h, author, t.id, b.id)]);
    expect([one.status, two.status].sort()).toEqual([200, 400]);
    expect([one, two].find((r) => r.status === 400)!.body.detail.code).toBe("CONFLICT");
    const again = await accept(h, author, t.id, b.id);
    expect(again.status).toBe(400);
    expect(again.body.detail.code).toBe("CONFLICT");
    expect(invoicesOf(h, b.id)).toBe(1);
    expect(eventsOf(h, "bid_accepted").filter((e) => e.payload.post_id === t.id)).toHaveLength(1);
  });

  test("two different bids accepted at once: one wins, the other was rejected by it (400 INVALID_INPUT); one invoice in all", async () => {
    const author = await h.user();
    const t = await task(h, author);
    const a = await placed(h, await h.user(), t.id);
    const b = await placed(h, await h.user(), t.id);
    const answers = await Promise.all([accept(h, author, t.id, a.id), accept(h, author, t.id, b.id)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(answers.find((r) => r.status === 400)!.body.detail.code).toBe("INVALID_INPUT");
    expect(count(h, "invoices where purpose = 'task' and subject_id in (?, ?)", a.id, b.id)).toBe(1);
  });

  test("refusals: a stranger 403, anonymous 401, a rejected or withdrawn bid 400, a bid of another task or an unknown one 404", async () => {
    const author = await h.user();
    const bidder = await h.user();
    const t = await task(h, author);
    const other = await task(h, author);
    const b = await placed(h, bidder, t.id);
    const elsewhere = await placed(h, bidder, other.id);
    const stranger = await accept(h, bidder, t.id, b.id);
    expect(stranger.status).toBe(403);
    expect(stranger.body.detail.code).toBe("FORBIDDEN");
    expect((await h.req("POST", `/api/v1/marketplace/${t.id}/bid/${b.id}/accept`)).status).toBe(401);
    expect((await accept(h, author, t.id, elsewhere.id)).status).toBe(404);
    expect((await accept(h, author, t.id, crypto.randomUUID())).status).toBe(404);
    await h.req("POST", `/api/v1/marketplace/${t.id}/bid/${b.id}/reject`, { token: author.token });
    const rejected = await accept(h, author, t.id, b.id);
    expect(rejected.status).toBe(400);
    expect(rejected.body.detail.code).toBe("INVALID_INPUT");
    expect(statusOf(h, t.id)).toBe("bidding");
    expect(invoicesOf(h, b.id)).toBe(0);
  });

  test("a closed listing's existing bids can still be accepted", async () => {
    const author = await h.user();
    const t = await task(h, author);
    const b = await placed(h, await h.user(), t.id);
    await h.req("POST", `/api/v1/posts/${t.id}/close`, { token: author.token });
    expect((await accept(h, author, t.id, b.id)).status).toBe(200);
    expect(statusOf(h, t.id)).toBe("accepted");
  });
});

describe("POST …/bid/{bid_id}/reject and …/withdraw", () => {
  test("the author rejects one pending bid: the bidder is told, the task keeps bidding; a second reject is 400", async () => {
    const author = await h.user();
    const bidder = await h.user();
    const t = await task(h, author);
    const b = await placed(h, bidder, t.id);
    const r = await h.req("POST", `/api/v1/marketplace/${t.id}/bid/${b.id}/reject`, { token: author.token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: b.id, status: "rejected" });
    expect(statusOf(h, t.id)).toBe("bidding");
    expect(eventsOf(h, "bid_rejected").filter((e) => e.payload.post_id === t.id).map((e) => e.payload.recipient_ids)).toEqual([[bidder.id]]);
    expect(notifications(bidder.id, "bid_rejected")).toHaveLength(1);
    const again = await h.req("POST", `/api/v1/marketplace/${t.id}/bid/${b.id}/reject`, { token: author.token });
    expect(again.status).toBe(400);
    expect(again.body.detail.code).toBe("INVALID_INPUT");
    // The rejected bidder may bid again.
    expect((await bid(h, bidder, t.id)).status).toBe(201);
  });

  test("reject: 403 for anyone but the author, 404 for a bid of another task", async () => {
    const author = await h.user();
    const bidder = await h.user();
    const t = await task(h, author);
    const b = await placed(h, bidder, t.id);
    expect((await h.req("POST", `/api/v1/marketplace/${t.id}/bid/${b.id}/reject`, { token: bidder.token })).status).toBe(403);
    const other = await task(h, author);
    expect((await h.req("POST", `/api/v1/marketplace/${other.id}/bid/${b.id}/reject`, { token: author.token })).status).toBe(404);
    expect(bidStatus(h, b.id)).toBe("pending");
  });

  test("withdraw: the bidder only (403 otherwise), pending only (400); the bidder may then bid again", async () => {
    const author = await h.user();
    const bidder = await h.user();
    const t = await task(h, author);
    const b = await placed(h, bidder, t.id, 700);
    expect((await h.req("POST", `/api/v1/marketplace/${t.id}/bid/${b.id}/withdraw`, { token: author.token })).status).toBe(403);
    const r = await h.req("POST", `/api/v1/marketplace/${t.id}/bid/${b.id}/withdraw`, { token: bidder.token });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe("withdrawn");
    expect((await h.req("POST", `/api/v1/marketplace/${t.id}/bid/${b.id}/withdraw`, { token: bidder.token })).status).toBe(400);
    expect((await bid(h, bidder, t.id, 900)).status).toBe(201);
  });

  test("a deleted account's pending bids are withdrawn", async () => {
    const author = await h.user();
    const bidder = await h.user();
    const t = await task(h, author);
    const b = await placed(h, bidder, t.id);
    h.ctx.db.transaction((tx) => h.ctx.events.emit(tx, { type: "account_deleted", actorId: bidder.id, payload: { user_id: bidder.id, username: bidder.username } }));
    await h.ctx.events.drain();
    expect(bidStatus(h, b.id)).toBe("withdrawn");
  });
});
