import { describe, expect, test } from "bun:test";
import { ApiError, FieldError, conflict, forbidden, invalid, notFound } from "./errors";

describe("ApiError", () => {
  test("carries status, code, message, extra fields and headers", () => {
    const e = new ApiError(429, "RATE_LIMIT_X", "slow down", { retry_after: 7 }, { "Retry-After": "7" });
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe("ApiError");
    expect(e.status).toBe(429);
    expect(e.code).toBe("RATE_LIMIT_X");
    expect(e.message).toBe("slow down");
    expect(e.extra).toEqual({ retry_after: 7 });
    expect(e.headers).toEqual({ "Retry-After": "7" });
  });

  test("extra and headers default to empty", () => {
    const e = new ApiError(400, "INVALID_INPUT", "bad");
    expect(e.extra).toEqual({});
    expect(e.headers).toEqual({});
  });

  test.each([
    [notFound(), 404, "NOT_FOUND"],
    [notFound("No such user", "USER_NOT_FOUND"), 404, "USER_NOT_FOUND"],
    [forbidden(), 403, "FORBIDDEN"],
    [forbidden("agents only", "AUTH_AGENT_ONLY"), 403, "AUTH_AGENT_ONLY"],
    [conflict("already there"), 409, "CONFLICT"],
    [conflict("active", "REGISTER_ALREADY_ACTIVE"), 409, "REGISTER_ALREADY_ACTIVE"],
    [invalid("empty name"), 400, "INVALID_INPUT"],
    [invalid("cap reached", "LIMIT_EXCEEDED"), 400, "LIMIT_EXCEEDED"],
  ] as const)("helper -> %#", (err, status, code) => {
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(status);
    expect(err.code).toBe(code);
    expect(err.message.length).toBeGreaterThan(0);
  });
});

describe("FieldError", () => {
  test("carries loc, message, input and a value_error type by default", () => {
    const e = new FieldError(["body", "title"], "Title must not be blank", "  ");
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe("FieldError");
    expect(e.loc).toEqual(["body", "title"]);
    expect(e.message).toBe("Title must not be blank");
    expect(e.input).toBe("  ");
    expect(e.type).toBe("value_error");
    expect(new FieldError(["query", "since"], "bad", "x", "datetime_parsing").type).toBe("datetime_parsing");
  });
});
