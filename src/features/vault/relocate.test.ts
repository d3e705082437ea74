// Append, move and copy of vault files (spec Part 3 §4.7): gates on the result, ETags, the files
// on disk, names with slashes, and refusals that write nothing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { refused as refusedByDb } from "../../../test/expect";
import { setup, type Harness, type Res, type TestUser } from "../../../test/harness";
import { MAX_FILE_BYTES, removalsSettled } from "./service";

const dataDir = mkdtempSync(join(tmpdir(), "colony-vault-relocate-"));
let h: Harness;
beforeAll(() => {
  h = setup({ dataDir });
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const sha = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest("hex");
const put = (u: TestUser, name: string, content: string) => h.req("PUT", `/api/v1/vault/files/${name}`, { token: u.token, body: { content } });
const get = (u: TestUser, name: string) => h.req("GET", `/api/v1/vault/files/${name}`, { token: u.token });
const act = (u: TestUser, name: string, action: string, body: unknown) => h.req("POST", `/api/v1/vault/files/${name}/${action}`, { token: u.token, body });
const disk = async (u: TestUser) => {
  await removalsSettled(); // a replaced content file goes after the answer
  return existsSync(join(dataDir, "vault", u.id)) ? readdirSync(join(dataDir, "vault", u.id)).sort() : [];
};

/** A refusal: its status and code, and nothing written (rows and folder unchanged). */
async function refused(u: TestUser, run: () => Promise<Res>, status: number, code?: string | null) {
  const files = await disk(u);
  await refusedByDb(h, run, status, code);
  expect(await disk(u)).toEqual(files);
}

describe("append", () => {
  test("creates when missing, then appends; new ETag each time; not idempotent", async () => {
    const a = await h.user();
    const c = await act(a, "log.txt", "append", { content: "one\n" });
    expect(c.status).toBe(200);
    expect(c.headers.get("etag")).toBe(`"${sha("one\n")}"`);
    await act(a, "log.txt", "append", { content: "two\n" });
    const r = await act(a, "log.txt", "append", { content: "two\n" });
    expect(r.headers.get("etag")).toBe(`"${sha("one\ntwo\ntwo\n")}"`);
    expect(r.body).toMatchObject({ filename: "log.txt", content_size: 12, created_at: c.body.created_at });
    expect((await get(a, "log.txt")).body.content).toBe("one\ntwo\ntwo\n");
    expect(await disk(a)).toEqual([sha("one\ntwo\ntwo\n")]);
  });

  test("names with slashes; the gates run on the concatenated result", async () => {
    const a = await h.user();
    expect((await act(a, "notes/2026/log.md", "append", { content: "a".repeat(MAX_FILE_BYTES - 1) })).status).toBe(200);
    expect((await act(a, "notes/2026/log.md", "append", { content: "b" })).body.content_size).toBe(MAX_FILE_BYTES);
    await refused(a, () => act(a, "notes/2026/log.md", "append", { content: "c" }), 400, "QUOTA_EXCEEDED");
    await refused(a, () => act(a, "notes/log.exe", "append", { content: "c" }), 400, "INVALID_INPUT");
    await refused(a, () => act(a, "notes%2F..%2F..%2Fx.md", "append", { content: "c" }), 400, "INVALID_INPUT");
    await refused(a, () => act(a, "notes/x.md", "append", {}), 422);
    await refused(a, () => act(a, "x.md", "append", {}), 422);
    h.ctx.db.$client.query("update users set karma = -5 where id = ?").run(a.id);
    await refused(a, () => act(a, "notes/2026/log.md", "append", { content: "" }), 403, "KARMA_TOO_LOW");
  });
});

describe("move", () => {
  test("keeps created_at, content and ETag; the old name is gone; names with slashes both ways", async () => {
    const a = await h.user();
    const c = await put(a, "draft.md", "text");
    h.clock.advance(60_000);
    const m = await act(a, "draft.md", "move", { destination: "notes/final.md" });
    expect(m.status).toBe(200);
    expect(m.headers.get("etag")).toBe(c.headers.get("etag"));
    expect(m.body).toMatchObject({ filename: "notes/final.md", content_size: 4, created_at: c.body.created_at });
    expect((await get(a, "draft.md")).status).toBe(404);
    expect((await get(a, "notes/final.md")).body).toMatchObject({ content: "text", etag: `"${sha("text")}"` });
    expect((await act(a, "notes/final.md", "move", { destination: "archive/2026/final.txt" })).status).toBe(200);
    expect((await h.req("GET", "/api/v1/vault/files", { token: a.token })).body.items.map((f: any) => f.filename)).toEqual(["archive/2026/final.txt"]);
    expect(await disk(a)).toEqual([sha("text")]);
  });

  test("refusals: bad extension or the source itself 400, missing 404, an existing destination 409 unless overwrite", async () => {
    const a = await h.user();
    await put(a, "a.md", "A");
    await put(a, "b.md", "B");
    await refused(a, () => act(a, "a.md", "move", { destination: "a.exe" }), 400, "INVALID_INPUT");
    await refused(a, () => act(a, "a.md", "move", { destination: "../a.md" }), 400, "INVALID_INPUT");
    await refused(a, () => act(a, "a.md", "move", { destination: "a.md" }), 400, "INVALID_INPUT");
    await refused(a, () => act(a, "nope.md", "move", { destination: "c.md" }), 404, "NOT_FOUND");
    await refused(a, () => act(a, "a.md", "move", { destination: "b.md" }), 409, "CONFLICT");
    await refused(a, () => act(a, "a.md", "move", {}), 422);
    const o = await act(a, "a.md", "move", { destination: "b.md", overwrite: true });
    expect(o.status).toBe(200);
    expect((await get(a, "b.md")).body.content).toBe("A");
    expect((await h.req("GET", "/api/v1/vault/status", { token: a.token })).body).toMatchObject({ used_bytes: 1, file_count: 1 });
    // B's content file went with its last row.
    expect(await disk(a)).toEqual([sha("A")]);
  });

  test("no karma gate on move", async () => {
    const a = await h.user();
    await put(a, "a.md", "A");
    h.ctx.db.$client.query("update users set karma = -5 where id = ?").run(a.id);
    expect((await act(a, "a.md", "move", { destination: "z.md" })).status).toBe(200);
  });
});

describe("copy", () => {
  test("a new file of the same content sharing its file on disk; the source stays", async () => {
    const a = await h.user();
    await put(a, "src.md", "shared");
    h.clock.advance(60_000);
    const c = await act(a, "src.md", "copy", { destination: "dir/copy.md" });
    expect(c.status).toBe(200);
    expect(c.headers.get("etag")).toBe(`"${sha("shared")}"`);
    expect((await get(a, "src.md")).body.content).toBe("shared");
    expect((await get(a, "dir/copy.md")).body.content).toBe("shared");
    expect((await h.req("GET", "/api/v1/vault/status", { token: a.token })).body).toMatchObject({ used_bytes: 12, file_count: 2 });
    expect(await disk(a)).toEqual([sha("shared")]);
    expect((await act(a, "dir/copy.md", "copy", { destination: "dir/again.md" })).status).toBe(200);
  });

  test("refusals: karma 403, bad name 400, source 400, missing 404, existing 409; quota 400; overwrite replaces", async () => {
    const a = await h.user();
    await put(a, "a.md", "A");
    await put(a, "b.md", "BB");
    await refused(a, () => act(a, "a.md", "copy", { destination: "a.exe" }), 400, "INVALID_INPUT");
    await refused(a, () => act(a, "a.md", "copy", { destination: "a.md" }), 400, "INVALID_INPUT");
    await refused(a, () => act(a, "nope.md", "copy", { destination: "c.md" }), 404, "NOT_FOUND");
    await refused(a, () => act(a, "a.md", "copy", { destination: "b.md" }), 409, "CONFLICT");
    expect((await act(a, "a.md", "copy", { destination: "b.md", overwrite: true })).status).toBe(200);
    expect((await get(a, "b.md")).body.content).toBe("A");
    expect(await disk(a)).toEqual([sha("A")]);
    for (let i = 0; i < 9; i++) expect((await put(a, `big${i}.txt`, String(i).repeat(MAX_FILE_BYTES))).status).toBe(200);
    await put(a, "last.txt", "z".repeat(MAX_FILE_BYTES - 10));
    await refused(a, () => act(a, "big0.txt", "copy", { destination: "big-copy.txt" }), 400, "QUOTA_EXCEEDED");
    h.ctx.db.$client.query("update users set karma = -1 where id = ?").run(a.id);
    await refused(a, () => act(a, "a.md", "copy", { destination: "c.md" }), 403, "KARMA_TOO_LOW");
  });

  test("another agent's file is 404 for every action; humans 403 AUTH_AGENT_ONLY; anonymous 401", async () => {
    const [a, b] = [await h.user(), await h.user()];
    const human = await h.user({ human: true });
    await put(a, "mine.md", "x");
    for (const [action, body] of [
      ["move", { destination: "t.md" }],
      ["copy", { destination: "t.md" }],
    ] as const) {
      await refused(b, () => act(b, "mine.md", action, body), 404, "NOT_FOUND");
      await refused(human, () => act(human, "mine.md", action, body), 403, "AUTH_AGENT_ONLY");
      await refused(human, () => act(human, "d/mine.md", action, body), 403, "AUTH_AGENT_ONLY");
      expect((await h.req("POST", `/api/v1/vault/files/mine.md/${action}`, { body })).status).toBe(401);
    }
    await refused(human, () => act(human, "mine.md", "append", { content: "x" }), 403, "AUTH_AGENT_ONLY");
    expect((await h.req("POST", "/api/v1/vault/files/d/mine.md/append", { body: { content: "x" } })).status).toBe(401);
    // Appending to "mine.md" as b makes b's own file.
    expect((await act(b, "mine.md", "append", { content: "b" })).status).toBe(200);
    expect((await get(a, "mine.md")).body.content).toBe("x");
    // An unknown action is 404.
    expect((await act(a, "d/mine.md", "rename", { destination: "t.md" })).status).toBe(404);
  });
});
