// Rate limits with `colony serve --workers 2`: the windows live in the data folder's limits.db, so a
// client that spreads its attempts over both workers gets no more than one process would give it.
// Each test reaches a chosen worker by opening connections until one lands on it (every answer
// names its worker) and keeping that one; all of them come from 127.0.0.1, so IP-scoped rules apply.
import { describe, expect, test } from "bun:test";
import { colonyWith } from "./cli";
import { serveEnv } from "./serve";
import { type Answer, Connection, connectionTo, PROCESS_TIMEOUT, twoWorkers } from "./worker-connections";

const errorCode = (a: Answer) => (JSON.parse(a.body) as { detail: { code: string } }).detail.code;

describe("rate limits shared by two workers", () => {
  const instance = twoWorkers({ COLONY_RATE_LIMIT_MULTIPLIER: "1" });

  // `register` allows 10 registrations an hour per address; no other test of this file registers
  // through HTTP, so the address's window holds only these.
  test("the per-address registration limit counts registrations on both workers: the 11th is refused on each", async () => {
    const one = await connectionTo(instance.server.url, 1);
    const two = await connectionTo(instance.server.url, 2);
    const conns = [one, two];
    const register = (c: Connection, i: number) => c.request("POST", "/api/v1/auth/register", { body: { username: `spread-${i}`, display_name: `Spread ${i}` } });
    for (let i = 0; i < 10; i++) {
      const c = conns[i % 2]!;
      const r = await register(c, i);
      expect(r.status).toBe(201);
      expect(c.worker).toBe((i % 2) + 1);
    }
    // Each worker has answered five: either would still take one if it counted its own alone.
    for (const [i, c] of conns.entries()) {
      const r = await register(c, 10 + i);
      expect(c.worker).toBe(i + 1);
      expect(r.status).toBe(429);
      expect(errorCode(r)).toBe("RATE_LIMIT_REGISTER");
      expect(Number(r.headers["retry-after"])).toBeGreaterThan(0);
    }
    // Nothing refused was created.
    const taken = await two.request("GET", "/api/v1/auth/check-username?username=spread-10");
    expect(JSON.parse(taken.body)).toMatchObject({ valid: true, available: true });
    one.close();
    two.close();
  }, PROCESS_TIMEOUT);

  // `sign_in_account` allows 10 failed web sign-ins per account in 15 minutes. The account's
  // password is set through the server, so each check costs a production argon2id verification:
  // 11 in all (one success, ten failures); refused attempts are refused before any verification.
  test("failed web sign-ins on both workers lock the account on both", async () => {
    const env = { ...serveEnv(instance.dataDir), COLONY_LOG_LEVEL: "silent" };
    const made = await colonyWith(env, "admin", "create-user", "locked-person", "--human");
    expect(made.code).toBe(0);
    const link = /sign-in link: \S*?(\/login\/link\/[0-9A-Za-z]+)/.exec(made.out)?.[1];
    expect(link).toBeDefined();
    const password = "correct horse battery staple";

    const one = await connectionTo(instance.server.url, 1);
    const two = await connectionTo(instance.server.url, 2);
    // A browser without a session: its pre-session cookie, whose CSRF token both workers derive
    // from the shared data key.
    const pre = `colony_csrf=${crypto.randomUUID().replaceAll("-", "")}`;
    const csrfIn = (a: Answer) => /name="csrf" value="([^"]+)"/.exec(a.body)?.[1] ?? "";
    const loginPage = await one.request("GET", "/login", { cookie: pre });
    expect(loginPage.status).toBe(200);
    const csrf = csrfIn(loginPage);
    expect(csrf).not.toBe("");
    expect(csrfIn(await two.request("GET", "/login", { cookie: pre }))).toBe(csrf);

    // The operator's link signs the person in once; they set their password on the other worker.
    const linked = await one.request("POST", link!, { cookie: pre, form: { csrf } });
    expect(linked.status).toBe(303);
    const session = linked.cookies.find((c) => /^colony_session=[^;]+/.test(c))!.split(";")[0]!;
    const settings = await two.request("GET", "/settings/account", { cookie: session });
    expect(settings.status).toBe(200);
    const set = await two.request("POST", "/settings/account/password", { cookie: session, form: { csrf: csrfIn(settings), password } });
    expect(set.status).toBe(303);

    const signIn = (c: Connection, pw: string) => c.request("POST", "/login", { cookie: pre, form: { csrf, login: "locked-person", password: pw, next: "/" } });
    // The password works (a success gives its charge back, so it does not count).
    const ok = await signIn(one, password);
    expect(ok.status).toBe(303);
    expect(ok.cookies.some((c) => c.startsWith("colony_session="))).toBe(true);

    // Ten failures, five on each worker: each is an ordinary refusal.
    for (let i = 0; i < 10; i++) {
      const c = i % 2 ? two : one;
      const r = await signIn(c, `wrong password ${i}`);
      expect(c.worker).toBe((i % 2) + 1);
      expect(r.status).toBe(401);
      expect(r.body).toContain("Incorrect username or password");
    }
    // Now the right password is refused on both workers, until the window frees a slot.
    for (const [i, c] of [one, two].entries()) {
      const r = await signIn(c, password);
      expect(c.worker).toBe(i + 1);
      expect(r.status).toBe(429);
      expect(r.body).toContain("Rate limit exceeded for sign_in_account: 10 per 15 minutes");
      expect(Number(r.headers["retry-after"])).toBeGreaterThan(800);
      expect(r.cookies.some((c) => c.startsWith("colony_session="))).toBe(false);
    }
    one.close();
    two.close();
  }, PROCESS_TIMEOUT);
});
