// The vault's index queue (docs/decisions.md §129): a write queues its file instead of indexing
// it; a search indexes the searcher's queued files first; background batches and start-up index
// the rest; a deleted file leaves the queue with its row.
import { beforeAll, describe, expect, test } from "bun:test";
import type { Harness, TestUser } from "../../../test/harness";
import { BATCH_BYTES, indexQueuedBatch, scheduleIndexing } from "./fts";
import { vaultKit } from "./testkit";

const kit = vaultKit("fts");
const { put, act } = kit;
let h: Harness;
beforeAll(() => (h = kit.h));

const rowid = (u: TestUser, name: string) => (h.ctx.db.$client.query("select rowid as r from vault_files where user_id = ? and filename = ?").get(u.id, name) as { r: number }).r;
const queued = (u: TestUser) =>
  (h.ctx.db.$client.query("select v.filename from vault_fts_pending q join vault_files v on v.rowid = q.rid where v.user_id = ? order by v.filename").all(u.id) as { filename: string }[]).map((r) => r.filename);
const entries = (u: TestUser) =>
  (h.ctx.db.$client.query("select v.filename from vault_fts f join vault_files v on v.id = f.file_id and v.rowid = f.rowid where v.user_id = ? order by v.filename").all(u.id) as { filename: string }[]).map((r) => r.filename);
const found = async (u: TestUser, q: string) => (await h.req("GET", "/api/v1/vault/search", { token: u.token, query: { q } })).body.items.map((i: any) => i.filename).sort();

describe("vault index queue", () => {
  test("a write queues the file and indexes nothing; the owner's search indexes the owner's queue first, and no one else's", async () => {
    const [a, b] = [await h.user(), await h.user()];
    await put(a, "a.md", "quebec romeo");
    await put(b, "b.md", "quebec sierra");
    expect([queued(a), entries(a)]).toEqual([["a.md"], []]);
    expect(await found(a, "quebec")).toEqual(["a.md"]);
    expect([queued(a), entries(a)]).toEqual([[], ["a.md"]]);
    // b's file is still queued: a's search did not pay for it.
    expect([queued(b), entries(b)]).toEqual([["b.md"], []]);
    expect(await found(b, "quebec")).toEqual(["b.md"]);
  });

  test("a replaced file is searched by its new content only; a moved one by its new name", async () => {
    const a = await h.user();
    await put(a, "doc.md", "tango");
    expect(await found(a, "tango")).toEqual(["doc.md"]);
    await put(a, "doc.md", "uniform");
    expect(queued(a)).toEqual(["doc.md"]);
    expect(await found(a, "tango")).toEqual([]);
    expect(await found(a, "uniform")).toEqual(["doc.md"]);
    expect((await act(a, "doc.md", "move", { destination: "renamed/victor.md" })).status).toBe(200);
    expect(queued(a)).toEqual(["renamed/victor.md"]);
    expect(await found(a, "victor")).toEqual(["renamed/victor.md"]);
    expect(await found(a, "doc")).toEqual([]);
  });

  test("deleting a queued file takes it off the queue with its row", async () => {
    const a = await h.user();
    await put(a, "gone.md", "whiskey");
    const rid = rowid(a, "gone.md");
    expect((await h.req("DELETE", "/api/v1/vault/files/gone.md", { token: a.token })).status).toBe(204);
    expect(h.ctx.db.$client.query("select count(*) as n from vault_fts_pending where rid = ?").get(rid)).toEqual({ n: 0 });
    expect(await found(a, "whiskey")).toEqual([]);
  });

  test("a background batch takes files oldest first up to about BATCH_BYTES of content, at least one", async () => {
    // Drain what earlier tests left queued.
    while (indexQueuedBatch(h.ctx) > 0);
    const a = await h.user({ karma: 10 });
    const big = "x".repeat(BATCH_BYTES / 2 - 10);
    for (const n of [1, 2, 3]) await put(a, `big${n}.txt`, `${big} xray${n}`);
    expect(indexQueuedBatch(h.ctx)).toBe(2);
    expect(queued(a)).toEqual(["big3.txt"]);
    expect(indexQueuedBatch(h.ctx, 1)).toBe(1);
    expect(indexQueuedBatch(h.ctx)).toBe(0);
    expect(entries(a)).toEqual(["big1.txt", "big2.txt", "big3.txt"]);
    expect(() => h.ctx.db.$client.run("insert into vault_fts(vault_fts, rank) values ('integrity-check', 1)")).not.toThrow();
  });

  test("while the server's background work runs, writes are indexed without a search; never once it stops", async () => {
    const a = await h.user();
    h.ctx.events.start();
    try {
      await put(a, "bg.md", "yankee");
      for (let i = 0; i < 200 && queued(a).length; i++) await Bun.sleep(5);
      expect([queued(a), entries(a)]).toEqual([[], ["bg.md"]]);
    } finally {
      h.ctx.events.stop();
    }
    await put(a, "later.md", "zulu");
    scheduleIndexing(h.ctx);
    await Bun.sleep(60);
    expect(queued(a)).toEqual(["later.md"]);
  });
});
