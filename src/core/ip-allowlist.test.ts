// IP allowlists: canonical entries, refused entries, and which addresses each list lets through
// (IPv4, IPv6, CIDR ranges, IPv4-mapped addresses, zone ids), as tables of cases.
import { describe, expect, test } from "bun:test";
import { AllowlistCache, allowlistText, allows, compileAllowlist, normaliseAllowlist, parseEntry } from "./ip-allowlist";

describe("entries", () => {
  test.each([
    ["203.0.113.7", "203.0.113.7"],
    [" 203.0.113.7 ", "203.0.113.7"],
    ["203.0.113.7/32", "203.0.113.7"],
    ["10.0.0.0/8", "10.0.0.0/8"],
    ["10.1.2.3/8", "10.0.0.0/8"],
    ["0.0.0.0/0", "0.0.0.0/0"],
    ["192.168.1.128/25", "192.168.1.128/25"],
    ["2001:DB8::1", "2001:db8::1"],
    ["2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"],
    ["2001:db8::/32", "2001:db8::/32"],
    ["2001:db8:abcd:12::1/48", "2001:db8:abcd::/48"],
    ["::1", "::1"],
    ["::", "::"],
    ["::/0", "::/0"],
    ["1::", "1::"],
    ["1:0:0:2:0:0:0:3", "1:0:0:2::3"],
    ["1:0:2:3:4:5:6:7", "1:0:2:3:4:5:6:7"],
    ["fe80::1:2", "fe80::1:2"],
    ["::ffff:198.51.100.4", "198.51.100.4"],
    ["::ffff:198.51.100.0/120", "198.51.100.0/24"],
    ["::ffff:0:0/96", "0.0.0.0/0"],
    ["64:ff9b::192.0.2.33", "64:ff9b::c000:221"],
  ])("%p is %p", (raw, canonical) => {
    expect(parseEntry(raw)?.text).toBe(canonical);
  });

  test.each([
    [""],
    ["localhost"],
    ["203.0.113"],
    ["203.0.113.7.1"],
    ["256.1.1.1"],
    ["010.0.0.1"],
    ["1.2.3.4/33"],
    ["1.2.3.4/"],
    ["1.2.3.4/08"],
    ["1.2.3.4/-1"],
    ["1.2.3.4 /8"],
    ["2001:db8::/129"],
    ["2001:db8:::1"],
    ["2001::db8::1"],
    ["1:2:3:4:5:6:7:8:9"],
    ["1:2:3:4:5:6:7"],
    ["12345::1"],
    [":1"],
    ["1:"],
    ["g::1"],
    ["fe80::1%eth0"],
    ["::ffff:1.2.3"],
    ["1.2.3.4, 5.6.7.8"],
  ])("%p is refused", (raw) => {
    expect(parseEntry(raw)).toBeNull();
  });

  test("a list is canonicalised, duplicates dropped, order kept; the first bad entry is named", () => {
    expect(normaliseAllowlist(["10.1.2.3/8", "2001:DB8::1", "10.0.0.0/8", "203.0.113.7/32", "203.0.113.7"])).toEqual({ entries: ["10.0.0.0/8", "2001:db8::1", "203.0.113.7"] });
    expect(normaliseAllowlist(["10.0.0.0/8", "nope", "also-bad"])).toEqual({ invalid: "nope" });
    expect(normaliseAllowlist([])).toEqual({ entries: [] });
    expect(allowlistText([])).toBeNull();
    expect(allowlistText(["10.0.0.0/8", "::1"])).toBe("10.0.0.0/8,::1");
  });
});

describe("matching", () => {
  const list = compileAllowlist(["203.0.113.7", "10.0.0.0/8", "192.168.1.128/25", "2001:db8::/32", "fe80::1", "::ffff:198.51.100.0/120"]);

  test.each([
    // IPv4: a single address, a range and its edges
    ["203.0.113.7", true],
    ["203.0.113.8", false],
    ["203.0.113.6", false],
    ["10.0.0.0", true],
    ["10.255.255.255", true],
    ["11.0.0.0", false],
    ["9.255.255.255", false],
    ["192.168.1.128", true],
    ["192.168.1.255", true],
    ["192.168.1.127", false],
    ["198.51.100.200", true],
    ["198.51.101.1", false],
    // IPv4 as dual-stack sockets report it
    ["::ffff:203.0.113.7", true],
    ["::ffff:10.9.8.7", true],
    ["::ffff:203.0.113.8", false],
    ["::ffff:cb00:7107", true],
    // IPv6
    ["2001:db8::1", true],
    ["2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", true],
    ["2001:0DB8:0000::42", true],
    ["2001:db9::1", false],
    ["2001:db7:ffff::1", false],
    ["fe80::1", true],
    ["fe80::1%eth0", true],
    ["fe80::2", false],
    ["::1", false],
    // Not addresses: never allowed
    ["local", false],
    ["", false],
    ["203.0.113.7:443", false],
    ["unknown", false],
  ])("%p → %p", (address, allowed) => {
    expect(allows(list, address)).toBe(allowed);
  });

  test("catch-all ranges and empty lists", () => {
    expect(allows(compileAllowlist(["0.0.0.0/0"]), "198.51.100.1")).toBe(true);
    expect(allows(compileAllowlist(["0.0.0.0/0"]), "2001:db8::1")).toBe(false);
    expect(allows(compileAllowlist(["::/0"]), "2001:db8::1")).toBe(true);
    expect(allows(compileAllowlist(["::/0"]), "198.51.100.1")).toBe(false);
    expect(allows(compileAllowlist([]), "198.51.100.1")).toBe(false);
  });

  test("/31, /1 and /127 boundaries", () => {
    const l = compileAllowlist(["192.0.2.4/31", "2001:db8::/127"]);
    expect([allows(l, "192.0.2.4"), allows(l, "192.0.2.5"), allows(l, "192.0.2.6"), allows(l, "192.0.2.3")]).toEqual([true, true, false, false]);
    const half = compileAllowlist(["128.0.0.0/1"]);
    expect([allows(half, "200.1.1.1"), allows(half, "255.255.255.255"), allows(half, "127.255.255.255")]).toEqual([true, true, false]);
    expect([allows(l, "2001:db8::"), allows(l, "2001:db8::1"), allows(l, "2001:db8::2")]).toEqual([true, true, false]);
  });
});

describe("AllowlistCache", () => {
  test("compiles a list once per account and again when its text changes", () => {
    const cache = new AllowlistCache();
    const a = cache.get("u1", "10.0.0.0/8");
    expect(cache.get("u1", "10.0.0.0/8")).toBe(a);
    const b = cache.get("u1", "192.0.2.1");
    expect(b).not.toBe(a);
    expect(allows(b, "10.1.1.1")).toBe(false);
    expect(allows(b, "192.0.2.1")).toBe(true);
  });

  test("is bounded", () => {
    const cache = new AllowlistCache(3);
    for (let i = 0; i < 10; i++) cache.get(`u${i}`, "10.0.0.0/8");
    expect(cache.size).toBeLessThanOrEqual(3);
  });
});
