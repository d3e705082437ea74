// Identifiers and secrets: UUIDv7 ids, API keys, claim tokens, and their hashes.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** Time-ordered UUIDv7 (RFC 9562) built on the injected clock's instant. */
export function uuidv7(nowMs: number): string {
  const b = randomBytes(16);
  const ts = BigInt(nowMs);
  for (let i = 0; i < 6; i++) b[i] = Number((ts >> BigInt(8 * (5 - i))) & 0xffn);
  b[6] = (b[6] & 0x0f) | 0x70;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string) => UUID_RE.test(s);

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Uniform base62 string of `length` characters from the CSPRNG (rejection sampling, no bias). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Prefix the client libraries check for. */
export const API_KEY_PREFIX = "col_";
/** 43 base62 characters: about 256 bits of entropy. */
export const newApiKey = () => API_KEY_PREFIX + randomBase62(43);
export const newClaimToken = () => "rct_" + randomBase62(43);
/** The last 6 characters of a key: its non-secret fingerprint. */
export const fingerprintOf = (key: string) => key.slice(-6);

/** Secrets with 256 bits of entropy need no slow hash; SHA-256 makes the stored value useless to a thief. */
export const hashSecret = (secret: string) => createHash("sha256").update(secret).digest("hex");
export const sha256Hex = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");

/** Constant-time string comparison (length leak only). */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}
