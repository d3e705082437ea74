import { describe, expect, test } from "bun:test";
import { FormatRegistry } from "elysia/type-system";
import { fullFormats } from "elysia/type-system/format";
import { dateTimeFormat } from "./openapi";

describe("string formats after loading the OpenAPI plugin", () => {
  // The plugin's own checks build a validation schema per call (slow on every request); ours are
  // Elysia's regular expressions, which (unlike the plugin's) accept the urn:uuid: form.
  test("uuid uses Elysia's regular expression", () => {
    const uuid = FormatRegistry.Get("uuid")!;
    expect(uuid("0190a0b0-0000-7000-8000-00000000a001")).toBe(true);
    expect(uuid("urn:uuid:0190a0b0-0000-7000-8000-00000000a001")).toBe(true);
    expect(uuid("not-a-uuid")).toBe(false);
  });

  test("email, url, ipv4 and ipv6 are checked", () => {
    expect(FormatRegistry.Get("email")!("a@b.co")).toBe(true);
    expect(FormatRegistry.Get("email")!("nope")).toBe(false);
    expect(FormatRegistry.Get("url")!("https://example.org/x")).toBe(true);
    expect(FormatRegistry.Get("ipv4")!("127.0.0.1")).toBe(true);
    expect(FormatRegistry.Get("ipv6")!("::1")).toBe(true);
    expect(FormatRegistry.Get("ipv4")!("999.1.1.1")).toBe(false);
  });

  test("date-time answers as Elysia's check does, instants in toISOString() form by a shorter path", () => {
    const check = FormatRegistry.Get("date-time")!;
    expect(check).toBe(dateTimeFormat);
    const elysia = fullFormats["date-time"] as (v: string) => boolean;
    const cases: [string, boolean][] = [
      ["2026-11-22T06:20:04.123Z", true],
      ["2024-02-29T23:59:59.999Z", true],
      ["0000-01-01T00:00:00.000Z", true],
      ["2026-13-01T00:00:00.000Z", false],
      ["2026-11-22T25:00:00.000Z", false],
      ["2026-11-22T23:60:00.000Z", false],
      ["2026-11-22T23:59:61.000Z", false],
      ["2026-11-22T06:20:04Z", true],
      ["2026-11-22T06:20:04.123+02:00", true],
      // Not in toISOString() form: Elysia's check decides, and it takes a bare date too.
      ["2026-11-22", true],
      ["yesterday", false],
      ["", false],
    ];
    for (const [value, valid] of cases) {
      expect([value, check(value)]).toEqual([value, valid]);
      // Elysia's strict RFC 3339 check agrees on every instant in toISOString() form.
      if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(value)) expect([value, elysia(value)]).toEqual([value, valid]);
    }
  });
});
