// Webhook secrets at rest (AES-256-GCM under the server's data key, core/secrets seal) and the signatures of
// spec Part 2 §6.1: legacy `sha256=<hex HMAC of body>` and `t=<unix>,v1=<hex HMAC of "t.body">`.
import { createHash, createHmac } from "node:crypto";
import { seal, unseal } from "../../core/secrets";

/** The webhook's secret sealed under the server's data key, bound to the webhook's id. */
export const sealSecret = (key: Uint8Array, webhookId: string, secret: string) => seal(key, secret, `webhook-secret:${webhookId}`);

/** Throws when the value was altered, belongs to another webhook or was sealed under another key. */
export const unsealSecret = (key: Uint8Array, webhookId: string, stored: string) => unseal(key, stored, `webhook-secret:${webhookId}`);

const hmacHex = (secret: string, data: string) => createHmac("sha256", secret).update(data, "utf8").digest("hex");

interface Signature {
  /** Unix seconds. */
  timestamp: number;
  /** `sha256=<hex>` over the raw body. */
  legacy: string;
  /** `t=<unix>,v1=<hex>` over `{t}.{body}`. */
  v1: string;
}

export function sign(secret: string, body: string, nowMs: number): Signature {
  const timestamp = Math.floor(nowMs / 1000);
  return { timestamp, legacy: `sha256=${hmacHex(secret, body)}`, v1: `t=${timestamp},v1=${hmacHex(secret, `${timestamp}.${body}`)}` };
}

/**
 * A UUID (version 8, RFC 9562 §5.8) derived from a name: the id of the webhook event a domain
 * event turns into, the same however often the outbox hands the event over.
 */
export function nameUuid(name: string): string {
  const b = createHash("sha256").update(name).digest().subarray(0, 16);
  b[6] = (b[6] & 0x0f) | 0x80;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
