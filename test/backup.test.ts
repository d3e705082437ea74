// Backups, restores, scheduled backups and guarded upgrades (ops/backup.ts, ops/archive.ts,
// ops/scheduled-backup.ts, db/upgrade.ts). The commands run through main() (test/cli.ts) on
// temporary data folders, beside a server context that keeps the database open, as a live server
// does.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import sharp from "sharp";
import { Header, Parser, Pax, type ReadEntry } from "tar";
import { migrations } from "../migrations";
import { createApp } from "../src/app";
import { loadConfig, type Config } from "../src/config";
import { DAY, TestClock } from "../src/core/clock";
import { createContext, type Ctx } from "../src/core/context";
import { DATA_FOLDER_NAMES } from "../src/core/data-folders";
import { hashSecret, newApiKey } from "../src/core/ids";
import { acquireDataLock, LOCK_FILE } from "../src/core/lock";
import { openDatabase } from "../src/db/client";
import { FTS_INDEXES } from "../src/db/fts";
import { embeddedMigrations } from "../src/db/migrate";
import { fileStamp } from "../src/db/snapshot";
import { migrateGuarded, NewerDatabaseError } from "../src/db/upgrade";
import { issueToken } from "../src/features/auth/service";
import * as users from "../src/features/users/service";
import { stopVaultIndex } from "../src/features/vault/fts";
import { INDEX_FILE as VAULT_INDEX_FILE } from "../src/features/vault/index-db";
import { reconcileVault } from "../src/features/vault/reconcile";
import { extractArchive, writeArchive, type Manifest } from "../src/ops/archive";
import { restore } from "../src/ops/backup";
import { BACKUP_TASK, scheduleBackups, scheduledName, SCHEDULED_PATTERN } from "../src/ops/scheduled-backup";
import { colonyWith } from "./cli";

const tmp = mkdtempSync(join(tmpdir(), "colony-backup-test-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let n = 0;
const fresh = (name: string) => join(tmp, `${name}-${++n}`);
const BASE = "http://localhost";
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

/** `colony <args>` on `dataDir`, through main() in this process (test/cli.ts). */
const colony = (dataDir: string, args: string[], extraEnv: Record<string, string> = {}) => colonyWith({ ...process.env, COLONY_DATA_DIR: dataDir, ...extraEnv }, ...args);

const configFor = (dataDir: string, extra: Partial<Config> = {}): Config => ({ ...loadConfig({ COLONY_LOG_LEVEL: "silent" }), dataDir, publicUrl: BASE, ...extra });

/** A data folder served in-process (database open, as under a live server). */
function live(dataDir: string, extra: Partial<Config> = {}, clock = new TestClock(T0)) {
  const config = configFor(dataDir, extra);
  const ctx = createContext({ config, clock });
  const app = createApp(ctx);
  const req = async (method: string, path: string, opts: { token?: string; raw?: RequestInit["body"]; json?: unknown } = {}) => {
    const headers: Record<string, string> = opts.token ? { authorization: `Bearer ${opts.token}` } : {};
    if (opts.json !== undefined) headers["content-type"] = "application/json";
    const res = await app.handle(new Request(`${BASE}${path}`, { method, headers, body: opts.json !== undefined ? JSON.stringify(opts.json) : opts.raw }));
    const text = await res.text();
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: res.status, body };
  };
  const user = async (username: string) => {
    const apiKey = newApiKey();
    const row = ctx.db.transaction((tx) => users.createAccount(ctx, tx, { username, displayName: username, apiKeyHash: hashSecret(apiKey) }));
    const { access_token } = await issueToken(ctx, apiKey);
    return { id: row.id, username, apiKey, token: access_token };
  };
  const close = () => {
    void stopVaultIndex(ctx);
    ctx.db.$client.close();
  };
  return { ctx, app, req, user, clock, close };
}

// --- archives, read and written by hand ----------------------------------------------------

interface Entry {
  path: string;
  data: Buffer;
  mode: number;
  type: string;
  linkpath?: string;
}

function readEntries(file: string): Entry[] {
  const out: Entry[] = [];
  const parser = new Parser({ strict: true });
  parser.on("entry", (e: ReadEntry) => {
    const parts: Buffer[] = [];
    e.on("data", (c: Buffer) => parts.push(c));
    e.on("end", () => out.push({ path: e.path, data: Buffer.concat(parts), mode: (e.mode ?? 0) & 0o777, type: e.type, linkpath: e.linkpath }));
  });
  parser.end(gunzipSync(readFileSync(file)));
  return out;
}

function pack(entries: Entry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const fields = { path: e.path, mode: e.mode, size: e.type === "File" ? e.data.length : 0, mtime: new Date(T0), uid: 0, gid: 0, type: e.type as "File", linkpath: e.linkpath };
    const h = Buffer.alloc(512);
    if (new Header(fields).encode(h, 0)) blocks.push(new Pax(fields).encode());
    blocks.push(h);
    if (fields.size) blocks.push(e.data, Buffer.alloc((512 - (e.data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const manifestOf = (entries: Entry[]) => JSON.parse(entries.find((e) => e.path === "manifest.json")!.data.toString()) as Manifest;
const withManifest = (entries: Entry[], change: (m: Manifest) => void) =>
  entries.map((e) => {
    if (e.path !== "manifest.json") return e;
    const m = manifestOf(entries);
    change(m);
    return { ...e, data: Buffer.from(JSON.stringify(m)) };
  });

/** What a database holds, as a digest: its tables and the rows that matter here. */
function databaseDigest(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    const rows = [
      db.query("select type, name, sql from sqlite_master order by name").all(),
      db.query("select hash, created_at from __drizzle_migrations order by id").all(),
      db.query("select id, username, api_key_hash from users order by id").all(),
    ];
    return sha256(Buffer.from(JSON.stringify(rows)));
  } finally {
    db.close();
  }
}

/**
 * Every file under a folder with its content hash; the database by what it holds (its bytes
 * move between the file and the -wal as connections open and close), the lock file aside (its
 * content is informational).
 */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(join(d, e.name), r);
      else if (r === LOCK_FILE || r === "colony.db-wal" || r === "colony.db-shm") continue;
      else out[r] = r === "colony.db" ? databaseDigest(join(d, e.name)) : sha256(readFileSync(join(d, e.name)));
    }
  };
  if (existsSync(dir)) walk(dir, "");
  return out;
}

function form(bytes: Uint8Array) {
  const f = new FormData();
  f.append("file", new File([bytes], "avatar.png", { type: "image/png" }));
  return f;
}

/** A database at `path` with only the first `k` migrations applied. */
function partiallyMigrated(path: string, k: number) {
  const db = openDatabase(path);
  (db as any).dialect.migrate(embeddedMigrations().slice(0, k), (db as any).session, {});
  db.$client.close();
}

/** Records a migration this build does not know, as a newer colony would have. */
function addFutureMigration(path: string) {
  const db = new Database(path);
  const latest = Math.max(...migrations.map((m) => m.when));
  db.query("insert into __drizzle_migrations (hash, created_at) values ('from-a-newer-colony', ?)").run(latest + 86_400_000);
  db.close();
}

// --- the source data folder, served while it is backed up ----------------------------------

const srcDir = fresh("source");
let src: ReturnType<typeof live>;
let alice: Awaited<ReturnType<ReturnType<typeof live>["user"]>>;
let archive = "";
let attachmentId = "";

beforeAll(async () => {
  src = live(srcDir);
  // The identity provider's key is made on first use (or by a server once it listens), as it is
  // in a folder that has issued id_tokens.
  expect(src.ctx.secrets.oidcSigningKeyPem).toContain("PRIVATE KEY");
  alice = await src.user("alice-backup");
  await src.user("bob-backup");
  const png = await sharp({ create: { width: 100, height: 100, channels: 3, background: { r: 10, g: 140, b: 90 } } }).png().toBuffer();
  const up = await src.req("POST", "/api/v1/users/me/avatar/upload", { token: alice.token, raw: form(png) });
  expect(up.status).toBe(200);
  const attached = await src.req("POST", "/api/v1/messages/attachments/upload", { token: alice.token, raw: form(png) });
  expect(attached.status).toBe(201);
  attachmentId = attached.body.attachment_id;
  const filed = await src.req("PUT", "/api/v1/vault/files/notes/kept.md", { token: alice.token, json: { content: "a restorable zulu note" } });
  expect(filed.status).toBe(200);
  // A search makes the vault's index file (derived data, which no backup carries).
  expect((await src.req("GET", "/api/v1/vault/search?q=zulu", { token: alice.token })).body.total).toBe(1);
  expect(existsSync(join(srcDir, VAULT_INDEX_FILE))).toBe(true);
  // An upload still being written (a dot-named work file) is not part of a backup.
  writeFileSync(join(srcDir, "avatars", alice.id, ".256.webp.12345-abc"), "half");
  archive = join(fresh("archives"), "colony.tar.gz");
  const r = await colony(srcDir, ["backup", archive]);
  expect(r.err).toBe("");
  expect(r.code).toBe(0);
});

afterAll(() => src?.close());

describe("colony backup", () => {
  test("writes one archive (mode 0600): the snapshot first, the secrets and uploaded files, the manifest last", async () => {
    expect(statSync(archive).mode & 0o777).toBe(0o600);
    // Nothing else is left beside it (the work folder and the temporary name are gone).
    expect(readdirSync(join(archive, ".."))).toEqual(["colony.tar.gz"]);
    const entries = readEntries(archive);
    const paths = entries.map((e) => e.path);
    expect(paths[0]).toBe("colony.db");
    expect(paths.at(-1)).toBe("manifest.json");
    for (const s of ["jwt.key", "data.key", "oidc-rs256.pem"]) {
      const e = entries.find((x) => x.path === `secrets/${s}`)!;
      expect(e.data.equals(readFileSync(join(srcDir, "secrets", s)))).toBe(true);
      expect(e.mode).toBe(0o600);
    }
    for (const size of [32, 96, 256]) expect(paths).toContain(`avatars/${alice.id}/${size}.webp`);
    expect(paths).toContain(`attachments/${attachmentId}/thumb.webp`);
    expect(paths.filter((p) => p.split("/").some((s) => s.startsWith(".")))).toEqual([]);
    expect(paths.filter((p) => !["colony.db", "manifest.json"].includes(p) && !DATA_FOLDER_NAMES.includes(p.split("/")[0]))).toEqual([]);

    const m = manifestOf(entries);
    const db = entries.find((e) => e.path === "colony.db")!;
    expect(m).toMatchObject({ format: "colony-backup", format_version: 1, migrations: migrations.length, vanished: 0 });
    expect(m.database).toEqual({ entry: "colony.db", bytes: db.data.length, sha256: sha256(db.data) });
    expect(Object.keys(m.folders).sort()).toEqual([...DATA_FOLDER_NAMES].sort());
    expect(m.folders.secrets).toEqual({ files: 3, bytes: entries.filter((e) => e.path.startsWith("secrets/")).reduce((s, e) => s + e.data.length, 0) });
    expect(m.folders.avatars.files).toBe(3);
    expect(Date.parse(m.created_at)).toBeGreaterThan(0);
    // The snapshot is a whole database with the accounts of the moment it was taken.
    const file = join(fresh("peek"), "colony.db");
    mkdirSync(join(file, ".."));
    writeFileSync(file, db.data);
    const peek = new Database(file, { readonly: true });
    expect((peek.query("select count(*) as n from users where username in ('alice-backup', 'bob-backup')").get() as { n: number }).n).toBe(2);
    peek.close();
  });

  test("DATA_FOLDERS names every folder the server writes files into", async () => {
    // After an avatar and an attachment upload, everything in the data folder is either the
    // database, the vault's search index (derived from the vault's files), the lock, or a declared folder.
    const index = ["", "-wal", "-shm"].map((s) => VAULT_INDEX_FILE + s);
    const known = new Set([...DATA_FOLDER_NAMES, "colony.db", "colony.db-wal", "colony.db-shm", ...index, LOCK_FILE, "mail", "backups"]);
    expect(readdirSync(srcDir).filter((f) => !known.has(f))).toEqual([]);
    expect(readdirSync(srcDir)).toContain("attachments");
  });

  test("a file removed after the listing is left out and counted as vanished", async () => {
    const dir = fresh("vanishing");
    live(dir).close();
    mkdirSync(join(dir, "avatars", "someone"), { recursive: true });
    for (const f of ["32.webp", "96.webp"]) writeFileSync(join(dir, "avatars", "someone", f), f);
    const target = join(fresh("vanished"), "b.tar.gz");
    const r = await writeArchive({
      dataDir: dir,
      target,
      now: T0,
      // Removed by someone else between the listing and the reading.
      print: (line) => line.includes("listed") && rmSync(join(dir, "avatars", "someone", "32.webp")),
    });
    expect(r.manifest.vanished).toBe(1);
    expect(r.manifest.folders.avatars).toEqual({ files: 1, bytes: 7 });
    expect(readEntries(target).map((e) => e.path)).toContain("avatars/someone/96.webp");
    expect((await extractArchive(target, join(dir, ".check"))).folders).toContain("avatars");
  });

  test("never overwrites a file", async () => {
    expect((await colony(srcDir, ["backup", archive])).code).toBe(2);
    await expect(writeArchive({ dataDir: srcDir, target: archive, now: T0 })).rejects.toThrow(/already exists/);
  });

  test("--db-only writes the snapshot alone as a SQLite file (mode 0600), which restores", async () => {
    const file = join(fresh("dbonly"), "colony.db");
    const r = await colony(srcDir, ["backup", "--db-only", file]);
    expect(r.code).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file).subarray(0, 16).toString("latin1")).toBe("SQLite format 3\0");

    const dest = fresh("dbonly-restored");
    const back = await colony(dest, ["restore", file]);
    expect(back.code).toBe(0);
    const db = new Database(join(dest, "colony.db"), { readonly: true });
    expect((db.query("select username from users where username = 'alice-backup'").get() as { username: string }).username).toBe("alice-backup");
    db.close();
    // The database only: no secrets or files came with it.
    expect(existsSync(join(dest, "secrets"))).toBe(false);
    expect(existsSync(join(dest, "avatars"))).toBe(false);
  });
});

describe("colony restore", () => {
  test("round trip into a second data folder: accounts, uploaded files and secrets; a token minted before still verifies", async () => {
    const dest = fresh("restored");
    // Whatever the folder held before is set aside, not lost; its vault index (derived) goes.
    mkdirSync(dest, { recursive: true });
    writeFileSync(join(dest, VAULT_INDEX_FILE), "an index of other files");
    mkdirSync(join(dest, "avatars", "old"), { recursive: true });
    writeFileSync(join(dest, "avatars", "old", "32.webp"), "previous");
    const r = await colony(dest, ["restore", archive]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain("archive verified");
    expect(r.out).toMatch(/previous avatars\/ kept as .*avatars\.pre-restore-/);
    const kept = readdirSync(dest).find((f) => f.startsWith("avatars.pre-restore-"))!;
    expect(readFileSync(join(dest, kept, "old", "32.webp"), "utf8")).toBe("previous");
    expect(readdirSync(dest).filter((f) => f.startsWith(".restore-"))).toEqual([]);

    for (const s of ["jwt.key", "data.key", "oidc-rs256.pem"]) {
      expect(readFileSync(join(dest, "secrets", s)).equals(readFileSync(join(srcDir, "secrets", s)))).toBe(true);
      expect(statSync(join(dest, "secrets", s)).mode & 0o777).toBe(0o600);
    }
    for (const size of [32, 96, 256]) {
      const rel = join("avatars", alice.id, `${size}.webp`);
      expect(readFileSync(join(dest, rel)).equals(readFileSync(join(srcDir, rel)))).toBe(true);
    }

    const b = live(dest);
    try {
      const me = await b.req("GET", "/api/v1/users/me", { token: alice.token });
      expect(me.status).toBe(200);
      expect(me.body.username).toBe("alice-backup");
      const photo = await b.app.handle(new Request(`${BASE}/avatars/${alice.id}/96.webp`));
      expect(photo.status).toBe(200);
      expect(Buffer.from(await photo.arrayBuffer()).equals(readFileSync(join(srcDir, "avatars", alice.id, "96.webp")))).toBe(true);
      const thumb = await b.app.handle(new Request(`${BASE}/api/v1/messages/attachments/${attachmentId}/thumb`, { headers: { authorization: `Bearer ${alice.token}` } }));
      expect(thumb.status).toBe(200);
      expect(Buffer.from(await thumb.arrayBuffer()).equals(readFileSync(join(srcDir, "attachments", attachmentId, "thumb.webp")))).toBe(true);
      // The search indexes were rebuilt from the restored rows: each agrees with its content
      // table (FTS5's integrity-check with rank 1 compares them), and finds the account.
      for (const fts of FTS_INDEXES) expect(() => b.ctx.db.$client.run(`INSERT INTO ${fts}(${fts}, rank) VALUES('integrity-check', 1)`)).not.toThrow();
      const found = b.ctx.db.$client.query("select u.username from users_fts f join users u on u.rowid = f.rowid where users_fts match 'alice'").all();
      expect(found).toContainEqual({ username: "alice-backup" });
      // The vault's files came back; its search index, a file of its own that no backup carries,
      // is made anew from them at start-up (every file queued, then indexed).
      const file = await b.req("GET", "/api/v1/vault/files/notes/kept.md", { token: alice.token });
      expect([file.status, file.body.content]).toEqual([200, "a restorable zulu note"]);
      expect(existsSync(join(dest, VAULT_INDEX_FILE))).toBe(false);
      expect(await reconcileVault(b.ctx)).toMatchObject({ queued: 1, reindexed: 0, staleEntries: 0, rowsWithoutFile: 0 });
      expect(existsSync(join(dest, VAULT_INDEX_FILE))).toBe(true);
      const hits = await b.req("GET", "/api/v1/vault/search?q=zulu", { token: alice.token });
      expect(hits.body).toMatchObject({ total: 1, items: [{ filename: "notes/kept.md", snippet: "a restorable [[hl]]zulu[[/hl]] note" }] });
    } finally {
      b.close();
    }
  });

  test("refused while the data folder's lock is held, with nothing changed", async () => {
    const dest = fresh("locked");
    await colony(dest, ["migrate"]);
    const before = tree(dest);
    const lock = acquireDataLock(dest, "serve");
    let r;
    try {
      r = await colony(dest, ["restore", archive]);
    } finally {
      lock.release();
    }
    expect(r.code).toBe(1);
    expect(r.err).toContain(`in use by colony serve (pid ${process.pid}`);
    expect(tree(dest)).toEqual(before);
  });

  // Every row: an archive that must be refused before anything in the data folder changes.
  const good = () => readEntries(archive);
  const rows: [string, () => Buffer | string, RegExp][] = [
    ["a changed byte in the database snapshot", () => pack(good().map((e) => (e.path === "colony.db" ? { ...e, data: Buffer.from(e.data.map((b, i) => (i === 5000 ? b ^ 1 : b))) } : e))), /does not match its manifest/],
    ["an entry that climbs out of the data folder", () => pack([{ path: "../escaped.txt", data: Buffer.from("x"), mode: 0o644, type: "File" }, ...good()]), /leaves the data folder/],
    ["a path that climbs out through a known folder", () => pack([...good().slice(0, 1), { path: "avatars/../../../escaped.txt", data: Buffer.from("x"), mode: 0o644, type: "File" }, ...good().slice(1)]), /leaves the data folder/],
    ["an absolute path", () => pack([{ path: `${tmp}/escaped-absolute.txt`, data: Buffer.from("x"), mode: 0o644, type: "File" }, ...good()]), /is absolute/],
    ["a symbolic link", () => pack([{ path: "avatars/link", data: Buffer.alloc(0), mode: 0o777, type: "SymbolicLink", linkpath: "/etc" }, ...good()]), /SymbolicLink/],
    ["a folder this build does not know", () => pack([...good().slice(0, -1), { path: "elsewhere/x", data: Buffer.from("x"), mode: 0o600, type: "File" }, ...good().slice(-1)]), /does not know/],
    ["a file the manifest does not count", () => pack([...good().slice(0, -1), { path: `avatars/${"0".repeat(8)}/32.webp`, data: Buffer.from("x"), mode: 0o600, type: "File" }, ...good().slice(-1)]), /the manifest says/],
    ["no manifest (an archive cut short)", () => pack(good().slice(0, -1)), /no manifest/],
    ["an archive file cut in half", () => readFileSync(archive).subarray(0, Math.floor(statSync(archive).size / 2)), /not a readable backup archive/],
    ["a newer archive format", () => pack(withManifest(good(), (m) => (m.format_version = 99))), /format 99/],
    ["not an archive at all", () => "just some text\n".repeat(100), /neither a SQLite database nor a backup archive/],
    ["gzip of something that is not a tar", () => gzipSync(Buffer.alloc(4096, 7)), /not a readable backup archive/],
  ];

  let target = "";
  let before: Record<string, string> = {};
  beforeAll(async () => {
    target = fresh("target");
    const t = live(target);
    t.close();
    before = tree(target);
  });

  test.each(rows)("refuses %s, changing nothing", async (_name, make, message) => {
    const file = join(fresh("bad"), "bad.tar.gz");
    mkdirSync(join(file, ".."));
    writeFileSync(file, make());
    await expect(restore(configFor(target), file, () => {})).rejects.toThrow(message);
    expect(tree(target)).toEqual(before);
    expect(readdirSync(target).filter((f) => f.startsWith(".restore-") || f.includes("pre-restore"))).toEqual([]);
    expect(existsSync(join(tmp, "escaped.txt"))).toBe(false);
    expect(existsSync(join(tmp, "escaped-absolute.txt"))).toBe(false);
    expect(existsSync(join(target, "escaped.txt"))).toBe(false);
  });

  test("refuses a backup taken by a newer colony (its snapshot holds migrations this build does not know)", async () => {
    const newer = fresh("newer");
    live(newer).close();
    addFutureMigration(join(newer, "colony.db"));
    const file = join(fresh("newer-archive"), "newer.tar.gz");
    await writeArchive({ dataDir: newer, target: file, now: T0 });
    await expect(restore(configFor(target), file, () => {})).rejects.toThrow(/newer colony/);
    expect(tree(target)).toEqual(before);
  });
});

describe("scheduled backups", () => {
  test("the job writes colony-<time>.tar.gz on the scheduler, off the request thread, and keeps the newest backupKeep", async () => {
    const dir = fresh("scheduled");
    const backupDir = join(dir, "backups");
    const s = live(dir, { backupCron: "0 3 * * *", backupKeep: 2, backupDir });
    try {
      await s.user("scheduled-user");
      const stats = scheduleBackups(s.ctx)!;
      expect(stats).not.toBeNull();
      mkdirSync(backupDir, { recursive: true });
      // Files that are not scheduled backups are never pruned.
      writeFileSync(join(backupDir, "notes.txt"), "mine");
      writeFileSync(join(backupDir, "colony-by-hand.tar.gz"), "mine");
      const times: number[] = [];
      for (let day = 0; day < 3; day++) {
        s.clock.advance(DAY);
        times.push(s.clock.now());
        await s.ctx.jobs.runRecurring(BACKUP_TASK);
      }
      expect(stats).toMatchObject({ runs: 3, failures: 0 });
      const names = readdirSync(backupDir).sort();
      expect(names).toEqual(["colony-by-hand.tar.gz", scheduledName(times[1]), scheduledName(times[2]), "notes.txt"].sort());
      expect(names.filter((f) => SCHEDULED_PATTERN.test(f))).toHaveLength(2);
      const latest = join(backupDir, scheduledName(times[2]));
      expect(statSync(latest).mode & 0o777).toBe(0o600);
      const staged = await extractArchive(latest, join(dir, "check"));
      expect(staged.manifest.created_at).toBe(new Date(times[2]).toISOString());
      expect(staged.folders).toContain("secrets");
    } finally {
      s.close();
    }
  });

  test("a failed run is logged and counted, never thrown", async () => {
    const dir = fresh("scheduled-fail");
    const blocker = join(dir, "not-a-folder");
    const s = live(dir, { backupCron: "0 3 * * *", backupDir: join(blocker, "backups") });
    try {
      writeFileSync(blocker, "a file where the backup folder's parent should be");
      const stats = scheduleBackups(s.ctx)!;
      await s.ctx.jobs.runRecurring(BACKUP_TASK);
      await s.ctx.jobs.runRecurring(BACKUP_TASK);
      expect(stats).toMatchObject({ runs: 2, failures: 2, failuresInARow: 2 });
      expect(stats.lastError).toBeString();
    } finally {
      s.close();
    }
  });

  test("off unless backupCron is set", async () => {
    const s = live(fresh("unscheduled"));
    try {
      expect(scheduleBackups(s.ctx)).toBeNull();
      await expect(s.ctx.jobs.runRecurring(BACKUP_TASK)).rejects.toThrow(/no recurring task/);
    } finally {
      s.close();
    }
  });

  test.each([
    ["30 3 * * *", "30 3 * * *"],
    ["0 */6 * * *", "0 */6 * * *"],
    [undefined, null],
  ])("backupCron %p is accepted", (raw, want) => {
    expect(loadConfig(raw === undefined ? {} : { COLONY_BACKUP_CRON: raw }).backupCron).toBe(want);
  });

  test.each(["every night", "61 * * * *", "* * *"])("a bad backupCron (%p) is a usage error", async (raw) => {
    const r = await colony(fresh("cron"), ["serve", "--backup-cron", raw]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("--backup-cron must be a cron expression");
  });
});

describe("guarded upgrades", () => {
  const older = migrations.length - 2;
  const copiesIn = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((f) => f.startsWith("pre-migrate-")) : []);

  const entryPoints: [string, (dataDir: string, backupDir: string, now: number) => void | Promise<void>][] = [
    ["server start and the admin commands (createContext)", (dataDir, backupDir, now) => live(dataDir, { backupDir }, new TestClock(now)).close()],
    ["colony migrate", async (dataDir, backupDir) => expect((await colony(dataDir, ["migrate", "--backup-dir", backupDir])).code).toBe(0)],
  ];

  test.each(entryPoints)("%s: a copy of the database is taken once, before pending migrations run", async (_name, open) => {
    const dataDir = fresh("upgrade");
    const backupDir = join(dataDir, "backups");
    mkdirSync(dataDir);
    partiallyMigrated(join(dataDir, "colony.db"), older);
    await open(dataDir, backupDir, T0);
    const copies = copiesIn(backupDir);
    expect(copies).toHaveLength(1);
    expect(copies[0]).toMatch(new RegExp(`^pre-migrate-${older}-to-${migrations.length}-\\d{4}-.*Z\\.db$`));
    const copy = join(backupDir, copies[0]);
    expect(statSync(copy).mode & 0o777).toBe(0o600);
    const db = new Database(copy, { readonly: true });
    expect((db.query("select count(*) as n from __drizzle_migrations").get() as { n: number }).n).toBe(older);
    db.close();
    // Up to date now: no more copies.
    open(dataDir, backupDir, T0 + DAY);
    expect(copiesIn(backupDir)).toHaveLength(1);
  });

  test("an up-to-date database is opened without drizzle's migrator; a pending migration still runs it", async () => {
    const dataDir = fresh("fast-path");
    mkdirSync(dataDir);
    const path = join(dataDir, "colony.db");
    partiallyMigrated(path, older);
    const opts = { label: path, backupDir: join(dataDir, "backups"), keep: 3, now: T0 };
    const db = openDatabase(path);
    const dialect = (db as any).dialect;
    const migrator = dialect.migrate.bind(dialect);
    let runs = 0;
    dialect.migrate = (...args: unknown[]) => {
      runs++;
      return migrator(...args);
    };
    try {
      expect(migrateGuarded(db, opts).applied).toBe(migrations.length - older);
      expect(runs).toBe(1);
      expect(migrateGuarded(db, { ...opts, now: T0 + DAY })).toEqual({ applied: 0, copy: null });
      expect(runs).toBe(1);
      expect((db.$client.query("select count(*) as n from __drizzle_migrations").get() as { n: number }).n).toBe(migrations.length);
    } finally {
      db.$client.close();
    }
  });

  test("a fresh database needs no copy", async () => {
    const dataDir = fresh("fresh");
    live(dataDir).close();
    expect(copiesIn(join(dataDir, "backups"))).toEqual([]);
  });

  test("only the newest upgradeBackupsKeep copies are kept", async () => {
    const backupDir = fresh("kept-copies");
    const names: string[] = [];
    for (let i = 0; i < 3; i++) {
      const dataDir = fresh("keep");
      mkdirSync(dataDir);
      partiallyMigrated(join(dataDir, "colony.db"), older);
      const now = T0 + i * DAY;
      names.push(`pre-migrate-${older}-to-${migrations.length}-${fileStamp(now)}.db`);
      live(dataDir, { backupDir, upgradeBackupsKeep: 2 }, new TestClock(now)).close();
    }
    expect(copiesIn(backupDir).sort()).toEqual(names.slice(1).sort());
  });

  const refusals: [string, (dataDir: string) => Promise<{ code: number | null; err: string }> | void][] = [
    ["createContext", (dataDir) => expect(() => live(dataDir)).toThrow(NewerDatabaseError)],
    ["colony serve", (dataDir) => colony(dataDir, ["serve", "--port", "0"])],
    ["colony migrate", (dataDir) => colony(dataDir, ["migrate"])],
    ["colony admin create-user", (dataDir) => colony(dataDir, ["admin", "create-user", "too-new"])],
  ];

  test.each(refusals)("%s refuses a database last opened by a newer colony, changing nothing", async (_name, run) => {
    const dataDir = fresh("too-new");
    live(dataDir).close();
    addFutureMigration(join(dataDir, "colony.db"));
    const before = tree(dataDir);
    const r = await run(dataDir);
    if (r) {
      expect(r.code).toBe(1);
      expect(r.err).toContain("was last opened by a newer colony");
      expect(r.err).toContain("pre-migrate");
    }
    expect(tree(dataDir)).toEqual(before);
    expect(copiesIn(join(dataDir, "backups"))).toEqual([]);
  });
});
