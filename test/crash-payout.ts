// A server process that dies in the middle of a payout, for the crash tests: it opens the data
// folder given, registers every feature (as `colony serve` does), runs the payout runner with its
// wallet's payLightningAddress cut at one step, and kills itself with SIGKILL there — no cleanup,
// no finally blocks, exactly what a crash leaves behind.
//
//   bun test/crash-payout.ts <data dir> <clock ms> <before-pay | after-record | after-pay>
import { createApp } from "../src/app";
import { loadConfig } from "../src/config";
import { TestClock } from "../src/core/clock";
import { createContext } from "../src/core/context";
import * as payments from "../src/features/payments/service";

const [dataDir, at, step] = process.argv.slice(2);
if (!dataDir || !at || !["before-pay", "after-record", "after-pay"].includes(step ?? "")) {
  console.error("usage: bun test/crash-payout.ts <data dir> <clock ms> <before-pay | after-record | after-pay>");
  process.exit(2);
}
const die = (): never => {
  process.kill(process.pid, "SIGKILL");
  throw new Error("unreachable");
};

const ctx = createContext({ config: loadConfig({ COLONY_DATA_DIR: dataDir, COLONY_LOG_LEVEL: "silent" }), clock: new TestClock(Number(at)) });
createApp(ctx);
const wallet = ctx.wallet;
const pay = wallet.payLightningAddress.bind(wallet);
wallet.payLightningAddress = async (address, amountSats, comment, record) => {
  // The payout is in flight (its attempt recorded) and the wallet has heard nothing.
  if (step === "before-pay") die();
  // The seller's invoice is recorded, and the process dies before the wallet pays it.
  if (step === "after-record") return pay(address, amountSats, comment, (hash) => (record(hash), die()));
  // The wallet paid; the process dies before the answer is recorded.
  await pay(address, amountSats, comment, record);
  return die();
};
await payments.runPayouts(ctx);
console.error(`crash-payout: the payout runner finished without reaching the step ${step}`);
process.exit(3);
