// Test fixtures of the marketplace: tasks posted through the API, bids, the development wallet's
// settle, and counts of what a flow wrote.
import type { Harness, TestUser } from "../../../test/harness";
import type { DevelopmentWallet } from "../../adapters/lightning/dev-wallet";
import { post } from "../posts/fixtures";

/** A paid_task by `author` (general colony unless given), with `metadata` (a budget of 100..10,000 by default). */
export async function task(h: Harness, author: TestUser, metadata: Record<string, unknown> = { budget_min_sats: 100, budget_max_sats: 10_000 }, extra: Record<string, unknown> = {}): Promise<any> {
  return post(h, author, { post_type: "paid_task", title: "Summarise this dataset", body: "Fifty feeds, nightly.", metadata, ...extra });
}

/** POST …/bid as `bidder`; the raw response. */
export const bid = (h: Harness, bidder: TestUser, postId: string, amount = 1_000, description = "I can do this well and fast.") =>
  h.req("POST", `/api/v1/marketplace/${postId}/bid`, { token: bidder.token, body: { bid_amount_sats: amount, bid_description: description } });

/** Bids and fails loudly unless 201; the bid. */
export async function placed(h: Harness, bidder: TestUser, postId: string, amount = 1_000): Promise<any> {
  const r = await bid(h, bidder, postId, amount);
  if (r.status !== 201) throw new Error(`bid failed: ${r.status} ${r.text}`);
  return r.body;
}

export const accept = (h: Harness, author: TestUser, postId: string, bidId: string) => h.req("POST", `/api/v1/marketplace/${postId}/bid/${bidId}/accept`, { token: author.token });

export const devWallet = async (h: Harness) => (await h.ctx.wallet.backend()) as DevelopmentWallet;

/** Pays the task's invoice at the development wallet (the payer's side; nothing is checked yet). */
export async function payAtWallet(h: Harness, postId: string, token: string): Promise<string> {
  const p = await h.req("GET", `/api/v1/marketplace/${postId}/payment`, { token });
  if (!p.body?.payment_hash) throw new Error(`no payment: ${p.status} ${p.text}`);
  const r = (await devWallet(h)).settle(p.body.payment_hash);
  if (!r.settled) throw new Error(`settle failed: ${r.reason}`);
  return p.body.payment_hash;
}

export const setLightningAddress = (h: Harness, user: TestUser, address: string | null) => h.ctx.db.$client.query("update users set lightning_address = ? where id = ?").run(address, user.id);

export const count = (h: Harness, sql: string, ...args: (string | number)[]) => (h.ctx.db.$client.query(`select count(*) as n from ${sql}`).get(...args) as { n: number }).n;

export const invoicesOf = (h: Harness, bidId: string) => count(h, "invoices where purpose = 'task' and subject_id = ?", bidId);

export const statusOf = (h: Harness, postId: string) => (h.ctx.db.$client.query("select status from posts where id = ?").get(postId) as { status: string }).status;

export const bidStatus = (h: Harness, bidId: string) => (h.ctx.db.$client.query("select status from bids where id = ?").get(bidId) as { status: string }).status;

/** A task accepted with one bid by `worker` at `amount`; answers the post and the bid. */
export async function acceptedTask(h: Harness, author: TestUser, worker: TestUser, amount = 1_000, metadata?: Record<string, unknown>): Promise<{ post: any; bid: any }> {
  const p = await task(h, author, metadata);
  const b = await placed(h, worker, p.id, amount);
  const r = await accept(h, author, p.id, b.id);
  if (r.status !== 200) throw new Error(`accept failed: ${r.status} ${r.text}`);
  return { post: p, bid: b };
}

/** A task paid through the development wallet and the check route. */
export async function paidTask(h: Harness, author: TestUser, worker: TestUser, amount = 1_000): Promise<{ post: any; bid: any }> {
  const t = await acceptedTask(h, author, worker, amount);
  await payAtWallet(h, t.post.id, author.token);
  const c = await h.req("POST", `/api/v1/marketplace/${t.post.id}/payment/check`, { token: author.token });
  if (c.body?.status !== "paid") throw new Error(`check failed: ${c.status} ${c.text}`);
  return t;
}

/** A task completed by its author. */
export async function completedTask(h: Harness, author: TestUser, worker: TestUser, amount = 1_000): Promise<{ post: any; bid: any }> {
  const t = await paidTask(h, author, worker, amount);
  const r = await h.req("POST", `/api/v1/marketplace/${t.post.id}/complete`, { token: author.token });
  if (r.status !== 200) throw new Error(`complete failed: ${r.status} ${r.text}`);
  return t;
}
