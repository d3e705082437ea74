// Webhook delivery throughput: registers webhooks pointing at a local receiver, generates events
// through the outbox, and measures how fast they are queued (outbox handler) and delivered
// (signed POSTs by the worker). In-process, on a file database in a temporary data folder.
//   bun bench/webhooks.ts                      # 50 webhooks, 200 events -> 10,000 deliveries
//   WEBHOOKS=10 EVENTS=1000 bun bench/webhooks.ts
//   RECEIVER_DELAY_MS=20 bun bench/webhooks.ts # a slow receiver
import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../src/app";
import { loadConfig } from "../src/config";
import { createContext } from "../src/core/context";
import { hashSecret, newApiKey } from "../src/core/ids";
import { callerOf } from "../src/features/auth/service";
import * as users from "../src/features/users/service";
import { createWebhook, pendingCount, runDueDeliveries } from "../src/features/webhooks/service";
import { startReceiver } from "../src/features/webhooks/test-receiver";

const WEBHOOKS = Number(process.env.WEBHOOKS ?? 50);
const EVENTS = Number(process.env.EVENTS ?? 200);
const DELAY = Number(process.env.RECEIVER_DELAY_MS ?? 0);
const SECRET = "bench-secret-0123456789";

const receiver = startReceiver();
receiver.delay(DELAY);

const dir = mkdtempSync(join(tmpdir(), "colony-bench-webhooks-"));
const config = { ...loadConfig({ COLONY_LOG_LEVEL: "warn", COLONY_DATA_DIR: dir }), allowPrivateWebhooks: true, rateLimitMultiplier: 0 };
const ctx = createContext({ config });
createApp(ctx);

try {
  const owners: string[] = [];
  for (let i = 0; i < WEBHOOKS; i++) {
    const user = ctx.db.transaction((tx) => users.createAccount(ctx, tx, { username: `bench-hook-${i}`, displayName: `Bench ${i}`, apiKeyHash: hashSecret(newApiKey()) }));
    await createWebhook(ctx, callerOf(user), { url: receiver.url(`/hook/${i}`), secret: SECRET, events: ["security_2fa_disabled"] });
    owners.push(user.id);
  }

  // Queueing: one domain event per EVENTS, each to every webhook owner (the generic rule).
  let t = performance.now();
  for (let i = 0; i < EVENTS; i++) {
    ctx.db.transaction((tx) => ctx.events.emit(tx, { type: "security_2fa_disabled", actorId: null, payload: { recipient_ids: owners, actor: "bench", actor_id: owners[0], by: `bench ${i}` } }));
  }
  await ctx.events.drain();
  const queueMs = performance.now() - t;
  const queued = pendingCount(ctx);

  // Delivery: the worker until nothing is due.
  t = performance.now();
  while (pendingCount(ctx) > 0) {
    const n = await runDueDeliveries(ctx);
    if (!n) await Bun.sleep(50); // only retries are left, not yet due
  }
  const deliverMs = performance.now() - t;
  const received = receiver.received.length;
  const badSignatures = receiver.received.filter((r) => r.headers["x-service-signature"] !== `sha256=${createHmac("sha256", SECRET).update(r.body).digest("hex")}`).length;

  const rate = (count: number, ms: number) => Math.round((count / ms) * 1000);
  console.log(`webhooks ${WEBHOOKS}, events ${EVENTS}, receiver delay ${DELAY} ms, bun ${Bun.version}`);
  console.log(`queued    ${queued} deliveries in ${queueMs.toFixed(0)} ms (${rate(queued, queueMs)} per second)`);
  console.log(`delivered ${received} POSTs in ${deliverMs.toFixed(0)} ms (${rate(received, deliverMs)} per second)`);
  if (badSignatures) console.log(`BAD SIGNATURES: ${badSignatures}`);
  if (received !== queued) console.log(`MISMATCH: queued ${queued}, received ${received}`);
} finally {
  ctx.db.$client.close();
  receiver.stop();
  rmSync(dir, { recursive: true, force: true });
}
