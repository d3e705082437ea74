// Tips (spec Part 3 §4.4): tipping posts and comments, checks, stats of paid tips, the list with
// its filters and private-colony rule, the payout to the author (docs/decisions.md §122), expiry
// on the test clock, rate limits, and the wallet failing (a fake LNbits on 127.0.0.1).
import { afterAll, describe, expect, test } from "bun:test";
import { setup, type TestUser } from "../../../test/harness";
import { FakeLnbits, lnbitsWallet, withWallet } from "../../../test/fake-lnbits";
import type { LazyWallet } from "../../adapters/lightning";
import type { DevelopmentWallet } from "../../adapters/lightning/dev-wallet";
import { comment } from "../comments/fixtures";
import { inTransaction } from "../../db/client";
import * as payments from "../payments/service";
import { onTipLapsed } from "./service";
import { plannedWebhooks } from "../webhooks/fixtures";
import { GENERAL, eventsOf, join, makeColony, post } from "../posts/fixtures";

const h = setup();
const dev = async () => (await h.ctx.wallet.backend()) as DevelopmentWallet;

async function author(address: string | null = "author@example.com"): Promise<TestUser> {
  const u = await h.user();
  h.ctx.db.$client.query("update users set lightning_address = ? where id = ?").run(address, u.id);
  return u;
}
/** `amount` null: the query parameter is left out. */
const tipPost = (u: TestUser | null, postId: string, amount: number | string | null = 100) =>
  h.req("POST", `/api/v1/tips/post/${postId}`, { token: u?.token ?? null, query: { amount_sats: amount ?? undefined } });
const tipComment = (u: TestUser | null, commentId: string, amount: number = 100) => h.req("POST", `/api/v1/tips/comment/${commentId}`, { token: u?.token ?? null, query: { amount_sats: amount } });
const check = (u: TestUser | null, tipId: string) => h.req("POST", `/api/v1/tips/${tipId}/check`, { token: u?.token ?? null });
const count = (table: string) => (h.ctx.db.$client.query(`select count(*) n from ${table}`).get() as { n: number }).n;

/** Tips `amount` and pays it through the development wallet; answers the check's body. */
async function paidTip(tipper: TestUser, postId: string, amount = 100) {
  const r = await tipPost(tipper, postId, amount);
  expect(r.status).toBe(201);
  expect((await dev()).settle(r.body.payment_hash)).toEqual({ settled: true });
  const c = await check(tipper, r.body.tip_id);
  expect(c.body.status).toBe("paid");
  return r.body;
}

describe("tipping a post", () => {
  test("201 with a BOLT11 invoice; paid through the wallet, the check says paid once, the author is told and paid 95 %", async () => {
    const [a, tipper] = [await author("alice@example.com"), await h.user()];
    const p = await post(h, a);
    const r = await tipPost(tipper, p.id, 2100);
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ tip_id: expect.any(String), payment_request: expect.stringMatching(/^lnbcrt/), payment_hash: expect.stringMatching(/^[0-9a-f]{64}$/), amount_sats: 2100, status: "pending", expires_at: expect.any(String) });
    // Pending: the check asks the wallet and says so; stats and the list count paid tips only.
    expect((await check(tipper, r.body.tip_id)).body).toEqual({ tip_id: r.body.tip_id, status: "pending", amount_sats: 2100, paid_at: null });
    expect((await h.req("GET", `/api/v1/tips/post/${p.id}/stats`)).body).toEqual({ post_id: p.id, total_tips: 0, total_sats: 0 });
    expect((await h.req("GET", "/api/v1/tips", { query: { post_id: p.id } })).body.total).toBe(0);

    (await dev()).settle(r.body.payment_hash);
    const [c1, c2] = await Promise.all([check(tipper, r.body.tip_id), check(a, r.body.tip_id)]);
    expect(c1.body).toEqual({ tip_id: r.body.tip_id, status: "paid", amount_sats: 2100, paid_at: new Date(h.clock.now()).toISOString() });
    expect(c2.body).toEqual(c1.body);
    await payments.pollInvoices(h.ctx);
    expect(eventsOf(h, "tip_received").filter((e) => e.payload.tip_id === r.body.tip_id)).toHaveLength(1);
    expect((await h.req("GET", `/api/v1/tips/post/${p.id}/stats`)).body).toEqual({ post_id: p.id, total_tips: 1, total_sats: 2100 });

    // The author's notification and webhook (the reference payload).
    const notes = await h.req("GET", "/api/v1/notifications", { token: a.token });
    const note = notes.body.find((n: any) => n.kind === "tip_received");
    expect(note).toMatchObject({ message: `@${tipper.username} tipped you 2100 sats on your post`, post_id: p.id, meta: { tip_id: r.body.tip_id, amount_sats: 2100 } });
    expect(plannedWebhooks(h, "tip_received", r.body.tip_id)).toEqual([{ name: "tip_received", data: { tip_id: r.body.tip_id, tipper: tipper.username, amount_sats: 2100, post_id: p.id, comment_id: null }, to: [a.id] }]);

    // The payout: 95 % to the author's lightning address, once.
    await payments.runPayouts(h.ctx);
    await payments.runPayouts(h.ctx);
    const payout = payments.payoutOf(h.ctx, "tip", r.body.tip_id)!;
    expect(payout).toMatchObject({ status: "completed", grossSats: 2100, feeSats: 105, amountSats: 1995, recipientId: a.id, lightningAddress: "alice@example.com" });
    expect((await dev()).ledger().filter((l) => l.destination === "alice@example.com")).toHaveLength(1);
  });

  test("refusals: amount outside 21..100000 or missing 422; self-tip 400 INVALID_INPUT; no lightning address 400; nothing recorded", async () => {
    const [a, tipper, noAddress] = [await author(), await h.user(), await author(null)];
    const p = await post(h, a);
    const q = await post(h, noAddress);
    const before = [count("tips"), count("invoices")];
    for (const amount of [20, 100_001, "lots", null, 21.5]) {
      const r = await tipPost(tipper, p.id, amount);
      expect(r.status).toBe(422);
    }
    const self = await tipPost(a, p.id);
    expect(self.status).toBe(400);
    expect(self.body.detail.code).toBe("INVALID_INPUT");
    const none = await tipPost(tipper, q.id);
    expect(none.status).toBe(400);
    expect(none.body.detail).toMatchObject({ code: "INVALID_INPUT", message: expect.stringContaining("no lightning address") });
    expect([count("tips"), count("invoices")]).toEqual(before);
    // The edges are allowed.
    expect((await tipPost(tipper, p.id, 21)).status).toBe(201);
    expect((await tipPost(tipper, p.id, 100_000)).status).toBe(201);
  });

  test("anonymous 401; a missing post, or one in a private colony the tipper cannot read, 404", async () => {
    const [a, stranger, member] = [await author(), await h.user(), await h.user()];
    const secret = makeColony(h, a, "private");
    const p = await post(h, a, { colony_id: secret.id });
    expect((await tipPost(null, p.id)).status).toBe(401);
    expect((await tipPost(stranger, p.id)).status).toBe(404);
    expect((await tipPost(stranger, "00000000-0000-7000-8000-000000000000")).status).toBe(404);
    expect((await h.req("GET", `/api/v1/tips/post/${p.id}/stats`)).status).toBe(404);
    await join(h, secret, member, a);
    expect((await tipPost(member, p.id)).status).toBe(201);
    expect((await h.req("GET", `/api/v1/tips/post/${p.id}/stats`, { token: member.token })).status).toBe(200);
  });

  test("the check: only the tipper and the recipient; anyone else 404, anonymous 401", async () => {
    const [a, tipper, stranger] = [await author(), await h.user(), await h.user()];
    const p = await post(h, a);
    const r = await tipPost(tipper, p.id);
    expect((await check(stranger, r.body.tip_id)).status).toBe(404);
    expect((await check(null, r.body.tip_id)).status).toBe(401);
    expect((await check(tipper, "nope")).status).toBe(404);
    expect((await check(a, r.body.tip_id)).status).toBe(200);
  });

  test("an unpaid tip expires with its invoice (clock past the TTL): the check says expired, a late payment is refused", async () => {
    const [a, tipper] = [await author(), await h.user()];
    const p = await post(h, a);
    const r = await tipPost(tipper, p.id);
    h.clock.advance(15 * 60_000 + 60_000);
    expect((await check(tipper, r.body.tip_id)).body.status).toBe("expired");
    expect((await dev()).settle(r.body.payment_hash).settled).toBe(false);
    expect((await h.req("GET", `/api/v1/tips/post/${p.id}/stats`)).body.total_tips).toBe(0);
    expect(payments.payoutOf(h.ctx, "tip", r.body.tip_id)).toBeNull();
  });
});

describe("a wallet that fails the invoice", () => {
  test("the tip is failed (terminal), not paid, nothing paid out", async () => {
    const [a, tipper] = [await author(), await h.user()];
    const p = await post(h, a);
    const r = await tipPost(tipper, p.id);
    const inv = payments.findInvoiceByHash(h.ctx, r.body.payment_hash)!;
    // What payments does when the wallet reports the invoice failed: the CAS and the purpose's onLapsed.
    inTransaction(h.ctx.db, (tx) => onTipLapsed(tx, { ...inv, status: "failed" }));
    expect((await check(tipper, r.body.tip_id)).body.status).toBe("failed");
    expect(payments.payoutOf(h.ctx, "tip", r.body.tip_id)).toBeNull();
  });
});

describe("tipping a comment", () => {
  test("201; paid, counted on the comment (not on the post); the webhook names the comment only", async () => {
    const [a, c, tipper] = [await author(), await author("carol@example.com"), await h.user()];
    const p = await post(h, a);
    const cm = await comment(h, c, p.id);
    const r = await tipComment(tipper, cm.id, 500);
    expect(r.status).toBe(201);
    (await dev()).settle(r.body.payment_hash);
    expect((await check(c, r.body.tip_id)).body.status).toBe("paid");
    expect((await h.req("GET", `/api/v1/tips/comment/${cm.id}/stats`)).body).toEqual({ comment_id: cm.id, total_tips: 1, total_sats: 500 });
    expect((await h.req("GET", `/api/v1/tips/post/${p.id}/stats`)).body).toEqual({ post_id: p.id, total_tips: 0, total_sats: 0 });
    expect(plannedWebhooks(h, "tip_received", r.body.tip_id)[0]).toEqual({ name: "tip_received", data: { tip_id: r.body.tip_id, tipper: tipper.username, amount_sats: 500, post_id: null, comment_id: cm.id }, to: [c.id] });
    // Self-tip on your own comment; a missing comment.
    expect((await tipComment(c, cm.id)).body.detail.code).toBe("INVALID_INPUT");
    expect((await tipComment(tipper, "00000000-0000-7000-8000-000000000000")).status).toBe(404);
    expect((await h.req("GET", "/api/v1/tips/comment/00000000-0000-7000-8000-000000000000/stats")).status).toBe(404);
  });
});

describe("GET /tips", () => {
  test("paid tips newest first, with the filters (username or id) combined; unknown users 404; paging", async () => {
    const [a, b, t1, t2] = [await author(), await author(), await h.user(), await h.user()];
    const pa = await post(h, a);
    const pb = await post(h, b);
    const cm = await comment(h, b, pa.id);
    const x1 = await paidTip(t1, pa.id, 100);
    h.clock.advance(1000);
    const x2 = await paidTip(t2, pa.id, 200);
    h.clock.advance(1000);
    const x3 = await paidTip(t1, pb.id, 300);
    h.clock.advance(1000);
    const c1 = await tipComment(t2, cm.id, 400);
    (await dev()).settle(c1.body.payment_hash);
    await check(t2, c1.body.tip_id);
    await tipPost(t1, pa.id, 999); // pending: never listed
    const ids = async (query: Record<string, string | number>) => {
      const r = await h.req("GET", "/api/v1/tips", { query });
      expect(r.status).toBe(200);
      return r.body.tips.map((t: any) => t.id);
    };
    expect(await ids({ tipper: t1.username })).toEqual([x3.tip_id, x1.tip_id]);
    expect(await ids({ tipper: t1.id, recipient: b.username })).toEqual([x3.tip_id]);
    expect(await ids({ recipient: a.id })).toEqual([x2.tip_id, x1.tip_id]);
    expect(await ids({ post_id: pa.id })).toEqual([c1.body.tip_id, x2.tip_id, x1.tip_id]);
    expect(await ids({ comment_id: cm.id })).toEqual([c1.body.tip_id]);
    expect(await ids({ post_id: "zzznonsense" })).toEqual([]);
    const all = await h.req("GET", "/api/v1/tips", { query: { tipper: t1.username, limit: 1 } });
    expect(all.body).toMatchObject({ total: 2, offset: 0, limit: 1, has_more: true });
    expect(all.body.tips[0]).toEqual({
      id: x3.tip_id,
      amount_sats: 300,
      tipper: { id: t1.id, username: t1.username, display_name: t1.username },
      recipient: { id: b.id, username: b.username, display_name: b.username },
      post_id: pb.id,
      post_title: pb.title,
      comment_id: null,
      paid_at: expect.any(String),
    });
    expect((await h.req("GET", "/api/v1/tips", { query: { tipper: t1.username, page: 2, limit: 1 } })).body.tips[0].id).toBe(x1.tip_id);
    expect((await h.req("GET", "/api/v1/tips", { query: { tipper: "nobody-here" } })).status).toBe(404);
    expect((await h.req("GET", "/api/v1/tips", { query: { limit: 101 } })).status).toBe(422);
    // Empty filters do not bind.
    expect((await h.req("GET", "/api/v1/tips", { query: { tipper: "" } })).status).toBe(200);
  });

  test("tips on a private colony's posts only to callers who may read them; a deleted post's tips leave the list", async () => {
    const [a, member, stranger, tipper] = [await author(), await h.user(), await h.user(), await h.user()];
    const secret = makeColony(h, a, "private");
    await join(h, secret, tipper, a);
    await join(h, secret, member, a);
    const p = await post(h, a, { colony_id: secret.id, title: "Secret plans" });
    const x = await paidTip(tipper, p.id, 150);
    const seen = async (u: TestUser | null) => (await h.req("GET", "/api/v1/tips", { token: u?.token ?? null, query: { recipient: a.id } })).body.tips.map((t: any) => t.id);
    expect(await seen(null)).toEqual([]);
    expect(await seen(stranger)).toEqual([]);
    expect(await seen(member)).toEqual([x.tip_id]);
    const pub = await post(h, a, { colony_id: GENERAL.id });
    const y = await paidTip(tipper, pub.id, 150);
    expect(await seen(null)).toEqual([y.tip_id]);
    expect((await h.req("DELETE", `/api/v1/posts/${pub.id}`, { token: a.token })).status).toBeLessThan(300);
    expect(await seen(null)).toEqual([]);
  });
});

describe("rate limits", () => {
  test("10 tips an hour per user (429 RATE_LIMIT_TIP), and 100 an hour across the instance (RATE_LIMIT_TIP_GLOBAL)", async () => {
    h.clock.advance(2 * 3_600_000);
    const [a, tipper, other] = [await author(), await h.user(), await h.user()];
    const p = await post(h, a);
    for (let i = 0; i < 10; i++) expect((await tipPost(tipper, p.id)).status).toBe(201);
    const r = await tipPost(tipper, p.id);
    expect(r.status).toBe(429);
    expect(r.body.detail.code).toBe("RATE_LIMIT_TIP");
    // Fill the instance's hour (90 more, charged as other tippers' would be).
    for (let i = 0; i < 90; i++) h.ctx.limits.consume(["tip_global"], { userId: `u${i}` });
    const g = await tipPost(other, p.id);
    expect(g.status).toBe(429);
    expect(g.body.detail.code).toBe("RATE_LIMIT_TIP_GLOBAL");
    h.clock.advance(3_600_000);
    expect((await tipPost(other, p.id)).status).toBe(201);
  });
});

describe("against LNbits (a fake on 127.0.0.1)", () => {
  const fake = new FakeLnbits();
  afterAll(() => fake.stop());
  const lnbits = (timeoutMs = 2_000) => lnbitsWallet(h, fake, timeoutMs);
  const use = (wallet: LazyWallet, fn: () => Promise<void>) => withWallet(h, wallet, fn);

  test("a wallet 500 or timeout on the tip is 502 UPSTREAM_FAILURE and records nothing; a failing check is 502", () =>
    use(lnbits(), async () => {
      h.clock.advance(2 * 3_600_000);
      const [a, tipper] = [await author("dana@pay.example.org"), await h.user()];
      const p = await post(h, a);
      const before = [count("tips"), count("invoices")];
      fake.fail500 = 1;
      const r = await tipPost(tipper, p.id);
      expect(r.status).toBe(502);
      expect(r.body.detail.code).toBe("UPSTREAM_FAILURE");
      // Held past the timeout of a wallet that gives up after 100 ms.
      fake.hold = 1;
      await use(lnbits(100), async () => void expect((await tipPost(tipper, p.id)).status).toBe(502));
      expect([count("tips"), count("invoices")]).toEqual(before);
      // The wallet finishes the call the client gave up on (an invoice nobody will see).
      fake.release();
      await fake.idle();
      const ok = await tipPost(tipper, p.id, 1000);
      expect(ok.status).toBe(201);
      fake.fail500 = 1;
      const c = await check(tipper, ok.body.tip_id);
      expect(c.status).toBe(502);
      expect(c.body.detail.code).toBe("UPSTREAM_FAILURE");
      expect((await check(tipper, ok.body.tip_id)).body.status).toBe("pending");
    }));

  test("settlement reported again and again (checks and the poller) pays the tip once and the author 95 % once, by LNURL-pay", () =>
    use(lnbits(), async () => {
      h.clock.advance(2 * 3_600_000);
      const [a, tipper] = [await author("erin@pay.example.org"), await h.user()];
      const p = await post(h, a);
      const r = await tipPost(tipper, p.id, 1000);
      expect(fake.invoices.get(r.body.payment_hash)).toMatchObject({ amountSats: 1000 });
      fake.settle(r.body.payment_hash);
      await Promise.all([check(tipper, r.body.tip_id), check(a, r.body.tip_id), payments.pollInvoices(h.ctx)]);
      h.clock.advance(60_000);
      await payments.pollInvoices(h.ctx);
      expect(eventsOf(h, "tip_received").filter((e) => e.payload.tip_id === r.body.tip_id)).toHaveLength(1);
      await payments.runPayouts(h.ctx);
      await payments.runPayouts(h.ctx);
      expect(fake.receivedBy("erin")).toBe(950);
    }));

  test("an invoice that never settles: the tip expires", () =>
    use(lnbits(), async () => {
      h.clock.advance(2 * 3_600_000);
      const [a, tipper] = [await author("finn@pay.example.org"), await h.user()];
      const p = await post(h, a);
      const r = await tipPost(tipper, p.id);
      h.clock.advance(16 * 60_000 + 1);
      await payments.pollInvoices(h.ctx);
      expect((await check(tipper, r.body.tip_id)).body.status).toBe("expired");
    }));
});
