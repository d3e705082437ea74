// The list queries of tips and documents read their index in order: no table scan, no sort.
import { expect, test } from "bun:test";
import { setup } from "../../../test/harness";

const h = setup();
const plan = (sql: string) => (h.ctx.db.$client.query(`explain query plan ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join(" | ");

test.each([
  ["paid tips, newest first", "select * from tips t join posts p on p.id = t.post_id left join comments c on c.id = t.comment_id where t.status = 'paid' and p.listed = 1 order by t.paid_at desc, t.id desc limit 20", "tips_paid_idx"],
  ["a tipper's paid tips", "select * from tips where tipper_id = 'x' and status = 'paid' order by paid_at desc, id desc limit 20", "tips_tipper_idx"],
  ["a recipient's paid tips", "select * from tips where recipient_id = 'x' and status = 'paid' order by paid_at desc, id desc limit 20", "tips_recipient_idx"],
  ["a post's tip stats", "select count(*), sum(amount_sats) from tips where status = 'paid' and post_id = 'x' and comment_id is null", "tips_post_idx"],
  ["a comment's tip stats", "select count(*), sum(amount_sats) from tips where status = 'paid' and comment_id = 'x'", "tips_comment_idx"],
  ["the catalogue", "select * from documents where status = 'active' and visibility = 'public' order by created_at desc, id desc limit 20", "documents_catalogue_idx"],
  ["a hash search", "select * from documents where content_hash = 'x' and status = 'active' and visibility = 'public' order by created_at desc, id desc limit 20", "documents_"],
  ["my documents", "select * from documents where seller_id = 'x' order by created_at desc, id desc limit 20", "documents_seller_idx"],
  ["my purchases", "select * from document_purchases where buyer_id = 'x' order by created_at desc, id desc limit 20", "document_purchases_buyer_new_idx"],
  ["a buyer's paid purchase", "select id from document_purchases where buyer_id = 'x' and document_id = 'y' and status in ('paid', 'payout_pending') limit 1", "document_purchases_buyer_idx"],
])("%s", (_what, sql, index) => {
  const p = plan(sql);
  expect(p).toContain(index);
  expect(p).not.toContain("SCAN");
  if (!sql.includes("content_hash")) expect(p).not.toContain("TEMP B-TREE");
});
