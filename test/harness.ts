// The shared test harness: a fresh in-memory database, a TestClock and the real app per call,
// driven in-process through app.handle(new Request(...)). The database is a copy of one migrated
// once per test process (migratedImage). With `readers`, the database is a file in a temporary
// folder served by that many reader threads, as the server runs (close() ends them and removes
// the folder).
import { createApp } from "../src/app";
import { CapturingMailer } from "../src/adapters/mail";
import { loadConfig, type Config } from "../src/config";
import { TestClock } from "../src/core/clock";
import { createContext, databasePath, type Ctx } from "../src/core/context";
import { openDatabase } from "../src/db/client";
import { migrate } from "../src/db/migrate";
import { startReadPool } from "../src/db/read-pool";
import { hashSecret, newApiKey } from "../src/core/ids";
import { issueToken } from "../src/features/auth/service";
import * as users from "../src/features/users/service";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { instrument } from "./query-counter";
import { ContextOut } from "../src/features/posts/context-routes";
import { PostList, PostOut } from "../src/features/posts/schemas";
import { CommentOut } from "../src/features/comments/schemas";
import { MessageOut } from "../src/features/messages/schemas";
import { SearchResults } from "../src/features/search/routes";
import { VaultFileContentOut } from "../src/features/vault/routes";

export const BASE = "http://localhost";

/**
 * Throws unless `body` is exactly an answer of `schema`: it passes the schema's check and holds no
 * field the schema does not declare. For routes that answer through http/answer.ts's jsonAnswer,
 * which Elysia does not check.
 */
export function expectAnswer(schema: TSchema, body: unknown): void {
  // Undeclared fields first: once Elysia has compiled a route it marks its response schemas
  // additionalProperties: false, and the check below would then report them instead.
  const cleaned = Value.Clean(schema, structuredClone(body));
  if (JSON.stringify(cleaned) !== JSON.stringify(body)) throw new Error("answer holds fields its schema does not declare");
  const errors = [...Value.Errors(schema, body)].slice(0, 3).map((e) => `${e.path}: ${e.message}`);
  if (errors.length) throw new Error(`answer does not match its schema: ${errors.join("; ")}`);
}

/**
 * The routes that serialise their own 200 answers (http/answer.ts, http/read-cache.ts
 * cachedJsonAnswer), which Elysia neither cleans nor checks: every such answer any test receives
 * through `req` is held to the route's schema.
 */
const SELF_SERIALISED: { method: string; path: RegExp; schema: TSchema; status?: number }[] = [
  { method: "GET", path: /^\/api\/v1\/posts$/, schema: PostList },
  { method: "GET", path: /^\/api\/v1\/posts\/[^/]+\/context$/, schema: ContextOut },
  { method: "GET", path: /^\/api\/v1\/search$/, schema: SearchResults },
  { method: "GET", path: /^\/api\/v1\/vault\/files\/.+/, schema: VaultFileContentOut },
  { method: "POST", path: /^\/api\/v1\/posts$/, schema: PostOut, status: 201 },
  { method: "POST", path: /^\/api\/v1\/posts\/[^/]+\/comments$/, schema: CommentOut, status: 201 },
  { method: "POST", path: /^\/api\/v1\/messages\/send\/[^/]+$/, schema: MessageOut, status: 201 },
];

function checkSelfSerialised(method: string, url: URL, status: number, body: unknown): void {
  const route = SELF_SERIALISED.find((r) => r.method === method && r.path.test(url.pathname) && status === (r.status ?? 200));
  if (!route) return;
  try {
    expectAnswer(route.schema, body);
  } catch (err) {
    throw new Error(`${method} ${url.pathname}: ${(err as Error).message}`);
  }
}

export interface Res<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export interface ReqOptions {
  body?: unknown;
  token?: string | null;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
  raw?: RequestInit["body"];
}

export interface TestUser {
  id: string;
  username: string;
  apiKey: string;
  token: string;
}

let image: Uint8Array | null = null;

/**
 * The bytes of a database with every migration applied, made once per test process: each in-memory
 * setup starts from a copy of it (a copy takes about 2 ms; migrating an empty database about 100).
 */
export function migratedImage(): Uint8Array {
  if (!image) {
    const db = openDatabase(":memory:");
    migrate(db);
    image = db.$client.serialize();
    db.$client.close();
  }
  return image;
}

export function setup(overrides: Partial<Config> = {}, opts: { readers?: number; countQueries?: boolean } = {}) {
  const dataDir = opts.readers ? mkdtempSync(join(tmpdir(), "colony-test-")) : undefined;
  const config: Config = { ...loadConfig({ COLONY_LOG_LEVEL: "silent" }), publicUrl: BASE, ...(dataDir ? { dataDir } : {}), ...overrides };
  const clock = new TestClock();
  /** Every message the server sent (delivered after commit: drain ctx.events first). */
  const mail = new CapturingMailer();
  const ctx: Ctx = createContext({ config, clock, dbPath: dataDir ? undefined : ":memory:", image: dataDir ? undefined : migratedImage(), mail });
  if (dataDir) ctx.reads = startReadPool(ctx.db, databasePath(config), opts.readers!, ctx.log);
  /** With `countQueries`: the statements the main connection executes (test/query-counter.ts). */
  const queries = opts.countQueries ? instrument(ctx.db.$client) : null;
  const app = createApp(ctx);

  /** Ends the reader threads and removes the temporary folder (a no-op in memory). */
  async function close() {
    await ctx.reads.stop();
    if (!dataDir) return;
    ctx.db.$client.close();
    rmSync(dataDir, { recursive: true, force: true });
  }

  async function req<T = any>(method: string, path: string, opts: ReqOptions = {}): Promise<Res<T>> {
    const url = new URL(path, BASE);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: RequestInit["body"] = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers["content-type"] ??= "application/json";
    }
    const res = await app.handle(new Request(url.toString(), { method, headers, body }));
    const text = await res.text();
    let parsed: any = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {}
    checkSelfSerialised(method, url, res.status, parsed);
    return { status: res.status, body: parsed, text, headers: res.headers };
  }

  let seq = 0;
  /** Creates an active account directly through the service (no route, no rate limit) and mints a token. */
  async function user(opts: { username?: string; admin?: boolean; human?: boolean; karma?: number } = {}): Promise<TestUser> {
    const apiKey = newApiKey();
    const username = opts.username ?? `agent-${++seq}-${Math.random().toString(36).slice(2, 7)}`;
    const row = ctx.db.transaction((tx) =>
      users.createAccount(ctx, tx, { username, displayName: username, apiKeyHash: hashSecret(apiKey), isAdmin: opts.admin, userType: opts.human ? "human" : "agent" }),
    );
    if (opts.karma !== undefined) ctx.db.$client.query("update users set karma = ? where id = ?").run(opts.karma, row.id);
    const { access_token } = await issueToken(ctx, apiKey);
    return { id: row.id, username: row.username, apiKey, token: access_token };
  }

  /** `u` with a new access token (tokens expire while a test moves the clock days ahead). */
  async function fresh(u: TestUser): Promise<TestUser> {
    return { ...u, token: (await issueToken(ctx, u.apiKey)).access_token };
  }

  return { ctx, app, clock, config, req, user, fresh, mail, close, queries };
}

export type Harness = ReturnType<typeof setup>;
