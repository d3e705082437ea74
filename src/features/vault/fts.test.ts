// The vault's index queue (docs/decisions.md §129, §177): a write queues its file (a trigger, in
// the write's transaction) instead of indexing it; a search sends the searcher's queued files to
// the index first; background batches and start-up send the rest; a deleted file is queued for
// removal; a queue row leaves only once the index has committed it, by its seq.
import { beforeAll, describe, expect, test } from "bun:test";
import type { Harness, TestUser } from "../../../test/harness";
import { backgroundIndexing, BATCH_BYTES, checkIndex, drainIndexQueue, indexEntries, scheduleIndexing } from "./fts";
import { vaultKit } from "./testkit";

const kit = vaultKit("fts");
const { put, act } = kit;
let h: Harness;
beforeAll(() => (h = kit.h));

const fileId = (u: TestUser, name: string) => (h.ctx.db.$client.query("select id from vault_files where user_id = ? and filename = ?").get(u.id, name) as { id: string }).id;
/** The agent's queued files, by current name ("(removed)" for a file whose row is gone). */
const queued = (u: TestUser) =>
  (h.ctx.db.$client.query("select coalesce(v.filename, '(removed)') as filename from vault_fts_pending q left join vault_files v on v.id = q.file_id where q.user_id = ? order by 1").all(u.id) as { filename: string }[]).map(
    (r) => r.filename,
  );
/** The agent's index entries, by the name they were made with. */
const entries = async (u: TestUser) => (await indexEntries(h.ctx, "", 100_000)).filter((e) => e.user_id === u.id).map((e) => e.filename).sort();
const found = async (u: TestUser, q: string) => (await h.req("GET", "/api/v1/vault/search", { token: u.token, query: { q } })).body.items.map((i: any) => i.filename).sort();

describe("vault index queue", () => {
  test("a write queues the file and indexes nothing; the owner's search sends the owner's queue first, and no one else's", async () => {
    const [a, b] = [await h.user(), await h.user()];
    await put(a, "a.md", "quebec romeo");
    await put(b, "b.md", "quebec sierra");
    expect([queued(a), await entries(a)]).toEqual([["a.md"], []]);
    expect(await found(a, "quebec")).toEqual(["a.md"]);
    expect([queued(a), await entries(a)]).toEqual([[], ["a.md"]]);
    // b's file is still queued: a's search did not pay for it.
    expect([queued(b), await entries(b)]).toEqual([["b.md"], []]);
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
    expect(await entries(a)).toEqual(["renamed/victor.md"]);
  });

  test("a deleted file is queued for removal, whoever deletes it; its entry goes before the owner's next search", async () => {
    const a = await h.user();
    await put(a, "gone.md", "whiskey");
    expect(await found(a, "whiskey")).toEqual(["gone.md"]);
    const id = fileId(a, "gone.md");
    expect((await h.req("DELETE", "/api/v1/vault/files/gone.md", { token: a.token })).status).toBe(204);
    expect(h.ctx.db.$client.query("select count(*) as n from vault_fts_pending where file_id = ?").get(id)).toEqual({ n: 1 });
    expect(queued(a)).toEqual(["(removed)"]);
    expect(await found(a, "whiskey")).toEqual([]);
    expect([queued(a), await entries(a)]).toEqual([[], []]);
  });

  test("a file queued again gets a new seq: the queue row of an earlier version is gone, the newer one stays until indexed", async () => {
    const a = await h.user();
    await put(a, "seq.md", "one");
    const seqOf = () => (h.ctx.db.$client.query("select seq from vault_fts_pending where file_id = ?").get(fileId(a, "seq.md")) as { seq: number } | null)?.seq ?? null;
    const first = seqOf()!;
    await put(a, "seq.md", "two");
    const second = seqOf()!;
    expect(second).toBeGreaterThan(first);
    expect(h.ctx.db.$client.query("select count(*) as n from vault_fts_pending where file_id = ?").get(fileId(a, "seq.md"))).toEqual({ n: 1 });
    // An acknowledgement of the first seq (what the index answers for a batch sent before the second write) removes nothing.
    h.ctx.db.$client.query("delete from vault_fts_pending where seq = ?").run(first);
    expect(seqOf()).toBe(second);
    expect(await found(a, "two")).toEqual(["seq.md"]);
    expect(seqOf()).toBeNull();
  });

  test("draining sends the whole queue in batches; the index then holds exactly the files", async () => {
    await drainIndexQueue(h.ctx);
    const a = await h.user({ karma: 10 });
    const big = "x".repeat(BATCH_BYTES / 2 - 10);
    for (const n of [1, 2, 3]) await put(a, `big${n}.txt`, `${big} xray${n}`);
    expect(queued(a)).toEqual(["big1.txt", "big2.txt", "big3.txt"]);
    expect(await drainIndexQueue(h.ctx)).toBe(3);
    expect(queued(a)).toEqual([]);
    expect(await entries(a)).toEqual(["big1.txt", "big2.txt", "big3.txt"]);
    expect(await drainIndexQueue(h.ctx)).toBe(0);
    const files = (h.ctx.db.$client.query("select count(*) as n from vault_files").get() as { n: number }).n;
    expect(await checkIndex(h.ctx)).toEqual({ entries: files, ok: true });
  });

  test("while the server's background work runs, writes are indexed without a search; never once it stops", async () => {
    const a = await h.user();
    h.ctx.events.start();
    try {
      await put(a, "bg.md", "yankee");
      await backgroundIndexing(h.ctx);
      expect([queued(a), await entries(a)]).toEqual([[], ["bg.md"]]);
    } finally {
      h.ctx.events.stop();
    }
    await put(a, "later.md", "zulu");
    scheduleIndexing(h.ctx);
    // Whatever background work the write or the call scheduled has run by now.
    await backgroundIndexing(h.ctx);
    expect(queued(a)).toEqual(["later.md"]);
  });
});
