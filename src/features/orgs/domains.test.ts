// Domain verification (spec Part 2 §3 "Domain challenge", §4.3; docs/decisions.md §63): a DNS TXT
// record read through a stub resolver, and a well-known file fetched over HTTPS from a local
// server on 127.0.0.1 with a self-signed certificate made here — through the same SSRF guard the
// webhooks use, with an explicit test-only allowance for loopback and that certificate. Nothing
// reaches the internet.
import { afterAll, describe, expect, test } from "bun:test";
import { refused } from "../../../test/expect";
import { setup, type TestUser } from "../../../test/harness";
import { selfSignedCert } from "../../../test/tls";
import { domainProbe, type DomainProbeOptions } from "../../adapters/domain-probe";
import { DAY, MINUTE } from "../../core/clock";
import { crew, orgApi, ROLES, tokenOf, type RoleName } from "./fixtures";

const h = setup({ rateLimitMultiplier: 0 });
const api = orgApi(h);

// DNS: a zone of TXT records the stub answers from.
const zone = new Map<string, string[][]>();
const lookups: string[] = [];
const resolveTxt = async (name: string) => {
  lookups.push(name);
  const records = zone.get(name);
  if (!records) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: "ENOTFOUND" });
  return records;
};

// HTTPS: one local server holding a certificate for every test domain.
const DOMAINS = ["wk-one.example.com", "wk-two.example.com", "wk-three.example.com", "wk-four.example.com", "wk-five.example.com", "wk-six.example.com", "wk-seven.example.com"];
const tls = Object.fromEntries(DOMAINS.map((d) => [d, selfSignedCert(d)]));
const files = new Map<string, () => Response | Promise<Response>>();
/** The Host header each server last received. */
const seenHost = new Map<string, string | null>();
const servers = DOMAINS.map((d) =>
  Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: tls[d],
    fetch: (req) => {
      seenHost.set(d, req.headers.get("host"));
      const url = new URL(req.url);
      const make = files.get(`${d}${url.pathname}`);
      return make ? make() : new Response("not here", { status: 404 });
    },
  }),
);
afterAll(() => servers.forEach((s) => s.stop(true)));

/** The probe a test uses: the stub resolver, and for `domain` the local server (loopback allowed, its certificate trusted). */
function useProbe(domain?: string, extra: Partial<DomainProbeOptions> = {}) {
  const i = domain ? DOMAINS.indexOf(domain) : -1;
  h.ctx.domains = domainProbe({
    resolveTxt,
    resolver: async (host) => (host === domain ? ["127.0.0.1"] : []),
    allowPrivate: true,
    ca: i >= 0 ? tls[domain!].cert : undefined,
    port: i >= 0 ? servers[i].port : undefined,
    timeoutMs: 2000,
    ...extra,
  });
}

const start = (slug: string, u: TestUser | null, body: unknown) => api.req("POST", `/${slug}/domain`, u?.token ?? null, body);
const verify = (slug: string, u: TestUser | null) => api.req("POST", `/${slug}/domain/verify`, u?.token ?? null);

describe("POST /orgs/{slug}/domain", () => {
  test("per role: admins and owners start a challenge; others 403 (a private org's strangers 404)", async () => {
    useProbe();
    const c = await crew(h);
    const body = { domain: "roles.example.com", method: "dns_txt" };
    await refused(h, () => start(c.slug, null, body), 401);
    for (const role of ["stranger", "member", "siteAdmin"] as const) await refused(h, () => start(c.slug, c[role], body), 403, "FORBIDDEN");
    const p = await crew(h, { disclosure: "none" });
    await refused(h, () => start(p.slug, p.stranger, body), 404, "NOT_FOUND");
    for (const role of ["admin", "owner"] as const) expect((await start(c.slug, c[role], body)).status).toBe(200);
  });

  test("dns_txt: the token and the record to publish; http_wellknown: the URL and its content; pending for 7 days", async () => {
    const c = await crew(h);
    const dns = await start(c.slug, c.admin, { domain: " Acme.Example.COM. ", method: "dns_txt" });
    expect(dns.body).toEqual({
      id: expect.any(String),
      domain: "acme.example.com",
      method: "dns_txt",
      status: "pending",
      token: expect.stringMatching(/^[A-Za-z0-9]{32}$/),
      verified_at: null,
      expires_at: new Date(h.clock.now() + 7 * DAY).toISOString(),
      created_at: new Date(h.clock.now()).toISOString(),
      last_checked_at: null,
      last_error: null,
      record_type: "TXT",
      record_name: "_colony-verification.acme.example.com",
      record_value: `colony-domain-verification=${dns.body.token}`,
      url: null,
      file_content: null,
      instructions: expect.stringContaining("_colony-verification.acme.example.com"),
    });
    const wk = await start(c.slug, c.admin, { domain: "acme.example.com", method: "http_wellknown" });
    expect(wk.body).toMatchObject({ method: "http_wellknown", record_type: null, url: "https://acme.example.com/.well-known/colony-domain-verification.txt", file_content: wk.body.token });
    expect(wk.body.token).not.toBe(dns.body.token);
  });

  test("400 INVALID_INPUT for what is not a public domain name; 422 for an unknown method", async () => {
    const c = await crew(h);
    for (const domain of ["https://acme.example.com", "acme.example.com/path", "localhost", "127.0.0.1", "nodots", "bad_label.example.com", "-lead.example.com", "a..b.com", "printer.local", "x.test", `${"a".repeat(64)}.com`]) {
      await refused(h, () => start(c.slug, c.owner, { domain, method: "dns_txt" }), 400, "INVALID_INPUT");
    }
    await refused(h, () => start(c.slug, c.owner, { domain: "acme.example.com", method: "email" }), 422);
    await refused(h, () => start(c.slug, c.owner, { method: "dns_txt" }), 422);
  });
});

describe("POST /orgs/{slug}/domain/verify — DNS TXT", () => {
  test("found: verified, the organisation's verified domain, an event; shown on the public view", async () => {
    useProbe();
    const c = await crew(h);
    const ch = await start(c.slug, c.owner, { domain: "dns-ok.example.com", method: "dns_txt" });
    zone.set("_colony-verification.dns-ok.example.com", [["v=spf1 -all"], ["colony-domain-verification=", ch.body.token]]);
    const r = await verify(c.slug, c.admin);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ verified: true, reason: null, status: "verified", domain: "dns-ok.example.com", verified_at: expect.any(String), verified_domain: "dns-ok.example.com" });
    expect(lookups).toContain("_colony-verification.dns-ok.example.com");
    expect((await api.req("GET", `/${c.slug}`, c.stranger.token)).body.verified_domain).toBe("dns-ok.example.com");
    expect((await api.req("GET", "", c.member.token)).body[0].verified_domain).toBe("dns-ok.example.com");
    expect(h.ctx.db.$client.query("select count(*) as n from events where type = 'org_domain_verified' and json_extract(payload, '$.slug') = ?").get(c.slug)).toEqual({ n: 1 });
    // Nothing is pending any more.
    await refused(h, () => verify(c.slug, c.owner), 404, "NOT_FOUND");
  });

  test("not found or another token: verified false with the reason, recorded; the record appearing later verifies", async () => {
    useProbe();
    const c = await crew(h);
    const ch = await start(c.slug, c.owner, { domain: "dns-late.example.com", method: "dns_txt" });
    const none = await verify(c.slug, c.owner);
    expect(none.body).toMatchObject({ verified: false, status: "pending", reason: "No TXT record found at _colony-verification.dns-late.example.com", verified_domain: null });
    zone.set("_colony-verification.dns-late.example.com", [["colony-domain-verification=someone-elses-token"]]);
    const other = await verify(c.slug, c.owner);
    expect(other.body.reason).toBe("No TXT record at _colony-verification.dns-late.example.com holds this challenge's token");
    const listed = (await api.req("GET", `/${c.slug}/domain`, c.owner.token)).body[0];
    expect(listed).toMatchObject({ status: "pending", last_error: other.body.reason, last_checked_at: expect.any(String) });
    zone.set("_colony-verification.dns-late.example.com", [[`colony-domain-verification=${ch.body.token}`]]);
    expect((await verify(c.slug, c.owner)).body.verified).toBe(true);
  });

  test("a resolver failure is a reason, not an error", async () => {
    useProbe(undefined, {
      resolveTxt: async () => {
        throw Object.assign(new Error("queryTxt ESERVFAIL"), { code: "ESERVFAIL" });
      },
    });
    const c = await crew(h);
    await start(c.slug, c.owner, { domain: "dns-broken.example.com", method: "dns_txt" });
    const r = await verify(c.slug, c.owner);
    expect(r.status).toBe(200);
    expect(r.body.reason).toMatch(/DNS lookup .* failed: queryTxt ESERVFAIL/);
  });
});

describe("POST /orgs/{slug}/domain/verify — the well-known file over HTTPS", () => {
  const url = (d: string) => `${d}/.well-known/colony-domain-verification.txt`;

  test("served with the token: verified, through the guard pinned to the checked address and the domain's certificate", async () => {
    const d = "wk-one.example.com";
    useProbe(d);
    const c = await crew(h);
    const ch = await start(c.slug, c.owner, { domain: d, method: "http_wellknown" });
    files.set(url(d), () => new Response(`${ch.body.token}\n`));
    const r = await verify(c.slug, c.owner);
    expect(r.body).toMatchObject({ verified: true, status: "verified", verified_domain: d });
    expect(seenHost.get(d)).toBe(`${d}:${servers[0].port}`);
  });

  test("404, a redirect (never followed), a wrong token, or the token past the 4 KiB read: not verified", async () => {
    const d = "wk-two.example.com";
    useProbe(d);
    const c = await crew(h);
    const ch = await start(c.slug, c.owner, { domain: d, method: "http_wellknown" });
    expect((await verify(c.slug, c.owner)).body.reason).toBe(`https://${d}/.well-known/colony-domain-verification.txt answered 404`);
    let followed = false;
    files.set(`${d}/elsewhere`, () => {
      followed = true;
      return new Response(ch.body.token);
    });
    files.set(url(d), () => new Response(null, { status: 302, headers: { location: `https://${d}/elsewhere` } }));
    const redirected = await verify(c.slug, c.owner);
    expect(redirected.body).toMatchObject({ verified: false, reason: expect.stringMatching(/redirect \(302\); redirects are not followed/) });
    expect(followed).toBe(false);
    files.set(url(d), () => new Response("not-the-token"));
    expect((await verify(c.slug, c.owner)).body.reason).toMatch(/does not hold this challenge's token/);
    files.set(url(d), () => new Response(`${"x".repeat(5000)}\n${ch.body.token}\n`));
    expect((await verify(c.slug, c.owner)).body.verified).toBe(false);
    files.set(url(d), () => new Response(`# colony\n${ch.body.token}\n`));
    expect((await verify(c.slug, c.owner)).body.verified).toBe(true);
  });

  test("the guard: without the loopback allowance the address is refused; without trusting the certificate TLS fails", async () => {
    const d = "wk-three.example.com";
    const c = await crew(h);
    const ch = await start(c.slug, c.owner, { domain: d, method: "http_wellknown" });
    files.set(url(d), () => new Response(ch.body.token));
    useProbe(d, { allowPrivate: false });
    const privateRefused = await verify(c.slug, c.owner);
    expect(privateRefused.body).toMatchObject({ verified: false, reason: expect.stringMatching(/could not be fetched: refused: .*private, loopback/) });
    useProbe(d, { ca: undefined });
    const untrusted = await verify(c.slug, c.owner);
    expect(untrusted.body.verified).toBe(false);
    expect(untrusted.body.reason).toMatch(/could not be fetched/);
    useProbe(d);
    expect((await verify(c.slug, c.owner)).body.verified).toBe(true);
  });

  test("a certificate for another name is refused (the certificate is checked against the domain)", async () => {
    const d = "wk-four.example.com";
    const c = await crew(h);
    const ch = await start(c.slug, c.owner, { domain: d, method: "http_wellknown" });
    files.set(url(d), () => new Response(ch.body.token));
    // The server of wk-five answers for wk-four: its certificate names wk-five.
    const i = DOMAINS.indexOf("wk-five.example.com");
    files.set(`wk-five.example.com/.well-known/colony-domain-verification.txt`, () => new Response(ch.body.token));
    h.ctx.domains = domainProbe({ resolveTxt, resolver: async () => ["127.0.0.1"], allowPrivate: true, ca: tls["wk-five.example.com"].cert, port: servers[i].port, timeoutMs: 2000 });
    const r = await verify(c.slug, c.owner);
    expect(r.body.verified).toBe(false);
    expect(r.body.reason).toMatch(/could not be fetched/);
  });

  test("a server that does not answer in time: not verified, the timeout named", async () => {
    const d = "wk-six.example.com";
    useProbe(d, { timeoutMs: 150 });
    const c = await crew(h);
    await start(c.slug, c.owner, { domain: d, method: "http_wellknown" });
    files.set(url(d), () => new Promise((resolve) => setTimeout(() => resolve(new Response("late")), 1500)));
    const r = await verify(c.slug, c.owner);
    expect(r.body).toMatchObject({ verified: false, reason: expect.stringMatching(/timed out after 150 ms/) });
  });
});

describe("challenges over time, and one domain per organisation", () => {
  test("a challenge lapses after 7 days (verify is then 404); a new one supersedes the pending ones", async () => {
    useProbe();
    const c = await crew(h);
    const first = await start(c.slug, c.owner, { domain: "lapse.example.com", method: "dns_txt" });
    const second = await start(c.slug, c.owner, { domain: "lapse.example.com", method: "http_wellknown" });
    let list = (await api.req("GET", `/${c.slug}/domain`, c.owner.token)).body as { id: string; status: string }[];
    expect(list.map((x) => [x.id, x.status])).toEqual([
      [second.body.id, "pending"],
      [first.body.id, "expired"],
    ]);
    h.clock.advance(7 * DAY + MINUTE);
    c.owner.token = (await h.req("POST", "/api/v1/auth/token", { body: { api_key: c.owner.apiKey } })).body.access_token;
    list = (await api.req("GET", `/${c.slug}/domain`, c.owner.token)).body;
    expect(list.map((x) => x.status)).toEqual(["expired", "expired"]);
    await refused(h, () => verify(c.slug, c.owner), 404, "NOT_FOUND");
  });

  test("a domain verified by one organisation is 409 for another, at start and at verify", async () => {
    useProbe();
    const a = await crew(h);
    const b = await crew(h);
    const chB = await start(b.slug, b.owner, { domain: "contested.example.com", method: "dns_txt" });
    const chA = await start(a.slug, a.owner, { domain: "contested.example.com", method: "dns_txt" });
    zone.set("_colony-verification.contested.example.com", [[`colony-domain-verification=${chA.body.token}`], [`colony-domain-verification=${chB.body.token}`]]);
    expect((await verify(a.slug, a.owner)).body.verified).toBe(true);
    await refused(h, () => verify(b.slug, b.owner), 409, "CONFLICT");
    await refused(h, () => start(b.slug, b.owner, { domain: "contested.example.com", method: "dns_txt" }), 409, "CONFLICT");
  });

  test("per role: the list for admins, owners and site admins; verify for admins and owners", async () => {
    useProbe();
    const c = await crew(h);
    await start(c.slug, c.owner, { domain: "list-roles.example.com", method: "dns_txt" });
    const expected: Record<RoleName, number> = { anonymous: 401, stranger: 403, member: 403, admin: 200, owner: 200, siteAdmin: 200 };
    for (const role of ROLES) expect([role, (await api.req("GET", `/${c.slug}/domain`, tokenOf(c, role))).status]).toEqual([role, expected[role]]);
    await refused(h, () => verify(c.slug, null), 401);
    for (const role of ["stranger", "member", "siteAdmin"] as const) await refused(h, () => verify(c.slug, c[role]), 403, "FORBIDDEN");
    expect((await verify(c.slug, c.admin)).status).toBe(200);
  });

  test("the verify and start budgets: 429 with nothing written", async () => {
    const limited = setup();
    const lapi = orgApi(limited);
    limited.ctx.domains = domainProbe({ resolveTxt, allowPrivate: false });
    const c = await crew(limited);
    for (let i = 0; i < 10; i++) expect((await lapi.req("POST", `/${c.slug}/domain`, c.owner.token, { domain: `budget${i}.example.com`, method: "dns_txt" })).status).toBe(200);
    await refused(limited, () => lapi.req("POST", `/${c.slug}/domain`, c.owner.token, { domain: "budget.example.com", method: "dns_txt" }), 429, "RATE_LIMIT_ORG_DOMAIN");
    for (let i = 0; i < 20; i++) expect((await lapi.req("POST", `/${c.slug}/domain/verify`, c.owner.token)).status).toBe(200);
    await refused(limited, () => lapi.req("POST", `/${c.slug}/domain/verify`, c.owner.token), 429, "RATE_LIMIT_ORG_DOMAIN_VERIFY");
  });
});
