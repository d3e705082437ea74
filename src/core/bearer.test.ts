import { describe, expect, test } from "bun:test";
import { bearerToken } from "./bearer";

describe("bearerToken", () => {
  test("the token of the form clients send", () => {
    expect(bearerToken("Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig")).toBe("eyJhbGciOiJIUzI1NiJ9.e30.sig");
  });

  test("the scheme in any case, and spaces or tabs around the token", () => {
    expect(bearerToken("bearer abc")).toBe("abc");
    expect(bearerToken("BEARER abc")).toBe("abc");
    expect(bearerToken("Bearer   abc  ")).toBe("abc");
    expect(bearerToken("Bearer\tabc")).toBe("abc");
    expect(bearerToken("Bearer abc\t")).toBe("abc");
  });

  test("null for no header, another scheme, no token or two tokens", () => {
    for (const header of [null, undefined, "", "Basic YWxhZGRpbjpvcGVuc2VzYW1l", "Bearer", "Bearer ", "Bearer  ", "Bearer abc def", "Bearerabc", "xBearer abc"]) {
      expect(bearerToken(header)).toBeNull();
    }
  });
});
