// Reviews: of a completed task's accepted bid by either party (the other is rated), once each;
// one immutable reply by the ratee; a user's reviews newest first and their summary; the order
// side through the registry the offers feature plugs into (404 until it is registered).
import { describe, expect, test } from "bun:test";
import { setup, type TestUser } from "../../../test/harness";
import { eventsOf } from "../posts/fixtures";
import { acceptedTask, completedTask, paidTask, placed, task } from "../marketplace/fixtures";
import { registerSubject } from "./service";

const h = setup();

const review = (bidId: string, user: TestUser | null, body: Record<string, unknown> = { rating: 5, comment: "Delivered early, clean work." }) =>
  h.req("POST", `/api/v1/reviews/bids/${bidId}`, { token: user?.token, body });
const replyTo = (reviewId: string, user: TestUser | null, body: unknown = { body: "Thank you!" }) => h.req("POST", `/api/v1/reviews/${reviewId}/reply`, { token: user?.token, body });
const told = (userId: string, kind: string) => h.ctx.db.$client.query("select actor_id, meta from notifications where user_id = ? and kind = ?").all(userId, kind) as { actor_id: string; meta: string }[];

describe("POST /reviews/bids/{bid_id}", () => {
  test("the author rates the worker and the worker the author: 201 MarketplaceReviewOut, the ratee told", async () => {
    const author = await h.user();
    const worker = await h.user();
    const t = await completedTask(h, author, worker);
    const r = await review(t.bid.id, author);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ post_id: t.post.id, bid_id: t.bid.id, service_order_id: null, rating: 5, comment: "Delivered early, clean work.", reply_body: null, reply_at: null });
    expect(r.body.rater.id).toBe(author.id);
    expect(r.body.ratee.id).toBe(worker.id);
    const back = await review(t.bid.id, worker, { rating: 3 });
    expect(back.status).toBe(201);
    expect(back.body).toMatchObject({ rating: 3, comment: null });
    expect(back.body.ratee.id).toBe(author.id);
    const events = eventsOf(h, "review_received").filter((e) => e.payload.post_id === t.post.id);
    expect(events.map((e) => e.payload)).toEqual([
      { recipient_ids: [worker.id], review_id: r.body.id, post_id: t.post.id, post_title: t.post.title, rater: author.username, rating: 5, has_comment: true },
      { recipient_ids: [author.id], review_id: back.body.id, post_id: t.post.id, post_title: t.post.title, rater: worker.username, rating: 3, has_comment: false },
    ]);
    expect(told(worker.id, "review_received")).toHaveLength(1);
    expect(told(author.id, "review_received")).toHaveLength(1);
  });

  test("a second review by the same party is 409 CONFLICT", async () => {
    const author = await h.user();
    const t = await completedTask(h, author, await h.user());
    expect((await review(t.bid.id, author)).status).toBe(201);
    const again = await review(t.bid.id, author, { rating: 1 });
    expect(again.status).toBe(409);
    expect(again.body.detail.code).toBe("CONFLICT");
    expect(h.ctx.db.$client.query("select count(*) n from reviews where subject_id = ?").get(t.bid.id)).toEqual({ n: 1 });
  });

  test("before the task is completed, or for a bid that was not accepted: 400 INVALID_INPUT", async () => {
    const author = await h.user();
    const worker = await h.user();
    const accepted = await acceptedTask(h, author, worker);
    expect((await review(accepted.bid.id, author)).body.detail.code).toBe("INVALID_INPUT");
    const paid = await paidTask(h, author, worker);
    const early = await review(paid.bid.id, worker);
    expect(early.status).toBe(400);
    expect(early.body.detail.message).toContain("paid");
    const t = await task(h, author);
    const loser = await h.user();
    const lost = await placed(h, loser, t.id);
    expect((await review(lost.id, loser)).status).toBe(400);
    expect(h.ctx.db.$client.query("select count(*) n from reviews where subject_id in (?, ?, ?)").get(accepted.bid.id, paid.bid.id, lost.id)).toEqual({ n: 0 });
  });

  test("refusals: a stranger 403 FORBIDDEN, an unknown bid 404, anonymous 401, a rating outside 1-5 or a long comment 422", async () => {
    const author = await h.user();
    const t = await completedTask(h, author, await h.user());
    const stranger = await review(t.bid.id, await h.user());
    expect(stranger.status).toBe(403);
    expect(stranger.body.detail.code).toBe("FORBIDDEN");
    expect((await review(crypto.randomUUID(), author)).status).toBe(404);
    expect((await review(t.bid.id, null)).status).toBe(401);
    for (const body of [{ rating: 0 }, { rating: 6 }, { rating: 4.5 }, {}, { rating: 4, comment: "x".repeat(2_001) }]) expect((await review(t.bid.id, author, body)).status).toBe(422);
    const blank = await review(t.bid.id, author, { rating: 4, comment: "   " });
    expect(blank.status).toBe(201);
    expect(blank.body.comment).toBeNull();
  });
});

describe("POST /reviews/orders/{order_id}", () => {
  test("404 while no order exists (the offers feature registers how orders are read)", async () => {
    const buyer = await h.user();
    const r = await h.req("POST", `/api/v1/reviews/orders/${crypto.randomUUID()}`, { token: buyer.token, body: { rating: 4 } });
    expect(r.status).toBe(404);
    expect(r.body.detail.code).toBe("NOT_FOUND");
  });

  test("through the registry: the buyer rates the seller once the order is done, with service_order_id", async () => {
    const buyer = await h.user();
    const seller = await h.user();
    const offer = await task(h, seller);
    const orderId = crypto.randomUUID();
    let state = "paid";
    const previous = registerSubject("order", (_ctx, id) => (id === orderId ? { postId: offer.id, postTitle: offer.title, parties: [buyer.id, seller.id], notYet: state === "delivered" ? null : `The order is ${state}` } : null));
    try {
      const url = `/api/v1/reviews/orders/${orderId}`;
      expect((await h.req("POST", url, { token: buyer.token, body: { rating: 4 } })).status).toBe(400);
      state = "delivered";
      expect((await h.req("POST", url, { token: (await h.user()).token, body: { rating: 4 } })).status).toBe(404);
      const r = await h.req("POST", url, { token: buyer.token, body: { rating: 4, comment: "Good" } });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ post_id: offer.id, bid_id: null, service_order_id: orderId, rating: 4 });
      expect(r.body.ratee.id).toBe(seller.id);
      expect((await h.req("POST", url, { token: buyer.token, body: { rating: 4 } })).status).toBe(409);
      expect((await h.req("POST", url, { token: seller.token, body: { rating: 5 } })).body.ratee.id).toBe(buyer.id);
      // An order's id and a bid's never meet: the same id as a bid is unknown.
      expect((await review(orderId, buyer)).status).toBe(404);
    } finally {
      registerSubject("order", previous);
    }
    expect((await h.req("POST", `/api/v1/reviews/orders/${orderId}`, { token: buyer.token, body: { rating: 4 } })).status).toBe(404);
  });
});

describe("POST /reviews/{review_id}/reply", () => {
  test("the ratee replies once, for good; the rater is told; a second reply is 409", async () => {
    const author = await h.user();
    const worker = await h.user();
    const t = await completedTask(h, author, worker);
    const rev = (await review(t.bid.id, author)).body;
    h.clock.advance(60_000);
    const r = await replyTo(rev.id, worker, { body: "  Thanks, a pleasure.  " });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ id: rev.id, reply_body: "Thanks, a pleasure.", reply_at: new Date(h.clock.now()).toISOString(), rating: 5 });
    expect(eventsOf(h, "review_replied").filter((e) => e.payload.review_id === rev.id).map((e) => e.payload)).toEqual([
      { recipient_ids: [author.id], review_id: rev.id, post_id: t.post.id, post_title: t.post.title, replier: worker.username },
    ]);
    expect(told(author.id, "review_replied")).toHaveLength(1);
    const again = await replyTo(rev.id, worker, { body: "Edited" });
    expect(again.status).toBe(409);
    expect(again.body.detail.code).toBe("CONFLICT");
    const list = await h.req("GET", `/api/v1/reviews/users/${worker.username}`);
    expect(list.body.items[0].reply_body).toBe("Thanks, a pleasure.");
  });

  test("refusals: the rater or a stranger 403, an unknown review 404, anonymous 401, an empty body 422 and a blank one 400", async () => {
    const author = await h.user();
    const worker = await h.user();
    const t = await completedTask(h, author, worker);
    const rev = (await review(t.bid.id, author)).body;
    expect((await replyTo(rev.id, author)).status).toBe(403);
    expect((await replyTo(rev.id, await h.user())).body.detail.code).toBe("FORBIDDEN");
    expect((await replyTo(crypto.randomUUID(), worker)).status).toBe(404);
    expect((await replyTo(rev.id, null)).status).toBe(401);
    expect((await replyTo(rev.id, worker, { body: "" })).status).toBe(422);
    expect((await replyTo(rev.id, worker, { body: "x".repeat(2_001) })).status).toBe(422);
    expect((await replyTo(rev.id, worker, { body: "   " })).status).toBe(400);
    expect((await replyTo(rev.id, worker)).status).toBe(201);
  });
});

describe("GET /reviews/users/{username} and …/summary", () => {
  test("reviews received, newest first, paged, by username or id; the summary counts, averages and histograms them", async () => {
    const worker = await h.user();
    const empty = await h.req("GET", `/api/v1/reviews/users/${worker.username}/summary`);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ user_id: worker.id, count: 0, average: null, histogram: { "1": 0, "2": 0, "3": 0, "4": 0, "5": 0 } });
    expect((await h.req("GET", `/api/v1/reviews/users/${worker.username}`)).body).toEqual({ items: [], total: 0, has_more: false });
    const ids: string[] = [];
    for (const rating of [5, 4, 4]) {
      const author = await h.user();
      const t = await completedTask(h, author, worker);
      h.clock.advance(1_000);
      ids.push((await review(t.bid.id, author, { rating })).body.id);
    }
    const r = await h.req("GET", `/api/v1/reviews/users/${worker.username}`);
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(3);
    expect(r.body.items.map((i: any) => i.id)).toEqual([...ids].reverse());
    const page = await h.req("GET", `/api/v1/reviews/users/${worker.id}`, { query: { limit: 1, offset: 1 } });
    expect(page.body).toMatchObject({ total: 3, has_more: true });
    expect(page.body.items[0].id).toBe(ids[1]);
    const s = await h.req("GET", `/api/v1/reviews/users/${worker.id}/summary`);
    expect(s.body).toEqual({ user_id: worker.id, count: 3, average: 4.33, histogram: { "1": 0, "2": 0, "3": 0, "4": 2, "5": 1 } });
  });

  test("an unknown user is 404 USER_NOT_FOUND", async () => {
    expect((await h.req("GET", "/api/v1/reviews/users/nobody-at-all")).body.detail.code).toBe("USER_NOT_FOUND");
    expect((await h.req("GET", `/api/v1/reviews/users/${crypto.randomUUID()}/summary`)).status).toBe(404);
  });
});
