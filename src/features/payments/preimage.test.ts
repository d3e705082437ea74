// Settling an invoice by its preimage (an L402 proof of payment, docs/decisions.md §125): only the
// preimage of the invoice's hash moves it, once, with the purpose's side effects.
import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { setup } from "../../../test/harness";
import { inTransaction } from "../../db/client";
import * as payments from "./service";

const h = setup();
const calls: string[] = [];
payments.registerPurpose("preimage-test", { onPaid: (_ctx, _tx, inv) => void calls.push(`paid ${inv.subjectId}`) });

test("preimageMatches compares the SHA-256 of the preimage with the hash; settleWithPreimage moves a pending invoice once", async () => {
  const preimage = "11".repeat(32);
  const hash = createHash("sha256").update(Buffer.from(preimage, "hex")).digest("hex");
  expect(payments.preimageMatches(hash, preimage)).toBe(true);
  expect(payments.preimageMatches(hash.toUpperCase(), preimage.toUpperCase())).toBe(true);
  expect(payments.preimageMatches(hash, "22".repeat(32))).toBe(false);
  expect(payments.preimageMatches(hash, "11")).toBe(false);
  expect(payments.preimageMatches("zz", preimage)).toBe(false);

  const invoice = await payments.requestInvoice(h.ctx, { amountSats: 500, memo: "x", ttlSeconds: 60 });
  const row = inTransaction(h.ctx.db, (tx) => payments.recordInvoice(h.ctx, tx, { purpose: "preimage-test", subjectId: "s1", amountSats: 500, invoice }));
  expect(payments.settleWithPreimage(h.ctx, row.id, "33".repeat(32))).toBeNull();
  expect(payments.findInvoice(h.ctx, row.id)!.status).toBe("pending");
  const dev = (await h.ctx.wallet.backend()) as import("../../adapters/lightning/dev-wallet").DevelopmentWallet;
  dev.settle(invoice.paymentHash);
  const paid = await dev.lookupInvoice(invoice.paymentHash);
  const real = paid.state === "paid" ? paid.preimage! : "";
  expect(payments.settleWithPreimage(h.ctx, row.id, real)).toMatchObject({ status: "paid", preimage: real });
  expect(payments.settleWithPreimage(h.ctx, row.id, real)!.status).toBe("paid");
  await payments.checkInvoice(h.ctx, row.id);
  expect(calls).toEqual(["paid s1"]);
});
