// The one handle namespace (docs/decisions.md §1, §57): usernames, colony names and organisation
// slugs refuse each other in every direction, without case, through the one claim every feature
// makes in the transaction of its insert; the migration's backfill; and the race.
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { MINUTE } from "../../core/clock";
import { migrations } from "../../../migrations";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { retireHandle } from "../users/service";
import { claimHandle, HandleTaken, holderOf } from "./service";

const h = setup({ rateLimitMultiplier: 0 });

const register = (hh: Harness, username: string) => hh.req("POST", "/api/v1/auth/register", { body: { username, display_name: username } });
const registerBegin = (hh: Harness, username: string) => hh.req("POST", "/api/v1/auth/register/begin", { body: { username, display_name: username } });
const createColony = (hh: Harness, u: TestUser, name: string) => hh.req("POST", "/api/v1/colonies", { token: u.token, body: { name, display_name: name } });
const createOrg = (hh: Harness, u: TestUser, slug: string) => hh.req("POST", "/api/v1/orgs", { token: u.token, body: { slug, name: slug } });
const count = (hh: Harness, sql: string, ...args: string[]) => (hh.ctx.db.$client.query(sql).get(...args) as { n: number }).n;

describe("one namespace, every direction, without case", () => {
  test("a username refuses a colony and an organisation of the same name, in any case", async () => {
    const founder = await h.user({ karma: 50 });
    expect((await register(h, "shared-one")).status).toBe(201);
    const colony = await createColony(h, founder, "Shared-One");
    expect(colony.status).toBe(409);
    expect(colony.body.detail).toEqual({ code: "CONFLICT", message: "Colony name is already taken" });
    const org = await createOrg(h, founder, "SHARED-ONE");
    expect(org.status).toBe(409);
    expect(org.body.detail.code).toBe("CONFLICT");
    expect((await h.req("GET", "/api/v1/colonies/check-name", { query: { name: "shared-one" } })).body).toMatchObject({ valid: true, available: false });
  });

  test("a colony name refuses a registration (409 CONFLICT, as before) and an organisation", async () => {
    const founder = await h.user({ karma: 50 });
    expect((await createColony(h, founder, "shared-two")).status).toBe(201);
    const r = await register(h, "Shared-Two");
    expect(r.status).toBe(409);
    expect(r.body.detail).toEqual({ code: "CONFLICT", message: "Username is already taken" });
    expect((await registerBegin(h, "shared-two")).status).toBe(409);
    expect((await createOrg(h, founder, "shared-two")).status).toBe(409);
    expect((await h.req("GET", "/api/v1/auth/check-username", { query: { username: "SHARED-TWO" } })).body).toEqual({ username: "shared-two", valid: true, available: false, reason: "Username is already taken" });
  });

  test("an organisation slug refuses a registration and a colony; a rename claims the new slug and keeps the old one reserved", async () => {
    const founder = await h.user({ karma: 50 });
    expect((await createOrg(h, founder, "shared-three")).status).toBe(201);
    expect((await register(h, "shared-three")).status).toBe(409);
    expect((await createColony(h, founder, "shared-three")).status).toBe(409);
    const renamed = await h.req("POST", "/api/v1/orgs/shared-three/rename", { token: founder.token, body: { new_slug: "shared-four" } });
    expect(renamed.status).toBe(200);
    for (const name of ["shared-three", "shared-four"]) {
      expect((await register(h, name)).status).toBe(409);
      expect((await createColony(h, founder, name)).status).toBe(409);
    }
    // Renaming onto a username or a colony name is refused too.
    expect((await register(h, "shared-five")).status).toBe(201);
    const onto = await h.req("POST", "/api/v1/orgs/shared-four/rename", { token: founder.token, body: { new_slug: "Shared-Five" } });
    expect(onto.status).toBe(409);
    expect(onto.body.detail.code).toBe("CONFLICT");
  });

  test("a retired username refuses colonies and organisations", async () => {
    const founder = await h.user({ karma: 50 });
    retireHandle(h.ctx, "retired-shared", "account deleted with activity");
    expect((await createColony(h, founder, "retired-shared")).status).toBe(409);
    expect((await createOrg(h, founder, "retired-shared")).status).toBe(409);
    expect((await register(h, "retired-shared")).body.detail.message).toBe("Username is retired and cannot be reused");
  });

  test("a pending registration holds its name until its claim window closes; then anyone may take it", async () => {
    const founder = await h.user({ karma: 50 });
    expect((await registerBegin(h, "pending-shared")).status).toBe(201);
    expect((await createColony(h, founder, "pending-shared")).status).toBe(409);
    expect((await createOrg(h, founder, "pending-shared")).status).toBe(409);
    h.clock.advance(16 * MINUTE);
    expect(holderOf(h.ctx, "pending-shared")).toBeNull();
    expect((await createOrg(h, founder, "pending-shared")).status).toBe(201);
    expect(holderOf(h.ctx, "pending-shared")).toMatchObject({ kind: "org" });
    // The registration that lapsed cannot come back for it.
    expect((await register(h, "pending-shared")).status).toBe(409);
  });

  test("a confirmed registration holds its name for good; a self-deleted account frees it", async () => {
    const begun = await registerBegin(h, "confirmed-shared");
    const confirmed = await h.req("POST", "/api/v1/auth/register/confirm", { body: { claim_token: begun.body.claim_token, key_fingerprint: begun.body.api_key.slice(-6) } });
    expect(confirmed.status).toBe(200);
    h.clock.advance(16 * MINUTE);
    expect(holderOf(h.ctx, "confirmed-shared")).toMatchObject({ kind: "user", ownerId: begun.body.id });

    const fresh = await register(h, "deleted-shared");
    const token = (await h.req("POST", "/api/v1/auth/token", { body: { api_key: fresh.body.api_key } })).body.access_token;
    expect((await h.req("DELETE", "/api/v1/auth/account", { token })).status).toBe(204);
    expect(holderOf(h.ctx, "deleted-shared")).toBeNull();
    const founder = await h.user({ karma: 50 });
    expect((await createColony(h, founder, "deleted-shared")).status).toBe(201);
  });

  test("a purged pending registration releases its handle row", async () => {
    const begun = await registerBegin(h, "purged-shared");
    expect(count(h, "select count(*) as n from handles where owner_id = ?", begun.body.id)).toBe(1);
    h.clock.advance(16 * MINUTE);
    await h.ctx.jobs.runRecurring("purge-registrations");
    expect(count(h, "select count(*) as n from handles where owner_id = ?", begun.body.id)).toBe(0);
  });

  test("claimHandle: one statement decides; the same owner may claim again and take back its retired handle", () => {
    h.ctx.db.transaction((tx) => claimHandle(h.ctx, tx, "Claim-Unit", { kind: "org", id: "o1" }));
    expect(() => h.ctx.db.transaction((tx) => claimHandle(h.ctx, tx, "claim-unit", { kind: "colony", id: "c1" }))).toThrow(HandleTaken);
    h.ctx.db.transaction((tx) => claimHandle(h.ctx, tx, "claim-unit", { kind: "org", id: "o1" }));
    h.ctx.db.$client.run("update handles set kind = 'retired' where handle = 'claim-unit'");
    expect(() => h.ctx.db.transaction((tx) => claimHandle(h.ctx, tx, "claim-unit", { kind: "org", id: "o2" }))).toThrow(HandleTaken);
    h.ctx.db.transaction((tx) => claimHandle(h.ctx, tx, "claim-unit", { kind: "org", id: "o1" }));
    expect(holderOf(h.ctx, "CLAIM-UNIT")).toEqual({ kind: "org", ownerId: "o1" });
  });
});

describe("the race", () => {
  test("20 concurrent creations of one name across organisations, registrations and colonies: exactly one wins", async () => {
    const hh = setup({ rateLimitMultiplier: 0 });
    const founders = await Promise.all(Array.from({ length: 14 }, () => hh.user({ karma: 50 })));
    const name = "contested-name";
    const attempts = Array.from({ length: 20 }, (_, i) => {
      const variant = i % 2 ? name.toUpperCase() : name;
      switch (i % 3) {
        case 0:
          return createOrg(hh, founders[i % founders.length], variant);
        case 1:
          return register(hh, variant);
        default:
          return createColony(hh, founders[i % founders.length], variant);
      }
    });
    const results = await Promise.all(attempts);
    const won = results.filter((r) => r.status === 201);
    expect(won).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(19);
    for (const r of results) if (r.status === 409) expect(r.body.detail.code).toBe("CONFLICT");
    const held =
      count(hh, "select count(*) as n from users where username = ?", name) +
      count(hh, "select count(*) as n from colonies where name = ?", name) +
      count(hh, "select count(*) as n from orgs where slug = ?", name);
    expect(held).toBe(1);
    expect(count(hh, "select count(*) as n from handles where handle = ?", name)).toBe(1);
  });
});

describe("migration 0031 backfills the namespace", () => {
  test("users (pending ones with their expiry), colonies and retired names; an old overlap keeps its oldest holder", () => {
    const db = new Database(":memory:");
    const upTo = migrations.findIndex((m) => m.tag === "0031_organisations");
    const run = (sql: string) => {
      for (const stmt of sql.split("--> statement-breakpoint")) if (stmt.trim()) db.run(stmt);
    };
    for (const m of migrations.slice(0, upTo)) run(m.sql);
    const user = (id: string, username: string, createdAt: number, pendingUntil: number | null = null) =>
      db.run(
        "insert into users (id, username, display_name, status, api_key_hash, key_issued_at, pending_expires_at, created_at, updated_at) values (?, ?, ?, ?, ?, 1, ?, ?, ?)",
        [id, username, username, pendingUntil ? "pending" : "active", `hash-${id}`, pendingUntil, createdAt, createdAt],
      );
    user("u1", "alice", 10);
    user("u2", "waiting", 20, 5_000);
    user("u3", "clash", 30);
    db.run("insert into colonies (id, name, display_name, created_at, updated_at) values ('c1', 'clash', 'Clash', 40, 40)");
    db.run("insert into retired_handles (handle, reason, retired_at) values ('gone-for-good', 'deleted', 5)");
    run(migrations[upTo].sql);
    const rows = db.query("select handle, kind, owner_id, expires_at from handles where handle in ('alice', 'waiting', 'clash', 'gone-for-good', 'general') order by handle").all();
    expect(rows).toEqual([
      { handle: "alice", kind: "user", owner_id: "u1", expires_at: null },
      { handle: "clash", kind: "user", owner_id: "u3", expires_at: null },
      { handle: "general", kind: "colony", owner_id: expect.any(String), expires_at: null },
      { handle: "gone-for-good", kind: "retired", owner_id: null, expires_at: null },
      { handle: "waiting", kind: "user", owner_id: "u2", expires_at: 5_000 },
    ]);
    db.close();
  });
});
