import { describe, expect, test } from "bun:test";
import { loadConfig } from "../config";
import type { Ctx } from "../core/context";
import { setup } from "../../test/harness";
import { clientIp } from "./client-ip";

const config = loadConfig({ COLONY_LOG_LEVEL: "silent" });
/** A context whose server (null: none, in process) sees every request come from `address`. */
const ctxWith = (trustProxy: boolean, server: Ctx["server"] = null) => ({ config: { ...config, trustProxy }, server }) as unknown as Ctx;
const req = (headers: Record<string, string> = {}) => new Request("http://localhost/", { headers });
const server = (address: string | null) => ({ requestIP: () => (address ? { address } : null) });

describe("clientIp", () => {
  test("is the socket address by default", () => {
    expect(clientIp(ctxWith(false, server("198.51.100.7")), req())).toBe("198.51.100.7");
  });

  test("ignores forwarding headers unless the proxy is trusted", () => {
    const r = req({ "x-forwarded-for": "203.0.113.9", "fly-client-ip": "203.0.113.8" });
    expect(clientIp(ctxWith(false, server("10.0.0.1")), r)).toBe("10.0.0.1");
  });

  test("behind a trusted proxy: Fly-Client-IP first, then the first X-Forwarded-For entry", () => {
    const ctx = ctxWith(true, server("10.0.0.1"));
    expect(clientIp(ctx, req({ "fly-client-ip": " 203.0.113.8 ", "x-forwarded-for": "203.0.113.9" }))).toBe("203.0.113.8");
    expect(clientIp(ctx, req({ "x-forwarded-for": " 203.0.113.9 , 10.0.0.2, 10.0.0.1" }))).toBe("203.0.113.9");
    expect(clientIp(ctx, req())).toBe("10.0.0.1");
  });

  test("without a server (in-process requests) the address is 'local'", () => {
    expect(clientIp(ctxWith(false), req())).toBe("local");
    expect(clientIp(ctxWith(false, server(null)), req())).toBe("local");
  });
});

describe("the app", () => {
  test("no hook or handler names Elysia's `server` (it would put a getter into every request's context)", () => {
    const { app } = setup();
    expect((app as unknown as { inference: { server: boolean } }).inference.server).toBe(false);
  });
});
