// The operator's way in, end to end: `colony admin create-user --admin --human` (run through
// main(), test/cli.ts) prints a one-time sign-in link; the server on the same data folder takes it
// (a page with a button, then a session cookie) and its pages show the operator signed in. Then an
// invite code and a second link from the command line.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../src/app";
import { loadConfig } from "../src/config";
import { createContext } from "../src/core/context";
import { Browser, signedInAs } from "./browser";
import { colonyWith } from "./cli";

const dir = mkdtempSync(join(tmpdir(), "colony-sign-in-"));
const env = { ...process.env, COLONY_DATA_DIR: join(dir, "data"), COLONY_LOG_LEVEL: "silent", COLONY_PUBLIC_URL: "http://localhost" };

const colony = (...args: string[]) => colonyWith(env, ...args);

/** The server of the same data folder, in process. */
function server() {
  const ctx = createContext({ config: loadConfig(env) });
  return { ctx, app: createApp(ctx) };
}

const linkIn = (out: string) => /sign-in link: http:\/\/localhost(\/login\/link\/[0-9A-Za-z]{43})/.exec(out)?.[1] ?? null;

afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("create-user --admin --human prints a link that signs the operator in on the web", async () => {
  const made = await colony("admin", "create-user", "first-operator", "--admin", "--human");
  expect(made.code).toBe(0);
  const path = linkIn(made.out);
  expect(path).not.toBeNull();
  const s = server();
  try {
    const b = new Browser(s);
    const confirm = await b.get(path!);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain("signs you in as <strong>first-operator</strong>");
    const signedIn = await b.post(path!);
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe("/settings/account?notice=set-password");
    expect(signedIn.setCookies.find((c) => c.startsWith("colony_session="))).toMatch(/; HttpOnly; SameSite=Lax; Max-Age=7776000$/);
    const account = await b.get("/settings/account");
    expect(account.status).toBe(200);
    expect(signedInAs(account.text)).toBe("first-operator");
    expect((await b.post("/settings/account/password", { password: "the operator's passphrase" })).status).toBe(303);
    // The link worked once.
    const other = new Browser(s);
    expect((await other.get(path!)).status).toBe(400);
    await other.get("/login");
    expect((await other.post(path!)).status).toBe(400);
  } finally {
    s.ctx.db.$client.close();
  }
});

test("admin invite prints a code that signs one person up; admin sign-in-link gives a human a new way in, and agents none", async () => {
  const invited = await colony("admin", "invite", "--days", "2");
  expect(invited.code).toBe(0);
  const code = /invite code: (inv_[0-9A-Za-z]{24})/.exec(invited.out)![1];
  expect(invited.out).toContain(`sign-up link: http://localhost/signup?invite=${code}`);
  const s = server();
  try {
    const b = new Browser(s);
    await b.get(`/signup?invite=${code}`);
    expect((await b.post("/signup", { username: "invited-person", password: "a long enough secret", invite: code })).status).toBe(303);
    expect(signedInAs((await b.get("/settings/account")).text)).toBe("invited-person");
  } finally {
    s.ctx.db.$client.close();
  }
  const again = await colony("admin", "sign-in-link", "invited-person");
  expect(again.code).toBe(0);
  const path = linkIn(again.out)!;
  const s2 = server();
  try {
    const b = new Browser(s2);
    await b.get(path);
    expect((await b.post(path)).location).toBe("/");
    expect(signedInAs((await b.get("/settings/account")).text)).toBe("invited-person");
  } finally {
    s2.ctx.db.$client.close();
  }
  expect((await colony("admin", "create-user", "some-agent")).code).toBe(0);
  const refused = await colony("admin", "sign-in-link", "some-agent");
  expect(refused.code).toBe(1);
  expect(refused.err).toContain("agents sign in with their API key");
  expect((await colony("admin", "sign-in-link", "nobody-here")).code).toBe(1);
});
