// GET /vault/export (spec Part 3 §4.7): a zip of the caller's files, read back with fflate's unzip
// and compared with what was written; the empty zip; the literal prefix; names that would collide
// on extraction; files changed while the zip streams; who may export.
import { beforeAll, describe, expect, test } from "bun:test";
import { strFromU8, Unzip, UnzipInflate, unzipSync } from "fflate";
import { BASE, type Harness, type TestUser } from "../../../test/harness";
import { zipNames } from "./export";
import { MAX_FILE_BYTES } from "./service";
import { vaultKit } from "./testkit";

const kit = vaultKit("export");
const { put } = kit;
let h: Harness;
beforeAll(() => (h = kit.h));
/** The raw answer of GET /vault/export (its body not yet read). */
const exportRes = (u: TestUser | null, query = "") =>
  h.app.handle(new Request(`${BASE}/api/v1/vault/export${query}`, { headers: u ? { authorization: `Bearer ${u.token}` } : {} }));
/** The export's files: name -> text. */
async function exported(u: TestUser, query = ""): Promise<Record<string, string>> {
  const res = await exportRes(u, query);
  expect(res.status).toBe(200);
  const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
  return Object.fromEntries(Object.entries(files).map(([name, bytes]) => [name, strFromU8(bytes)]));
}

describe("vault export", () => {
  test("an empty vault is a valid empty zip with 200, as an attachment", async () => {
    const a = await h.user();
    const res = await exportRes(a);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/zip");
    expect(res.headers.get("content-disposition")).toMatch(new RegExp(`^attachment; filename="vault-${a.username}-\\d{4}-\\d{2}-\\d{2}\\.zip"$`));
    const bytes = new Uint8Array(await res.arrayBuffer());
    // Only the end-of-central-directory record, which every unzip reads as no entries.
    expect(bytes.length).toBe(22);
    expect([...bytes.subarray(0, 4)]).toEqual([0x50, 0x4b, 0x05, 0x06]);
    expect(unzipSync(bytes)).toEqual({});
  });

  test("every file byte for byte, folders as zip folders, deflated", async () => {
    const a = await h.user();
    const files: Record<string, string> = {
      "readme.md": "# Vault\n",
      "notes/2026/plan.md": "ship it ".repeat(1000),
      "notes/café ☕.txt": "crème brûlée 🍮",
      "empty.log": "",
      "data/big.csv": "x,".repeat(MAX_FILE_BYTES / 2),
    };
    for (const [name, content] of Object.entries(files)) expect((await put(a, encodeURIComponent(name), content)).status).toBe(200);
    expect(await exported(a)).toEqual(files);
    // The entries as an unzip tool lists them: deflated, with their sizes and times.
    const res = await exportRes(a);
    const entries: { name: string; compression: number; size?: number }[] = [];
    const unzip = new Unzip((f) => entries.push({ name: f.name, compression: f.compression, size: f.originalSize }));
    unzip.register(UnzipInflate);
    unzip.push(new Uint8Array(await res.arrayBuffer()), true);
    expect(entries.map((e) => e.name).sort()).toEqual(Object.keys(files).sort());
    expect(entries.every((e) => e.compression === 8)).toBe(true);
    const bytes = new Uint8Array(await (await exportRes(a)).arrayBuffer());
    expect(bytes.length).toBeLessThan(MAX_FILE_BYTES / 10); // text compresses
  });

  test("a full vault of 10 files of 1 MiB comes back whole", async () => {
    const a = await h.user();
    const files: Record<string, string> = {};
    for (let i = 0; i < 10; i++) {
      // Varied text so that deflate has work to do.
      let s = "";
      for (let j = 0; s.length < MAX_FILE_BYTES; j++) s += `line ${i}-${j} ${((j * 2654435761) >>> 0).toString(36)}\n`;
      files[`full/f${i}.txt`] = s.slice(0, MAX_FILE_BYTES);
    }
    for (const [name, content] of Object.entries(files)) expect((await put(a, name, content)).status).toBe(200);
    expect((await h.req("GET", "/api/v1/vault/status", { token: a.token })).body.available_bytes).toBe(0);
    expect(await exported(a)).toEqual(files);
  });

  test("an entry is dated by its file's updated_at (DOS time, to the even second)", async () => {
    const a = await h.user();
    h.clock.advance(3_600_000);
    const w = await put(a, "dated.md", "x");
    const at = new Date(w.body.updated_at);
    const bytes = new Uint8Array(await (await exportRes(a)).arrayBuffer());
    // The first local file header: signature, then time (offset 10) and date (offset 12).
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    expect(view.getUint32(0, true)).toBe(0x04034b50);
    const time = view.getUint16(10, true);
    const date = view.getUint16(12, true);
    const got = new Date((date >> 9) + 1980, ((date >> 5) & 15) - 1, date & 31, time >> 11, (time >> 5) & 63, (time & 31) * 2);
    expect(Math.abs(got.getTime() - at.getTime())).toBeLessThan(2000);
  });

  test("prefix is literal and case-sensitive, as in the file list; no match is the empty zip", async () => {
    const a = await h.user();
    for (const n of ["a_b/x.md", "axb/y.md", "A_b.md", "a%c.md"]) await put(a, encodeURIComponent(n), n);
    expect(Object.keys(await exported(a, "?prefix=a_b")).sort()).toEqual(["a_b/x.md"]);
    expect(Object.keys(await exported(a, "?prefix=a%25")).sort()).toEqual(["a%c.md"]);
    expect(Object.keys(await exported(a, "?prefix=a")).sort()).toEqual(["a%c.md", "a_b/x.md", "axb/y.md"]);
    expect(await exported(a, "?prefix=zzz")).toEqual({});
    expect(Object.keys(await exported(a, "?prefix=")).length).toBe(4);
  });

  test("own files only", async () => {
    const [a, b] = [await h.user(), await h.user()];
    await put(a, "secret.md", "a's");
    await put(b, "mine.md", "b's");
    expect(await exported(b)).toEqual({ "mine.md": "b's" });
  });

  test("names that would collide on extraction are numbered, so no file is dropped", async () => {
    expect(zipNames(["A.md", "a.md", "a.md/b.md", "notes/x.md", "notes/X.md", "n.tar.md", "N.tar.md", ".env", ".ENV"])).toEqual([
      "A (2).md",
      "a (3).md",
      "a.md/b.md",
      "notes/x.md",
      "notes/X (2).md",
      "n.tar.md",
      "N.tar (2).md",
      ".env",
      ".ENV (2)",
    ]);
    const a = await h.user();
    await put(a, "Plan.md", "upper");
    await put(a, "plan.md", "lower");
    await put(a, "plan.md%2Fnote.md", "inside");
    expect(await exported(a)).toEqual({ "Plan (2).md": "upper", "plan (3).md": "lower", "plan.md/note.md": "inside" });
  });

  test("files changed while the zip streams: a deleted one is left out, a replaced one has its new content", async () => {
    const a = await h.user();
    for (const n of ["a.md", "b.md", "c.md"]) await put(a, n, `first ${n}`);
    const res = await exportRes(a);
    await put(a, "b.md", "second b");
    expect((await h.req("DELETE", "/api/v1/vault/files/c.md", { token: a.token })).status).toBe(204);
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    expect(Object.fromEntries(Object.entries(files).map(([n, b]) => [n, strFromU8(b)]))).toEqual({ "a.md": "first a.md", "b.md": "second b" });
  });

  test("anonymous is 401, a human 403 AUTH_AGENT_ONLY; past 10 an hour 429", async () => {
    expect((await exportRes(null)).status).toBe(401);
    const human = await h.user({ human: true });
    const r = await exportRes(human);
    expect([r.status, ((await r.json()) as any).detail.code]).toEqual([403, "AUTH_AGENT_ONLY"]);
    const a = await h.user();
    for (let i = 0; i < 10; i++) expect((await exportRes(a)).status).toBe(200);
    const limited = await exportRes(a);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBeTruthy();
  });
});
