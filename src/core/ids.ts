// Identifiers and secrets: UUIDv7 ids, API keys, claim tokens, and their hashes.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** Two hex digits of every byte value. */
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

let lastMs = -1;
// The 74 bits after the version and variant (rand_a, 12 bits, then rand_b, 62 bits), held as three
// unsigned parts so that counting needs no BigInt: `a` is rand_a, `b` rand_b's top 30 bits, `c`
// its low 32.
let tailA = 0;
let tailB = 0;
let tailC = 0;
const random = new Uint32Array(3);

/**
 * Time-ordered UUIDv7 (RFC 9562) built on the injected clock's instant. Ids made in the same
 * millisecond stay in creation order: the 74 random bits then work as a counter started at a
 * random value (RFC 9562 §6.2, method 2), so sorting by id sorts by creation.
 */
export function uuidv7(nowMs: number): string {
  if (nowMs === lastMs && !(tailA === 0xfff && tailB === 0x3fffffff && tailC === 0xffffffff)) {
    if (tailC !== 0xffffffff) tailC++;
    else {
      tailC = 0;
      if (tailB !== 0x3fffffff) tailB++;
      else {
        tailB = 0;
        tailA++;
      }
    }
  } else {
    // A fresh random start with the top bit clear leaves room to count within the millisecond.
    crypto.getRandomValues(random);
    tailA = random[0]! & 0x7ff;
    tailB = random[1]! & 0x3fffffff;
    tailC = random[2]!;
  }
  lastMs = nowMs;
  const hi = Math.floor(nowMs / 0x100000000) & 0xffff;
  const lo = nowMs >>> 0;
  return (
    HEX[hi >>> 8]! + HEX[hi & 0xff]! + HEX[lo >>> 24]! + HEX[(lo >>> 16) & 0xff]! + "-" +
    HEX[(lo >>> 8) & 0xff]! + HEX[lo & 0xff]! + "-" +
    HEX[0x70 | (tailA >>> 8)]! + HEX[tailA & 0xff]! + "-" +
    HEX[0x80 | (tailB >>> 24)]! + HEX[(tailB >>> 16) & 0xff]! + "-" +
    HEX[(tailB >>> 8) & 0xff]! + HEX[tailB & 0xff]! +
    HEX[tailC >>> 24]! + HEX[(tailC >>> 16) & 0xff]! + HEX[(tailC >>> 8) & 0xff]! + HEX[tailC & 0xff]!
  );
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
 * A request's id: a UUIDv7 on the given instant with random bits (Bun's native generator; uuidv7
 * above also keeps ids of one millisecond in order, which request ids do not need, at several
 * times the cost).
 */
export const requestId = (nowMs: number): string => Bun.randomUUIDv7("hex", nowMs);
