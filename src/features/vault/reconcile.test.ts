// Start-up reconciliation of the vault (docs/decisions.md §74, §119): rows without a file, files
// without a row and the work files of interrupted writes are removed; the search index is brought
// in step with the rows; everything else is left alone.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setup, type Harness } from "../../../test/harness";
import { checkIndex, drainIndexQueue, indexEntries, indexReady, indexWithoutQueue } from "./fts";
import type { IndexItem } from "./index-db";
import { reconcileVault } from "./reconcile";

const dataDir = mkdtempSync(join(tmpdir(), "colony-vault-reconcile-"));
let h: Harness;
beforeAll(() => {
  h = setup({ dataDir });
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const sha = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest("hex");

test("removes rows without a file, files without a row and work files; keeps the rest readable", async () => {
  // The index is open (so not made anew, with every file queued, by the reconciliation).
  await indexReady(h.ctx);
  const a = await h.user();
  const put = (name: string, content: string) => h.req("PUT", `/api/v1/vault/files/${name}`, { token: a.token, body: { content } });
  await put("keep.md", "kept");
  await put("twin.md", "kept");
  await put("lost.md", "lost");
  const dir = join(dataDir, "vault", a.id);
  rmSync(join(dir, sha("lost")));
  writeFileSync(join(dir, sha("orphan")), "orphan");
  writeFileSync(join(dir, `.${sha("torn")}.123.abc`), "to");
  mkdirSync(join(dataDir, "vault", "no-such-user"));
  writeFileSync(join(dataDir, "vault", "no-such-user", sha("x")), "x");

  // The three written files were still queued for the index (fts.ts), the lost one now for its removal: start-up sends them.
  expect(await reconcileVault(h.ctx)).toEqual({ rowsWithoutFile: 1, filesWithoutRow: 2, workFiles: 1, reindexed: 0, staleEntries: 0, queued: 3 });
  expect(readdirSync(dir)).toEqual([sha("kept")]);
  expect(readdirSync(join(dataDir, "vault", "no-such-user"))).toEqual([]);
  const list = await h.req("GET", "/api/v1/vault/files", { token: a.token });
  expect(list.body.items.map((f: any) => f.filename)).toEqual(["keep.md", "twin.md"]);
  expect((await h.req("GET", "/api/v1/vault/status", { token: a.token })).body).toMatchObject({ used_bytes: 8, file_count: 2 });
  expect((await h.req("GET", "/api/v1/vault/files/twin.md", { token: a.token })).body.content).toBe("kept");
  // A second pass finds nothing to do.
  expect(await reconcileVault(h.ctx)).toEqual(NOTHING);
});

const NOTHING = { rowsWithoutFile: 0, filesWithoutRow: 0, workFiles: 0, reindexed: 0, staleEntries: 0, queued: 0 };

/** Writes to the index directly, behind the queue's back (as a crash or a hand edit could leave it). */
const tamper = (items: Omit<IndexItem, "seq">[]) => indexWithoutQueue(h.ctx, items.map((it, i) => ({ ...it, seq: -1 - i })));

test("the search index: missing, stale and older entries are made again from the files", async () => {
  const a = await h.user();
  const put = (name: string, content: string) => h.req("PUT", `/api/v1/vault/files/${name}`, { token: a.token, body: { content } });
  const found = async (q: string) => (await h.req("GET", "/api/v1/vault/search", { token: a.token, query: { q } })).body.items.map((i: any) => i.filename).sort();
  await put("one.md", "kilo");
  await put("two.md", "lima");
  await put("three.md", "mike");
  await drainIndexQueue(h.ctx);
  const db = h.ctx.db.$client;
  const row = (name: string) => db.query("select id, sha256 from vault_files where user_id = ? and filename = ?").get(a.id, name) as { id: string; sha256: string };
  // one.md lost its entry; two.md's entry was made under another name; an entry names no file at all.
  await tamper([
    { fileId: row("one.md").id, userId: a.id, sha256: null, filename: null },
    { fileId: row("two.md").id, userId: a.id, sha256: row("two.md").sha256, filename: "old-name.md" },
    { fileId: "no-such-file", userId: a.id, sha256: row("three.md").sha256, filename: "ghost.md" },
  ]);
  // The ghost names no row, so no search lists it.
  expect(await found("ghost")).toEqual([]);
  expect(await found("kilo")).toEqual([]);
  expect(await reconcileVault(h.ctx)).toEqual({ ...NOTHING, reindexed: 2, staleEntries: 1 });
  expect(await found("kilo")).toEqual(["one.md"]);
  expect(await found("lima")).toEqual(["two.md"]);
  expect(await found("mike")).toEqual(["three.md"]);
  expect(await checkIndex(h.ctx)).toEqual({ entries: (db.query("select count(*) as n from vault_files").get() as { n: number }).n, ok: true });
  expect((await indexEntries(h.ctx, "", 1000)).map((e) => e.file_id)).not.toContain("no-such-file");
  expect(await reconcileVault(h.ctx)).toEqual(NOTHING);
});

test("an entry made from older content is made again", async () => {
  const a = await h.user();
  await h.req("PUT", "/api/v1/vault/files/doc.md", { token: a.token, body: { content: "november" } });
  const db = h.ctx.db.$client;
  // The row points at other content than its entry was made from (a restore of a mixed moment).
  await h.req("PUT", "/api/v1/vault/files/twin.md", { token: a.token, body: { content: "oscar" } });
  await drainIndexQueue(h.ctx);
  const oscar = (db.query("select sha256 from vault_files where user_id = ? and filename = 'twin.md'").get(a.id) as { sha256: string }).sha256;
  db.query("update vault_files set sha256 = ? where user_id = ? and filename = 'doc.md'").run(oscar, a.id);
  // (The update queued it; taken off, as a restored copy's rows would come without a queue row.)
  db.query("delete from vault_fts_pending").run();
  expect(await reconcileVault(h.ctx)).toMatchObject({ reindexed: 1, staleEntries: 0 });
  const q = async (w: string) => (await h.req("GET", "/api/v1/vault/search", { token: a.token, query: { q: w } })).body.items.map((i: any) => i.filename).sort();
  expect(await q("november")).toEqual([]);
  expect(await q("oscar")).toEqual(["doc.md", "twin.md"]);
});

test("no vault folder yet: nothing to do", async () => {
  const empty = setup({ dataDir: mkdtempSync(join(tmpdir(), "colony-vault-empty-")) });
  expect(await reconcileVault(empty.ctx)).toEqual(NOTHING);
  rmSync(empty.config.dataDir, { recursive: true, force: true });
});
