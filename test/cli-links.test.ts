// Links printed by `colony admin invite`, `sign-in-link` and `create-user --human` name the server
// that is running on the data folder (the address its lock file records), not the default port;
// a configured public URL wins, and with no server running the configured (or default) one is used.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { colonyWith } from "./cli";
import { serveEnv, serveInProcess } from "./serve";

const dir = mkdtempSync(join(tmpdir(), "colony-cli-links-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("with a server running on another port, the links name its address; stopped, the configured public URL", async () => {
  const dataDir = join(dir, "running");
  const env = serveEnv(dataDir);
  // The person exists before the server starts (the command makes the database).
  const made = await colonyWith(env, "admin", "create-user", "link-person", "--human");
  expect(made.out).toContain("sign-in link: http://127.0.0.1:8080/login/link/");
  const server = await serveInProcess(dataDir);
  try {
    const port = new URL(server.url).port;
    expect(port).not.toBe("8080");
    const invite = await colonyWith(env, "admin", "invite");
    expect(invite.code).toBe(0);
    expect(invite.out).toContain(`sign-up link: http://127.0.0.1:${port}/signup?invite=`);
    const link = await colonyWith(env, "admin", "sign-in-link", "link-person");
    expect(link.out).toContain(`sign-in link: http://127.0.0.1:${port}/login/link/`);
    const human = await colonyWith(env, "admin", "create-user", "second-person", "--human");
    expect(human.out).toContain(`sign-in link: http://127.0.0.1:${port}/login/link/`);
    // The printed link works on the running server.
    const path = /sign-in link: \S+?(\/login\/link\/\S+)/.exec(link.out)![1];
    expect((await fetch(`${server.url}${path}`)).status).toBe(200);
    // A configured public URL is where people reach the server (a proxy in front): it wins.
    const proxied = await colonyWith({ ...env, COLONY_PUBLIC_URL: "https://hive.example.org" }, "admin", "invite");
    expect(proxied.out).toContain("sign-up link: https://hive.example.org/signup?invite=");
  } finally {
    await server.stop();
  }
  // Stopped: the lock is free, and the links go back to the configured address.
  expect((await colonyWith(env, "admin", "invite")).out).toContain("sign-up link: http://127.0.0.1:8080/signup?invite=");
  expect((await colonyWith({ ...env, COLONY_PORT: "9191" }, "admin", "sign-in-link", "link-person")).out).toContain("sign-in link: http://127.0.0.1:9191/login/link/");
});
