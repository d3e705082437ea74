// Vault writes that overlap (docs/decisions.md §129, service.ts): content is made durable off the
// request thread, so writes interleave; the state gates run again at the commit, writes under one
// name run one at a time, and content a write in flight made is never removed under it.
import { beforeAll, describe, expect, test } from "bun:test";
import type { Harness } from "../../../test/harness";
import { QUOTA_BYTES } from "./service";
import { vaultKit } from "./testkit";

const kit = vaultKit("concurrency");
const { put, get, act } = kit;
let h: Harness;
beforeAll(() => (h = kit.h));

describe("overlapping vault writes", () => {
  test("appends to one file all land, none lost", async () => {
    const a = await h.user();
    await put(a, "log.txt", "start\n");
    const lines = Array.from({ length: 12 }, (_, i) => `line ${i}\n`);
    const answers = await Promise.all(lines.map((l) => act(a, "log.txt", "append", { content: l })));
    expect(answers.map((r) => r.status)).toEqual(lines.map(() => 200));
    const content: string = (await get(a, "log.txt")).body.content;
    expect(content.startsWith("start\n")).toBe(true);
    expect(content.slice(6).split("\n").filter(Boolean).sort()).toEqual(lines.map((l) => l.trim()).sort());
  });

  test("If-None-Match: * from two writers at once: one creates, the other is 412", async () => {
    const a = await h.user();
    const [x, y] = await Promise.all([put(a, "once.md", "first", { "if-none-match": "*" }), put(a, "once.md", "second", { "if-none-match": "*" })]);
    expect([x.status, y.status].sort()).toEqual([200, 412]);
    const winner = x.status === 200 ? "first" : "second";
    expect((await get(a, "once.md")).body.content).toBe(winner);
    expect(kit.disk(a)).toHaveLength(1);
  });

  test("the quota holds at the commit: two writes that each fit but not together, one is refused and leaves no file", async () => {
    const a = await h.user();
    const MiB = 1024 * 1024;
    // 9 MiB used, then two writes of 0.6 MiB at once.
    for (let i = 0; i < 9; i++) await put(a, `fill${i}.txt`, String(i).repeat(MiB));
    const chunk = (c: string) => c.repeat(Math.floor(0.6 * MiB));
    const [x, y] = await Promise.all([put(a, "x.txt", chunk("x")), put(a, "y.txt", chunk("y"))]);
    expect([x.status, y.status].sort()).toEqual([200, 400]);
    expect([x, y].find((r) => r.status === 400)!.body.detail.code).toBe("QUOTA_EXCEEDED");
    const status = (await h.req("GET", "/api/v1/vault/status", { token: a.token })).body;
    expect(status).toMatchObject({ file_count: 10 });
    expect(status.used_bytes).toBeLessThanOrEqual(QUOTA_BYTES);
    // Only the files the rows name are on disk.
    expect(kit.disk(a)).toHaveLength(10);
  });

  test("a delete racing a write of the same content never takes the content from under the write", async () => {
    const a = await h.user();
    for (let round = 0; round < 20; round++) {
      // b.md's write and a.md's write-then-delete of the same new content overlap: a.md's
      // delete may come while b.md's write is still on its way to its commit.
      const content = `shared ${round} `.repeat(2000);
      const [w, d] = await Promise.all([
        put(a, "b.md", content),
        (async () => {
          await put(a, "a.md", content);
          return h.req("DELETE", "/api/v1/vault/files/a.md", { token: a.token });
        })(),
      ]);
      expect([w.status, d.status]).toEqual([200, 204]);
      const b = await get(a, "b.md");
      expect([b.status, b.body.content === content]).toEqual([200, true]);
    }
  });
});
