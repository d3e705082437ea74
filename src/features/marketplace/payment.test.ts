// A task's payment and completion: the invoice shown, checked and settled once (the poller and a
// check at once, a settlement reported on every look-up), the task moving accepted → paid →
// completed, the worker's payout of 95 %; against the development wallet and a fake LNbits on
// 127.0.0.1 with failures injected (500s, timeouts, an invoice that never settles), expiry and a
// new invoice on the test clock.
import { afterAll, describe, expect, test } from "bun:test";
import { FakeLnbits, lnbitsWallet, withWallet } from "../../../test/fake-lnbits";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import type { LazyWallet } from "../../adapters/lightning";
import { issueToken } from "../auth/service";
import * as payments from "../payments/service";
import { pollUntilIdle } from "../payments/fixtures";
import { eventsOf, post } from "../posts/fixtures";
import { accept, acceptedTask, bidStatus, completedTask, devWallet, invoicesOf, paidTask, payAtWallet, placed, setLightningAddress, statusOf, task } from "./fixtures";

// One harness for the file, each test with tasks and people of its own. A test that runs the
// invoice poller against a wallet failing once, or spends the per-address limit anonymous checks
// share, has a harness of its own (`const h = setup()`).
const h = setup();

const getPayment = (h: Harness, postId: string, token?: string) => h.req("GET", `/api/v1/marketplace/${postId}/payment`, { token });
const check = (h: Harness, postId: string, token?: string) => h.req("POST", `/api/v1/marketplace/${postId}/payment/check`, { token });
const complete = (h: Harness, postId: string, user: TestUser) => h.req("POST", `/api/v1/marketplace/${postId}/complete`, { token: user.token });
/** A new access token after the clock moved past the old one's lifetime. */
const refresh = async (h: Harness, u: TestUser) => void (u.token = (await issueToken(h.ctx, u.apiKey)).access_token);
const paymentEvents = (h: Harness, postId: string) => eventsOf(h, "payment_received").filter((e) => e.payload.post_id === postId);

describe("GET /marketplace/{post_id}/payment", () => {
  test("null before a bid is accepted; then the invoice (PaymentOut), to anyone who can see the task", async () => {
    const author = await h.user();
    const worker = await h.user();
    const t = await task(h, author);
    const before = await getPayment(h, t.id);
    expect(before.status).toBe(200);
    expect(before.body).toBeNull();
    const b = await placed(h, worker, t.id, 1_234);
    await accept(h, author, t.id, b.id);
    const r = await getPayment(h, t.id);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ post_id: t.id, bid_id: b.id, payment_amount_sats: 1_234, status: "invoice_generated", paid_at: null, payout_status: null, payout_amount_sats: null });
    expect(r.body.worker.id).toBe(worker.id);
    expect(r.body.lightning_invoice).toMatch(/^lnbcrt/);
    expect(r.body.payment_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(r.body.invoice_expires_at).toBe(new Date(h.clock.now() + 24 * 3600_000).toISOString());
    expect((await getPayment(h, t.id, author.token)).body.id).toBe(r.body.id);
  });

  test("404 for another post type, an unknown id or a task the caller cannot see", async () => {
    const author = await h.user();
    expect((await getPayment(h, (await post(h, author)).id)).status).toBe(404);
    expect((await getPayment(h, crypto.randomUUID())).status).toBe(404);
    expect((await check(h, crypto.randomUUID())).status).toBe(404);
  });
});

describe("payment check and settlement (development wallet)", () => {
  test("404 before a bid is accepted; pending until paid; once paid the task is paid and both sides are told, once", async () => {
    const author = await h.user();
    const worker = await h.user();
    const t = await task(h, author);
    const early = await check(h, t.id);
    expect(early.status).toBe(404);
    const b = await placed(h, worker, t.id, 2_000);
    await accept(h, author, t.id, b.id);
    const pending = await check(h, t.id, author.token);
    expect(pending.status).toBe(200);
    expect(pending.body).toMatchObject({ status: "invoice_generated", paid_at: null });
    const hash = await payAtWallet(h, t.id, author.token);
    // Anyone who can see the task may ask (the spec's optional authentication).
    const paid = await check(h, t.id);
    expect(paid.body).toEqual({ payment_hash: hash, status: "paid", paid_at: new Date(h.clock.now()).toISOString() });
    expect(statusOf(h, t.id)).toBe("paid");
    expect(paymentEvents(h, t.id).map((e) => e.payload)).toEqual([{ recipient_ids: [author.id, worker.id], post_id: t.id, post_title: t.title, amount_sats: 2_000 }]);
    const told = h.ctx.db.$client.query("select user_id from notifications where kind = 'payment_received' and post_id = ?").all(t.id) as { user_id: string }[];
    expect(told.map((r) => r.user_id).sort()).toEqual([author.id, worker.id].sort());
    expect((await check(h, t.id)).body.status).toBe("paid");
    expect((await getPayment(h, t.id)).body).toMatchObject({ status: "paid", paid_at: paid.body.paid_at });
    expect(paymentEvents(h, t.id)).toHaveLength(1);
  });

  test("the poller and two checks seeing the settlement at once fire its side effects once", async () => {
    const author = await h.user();
    const t = await acceptedTask(h, author, await h.user());
    await payAtWallet(h, t.post.id, author.token);
    h.clock.advance(10_000);
    const [a, b] = await Promise.all([check(h, t.post.id, author.token), check(h, t.post.id), payments.pollInvoices(h.ctx)]);
    expect([a.body.status, b.body.status]).toEqual(["paid", "paid"]);
    expect(paymentEvents(h, t.post.id)).toHaveLength(1);
    expect(statusOf(h, t.post.id)).toBe("paid");
  });

  test("the payment check is limited to 30 an hour per caller and per address without an account (429)", async () => {
    const h = setup();
    const author = await h.user();
    const t = await acceptedTask(h, author, await h.user());
    for (let i = 0; i < 30; i++) expect((await check(h, t.post.id, author.token)).status).toBe(200);
    expect((await check(h, t.post.id, author.token)).status).toBe(429);
    for (let i = 0; i < 30; i++) await check(h, t.post.id);
    expect((await check(h, t.post.id)).status).toBe(429);
  });

  test("an invoice unpaid past its 24 hours expires; accepting the bid again issues a new one, which pays the task", async () => {
    const author = await h.user();
    const worker = await h.user();
    const t = await acceptedTask(h, author, worker, 900);
    const first = (await getPayment(h, t.post.id)).body;
    h.clock.advance(24 * 3600_000 + 61_000);
    expect((await check(h, t.post.id)).body.status).toBe("expired");
    expect((await getPayment(h, t.post.id)).body.status).toBe("expired");
    expect((await devWallet(h)).settle(first.payment_hash)).toMatchObject({ settled: false });
    expect(statusOf(h, t.post.id)).toBe("accepted");
    await refresh(h, author);
    const again = await accept(h, author, t.post.id, t.bid.id);
    expect(again.status).toBe(200);
    expect(invoicesOf(h, t.bid.id)).toBe(2);
    const second = (await getPayment(h, t.post.id)).body;
    expect(second.id).not.toBe(first.id);
    expect(second.status).toBe("invoice_generated");
    // The live invoice is not renewed again.
    expect((await accept(h, author, t.post.id, t.bid.id)).body.detail.code).toBe("CONFLICT");
    await payAtWallet(h, t.post.id, author.token);
    expect((await check(h, t.post.id)).body.status).toBe("paid");
    expect(statusOf(h, t.post.id)).toBe("paid");
    expect(bidStatus(h, t.bid.id)).toBe("accepted");
    // Paid: no further invoice.
    expect((await accept(h, author, t.post.id, t.bid.id)).status).toBe(400);
    expect(invoicesOf(h, t.bid.id)).toBe(2);
  });
});

describe("POST /marketplace/{post_id}/complete", () => {
  test("only a paid task: 400 INVALID_INPUT while open, bidding or accepted", async () => {
    const author = await h.user();
    const t = await task(h, author);
    expect((await complete(h, t.id, author)).body.detail.code).toBe("INVALID_INPUT");
    const b = await placed(h, await h.user(), t.id);
    expect((await complete(h, t.id, author)).status).toBe(400);
    await accept(h, author, t.id, b.id);
    const unpaid = await complete(h, t.id, author);
    expect(unpaid.status).toBe(400);
    expect(unpaid.body.detail.message).toContain("not paid");
    expect(statusOf(h, t.id)).toBe("accepted");
  });

  test("the author completes a paid task: completed, the worker told, the payout of 95 % queued and sent once", async () => {
    const author = await h.user();
    const worker = await h.user();
    setLightningAddress(h, worker, "worker@example.com");
    const t = await paidTask(h, author, worker, 10_000);
    const stranger = await complete(h, t.post.id, worker);
    expect(stranger.status).toBe(403);
    expect(stranger.body.detail.code).toBe("FORBIDDEN");
    expect((await h.req("POST", `/api/v1/marketplace/${t.post.id}/complete`)).status).toBe(401);
    const r = await complete(h, t.post.id, author);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: "completed" });
    expect(statusOf(h, t.post.id)).toBe("completed");
    expect(eventsOf(h, "task_completed").filter((e) => e.payload.post_id === t.post.id).map((e) => e.payload)).toEqual([{ recipient_ids: [worker.id], post_id: t.post.id, post_title: t.post.title, poster: author.username }]);
    expect(h.ctx.db.$client.query("select count(*) n from notifications where user_id = ? and kind = 'task_completed'").get(worker.id)).toEqual({ n: 1 });
    expect((await getPayment(h, t.post.id)).body).toMatchObject({ payout_status: "pending", payout_amount_sats: 9_500 });
    const second = await complete(h, t.post.id, author);
    expect(second.status).toBe(400);
    expect(second.body.detail.message).toContain("already completed");
    await payments.runPayouts(h.ctx);
    await payments.runPayouts(h.ctx);
    expect(payments.payoutOf(h.ctx, "task", t.bid.id)).toMatchObject({ status: "completed", grossSats: 10_000, feeSats: 500, amountSats: 9_500, recipientId: worker.id, attempts: 1 });
    expect((await devWallet(h)).ledger().filter((l) => l.destination === "worker@example.com").map((l) => l.amountSats)).toEqual([9_500]);
    expect((await getPayment(h, t.post.id)).body.payout_status).toBe("completed");
  });

  test("a worker without a Lightning address: the payout is abandoned", async () => {
    const author = await h.user();
    const worker = await h.user();
    const t = await completedTask(h, author, worker, 500);
    await payments.runPayouts(h.ctx);
    expect((await getPayment(h, t.post.id)).body).toMatchObject({ payout_status: "abandoned", payout_amount_sats: 475 });
  });

  test("the task list and the post show each step of the workflow", async () => {
    const author = await h.user();
    const t = await completedTask(h, author, await h.user());
    expect((await h.req("GET", `/api/v1/posts/${t.post.id}`)).body.status).toBe("completed");
    const listed = await h.req("GET", "/api/v1/marketplace/tasks", { query: { status: "completed" } });
    expect(listed.body.items.map((i: any) => i.id)).toContain(t.post.id);
  });
});

describe("against LNbits (a fake on 127.0.0.1)", () => {
  const fake = new FakeLnbits();
  afterAll(() => fake.stop());
  const lnbits = (timeoutMs?: number, on: Harness = h) => lnbitsWallet(on, fake, timeoutMs);
  const use = (wallet: LazyWallet, fn: () => Promise<void>, on: Harness = h) => withWallet(on, wallet, fn);

  test("the wallet answering 500 or timing out on accept: 502 UPSTREAM_FAILURE and nothing changed; the next accept works", () =>
    use(lnbits(), async () => {
      const author = await h.user();
      const t = await task(h, author);
      const b = await placed(h, await h.user(), t.id);
      const loser = await placed(h, await h.user(), t.id);
      fake.fail500 = 1;
      const r = await accept(h, author, t.id, b.id);
      expect(r.status).toBe(502);
      expect(r.body.detail.code).toBe("UPSTREAM_FAILURE");
      // Held past the timeout of a wallet that gives up after 100 ms.
      fake.hold = 1;
      await use(lnbits(100), async () => void expect((await accept(h, author, t.id, b.id)).status).toBe(502));
      expect([bidStatus(h, b.id), bidStatus(h, loser.id), statusOf(h, t.id)]).toEqual(["pending", "pending", "bidding"]);
      expect(invoicesOf(h, b.id)).toBe(0);
      expect(eventsOf(h, "bid_accepted").filter((e) => e.payload.post_id === t.id)).toHaveLength(0);
      // The wallet finishes the call the client gave up on (an invoice nobody will see).
      fake.release();
      await fake.idle();
      const ok = await accept(h, author, t.id, b.id);
      expect(ok.status).toBe(200);
      expect(fake.invoices.get((await getPayment(h, t.id)).body.payment_hash)).toMatchObject({ amountSats: 1_000 });
    }));

  test("a settlement reported on every look-up, seen by the poller and checks together, pays the task once", () =>
    use(lnbits(), async () => {
      const author = await h.user();
      const worker = await h.user();
      const t = await acceptedTask(h, author, worker, 3_000);
      const hash = (await getPayment(h, t.post.id)).body.payment_hash;
      expect((await check(h, t.post.id)).body.status).toBe("invoice_generated");
      fake.settle(hash);
      h.clock.advance(20_000);
      const answers = await Promise.all([check(h, t.post.id), check(h, t.post.id, worker.token), payments.pollInvoices(h.ctx), check(h, t.post.id, author.token)]);
      expect(answers.filter((a): a is any => typeof a === "object").map((a) => a.body.status)).toEqual(["paid", "paid", "paid"]);
      h.clock.advance(60_000);
      await payments.pollInvoices(h.ctx);
      expect(paymentEvents(h, t.post.id)).toHaveLength(1);
      expect(statusOf(h, t.post.id)).toBe("paid");
    }));

  test("a look-up failing: the check answers 502 and changes nothing; the poller tries again later", () => {
    const h = setup();
    return use(lnbits(undefined, h), async () => {
      const author = await h.user();
      const t = await acceptedTask(h, author, await h.user());
      fake.fail500 = 1;
      const r = await check(h, t.post.id, author.token);
      expect(r.status).toBe(502);
      expect(r.body.detail.code).toBe("UPSTREAM_FAILURE");
      fake.settle((await getPayment(h, t.post.id)).body.payment_hash);
      fake.fail500 = 1;
      h.clock.advance(10_000);
      await payments.pollInvoices(h.ctx);
      expect(statusOf(h, t.post.id)).toBe("accepted");
      h.clock.advance(20_000);
      await payments.pollInvoices(h.ctx);
      expect(statusOf(h, t.post.id)).toBe("paid");
    }, h);
  });

  test("an invoice that never settles expires; the task stays accepted until a new invoice is paid", () =>
    use(lnbits(), async () => {
      const author = await h.user();
      const worker = await h.user();
      setLightningAddress(h, worker, "frank@pay.example.org");
      const t = await acceptedTask(h, author, worker, 2_000);
      h.clock.advance(24 * 3600_000 + 61_000);
      await pollUntilIdle(h);
      expect((await getPayment(h, t.post.id)).body.status).toBe("expired");
      expect(statusOf(h, t.post.id)).toBe("accepted");
      await refresh(h, author);
      expect((await accept(h, author, t.post.id, t.bid.id)).status).toBe(200);
      fake.settle((await getPayment(h, t.post.id)).body.payment_hash);
      expect((await check(h, t.post.id)).body.status).toBe("paid");
      expect((await complete(h, t.post.id, author)).status).toBe(200);
      await payments.runPayouts(h.ctx);
      expect(fake.receivedBy("frank")).toBe(1_900);
      await payments.runPayouts(h.ctx);
      expect(fake.receivedBy("frank")).toBe(1_900);
    }));
});

describe("a paid task's money never strands on its post", () => {
  test("the author cannot delete an accepted or paid task (409 CONFLICT); a completed one is theirs to delete as before", async () => {
    const [author, worker] = [await h.user(), await h.user()];
    const accepted = await acceptedTask(h, author, worker);
    const r1 = await h.req("DELETE", `/api/v1/posts/${accepted.post.id}`, { token: author.token });
    expect([r1.status, r1.body.detail.code]).toEqual([409, "CONFLICT"]);
    const paid = await paidTask(h, author, worker);
    const r2 = await h.req("DELETE", `/api/v1/posts/${paid.post.id}`, { token: author.token });
    expect([r2.status, r2.body.detail.code]).toEqual([409, "CONFLICT"]);
    expect(statusOf(h, paid.post.id)).toBe("paid");
    const done = await completedTask(h, author, worker);
    expect((await h.req("DELETE", `/api/v1/posts/${done.post.id}`, { token: author.token })).status).toBe(204);
  });

  test("a paid task a moderator removed can still be completed by its poster, and the worker is paid", async () => {
    const admin = await h.user({ admin: true });
    const [author, worker] = [await h.user(), await h.user()];
    setLightningAddress(h, worker, "worker@wallet.example");
    const t = await paidTask(h, author, worker, 2_000);
    expect((await h.req("DELETE", `/api/v1/posts/${t.post.id}`, { token: admin.token })).status).toBe(204);
    expect((await h.req("GET", `/api/v1/posts/${t.post.id}`, { token: author.token })).status).toBe(404);
    // Only the poster may: the worker (or anyone else) still sees no task there.
    expect((await h.req("POST", `/api/v1/marketplace/${t.post.id}/complete`, { token: worker.token })).status).toBe(404);
    const r = await h.req("POST", `/api/v1/marketplace/${t.post.id}/complete`, { token: author.token });
    expect(r.status).toBe(200);
    await payments.runPayouts(h.ctx);
    expect(payments.payoutOf(h.ctx, "task", t.bid.id)).toMatchObject({ status: "completed", amountSats: 1_900 });
  });
});
