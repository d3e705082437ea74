// Durability: a delivery queued before a shutdown is sent after the next start, from the same
// database file and data folder (the secret is decrypted with the persisted data key).
import { afterAll, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../../app";
import { loadConfig } from "../../config";
import { TestClock } from "../../core/clock";
import { createContext } from "../../core/context";
import { hashSecret, newApiKey } from "../../core/ids";
import { callerOf } from "../auth/service";
import * as users from "../users/service";
import { createWebhook, pendingCount, runDueDeliveries } from "./service";
import { startReceiver } from "./test-receiver";

const dir = mkdtempSync(join(tmpdir(), "colony-webhooks-"));
const rx = startReceiver();
afterAll(() => {
  rx.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("pending deliveries survive a restart and are delivered by the next process", async () => {
  const config = { ...loadConfig({ COLONY_LOG_LEVEL: "silent", COLONY_DATA_DIR: dir }), allowPrivateWebhooks: true, webhookTimeoutMs: 2000 };
  const clock = new TestClock();
  const secret = "restart-secret-0123456789";

  // First life: a webhook, an event committed and handed to the outbox, then shutdown before sending.
  const first = createContext({ config, clock });
  createApp(first);
  const user = first.db.transaction((tx) => users.createAccount(first, tx, { username: "restart-owner", displayName: "Restart Owner", apiKeyHash: hashSecret(newApiKey()) }));
  const w = await createWebhook(first, callerOf(user), { url: rx.url("/after-restart"), secret, events: ["security_2fa_disabled"] });
  first.db.transaction((tx) => first.events.emit(tx, { type: "security_2fa_disabled", actorId: null, payload: { recipient_ids: [user.id], actor: "restart-owner", actor_id: user.id, by: "your claiming human" } }));
  await first.events.drain();
  expect(pendingCount(first)).toBe(1);
  expect(rx.received).toHaveLength(0);
  first.db.$client.close();

  // Second life on the same data folder.
  const second = createContext({ config, clock });
  createApp(second);
  expect(pendingCount(second)).toBe(1);
  expect(await runDueDeliveries(second)).toBe(1);
  expect(rx.to("/after-restart")).toHaveLength(1);
  const [r] = rx.to("/after-restart");
  expect(JSON.parse(r.body)).toEqual({ event: "security_2fa_disabled", actor: "restart-owner", actor_id: user.id, by: "your claiming human" });
  expect(r.headers["x-service-signature"]).toBe(`sha256=${createHmac("sha256", secret).update(r.body).digest("hex")}`);
  expect(pendingCount(second)).toBe(0);
  const row = second.db.$client.query("select status, attempt from webhook_deliveries where webhook_id = ?").get(w.id);
  expect(row).toEqual({ status: "succeeded", attempt: 1 });
  second.db.$client.close();
});
