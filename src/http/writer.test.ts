import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Ctx } from "../core/context";
import { rememberedAddress } from "./client-ip";
import { asPassedOn, passToWriter, writerFor } from "./writer";

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  address: string | undefined;
  body: string;
}

const dir = mkdtempSync(join(tmpdir(), "colony-writer-"));
const socket = join(dir, "writer.sock");
let seen: Seen | null = null;
// A writer's socket that records what reached it, as the writer's own listener sees it.
const writer = Bun.serve({
  unix: socket,
  async fetch(raw) {
    const request = asPassedOn(raw);
    const headers: Record<string, string> = {};
    request.headers.forEach((v, k) => (headers[k] = v));
    seen = { method: request.method, url: request.url, headers, address: rememberedAddress(request), body: await request.text() };
    const path = new URL(request.url).pathname;
    if (path === "/redirect") return new Response(null, { status: 303, headers: { location: "/elsewhere" } });
    if (path === "/cookies") {
      const headers = new Headers({ location: "/" });
      headers.append("set-cookie", "colony_session=s; Path=/; HttpOnly");
      headers.append("set-cookie", "colony_csrf=c; Path=/");
      return new Response(null, { status: 303, headers });
    }
    if (path === "/gzip") return new Response(Bun.gzipSync("a compressed answer"), { headers: { "content-encoding": "gzip", "content-type": "text/plain" } });
    return Response.json({ made: true }, { status: 201 });
  },
});
afterAll(() => {
  writer.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

const post = (path: string, headers: Record<string, string> = {}) => new Request(`http://colony.example:8080${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: '{"title":"t"}' });

describe("passing a write on to the writer", () => {
  test("the writer sees the request as the client sent it, from the client's address", async () => {
    const r = await passToWriter(post("/api/v1/posts?x=1", { "x-colony-peer": "6.6.6.6", "x-colony-absent": "authorization", authorization: "Bearer t" }), "10.0.0.9", socket);
    expect(r.status).toBe(201);
    expect(await r.json()).toEqual({ made: true });
    expect(seen).toMatchObject({ method: "POST", url: "http://colony.example:8080/api/v1/posts?x=1", address: "10.0.0.9", body: '{"title":"t"}' });
    // What fetch adds to a request without them is taken out again; a client's own marking headers never pass.
    for (const h of ["user-agent", "accept", "accept-encoding", "x-colony-peer", "x-colony-absent"]) expect(seen!.headers[h]).toBeUndefined();
    expect(seen!.headers).toMatchObject({ host: "colony.example:8080", authorization: "Bearer t", "content-type": "application/json" });
  });

  test("the client's own User-Agent, Accept and Accept-Encoding reach the writer unchanged", async () => {
    await passToWriter(post("/x", { "user-agent": "agent/1.0", accept: "application/json", "accept-encoding": "gzip" }), undefined, socket);
    expect(seen!.headers).toMatchObject({ "user-agent": "agent/1.0", accept: "application/json", "accept-encoding": "gzip" });
    expect(seen!.address).toBeUndefined();
  });

  test("the writer's answer comes back as it is: a redirect not followed, a compressed body not decompressed", async () => {
    const redirect = await passToWriter(post("/redirect"), "127.0.0.1", socket);
    expect(redirect.status).toBe(303);
    expect(redirect.headers.get("location")).toBe("/elsewhere");
    const gz = await passToWriter(post("/gzip", { "accept-encoding": "gzip" }), "127.0.0.1", socket);
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await gz.arrayBuffer())))).toBe("a compressed answer");
  });

  test("every cookie the writer sets reaches the client (a web sign-in sets two)", async () => {
    const r = await passToWriter(post("/cookies"), "127.0.0.1", socket);
    expect(r.status).toBe(303);
    expect(r.headers.getSetCookie()).toEqual(["colony_session=s; Path=/; HttpOnly", "colony_csrf=c; Path=/"]);
  });

  test("no writer at the socket: 503 SERVICE_UNAVAILABLE with Retry-After", async () => {
    const r = await passToWriter(post("/x"), "127.0.0.1", join(dir, "gone.sock"));
    expect(r.status).toBe(503);
    expect(r.headers.get("retry-after")).toBe("1");
    expect(((await r.json()) as { detail: { code: string } }).detail.code).toBe("SERVICE_UNAVAILABLE");
  });

  test("only a request that may write, on a worker that is not the writer, while a writer listens, is passed on", () => {
    const ctx = (writerSocket: string | null, writer: string | null) => ({ writerSocket, cluster: writer === undefined ? null : { workers: 2, restarts: 0, failingJobs: [], writer } }) as unknown as Ctx;
    const req = (method: string) => new Request("http://h/x", { method });
    for (const m of ["POST", "PUT", "PATCH", "DELETE"]) expect(writerFor(ctx(null, "/s/w.sock"), req(m))).toBe("/s/w.sock");
    for (const m of ["GET", "HEAD", "OPTIONS"]) expect(writerFor(ctx(null, "/s/w.sock"), req(m))).toBeNull();
    // The writer itself; no writer listening; one process.
    expect(writerFor(ctx("/s/w.sock", "/s/w.sock"), req("POST"))).toBeNull();
    expect(writerFor(ctx(null, null), req("POST"))).toBeNull();
    expect(writerFor({ writerSocket: null, cluster: null } as unknown as Ctx, req("POST"))).toBeNull();
    // A writer being replaced passes what reaches its port on to its successor.
    expect(writerFor(ctx("/s/old.sock", "/s/new.sock"), req("POST"))).toBe("/s/new.sock");
  });
});
