// The guarded outbound POST: SSRF address classification, URL checks with a controllable
// resolver (DNS that changes), pinning, no redirects, timeout and the response cap, against a
// real receiver on 127.0.0.1.
import { afterAll, describe, expect, test } from "bun:test";
import { selfSignedCert } from "../../test/tls";
import { checkOutboundUrl, guardedBytes, guardedGet, guardedPost, isBlockedAddress, OutboundUrlError, type Resolver } from "./http-out";

const received: { host: string | null; path: string; body: string; method?: string }[] = [];
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const url = new URL(req.url);
    const raw = new Uint8Array(await req.arrayBuffer());
    received.push({ host: req.headers.get("host"), path: url.pathname, body: new TextDecoder().decode(raw), method: req.method });
    if (url.pathname === "/redirect") return new Response(null, { status: 302, headers: { location: `${url.origin}/target` } });
    if (url.pathname === "/slow") {
      await Bun.sleep(400);
      return new Response("late");
    }
    if (url.pathname === "/big") return new Response("x".repeat(10_000));
    if (url.pathname === "/fail") return new Response("nope", { status: 503 });
    if (url.pathname === "/echo-bytes") return new Response(raw.map((b) => b ^ 0xff), { headers: { "content-type": "application/octet-stream" } });
    return new Response("fine");
  },
});
afterAll(() => server.stop(true));
const base = `http://127.0.0.1:${server.port}`;
const post = (url: string, extra: Partial<Parameters<typeof guardedPost>[1]> = {}) =>
  guardedPost(url, { allowPrivate: true, headers: { "content-type": "application/json" }, body: "{}", timeoutMs: 2000, ...extra });

describe("isBlockedAddress", () => {
  test.each([
    "127.0.0.1", "127.255.0.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "100.64.0.1", "100.127.255.254",
    "169.254.169.254", "169.254.0.1", "0.0.0.0", "0.1.2.3", "224.0.0.1", "239.255.255.250", "255.255.255.255", "240.0.0.1",
    "::", "::1", "fe80::1", "fe80::1%eth0", "fc00::1", "fd12:3456::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1",
    "::ffff:7f00:1", "64:ff9b::a9fe:a9fe", "2001:db8::1", "not-an-ip",
    // IPv6 prefixes that carry an IPv4 address: 6to4, NAT64 (well-known and local-use), Teredo; discard-only
    "2002:7f00:1::", "2002:a9fe:a9fe::1", "2002:c0a8:101::", "2002:a00:1::", "64:ff9b:1::1", "64:ff9b:1:ffff::a00:1",
    "2001::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "100::1", "::7f00:1", "192.88.99.1",
  ])("%s is blocked", (ip) => expect(isBlockedAddress(ip)).toBe(true));

  test.each(["93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "192.169.0.1", "2606:4700:4700::1111", "2a00:1450:4001:80b::200e", "::ffff:8.8.8.8", "2002:5db8:d822::1", "64:ff9b::808:808"])(
    "%s is allowed",
    (ip) => expect(isBlockedAddress(ip)).toBe(false),
  );
});

describe("checkOutboundUrl", () => {
  const dns = (answers: Record<string, string[]>): Resolver => async (host) => answers[host] ?? [];
  const refused = async (url: string, resolver?: Resolver) => {
    try {
      await checkOutboundUrl(url, { allowPrivate: false, resolver });
      return null;
    } catch (err) {
      return (err as OutboundUrlError).reason;
    }
  };

  test("refuses private targets by literal address and by name, without the flag", async () => {
    for (const url of ["http://127.0.0.1/x", "http://[::1]/x", "https://169.254.169.254/latest/meta-data", "http://10.0.0.8:8080/", "http://[fd00::1]/", "http://0.0.0.0/", "http://[::ffff:192.168.0.1]/"]) {
      expect(await refused(url)).toBe("private_address");
    }
    expect(await refused("https://internal.example/hook", dns({ "internal.example": ["192.168.10.5"] }))).toBe("private_address");
    // One private answer among public ones is enough to refuse (a rebinding resolver picks it).
    expect(await refused("https://mixed.example/hook", dns({ "mixed.example": ["93.184.216.34", "127.0.0.1"] }))).toBe("private_address");
    expect(await refused("https://nowhere.example/hook", dns({}))).toBe("unresolvable");
    expect(await refused("file:///etc/passwd")).toBe("scheme");
    expect(await refused("https://a:b@example.com/")).toBe("credentials");
  });

  test("allows public targets and pins the checked address", async () => {
    const ok = await checkOutboundUrl("https://hooks.example/in", { allowPrivate: false, resolver: dns({ "hooks.example": ["93.184.216.34"] }) });
    expect(ok).toMatchObject({ host: "hooks.example", address: "93.184.216.34" });
  });

  test("the flag lets private targets through", async () => {
    expect((await checkOutboundUrl("http://127.0.0.1:9/x", { allowPrivate: true })).address).toBe("127.0.0.1");
  });
});

describe("guardedPost", () => {
  test("posts the body and keeps the answer", async () => {
    const r = await post(`${base}/ok`);
    expect(r).toMatchObject({ ok: true, status: 200, body: "fine", error: null });
  });

  test("a refused URL is not requested at all", async () => {
    received.length = 0;
    const r = await post(`${base}/ok`, { allowPrivate: false });
    expect(r.ok).toBe(false);
    expect(r.status).toBeNull();
    expect(r.error).toContain("refused");
    expect(received).toHaveLength(0);
  });

  test("connects to the resolved address with the original Host header (DNS pinning)", async () => {
    received.length = 0;
    const resolver: Resolver = async (host) => (host === "hooks.test" ? ["127.0.0.1"] : []);
    const r = await post(`http://hooks.test:${server.port}/pinned`, { resolver });
    expect(r.status).toBe(200);
    expect(received[0]).toMatchObject({ host: `hooks.test:${server.port}`, path: "/pinned" });
  });

  test("a redirect is an answer, never followed", async () => {
    received.length = 0;
    const r = await post(`${base}/redirect`);
    expect(r).toMatchObject({ ok: false, status: 302 });
    expect(received.map((x) => x.path)).toEqual(["/redirect"]);
  });

  test("non-2xx is a failure with its status and body", async () => {
    expect(await post(`${base}/fail`)).toMatchObject({ ok: false, status: 503, body: "nope" });
  });

  test("times out", async () => {
    const r = await post(`${base}/slow`, { timeoutMs: 100 });
    expect(r).toMatchObject({ ok: false, status: null });
    expect(r.error).toContain("timed out after 100 ms");
  });

  test("keeps at most maxResponseBytes of the answer", async () => {
    const r = await post(`${base}/big`, { maxResponseBytes: 4096 });
    expect(r.status).toBe(200);
    expect(r.body).toHaveLength(4096);
  });

  test("an unreachable port is a failure without a status", async () => {
    const r = await post("http://127.0.0.1:1/x");
    expect(r).toMatchObject({ ok: false, status: null });
    expect(r.error).toBeTruthy();
  });
});

describe("guardedGet", () => {
  const tls = selfSignedCert("files.test");
  const secure = Bun.serve({ hostname: "127.0.0.1", port: 0, tls, fetch: (req) => new Response(`secure ${new URL(req.url).pathname}`) });
  afterAll(() => secure.stop(true));
  const resolver: Resolver = async (host) => (host === "files.test" ? ["127.0.0.1"] : []);

  test("gets through the same guard: pinned, capped, no redirect followed, refused without the allowance", async () => {
    received.length = 0;
    expect(await guardedGet(`${base}/ok`, { allowPrivate: true, timeoutMs: 2000 })).toMatchObject({ ok: true, status: 200, body: "fine" });
    expect(received[0]).toMatchObject({ method: "GET", path: "/ok" });
    expect(await guardedGet(`${base}/redirect`, { allowPrivate: true, timeoutMs: 2000 })).toMatchObject({ ok: false, status: 302 });
    expect((await guardedGet(`${base}/big`, { allowPrivate: true, timeoutMs: 2000, maxResponseBytes: 100 })).body).toHaveLength(100);
    expect((await guardedGet(`${base}/ok`, { allowPrivate: false, timeoutMs: 2000 })).error).toContain("refused");
  });

  test("https: the certificate is checked against the host name; an extra CA is trusted only when given", async () => {
    const url = `https://files.test:${secure.port}/a`;
    expect(await guardedGet(url, { allowPrivate: true, resolver, ca: tls.cert, timeoutMs: 2000 })).toMatchObject({ ok: true, body: "secure /a" });
    expect((await guardedGet(url, { allowPrivate: true, resolver, timeoutMs: 2000 })).status).toBeNull();
    const wrongName: Resolver = async () => ["127.0.0.1"];
    expect((await guardedGet(`https://other.test:${secure.port}/a`, { allowPrivate: true, resolver: wrongName, ca: tls.cert, timeoutMs: 2000 })).status).toBeNull();
  });
});

describe("guardedBytes", () => {
  test("posts raw bytes and keeps the answer as bytes, every value 0-255 intact, capped", async () => {
    const sent = Uint8Array.from({ length: 256 }, (_, i) => i);
    const r = await guardedBytes("POST", `${base}/echo-bytes`, { allowPrivate: true, timeoutMs: 2000, body: sent, maxResponseBytes: 1000 });
    expect(r).toMatchObject({ ok: true, status: 200, error: null });
    expect(r.body).toEqual(sent.map((b) => b ^ 0xff));
    const capped = await guardedBytes("POST", `${base}/echo-bytes`, { allowPrivate: true, timeoutMs: 2000, body: sent, maxResponseBytes: 10 });
    expect(capped.body?.byteLength).toBe(10);
  });

  test("refused without the allowance, timed out like the others", async () => {
    expect(await guardedBytes("GET", `${base}/ok`, { allowPrivate: false, timeoutMs: 2000 })).toMatchObject({ ok: false, status: null, body: null });
    expect((await guardedBytes("GET", `${base}/slow`, { allowPrivate: true, timeoutMs: 50 })).error).toMatch(/timed out/);
  });
});
