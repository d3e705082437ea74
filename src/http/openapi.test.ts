import { describe, expect, test } from "bun:test";
import { FormatRegistry } from "elysia/type-system";
import "./openapi";

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
});
