// Test fixtures of orders: a seller with a lightning address and a paid_offer listing, orders
// placed and moved through the API, the development wallet's settle, and what events became.
import type { Harness, TestUser } from "../../../test/harness";
import type { LazyWallet } from "../../adapters/lightning";
import type { DevelopmentWallet } from "../../adapters/lightning/dev-wallet";
import { planWebhookEvents } from "../webhooks/mapping";
import { GENERAL } from "../posts/fixtures";

let seq = 0;

/** An account with a lightning address (set through PUT /users/me), or none with `null`. */
export async function sellerWith(h: Harness, address: string | null = "seller@wallet.example"): Promise<TestUser> {
  const u = await h.user();
  if (address) {
    const r = await h.req("PUT", "/api/v1/users/me", { token: u.token, body: { lightning_address: address } });
    if (r.status !== 200) throw new Error(`lightning address refused: ${r.status} ${r.text}`);
  }
  return u;
}

export function setLightningAddress(h: Harness, userId: string, address: string | null): void {
  h.ctx.db.$client.query("update users set lightning_address = ? where id = ?").run(address, userId);
}

/** A paid_offer listing by `seller` at `rate` sats; returns the post. */
export async function listing(h: Harness, seller: TestUser, rate = 5000, input: Record<string, unknown> = {}): Promise<{ id: string; title: string }> {
  const r = await h.req("POST", "/api/v1/posts", {
    token: seller.token,
    body: { colony_id: GENERAL.id, post_type: "paid_offer", title: `Research report ${++seq}`, body: "I write a research report on any topic you name.", metadata: { listed_rate_sats: rate, category: "research" }, ...input },
  });
  if (r.status !== 201) throw new Error(`listing failed: ${r.status} ${r.text}`);
  return r.body;
}

export const placeOrder = (h: Harness, buyer: TestUser | null, postId: string, body?: unknown) => h.req("POST", `/api/v1/offers/${postId}/order`, { token: buyer?.token ?? null, body });

/** An order action (accept, decline, cancel, payment/check, mark-delivered) as `who`. */
export const act = (h: Harness, who: TestUser | null, orderId: string, action: string) => h.req("POST", `/api/v1/offers/orders/${orderId}/${action}`, { token: who?.token ?? null });

/** Like act, but throws unless the answer is 200; returns the order. */
export async function must(h: Harness, who: TestUser, orderId: string, action: string): Promise<any> {
  const r = await act(h, who, orderId, action);
  if (r.status !== 200) throw new Error(`${action} failed: ${r.status} ${r.text}`);
  return r.body;
}

/** A fresh seller, listing and buyer, and a requested order between them. */
export async function requested(h: Harness, opts: { rate?: number; address?: string | null } = {}) {
  const seller = await sellerWith(h, opts.address === undefined ? "seller@wallet.example" : opts.address);
  if (opts.address === null) setLightningAddress(h, seller.id, "temporary@wallet.example");
  const post = await listing(h, seller, opts.rate ?? 5000);
  if (opts.address === null) setLightningAddress(h, seller.id, null);
  const buyer = await h.user();
  const r = await placeOrder(h, buyer, post.id, { buyer_brief: "A report on Lightning routing fees." });
  if (r.status !== 201) throw new Error(`order failed: ${r.status} ${r.text}`);
  return { seller, buyer, post, order: r.body as any };
}

export type WalletMethods = Pick<LazyWallet, "createInvoice" | "lookupInvoice" | "payLightningAddress">;

/**
 * Runs `fn` with some of the server wallet's calls replaced by `patch(real)` (`real` calls the
 * wallet itself), and puts the wallet back afterwards, whatever happened.
 */
export async function withWallet<T>(h: Harness, patch: (real: WalletMethods) => Partial<WalletMethods>, fn: () => Promise<T>): Promise<T> {
  const w = h.ctx.wallet;
  const real: WalletMethods = { createInvoice: w.createInvoice.bind(w), lookupInvoice: w.lookupInvoice.bind(w), payLightningAddress: w.payLightningAddress.bind(w) };
  const replaced = patch(real);
  Object.assign(w, replaced);
  try {
    return await fn();
  } finally {
    for (const name of Object.keys(replaced)) delete (w as unknown as Record<string, unknown>)[name];
  }
}

export const devWallet = async (h: Harness) => (await h.ctx.wallet.backend()) as DevelopmentWallet;

export function orderRow(h: Harness, id: string): Record<string, any> {
  return h.ctx.db.$client.query("select * from service_orders where id = ?").get(id) as Record<string, any>;
}

export function countOf(h: Harness, sql: string, ...args: (string | number)[]): number {
  return (h.ctx.db.$client.query(`select count(*) as n from (${sql})`).get(...args) as { n: number }).n;
}

/** The events of `type` about one order, oldest first. */
export function orderEvents(h: Harness, type: string, orderId: string): { actor_id: string | null; payload: Record<string, any> }[] {
  const rows = h.ctx.db.$client.query("select actor_id, payload from events where type = ? and subject_id = ? order by id").all(type, orderId) as { actor_id: string | null; payload: string }[];
  return rows.map((r) => ({ actor_id: r.actor_id, payload: JSON.parse(r.payload) }));
}

/** The webhook events the newest domain event of `type` about an order becomes. */
export function webhooksOf(h: Harness, type: string, orderId: string) {
  const row = h.ctx.db.$client.query("select * from events where type = ? and subject_id = ? order by id desc").get(type, orderId) as Record<string, any>;
  const ev = { id: row.id, type: row.type, actorId: row.actor_id, subjectType: row.subject_type, subjectId: row.subject_id, payload: JSON.parse(row.payload), audience: JSON.parse(row.audience ?? "[]"), createdAt: row.created_at };
  return planWebhookEvents(h.ctx, ev as never).map((p) => ({ name: p.name, data: p.data, to: p.audience.kind === "users" ? [...p.audience.userIds] : p.audience.kind }));
}

/** The caller's notifications of `kind` (newest first), with their message. */
export async function notificationsOf(h: Harness, user: TestUser, kind: string): Promise<any[]> {
  const r = await h.req("GET", "/api/v1/notifications", { token: user.token, query: { limit: 50 } });
  const items = Array.isArray(r.body) ? r.body : r.body.items;
  return items.filter((n: any) => n.kind === kind || n.notification_type === kind);
}
