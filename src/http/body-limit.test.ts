// The body limit over a real socket: Bun.serve on 127.0.0.1 with the server's own options
// (serverOptions), so that what Bun does at its limit is part of what is tested.
import { afterAll, describe, expect, test } from "bun:test";
import { setup } from "../../test/harness";
import { limitRule } from "../core/limits";
import { Elysia } from "elysia";
import { bodyLimitPlugin } from "./body-limit";
import { serverOptions } from "./serve-options";

const LIMIT = 4096;
const h = setup({ maxBodyBytes: LIMIT, host: "127.0.0.1", port: 0 });
const server = Bun.serve(serverOptions(h.ctx, h.app));
afterAll(() => server.stop(true));

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: any;
  /** Bytes of the request body written before the server closed the connection. */
  sent: number;
}

/**
 * Writes `head` and then the body `parts` one by one (each after the previous one is flushed),
 * stopping early when the server closes the connection, and reads the answer.
 */
async function raw(head: string, parts: Iterable<string | Uint8Array>): Promise<RawAnswer> {
  const received: Buffer[] = [];
  let closed = false;
  const done = Promise.withResolvers<void>();
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port: server.port!,
    socket: {
      data: (_s, d) => void received.push(Buffer.from(d)),
      close: () => ((closed = true), done.resolve()),
      error: () => ((closed = true), done.resolve()),
    },
  });
  socket.write(head);
  let sent = 0;
  for (const part of parts) {
    if (closed) break;
    const bytes = typeof part === "string" ? Buffer.from(part) : part;
    let off = 0;
    while (off < bytes.length && !closed) {
      const n = socket.write(bytes.subarray(off));
      if (n > 0) off += n;
      else await Bun.sleep(1);
    }
    sent += off;
    await Bun.sleep(1);
  }
  await Promise.race([done.promise, Bun.sleep(15_000)]);
  socket.end();
  const text = Buffer.concat(received).toString();
  const [head2, ...rest] = text.split("\r\n\r\n");
  const [statusLine, ...lines] = head2.split("\r\n");
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
  const body = rest.join("\r\n\r\n");
  let parsed: any = body;
  try {
    parsed = body ? JSON.parse(body) : null;
  } catch {}
  return { status: Number(statusLine.split(" ")[1]), headers, body: parsed, sent };
}

const chunk = (s: string) => `${s.length.toString(16)}\r\n${s}\r\n`;
const registerHead = (framing: string) => `POST /api/v1/auth/register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nOrigin: https://agent.example\r\n${framing}\r\n\r\n`;
/** A registration body with `padding` spaces of JSON whitespace in it. */
const registration = (username: string, padding: number) => `{"username":"${username}",${" ".repeat(padding)}"display_name":"Big Body"}`;

async function available(username: string): Promise<boolean> {
  return (await h.req("GET", "/api/v1/auth/check-username", { query: { username } })).body.available;
}

function expectTooLarge(r: RawAnswer) {
  expect(r.status).toBe(413);
  expect(r.body).toEqual({ detail: { code: "PAYLOAD_TOO_LARGE", message: `Request body over ${LIMIT} bytes` } });
  expect(r.headers["content-type"]).toBe("application/json");
  expect(r.headers["access-control-allow-origin"]).toBe("*");
  expect(r.headers.connection).toBe("close");
}

describe("request bodies over maxBodyBytes, over a socket", () => {
  test("Bun's own limit is out of reach: the app's limit is the one that answers", () => {
    expect(serverOptions(h.ctx, h.app).maxRequestBodySize).toBeGreaterThan(1024 ** 4);
  });

  test("a Content-Length over the limit is a 413 in the API's shape, and nothing changes", async () => {
    const body = registration("cl-over", LIMIT);
    const r = await raw(registerHead(`Content-Length: ${body.length}`), [body]);
    expectTooLarge(r);
    expect(await available("cl-over")).toBe(true);
  });

  test("so is a Content-Length far past any limit (Bun answered those with an empty 413)", async () => {
    const r = await raw(registerHead(`Content-Length: ${2 ** 40}`), ["{"]);
    expectTooLarge(r);
  });

  test("a chunked body growing past the limit is a 413 in the API's shape; the server stops reading and nothing changes", async () => {
    const body = registration("chunked-over", 1024 * 1024);
    const parts = [];
    for (let i = 0; i < body.length; i += 1000) parts.push(chunk(body.slice(i, i + 1000)));
    parts.push("0\r\n\r\n");
    const r = await raw(registerHead("Transfer-Encoding: chunked"), parts);
    expectTooLarge(r);
    // Closed soon after the limit, not after the whole megabyte.
    expect(r.sent).toBeLessThan(256 * 1024);
    expect(await available("chunked-over")).toBe(true);
  });

  test("fetch with a streamed body past the limit gets the same 413", async () => {
    const piece = new TextEncoder().encode("x".repeat(1000));
    let n = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (n++ < 10) c.enqueue(piece);
        else c.close();
      },
    });
    const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/auth/register`, { method: "POST", body: stream, headers: { "content-type": "application/json" } });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).detail.code).toBe("PAYLOAD_TOO_LARGE");
  });

  test("a chunked body within the limit is read and handled as usual, with the client's address", async () => {
    const rule = limitRule("register");
    const before = h.ctx.limits.status(rule, { ip: "127.0.0.1" }).current;
    const body = registration("chunked-ok", LIMIT - 200);
    expect(body.length).toBeLessThanOrEqual(LIMIT);
    const r = await raw(registerHead("Transfer-Encoding: chunked\r\nConnection: close"), [chunk(body.slice(0, 2000)), chunk(body.slice(2000)), "0\r\n\r\n"]);
    expect(r.status).toBe(201);
    expect(r.body.username).toBe("chunked-ok");
    expect(await available("chunked-ok")).toBe(false);
    // The per-address registration limit was charged to the socket's address.
    expect(h.ctx.limits.status(rule, { ip: "127.0.0.1" }).current).toBe(before + 1);
  });

  test("a body at the limit with a Content-Length is handled as usual", async () => {
    const padded = registration("cl-at-limit", LIMIT - registration("cl-at-limit", 0).length);
    expect(padded.length).toBe(LIMIT);
    const r = await raw(registerHead(`Content-Length: ${padded.length}\r\nConnection: close`), [padded]);
    expect(r.status).toBe(201);
  });

  test("rate limits per address see the socket's address (not one shared bucket)", async () => {
    const rule = limitRule("register");
    const before = h.ctx.limits.status(rule, { ip: "127.0.0.1" }).current;
    const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "by-address", display_name: "By Address" }),
    });
    expect(res.status).toBe(201);
    expect(h.ctx.limits.status(rule, { ip: "127.0.0.1" }).current).toBe(before + 1);
    expect(h.ctx.limits.status(rule, { ip: "local" }).current).toBe(0);
  });
});

describe("the limit's hook", () => {
  test("runs without a turn of the microtask queue (Elysia does not await it)", async () => {
    const app = new Elysia().use(bodyLimitPlugin(h.ctx)).get("/", () => "ok");
    expect((await app.handle(new Request("http://localhost/"))).status).toBe(200);
    // The general handler Elysia compiled for this app: its first onRequest hook is the limit's.
    const compiled = app.fetch.toString();
    expect(compiled).toContain("onRequest[0](c)");
    expect(compiled).not.toContain("await onRequest[0]");
    const over = await app.handle(new Request("http://localhost/", { method: "POST", body: "x".repeat(LIMIT + 1), headers: { "content-length": String(LIMIT + 1) } }));
    expect(over.status).toBe(413);
  });
});
