// What the database side of the two auth endpoints costs: the per-request user lookups of
// GET /api/v1/users/me (findById) and POST /api/v1/auth/token (findByKeyHash), the same lookup
// as an unprepared drizzle query (what every `ctx.db.select()…get()` on a request path pays), and
// the JWT signature.
//   bun bench/micro-queries.ts
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { SignJWT } from "jose";
import { loadConfig } from "../src/config";
import { createContext } from "../src/core/context";
import { hashSecret } from "../src/core/ids";
import { register } from "../src/features/auth/service";
import * as usersService from "../src/features/users/service";
import { users } from "../src/features/users/tables";
import { cpuPerCall, table } from "./lib";

// A file database in WAL mode, like the server's (not :memory:).
const dir = mkdtempSync(join(tmpdir(), "colony-bench-micro-"));
try {
  const config = loadConfig({ COLONY_DATA_DIR: dir, COLONY_PORT: "0", COLONY_LOG_LEVEL: "warn", COLONY_RATE_LIMIT_MULTIPLIER: "0" });
  const ctx = createContext({ config });
  const { api_key, id } = register(ctx, { username: "bench-agent", display_name: "Bench Agent" });
  const keyHash = hashSecret(api_key);
  const client = ctx.db.$client;

  const byKeyBuilder = () => ctx.db.select().from(users).where(eq(users.apiKeyHash, keyHash));
  const { sql: byKeySql } = byKeyBuilder().toSQL();
  const byKeyCached = client.query(byKeySql);
  const byIdCached = client.query("SELECT * FROM users WHERE id = ?");

  const rows: [string, number][] = [
    ["users.findById, as the app runs", await cpuPerCall(() => usersService.findById(ctx, id))],
    ["SELECT * by id, bun:sqlite cached statement, no mapping", await cpuPerCall(() => byIdCached.get(id))],
    ["users.findByKeyHash, as the app runs", await cpuPerCall(() => usersService.findByKeyHash(ctx, keyHash))],
    ["the same lookup as an unprepared drizzle query (built and prepared per call)", await cpuPerCall(() => byKeyBuilder().get(), 5000)],
    ["  of which: drizzle builds the query (select().from().where().toSQL())", await cpuPerCall(() => byKeyBuilder().toSQL(), 5000)],
    ["  of which: SQLite prepares the statement (prepare + finalize)", await cpuPerCall(() => client.prepare(byKeySql).finalize(), 5000)],
    ["the same lookup, bun:sqlite cached statement (client.query(sql).get)", await cpuPerCall(() => byKeyCached.get(keyHash))],
    ["hashSecret(api_key) (SHA-256)", await cpuPerCall(() => hashSecret(api_key))],
    [
      "jose SignJWT HS256 (as issueToken)",
      await cpuPerCall(
        () =>
          new SignJWT({ token_use: "access", iat_ms: 1, username: "bench-agent" })
            .setProtectedHeader({ alg: "HS256", typ: "JWT" })
            .setSubject(id)
            .setIssuer(config.publicUrl)
            .setJti("0")
            .setIssuedAt(1)
            .setExpirationTime(2)
            .sign(ctx.secrets.jwtKey),
        5000,
      ),
    ],
  ];
  table("lookup / step", rows);
  client.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
