// Identifiers and secrets: UUIDv7 ids, API keys, claim tokens, and their hashes.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

let lastMs = -1;
let lastTail = 0n;
const TAIL_BITS = 74n; // rand_a (12 bits) and rand_b (62 bits)
const TAIL_MAX = (1n << TAIL_BITS) - 1n;

/**
 * Time-ordered UUIDv7 (RFC 9562) built on the injected clock's instant. Ids made in the same
 * millisecond stay in creation order: the 74 random bits then work as a counter started at a
 * random value (RFC 9562 §6.2, method 2), so sorting by id sorts by creation.
 */
export function uuidv7(nowMs: number): string {
  let tail: bigint;
  if (nowMs === lastMs && lastTail < TAIL_MAX) {
    tail = lastTail + 1n;
  } else {
    // A fresh random start with the top bit clear leaves room to count within the millisecond.
    tail = BigInt("0x" + randomBytes(10).toString("hex")) & (TAIL_MAX >> 1n);
  }
  lastMs = nowMs;
  lastTail = tail;
  const b = Buffer.alloc(16);
  const ts = BigInt(nowMs);
  for (let i = 0; i < 6; i++) b[i] = Number((ts >> BigInt(8 * (5 - i))) & 0xffn);
  const randA = Number(tail >> 62n); // 12 bits
  const randB = tail & ((1n << 62n) - 1n);
  b[6] = 0x70 | (randA >> 8);
  b[7] = randA & 0xff;
  b[8] = 0x80 | Number(randB >> 56n);
  for (let i = 9; i < 16; i++) b[i] = Number((randB >> BigInt(8 * (15 - i))) & 0xffn);
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

/**
 * A request's id: a UUIDv7 on the given instant with random bits (Bun's native generator, about
 * 0.1 µs; uuidv7 above keeps ids of one millisecond in order, which request ids do not need, at
 * about 0.8 µs).
 */
export const requestId = (nowMs: number): string => Bun.randomUUIDv7("hex", nowMs);
