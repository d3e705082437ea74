// Test fixtures of payments: the invoice poller run until it has looked at every invoice due, as
// its runs one after another would (each run takes a batch).
import type { Harness } from "../../../test/harness";
import { pollInvoices } from "./service";

const BATCH = 50;

/** Runs the invoice poller until no invoice is left due. */
export async function pollUntilIdle(h: Harness): Promise<void> {
  while ((await pollInvoices(h.ctx, BATCH)) === BATCH);
}
