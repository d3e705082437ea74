// The vault survives a crash (issue acceptance): `colony serve` as a real process on 127.0.0.1
// with a fresh data folder takes 1,000 concurrent vault writes and is killed with SIGKILL once
// 300 of them were acknowledged. After a restart (start-up reconciliation runs before it listens):
//   - every acknowledged write (200 received) reads back with the content sent and the ETag the
//     acknowledgement carried;
//   - a write that was not acknowledged is either absent (or, for a replacement, the old content)
//     or whole with its new content: never torn, never a row without its content;
//   - the quota accounting (used_bytes, file_count) equals the files actually listed and read,
//     and the content folder holds exactly the files the rows name;
//   - the search index (its own file) has exactly one entry per file, made from its content and name.
// The writes are 900 creations of distinct names and 100 replacements of files written before
// (each replaced by one write), spread over four agents, with contents of 1 to 8 KiB.
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, registerAgent, startServe, type Running } from "./serve";

const dataDir = mkdtempSync(join(tmpdir(), "colony-vault-crash-"));
const children: Subprocess[] = [];
afterAll(() => {
  for (const c of children) c.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

const AGENTS = 4;
const CREATES = 900;
const REPLACES = 100;
const KILL_AFTER = 300;

/** Starts `colony serve` on a free port of 127.0.0.1 (its "colony listening" line awaited). */
async function start(): Promise<Running> {
  const running = await startServe(dataDir, { cwd: ROOT, children, env: { COLONY_HOST: "127.0.0.1" } });
  expect(new URL(running.url).hostname).toBe("127.0.0.1");
  return running;
}

const json = { "content-type": "application/json" };
const sha = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest("hex");

const register = registerAgent;

/** Deterministic content of 1 to 8 KiB for write `i`, so a torn file cannot pass for whole. */
function contentOf(i: number, tag: string): string {
  const size = 1024 + ((i * 7919) % 7168);
  const line = `${tag} write ${i}: the quick brown fox jumps over the lazy dog. `;
  return line.repeat(Math.ceil(size / line.length)).slice(0, size);
}

interface Write {
  agent: number;
  name: string;
  content: string;
  /** What the file held before this write (replacements), or null (creations). */
  before: string | null;
  acked?: { etag: string };
  failed?: boolean;
}

test("SIGKILL during 1,000 concurrent vault writes: every acknowledged write survives, nothing torn, quota equals the files", async () => {
  let server = await start();
  const tokens: string[] = [];
  for (let a = 0; a < AGENTS; a++) tokens.push(await register(server.url, `crash-agent-${a}`));
  const auth = (a: number) => ({ ...json, authorization: `Bearer ${tokens[a]}` });
  const put = (url: string, a: number, name: string, content: string) =>
    fetch(`${url}/api/v1/vault/files/${name}`, { method: "PUT", headers: auth(a), body: JSON.stringify({ content }) });

  // The files the replacements will overwrite, written (and acknowledged) before the storm.
  const writes: Write[] = [];
  for (let i = 0; i < REPLACES; i++) {
    const a = i % AGENTS;
    const name = `seed/${i}.md`;
    const before = contentOf(i, "seed");
    expect((await put(server.url, a, name, before)).status).toBe(200);
    writes.push({ agent: a, name, content: contentOf(i, "replacement"), before });
  }
  for (let i = 0; i < CREATES; i++) writes.push({ agent: i % AGENTS, name: `storm/${Math.floor(i / 100)}/file-${i}.txt`, content: contentOf(i, "create"), before: null });
  // Interleave replacements among the creations (a fixed order).
  const order = writes.map((_, i) => i).sort((x, y) => ((x * 2654435761) % 1000) - ((y * 2654435761) % 1000) || x - y);

  let acked = 0;
  let killed = false;
  await Promise.all(
    order.map(async (i) => {
      const w = writes[i]!;
      try {
        const res = await put(server.url, w.agent, w.name, w.content);
        const body = await res.text();
        if (res.status !== 200) throw new Error(`unexpected ${res.status}: ${body}`);
        w.acked = { etag: res.headers.get("etag")! };
        if (++acked === KILL_AFTER && !killed) {
          killed = true;
          server.proc.kill("SIGKILL");
        }
      } catch (err) {
        if (!killed) throw err;
        w.failed = true;
      }
    }),
  );
  await server.proc.exited;
  expect(server.proc.signalCode).toBe("SIGKILL");
  const ackedWrites = writes.filter((w) => w.acked);
  expect(ackedWrites.length).toBeGreaterThanOrEqual(KILL_AFTER);
  // The kill came mid-way: some writes never got an answer.
  expect(writes.some((w) => w.failed)).toBe(true);

  server = await start();
  try {
    for (let a = 0; a < AGENTS; a++) {
      const mine = writes.filter((w) => w.agent === a);
      const list = await (await fetch(`${server.url}/api/v1/vault/files`, { headers: auth(a) })).json() as { items: { filename: string; content_size: number }[] };
      const listed = new Map(list.items.map((f) => [f.filename, f.content_size]));
      let bytes = 0;
      for (const f of list.items) {
        const res = await fetch(`${server.url}/api/v1/vault/files/${f.filename}`, { headers: auth(a) });
        expect(res.status).toBe(200);
        const file = (await res.json()) as { content: string; etag: string; content_size: number };
        // Whole: the ETag is the hash of what is read, and the size its UTF-8 length.
        expect(file.etag).toBe(`"${sha(file.content)}"`);
        expect(res.headers.get("etag")).toBe(file.etag);
        expect(file.content_size).toBe(Buffer.byteLength(file.content));
        const w = mine.find((x) => x.name === f.filename);
        expect(w).toBeDefined();
        if (w!.acked) {
          expect(file.content).toBe(w!.content);
          expect(file.etag).toBe(w!.acked.etag);
        } else {
          // Unacknowledged: the old content or the new, whole.
          expect([w!.before, w!.content]).toContain(file.content);
        }
        bytes += file.content_size;
      }
      // Every acknowledged write is there; a replaced file never vanished.
      for (const w of mine) if (w.acked || w.before !== null) expect(listed.has(w.name)).toBe(true);
      const status = (await (await fetch(`${server.url}/api/v1/vault/status`, { headers: auth(a) })).json()) as { used_bytes: number; file_count: number };
      expect({ used_bytes: status.used_bytes, file_count: status.file_count }).toEqual({ used_bytes: bytes, file_count: list.items.length });
    }

    // On disk: exactly the content files the rows name, no work files; one index entry per row.
    const db = new Database(join(dataDir, "colony.db"), { readonly: true });
    try {
      const rows = db.query("select user_id, sha256 from vault_files").all() as { user_id: string; sha256: string }[];
      const named = new Set(rows.map((r) => `${r.user_id}/${r.sha256}`));
      const onDisk = new Set<string>();
      for (const user of readdirSync(join(dataDir, "vault"))) for (const f of readdirSync(join(dataDir, "vault", user))) onDisk.add(`${user}/${f}`);
      expect([...onDisk].sort()).toEqual([...named].sort());
      // The index (its own file, brought in step after the server listens): once the queue is empty,
      // one entry per row, made from the row's content and name.
      const queued = () => (db.query("select count(*) as n from vault_fts_pending").get() as { n: number }).n;
      for (let i = 0; i < 400 && queued() > 0; i++) await Bun.sleep(25);
      expect(queued()).toBe(0);
      const index = new Database(join(dataDir, "vault-index.sqlite"), { readonly: true });
      try {
        const files = db.query("select id, sha256, filename from vault_files order by id").all();
        expect(index.query("select file_id as id, sha256, filename from vault_entries order by file_id").all()).toEqual(files);
        expect((index.query("select count(*) as n from vault_fts").get() as { n: number }).n).toBe(rows.length);
      } finally {
        index.close();
      }
    } finally {
      db.close();
    }
  } finally {
    server.proc.kill("SIGTERM");
    await server.proc.exited;
  }
}, 60_000);
