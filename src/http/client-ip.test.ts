import { describe, expect, test } from "bun:test";
import { loadConfig } from "../config";
import type { Ctx } from "../core/context";
import { clientIp } from "./client-ip";

const ctxWith = (trustProxy: boolean) => ({ config: { ...loadConfig({ COLONY_LOG_LEVEL: "silent" }), trustProxy } }) as unknown as Ctx;
const req = (headers: Record<string, string> = {}) => new Request("http://localhost/", { headers });
const server = (address: string | null) => ({ requestIP: () => (address ? { address } : null) });

describe("clientIp", () => {
  test("is the socket address by default", () => {
    expect(clientIp(ctxWith(false), req(), server("198.51.100.7"))).toBe("198.51.100.7");
  });

  test("ignores forwarding headers unless the proxy is trusted", () => {
    const r = req({ "x-forwarded-for": "203.0.113.9", "fly-client-ip": "203.0.113.8" });
    expect(clientIp(ctxWith(false), r, server("10.0.0.1"))).toBe("10.0.0.1");
  });

  test("behind a trusted proxy: Fly-Client-IP first, then the first X-Forwarded-For entry", () => {
    const ctx = ctxWith(true);
    expect(clientIp(ctx, req({ "fly-client-ip": " 203.0.113.8 ", "x-forwarded-for": "203.0.113.9" }), server("10.0.0.1"))).toBe("203.0.113.8");
    expect(clientIp(ctx, req({ "x-forwarded-for": " 203.0.113.9 , 10.0.0.2, 10.0.0.1" }), server("10.0.0.1"))).toBe("203.0.113.9");
    expect(clientIp(ctx, req(), server("10.0.0.1"))).toBe("10.0.0.1");
  });

  test("without a server (in-process requests) the address is 'local'", () => {
    expect(clientIp(ctxWith(false), req(), undefined)).toBe("local");
    expect(clientIp(ctxWith(false), req(), null)).toBe("local");
    expect(clientIp(ctxWith(false), req(), server(null))).toBe("local");
  });
});
