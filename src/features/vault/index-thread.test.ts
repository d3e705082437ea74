// The vault's search index on its own thread, in its own file (docs/decisions.md §177): the
// server's arrangement, with a database file in a data folder. Indexing and searching run on the
// thread; a search finds everything its caller wrote before it; deletes and moves reach the index
// through the queue; a restart sends what the queue holds; a missing or unreadable index file is
// made anew from the files.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { backgroundIndexing, checkIndex, drainIndexQueue, indexEntries, indexOnThread, startVaultIndex, stopVaultIndex } from "./fts";
import { createLogger } from "../../core/log";
import { startIndexThread } from "./index-channel";
import { INDEX_FILE } from "./index-db";
import { reconcileVault } from "./reconcile";

const root = mkdtempSync(join(tmpdir(), "colony-vault-thread-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const open: Harness[] = [];

/** A server-like context on `dataDir` (a database file, a reader thread) with the index on its thread. */
async function serve(dataDir: string): Promise<Harness> {
  const h = setup({ dataDir }, { readers: 1 });
  open.push(h);
  await startVaultIndex(h.ctx, { thread: true });
  return h;
}

async function close(h: Harness): Promise<void> {
  open.splice(open.indexOf(h), 1);
  h.ctx.events.stop();
  await stopVaultIndex(h.ctx);
  await h.close();
}
afterEach(async () => {
  for (const h of [...open]) await close(h);
});

const put = (h: Harness, u: TestUser, name: string, content: string) => h.req("PUT", `/api/v1/vault/files/${name}`, { token: u.token, body: { content } });
const found = async (h: Harness, u: TestUser, q: string) => (await h.req("GET", "/api/v1/vault/search", { token: u.token, query: { q } })).body.items.map((i: any) => i.filename).sort();
const queued = (h: Harness) => (h.ctx.db.$client.query("select count(*) as n from vault_fts_pending").get() as { n: number }).n;

describe("the vault's index on its own thread", () => {
  test("the index is a file of its own, written on the thread; a search finds its caller's writes at once, never another agent's", async () => {
    const dir = join(root, `d${++n}`);
    const h = await serve(dir);
    expect(indexOnThread(h.ctx)).toBe(true);
    expect(existsSync(join(dir, INDEX_FILE))).toBe(true);
    // The main database holds the queue, not the index.
    expect(h.ctx.db.$client.query("select name from sqlite_master where name like 'vault_fts%' and type = 'table'").all()).toEqual([{ name: "vault_fts_pending" }]);
    const [a, b] = [await h.user(), await h.user()];
    await put(h, a, "notes/alpha.md", "the thread indexes juliett");
    await put(h, b, "other.md", "juliett too, but not yours");
    expect(queued(h)).toBe(2);
    expect(await found(h, a, "juliett")).toEqual(["notes/alpha.md"]);
    // It holds words of private files: owner-only, as the database is, its write-ahead log too.
    for (const s of ["", "-wal"]) expect(statSync(join(dir, INDEX_FILE + s)).mode & 0o777).toBe(0o600);
    const r = await h.req("GET", "/api/v1/vault/search", { token: a.token, query: { q: "juliett" } });
    expect(r.body).toMatchObject({ total: 1, items: [{ filename: "notes/alpha.md", snippet: "the thread indexes [[hl]]juliett[[/hl]]" }] });
    // Replaced, then searched at once: the new content only.
    await put(h, a, "notes/alpha.md", "now kilo");
    expect(await found(h, a, "juliett")).toEqual([]);
    expect(await found(h, a, "kilo")).toEqual(["notes/alpha.md"]);
    expect(await found(h, b, "juliett")).toEqual(["other.md"]);
  });

  test("a delete and a move reach the index through the queue: no hit for a file the caller no longer has, nor under its old name", async () => {
    const h = await serve(join(root, `d${++n}`));
    const a = await h.user();
    await put(h, a, "keep.md", "lima mike");
    await put(h, a, "drop.md", "lima november");
    expect(await found(h, a, "lima")).toEqual(["drop.md", "keep.md"]);
    expect((await h.req("DELETE", "/api/v1/vault/files/drop.md", { token: a.token })).status).toBe(204);
    expect(await found(h, a, "lima")).toEqual(["keep.md"]);
    expect((await h.req("GET", "/api/v1/vault/search", { token: a.token, query: { q: "lima" } })).body.total).toBe(1);
    expect((await h.req("POST", "/api/v1/vault/files/keep.md/move", { token: a.token, body: { destination: "moved/oscar.md" } })).status).toBe(200);
    expect(await found(h, a, "keep")).toEqual([]);
    expect(await found(h, a, "oscar")).toEqual(["moved/oscar.md"]);
    expect(await found(h, a, "mike")).toEqual(["moved/oscar.md"]);
    await drainIndexQueue(h.ctx);
    expect((await indexEntries(h.ctx, "", 100)).map((e) => e.filename)).toEqual(["moved/oscar.md"]);
  });

  test("a file changed while its earlier version is on the thread stays queued, and its newer version is what the index ends with", async () => {
    const h = await serve(join(root, `d${++n}`));
    const a = await h.user();
    // Large enough that the thread is still tokenising it when the rename below commits.
    await put(h, a, "big.txt", `${"papa quebec ".repeat(60_000)}`);
    const draining = drainIndexQueue(h.ctx);
    await new Promise((r) => setImmediate(r));
    // Renamed behind the request path (the row's trigger queues it anew, with a new seq).
    h.ctx.db.$client.query("update vault_files set filename = 'renamed.txt' where user_id = ?").run(a.id);
    await draining;
    // The acknowledgement of the first version removed nothing: the rename is still queued.
    expect(queued(h)).toBe(1);
    expect(await found(h, a, "renamed")).toEqual(["renamed.txt"]);
    expect(await found(h, a, "big")).toEqual([]);
    expect(queued(h)).toBe(0);
  });

  test("while the server's background work runs, the thread indexes writes without a search", async () => {
    const h = await serve(join(root, `d${++n}`));
    const a = await h.user();
    h.ctx.events.start();
    for (let i = 0; i < 20; i++) await put(h, a, `bg/${i}.md`, `romeo ${i}`);
    await backgroundIndexing(h.ctx);
    expect(queued(h)).toBe(0);
    expect(await checkIndex(h.ctx)).toEqual({ entries: 20, ok: true });
  });

  test("a restart sends what the queue held; the index file survives it", async () => {
    const dir = join(root, `d${++n}`);
    let h = await serve(dir);
    const a = await h.user();
    await put(h, a, "first.md", "sierra");
    expect(await found(h, a, "sierra")).toEqual(["first.md"]);
    // Written, never searched nor indexed: queued when the server stops.
    await put(h, a, "second.md", "sierra tango");
    await h.req("DELETE", "/api/v1/vault/files/first.md", { token: a.token });
    expect(queued(h)).toBe(2);
    await close(h);

    h = await serve(dir);
    expect(await reconcileVault(h.ctx)).toEqual({ rowsWithoutFile: 0, filesWithoutRow: 0, workFiles: 0, reindexed: 0, staleEntries: 0, queued: 2 });
    expect(queued(h)).toBe(0);
    expect((await indexEntries(h.ctx, "", 100)).map((e) => e.filename)).toEqual(["second.md"]);
    expect(await found(h, a, "sierra")).toEqual(["second.md"]);
  });

  test("a missing, unreadable or older index file is made anew from the files", async () => {
    const dir = join(root, `d${++n}`);
    let h = await serve(dir);
    const a = await h.user();
    await put(h, a, "one.md", "uniform");
    await put(h, a, "two.md", "uniform victor");
    await drainIndexQueue(h.ctx);
    await close(h);

    const drop = () => {
      for (const s of ["", "-wal", "-shm"]) rmSync(join(dir, INDEX_FILE + s), { force: true });
    };
    const breakages: [string, () => void][] = [
      ["missing", drop],
      [
        "not a database",
        () => {
          drop();
          writeFileSync(join(dir, INDEX_FILE), "x".repeat(8192));
        },
      ],
      [
        "an older schema",
        () => {
          const db = new Database(join(dir, INDEX_FILE));
          db.run("PRAGMA user_version = 0");
          db.close();
        },
      ],
    ];
    for (const [what, breakIt] of breakages) {
      breakIt();
      h = await serve(dir);
      expect([what, (await reconcileVault(h.ctx)).queued]).toEqual([what, 2]);
      expect(await checkIndex(h.ctx)).toEqual({ entries: 2, ok: true });
      expect([what, await found(h, a, "uniform")]).toEqual([what, ["one.md", "two.md"]]);
      await close(h);
    }
  });

  test("an index file that cannot be opened: the thread's failure is logged, the main thread tries, and requests are refused rather than left waiting", async () => {
    let lines = "";
    const log = createLogger("warn", Date.now, (chunk) => void (lines += chunk));
    const channel = await startIndexThread(join(root, "no-such-folder", INDEX_FILE), root, log);
    log.flush();
    expect(channel.thread).toBe(false);
    expect(lines).toContain("vault index thread stopped; the index runs on the main thread");
    expect(lines).toContain("the search index cannot be opened");
    await expect(channel.request({ op: "check" })).rejects.toThrow("cannot be opened");
    await channel.stop();
  });
});
