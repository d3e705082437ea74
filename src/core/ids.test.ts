import { describe, expect, test } from "bun:test";
import {
  API_KEY_PREFIX,
  fingerprintOf,
  hashSecret,
  isUuid,
  newApiKey,
  newClaimToken,
  randomBase62,
  safeEqual,
  sha256Hex,
  uuidv7,
} from "./ids";

/** The 48-bit millisecond timestamp at the front of a UUIDv7. */
const msOf = (id: string) => parseInt(id.replace(/-/g, "").slice(0, 12), 16);

describe("uuidv7", () => {
  test("is a UUID with version 7 and the RFC 9562 variant", () => {
    for (let i = 0; i < 200; i++) {
      const id = uuidv7(Date.UTC(2026, 0, 1) + i);
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(isUuid(id)).toBe(true);
    }
  });

  test("carries the given instant, not the wall clock", () => {
    const t = Date.UTC(2030, 5, 1, 8, 30, 0, 123);
    expect(msOf(uuidv7(t))).toBe(t);
    expect(msOf(uuidv7(0))).toBe(0);
    expect(uuidv7(0).startsWith("00000000-0000-7")).toBe(true);
  });

  test("sorts by time across an increasing clock", () => {
    const base = Date.UTC(2026, 0, 1);
    const ids = Array.from({ length: 500 }, (_, i) => uuidv7(base + i * 7));
    expect([...ids].sort()).toEqual(ids);
  });

  test("ids made in the same millisecond stay in creation order and are unique", () => {
    const ids = Array.from({ length: 5000 }, () => uuidv7(1_767_225_600_000));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(ids.every((id) => msOf(id) === 1_767_225_600_000)).toBe(true);
  });

  test("counting within a millisecond carries across the parts of the tail", () => {
    // A random start just below a carry in the low 32 bits, then in the next 30.
    const starts = [
      [0x123, 0x1234567, 0xfffffffe],
      [0x123, 0x3fffffff, 0xfffffffe],
    ];
    const real = crypto.getRandomValues.bind(crypto);
    for (const [a, b, c] of starts) {
      crypto.getRandomValues = (<T extends ArrayBufferView | null>(arr: T) => {
        Object.assign(arr as unknown as Uint32Array, [a, b, c]);
        return arr;
      }) as typeof crypto.getRandomValues;
      try {
        const ms = 1_767_225_600_000 + a!;
        const ids = Array.from({ length: 4 }, () => uuidv7(ms));
        expect([...ids].sort()).toEqual(ids);
        expect(new Set(ids).size).toBe(4);
        const tail = (id: string) => BigInt(`0x${id.replace(/-/g, "").slice(13)}`) & ((1n << 62n) - 1n) | (BigInt(`0x${id.slice(15, 18)}`) << 62n);
        expect(ids.map((id) => tail(id) - tail(ids[0]!))).toEqual([0n, 1n, 2n, 3n]);
        expect(ids.every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id))).toBe(true);
      } finally {
        crypto.getRandomValues = real;
      }
    }
  });

  test("an earlier instant still yields an id with that instant", () => {
    const later = uuidv7(2_000_000);
    const earlier = uuidv7(1_000_000);
    expect(msOf(earlier)).toBe(1_000_000);
    expect(earlier < later).toBe(true);
  });
});

describe("isUuid", () => {
  test.each([
    ["00000000-0000-7000-8000-000000000000", true],
    ["0196F3A2-1B2C-7D4E-9F00-0123456789AB", true],
    ["not-a-uuid", false],
    ["0196f3a2-1b2c-7d4e-9f00-0123456789a", false],
    ["0196f3a21b2c7d4e9f000123456789ab", false],
    ["", false],
  ] as const)("%p -> %p", (s, ok) => {
    expect(isUuid(s)).toBe(ok);
  });
});

describe("randomBase62", () => {
  test("has the requested length and only base62 characters", () => {
    for (const n of [0, 1, 6, 43, 200]) {
      const s = randomBase62(n);
      expect(s).toHaveLength(n);
      expect(s).toMatch(/^[0-9A-Za-z]*$/);
    }
  });

  test("does not repeat and uses the whole alphabet", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) seen.add(randomBase62(20));
    expect(seen.size).toBe(1000);
    const chars = new Set([...Array.from(seen).join("")]);
    expect(chars.size).toBe(62);
  });

  test("is roughly uniform (no modulo bias towards the first characters)", () => {
    const counts = new Map<string, number>();
    const s = randomBase62(62 * 2000);
    for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
    // Expected 2000 each; a biased generator gives the first 8 characters ~25% more.
    for (const n of counts.values()) {
      expect(n).toBeGreaterThan(1700);
      expect(n).toBeLessThan(2300);
    }
  });
});

describe("keys and tokens", () => {
  test("API keys carry the prefix and about 256 bits of base62", () => {
    const key = newApiKey();
    expect(key.startsWith(API_KEY_PREFIX)).toBe(true);
    expect(key).toMatch(/^col_[0-9A-Za-z]{43}$/);
    expect(newApiKey()).not.toBe(key);
  });

  test("claim tokens", () => {
    expect(newClaimToken()).toMatch(/^rct_[0-9A-Za-z]{43}$/);
  });

  test("the fingerprint is the last 6 characters", () => {
    expect(fingerprintOf("col_abcdefXYZ123")).toBe("XYZ123");
  });

  test("hashes are SHA-256 hex", () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(hashSecret("abc")).toBe(sha256Hex("abc"));
    expect(sha256Hex(new TextEncoder().encode("abc"))).toBe(sha256Hex("abc"));
    expect(hashSecret("abd")).not.toBe(hashSecret("abc"));
  });
});

describe("safeEqual", () => {
  test.each([
    ["abc", "abc", true],
    ["", "", true],
    ["abc", "abd", false],
    ["abc", "ab", false],
    ["ab", "abc", false],
    ["", "a", false],
    ["ünï", "ünï", true],
    ["ünï", "uni", false],
    ["XYZ123", "xyz123", false],
  ] as const)("%p vs %p -> %p", (a, b, expected) => {
    expect(safeEqual(a, b)).toBe(expected);
  });
});
