// The vault (spec Part 3 §4.7): status, PUT with its gates and preconditions, read with a strong
// ETag, the list with the literal prefix, delete; the files on disk; the path-traversal corpus.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { refused as refusedByDb } from "../../../test/expect";
import { expectAnswer, setup, type Harness, type Res, type TestUser } from "../../../test/harness";
import { VaultFileContentOut } from "./routes";
import { MAX_FILE_BYTES, MAX_FILES, normaliseFilename, QUOTA_BYTES, removalsSettled } from "./service";

const dataDir = mkdtempSync(join(tmpdir(), "colony-vault-"));
let h: Harness;
beforeAll(() => {
  h = setup({ dataDir });
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const sha = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest("hex");
const put = (u: TestUser, name: string, content: string, headers: Record<string, string> = {}) => h.req("PUT", `/api/v1/vault/files/${name}`, { token: u.token, body: { content }, headers });
const get = (u: TestUser, name: string) => h.req("GET", `/api/v1/vault/files/${name}`, { token: u.token });
/** What the agent has on disk: the names in its vault folder (work files included). */
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

describe("vault status and files", () => {
  test("status of an empty vault, then after writes counted in UTF-8 bytes", async () => {
    const a = await h.user();
    expect((await h.req("GET", "/api/v1/vault/status", { token: a.token })).body).toEqual({ quota_bytes: QUOTA_BYTES, used_bytes: 0, available_bytes: QUOTA_BYTES, file_count: 0 });
    expect((await put(a, "a.md", "héllo")).status).toBe(200); // é is 2 bytes
    expect((await put(a, "notes/b.txt", "€")).status).toBe(200); // € is 3 bytes
    const s = (await h.req("GET", "/api/v1/vault/status", { token: a.token })).body;
    expect(s).toEqual({ quota_bytes: QUOTA_BYTES, used_bytes: 9, available_bytes: QUOTA_BYTES - 9, file_count: 2 });
  });

  test("PUT creates, GET reads with a strong ETag, PUT replaces keeping created_at; content on disk by hash", async () => {
    const a = await h.user();
    const c = await put(a, "notes/2026/plan.md", "# plan");
    expect(c.status).toBe(200);
    expect(c.headers.get("etag")).toBe(`"${sha("# plan")}"`);
    expect(c.body).toEqual({ filename: "notes/2026/plan.md", content_size: 6, created_at: expect.any(String), updated_at: expect.any(String) });
    expect(await disk(a)).toEqual([sha("# plan")]);
    const r = await get(a, "notes/2026/plan.md");
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe(`"${sha("# plan")}"`);
    expect(r.body).toEqual({ ...c.body, content: "# plan", etag: `"${sha("# plan")}"` });
    h.clock.advance(60_000);
    const u = await put(a, "notes/2026/plan.md", "# plan v2");
    expect(u.body.created_at).toBe(c.body.created_at);
    expect(u.body.updated_at).not.toBe(c.body.updated_at);
    expect(u.headers.get("etag")).toBe(`"${sha("# plan v2")}"`);
    // The old content file went with the last row naming it.
    expect(await disk(a)).toEqual([sha("# plan v2")]);
    expect((await get(a, "notes/2026/plan.md")).body.content).toBe("# plan v2");
  });

  test("a read's answer holds to VaultFileContentOut, served from the encoded-answer cache the same each time, and follows moves and edits", async () => {
    const a = await h.user();
    const text = "héllo \"quoted\" \u2028 line\nnext ✓";
    await put(a, "cache/a.md", text);
    const first = await get(a, "cache/a.md");
    expect(first.headers.get("content-type")).toStartWith("application/json");
    expectAnswer(VaultFileContentOut, first.body);
    expect(first.body.content).toBe(text);
    expect((await get(a, "cache/a.md")).text).toBe(first.text);
    await h.req("POST", "/api/v1/vault/files/cache/a.md/move", { token: a.token, body: { destination: "cache/b.md" } });
    expect((await get(a, "cache/b.md")).body).toMatchObject({ filename: "cache/b.md", content: text });
    expect((await get(a, "cache/a.md")).status).toBe(404);
    h.clock.advance(1000);
    await put(a, "cache/b.md", "changed");
    expect((await get(a, "cache/b.md")).body.content).toBe("changed");
    // Another agent's file of the same content is its own answer.
    const b = await h.user();
    await put(b, "cache/b.md", "changed");
    expect((await get(b, "cache/b.md")).body.content).toBe("changed");
  });

  test("files with the same content share one file on disk; deleting one keeps it for the other", async () => {
    const a = await h.user();
    await put(a, "one.txt", "same");
    await put(a, "two.txt", "same");
    expect(await disk(a)).toEqual([sha("same")]);
    expect((await h.req("DELETE", "/api/v1/vault/files/one.txt", { token: a.token })).status).toBe(204);
    expect(await disk(a)).toEqual([sha("same")]);
    expect((await get(a, "two.txt")).body.content).toBe("same");
    expect((await h.req("DELETE", "/api/v1/vault/files/two.txt", { token: a.token })).status).toBe(204);
    expect(await disk(a)).toEqual([]);
  });

  test("an empty file is a file", async () => {
    const a = await h.user();
    expect((await put(a, "empty.log", "")).body.content_size).toBe(0);
    expect((await get(a, "empty.log")).body).toMatchObject({ content: "", etag: `"${sha("")}"` });
  });

  test("the list is alphabetical metadata; prefix is literal (% and _ escaped) and case-sensitive", async () => {
    const a = await h.user();
    for (const n of ["a_b/x.md", "axb/y.md", "a%c.md", "abc.md", "A_b.md", "z.md"]) expect((await put(a, encodeURIComponent(n), n)).status).toBe(200);
    const all = await h.req("GET", "/api/v1/vault/files", { token: a.token });
    expect(all.body.items.map((f: any) => f.filename)).toEqual(["A_b.md", "a%c.md", "a_b/x.md", "abc.md", "axb/y.md", "z.md"]);
    expect(all.body).toMatchObject({ total: 6, has_more: false });
    expect(Object.keys(all.body.items[0]).sort()).toEqual(["content_size", "created_at", "filename", "updated_at"]);
    const names = async (prefix: string) => (await h.req("GET", "/api/v1/vault/files", { token: a.token, query: { prefix } })).body.items.map((f: any) => f.filename);
    expect(await names("a_b")).toEqual(["a_b/x.md"]);
    expect(await names("a%")).toEqual(["a%c.md"]);
    expect(await names("a")).toEqual(["a%c.md", "a_b/x.md", "abc.md", "axb/y.md"]);
    expect(await names("")).toHaveLength(6);
    expect(await names("nothing")).toEqual([]);
  });

  test("another agent's files are not there: 404 on read and delete, absent from list and status", async () => {
    const [a, b] = [await h.user(), await h.user()];
    await put(a, "secret.md", "mine");
    expect((await get(b, "secret.md")).status).toBe(404);
    await refused(b, () => h.req("DELETE", "/api/v1/vault/files/secret.md", { token: b.token }), 404, "NOT_FOUND");
    expect((await h.req("GET", "/api/v1/vault/files", { token: b.token })).body.items).toEqual([]);
    expect((await h.req("GET", "/api/v1/vault/status", { token: b.token })).body.file_count).toBe(0);
    // b writing the same name makes b's own file.
    await put(b, "secret.md", "theirs");
    expect((await get(a, "secret.md")).body.content).toBe("mine");
  });

  test("anonymous is 401 and a human is 403 AUTH_AGENT_ONLY on every route", async () => {
    const human = await h.user({ human: true });
    const routes: [string, string, unknown?][] = [
      ["GET", "/api/v1/vault/status"],
      ["GET", "/api/v1/vault/files"],
      ["GET", "/api/v1/vault/files/a.md"],
      ["PUT", "/api/v1/vault/files/a.md", { content: "x" }],
      ["DELETE", "/api/v1/vault/files/a.md"],
    ];
    for (const [m, path, body] of routes) {
      expect((await h.req(m, path, { body })).status).toBe(401);
      await refused(human, () => h.req(m, path, { token: human.token, body }), 403, "AUTH_AGENT_ONLY");
    }
  });
});

describe("vault write gates", () => {
  test("karma below 0 is 403 KARMA_TOO_LOW for writes; reads and deletes stay open", async () => {
    const a = await h.user();
    await put(a, "keep.md", "k");
    h.ctx.db.$client.query("update users set karma = -1 where id = ?").run(a.id);
    await refused(a, () => put(a, "new.md", "x"), 403, "KARMA_TOO_LOW");
    await refused(a, () => put(a, "keep.md", "changed"), 403, "KARMA_TOO_LOW");
    expect((await get(a, "keep.md")).body.content).toBe("k");
    expect((await h.req("DELETE", "/api/v1/vault/files/keep.md", { token: a.token })).status).toBe(204);
    const zero = await h.user({ karma: 0 });
    expect((await put(zero, "ok.md", "x")).status).toBe(200);
  });

  test("extensions: the list, case-insensitive; anything else is 400 INVALID_INPUT", async () => {
    const a = await h.user();
    for (const n of ["a.cfg", "a.conf", "a.csv", ".env", "a.html", "a.ini", "a.json", "a.log", "a.md", "a.py", "a.toml", "a.txt", "a.xml", "a.yaml", "a.yml", "B.MD"]) {
      expect({ n, status: (await put(a, n, "x")).status }).toEqual({ n, status: 200 });
    }
    for (const n of ["a.exe", "a.sh", "a", "a.md.exe", "notes.md/", "a.js", "a.mdx"]) await refused(a, () => put(a, n, "x"), 400, "INVALID_INPUT");
  });

  test("1 MiB per file in UTF-8 bytes; the 10 MiB quota with a replaced file's bytes not counted", async () => {
    const a = await h.user();
    expect((await put(a, "full.txt", "a".repeat(MAX_FILE_BYTES))).status).toBe(200);
    // 524,289 two-byte characters: under 1 MiB characters, over 1 MiB bytes.
    await refused(a, () => put(a, "wide.txt", "é".repeat(MAX_FILE_BYTES / 2 + 1)), 400, "QUOTA_EXCEEDED");
    for (let i = 1; i < 10; i++) expect((await put(a, `f${i}.txt`, String(i).repeat(MAX_FILE_BYTES))).status).toBe(200);
    expect((await h.req("GET", "/api/v1/vault/status", { token: a.token })).body).toMatchObject({ used_bytes: QUOTA_BYTES, available_bytes: 0, file_count: 10 });
    await refused(a, () => put(a, "one-more.txt", "x"), 400, "QUOTA_EXCEEDED");
    // Replacing a file of the full vault with one of the same size fits.
    expect((await put(a, "full.txt", "b".repeat(MAX_FILE_BYTES))).status).toBe(200);
    await refused(a, () => put(a, "full.txt", "b".repeat(MAX_FILE_BYTES) + "!"), 400, "QUOTA_EXCEEDED");
  });

  test(`the file-count cap: the ${MAX_FILES + 1}th file is 400 LIMIT_EXCEEDED; replacing is exempt`, async () => {
    const a = await h.user();
    const now = h.clock.now();
    const insert = h.ctx.db.$client.prepare("insert into vault_files (id, user_id, filename, sha256, size, created_at, updated_at) values (?, ?, ?, ?, 0, ?, ?)");
    for (let i = 0; i < MAX_FILES; i++) insert.run(`cap-${a.id}-${i}`, a.id, `f${i}.md`, sha(""), now, now);
    await refused(a, () => put(a, "over.md", ""), 400, "LIMIT_EXCEEDED");
    expect((await put(a, "f0.md", "")).status).toBe(200);
  });

  test("If-Match writes only over the same ETag; If-None-Match: * only creates (412 PRECONDITION_FAILED)", async () => {
    const a = await h.user();
    await refused(a, () => put(a, "c.md", "x", { "if-match": `"${sha("x")}"` }), 412, "PRECONDITION_FAILED");
    const first = await put(a, "c.md", "v1", { "if-none-match": "*" });
    expect(first.status).toBe(200);
    const tag = first.headers.get("etag")!;
    await refused(a, () => put(a, "c.md", "v1 again", { "if-none-match": "*" }), 412, "PRECONDITION_FAILED");
    const second = await put(a, "c.md", "v2", { "if-match": tag });
    expect(second.status).toBe(200);
    // The ETag of v1 is stale now.
    await refused(a, () => put(a, "c.md", "v3", { "if-match": tag }), 412, "PRECONDITION_FAILED");
    await refused(a, () => put(a, "c.md", "v3", { "if-match": `W/${second.headers.get("etag")}` }), 412, "PRECONDITION_FAILED");
    expect((await put(a, "c.md", "v3", { "if-match": second.headers.get("etag")! })).status).toBe(200);
    expect((await get(a, "c.md")).body.content).toBe("v3");
  });

  test("a body without content is 422 and writes nothing", async () => {
    const a = await h.user();
    await refused(a, () => h.req("PUT", "/api/v1/vault/files/x.md", { token: a.token, body: {} }), 422, null);
  });
});

describe("vault paths", () => {
  // The corpus: what a client might send, and what is stored (or null: 400 INVALID_INPUT).
  const corpus: [string, string | null][] = [
    ["notes/a.md", "notes/a.md"],
    ["a.md", "a.md"],
    ["deep/er/still/a.md", "deep/er/still/a.md"],
    ["cafe\u0301.md", "café.md"], // NFC
    ["..md", "..md"], // a name, not a parent
    ["a..b.md", "a..b.md"],
    ["../a.md", null],
    ["notes/../../a.md", null],
    ["notes/..", null],
    ["./a.md", null],
    ["notes/./a.md", null],
    ["/etc/passwd.txt", null],
    ["//a.md", null],
    ["notes//a.md", null],
    ["notes/", null],
    ["C:/a.md", null],
    ["c:a.md", null],
    ["..\\a.md", null],
    ["notes\\a.md", null],
    ["a\u0000.md", null],
    ["a\n.md", null],
    ["a\r.md", null],
    ["a\t.md", null],
    ["a\u007f.md", null],
    ["a\u0085.md", null],
    ["a\u001b[31m.md", null], // an escape sequence
    ["a\u009b.md", null], // C1 CSI
    ["notes\\..\\a.md", null],
    ["\\\\server\\share\\a.md", null], // UNC
    ["../../../../etc/passwd.txt", null],
    ["notes/../a.md", null],
    ["notes/.", null],
    ["..", null],
    [".", null],
    ["/", null],
    // Look-alikes and escapes that stay literal characters of one name (never a path on disk).
    ["..／a.md", "..／a.md"], // fullwidth solidus: NFC keeps it
    ["..∕a.md", "..∕a.md"], // division slash
    ["..%2Fa.md", "..%2Fa.md"], // what a double-encoded name decodes to, once
    ["~/a.md", "~/a.md"],
    ["", null],
    [`${"x".repeat(253)}.md`, null],
    [`${"x".repeat(252)}.md`, `${"x".repeat(252)}.md`],
    [`${"x".repeat(252)}.m`, `${"x".repeat(252)}.m`],
  ];
  test.each(corpus)("normaliseFilename(%j)", (raw, stored) => {
    if (stored === null) {
      expect(() => normaliseFilename(raw)).toThrow();
      try {
        normaliseFilename(raw);
      } catch (err: any) {
        expect({ status: err.status, code: err.code }).toEqual({ status: 400, code: "INVALID_INPUT" });
      }
    } else expect(normaliseFilename(raw)).toBe(stored);
  });

  test("through HTTP: encoded traversal, NUL and control characters are 400 INVALID_INPUT and write nothing", async () => {
    const a = await h.user();
    for (const path of [
      "..%2Fa.md",
      "notes%2F..%2F..%2Fa.md",
      "%2Fetc%2Fpasswd.txt",
      "%2e%2e%2fa.md", // encoded dots and slash
      "a%00.md",
      "a%0A.md",
      "a%1B.md",
      "..%5Ca.md",
      "notes%5C..%5Ca.md",
      "notes//a.md",
      "a%ZZ.md",
      "%C3.md",
      "%C0%AE%C0%AE%2Fa.md", // overlong UTF-8 for ".." is not UTF-8
    ]) {
      await refused(a, () => put(a, path, "x"), 400, "INVALID_INPUT");
      await refused(a, () => get(a, path), 400, "INVALID_INPUT");
      await refused(a, () => h.req("DELETE", `/api/v1/vault/files/${path}`, { token: a.token }), 400, "INVALID_INPUT");
    }
    // Dot segments of the URL itself (raw or %2E, before a raw slash) are resolved by URL parsing
    // before any route sees them: the request leaves /files/ for another route, never the disk.
    await refused(a, () => put(a, "%2E%2E/a.md", "x"), 404, "NOT_FOUND");
    await refused(a, () => put(a, "../../status", "x"), 404, "NOT_FOUND");
    // A double-encoded slash is decoded once: a literal name of one segment, stored as such.
    const literal = await put(a, "..%252Fa.md", "x");
    expect([literal.status, literal.body.filename]).toEqual([200, "..%2Fa.md"]);
    expect((await h.req("GET", "/api/v1/vault/files", { token: a.token })).body.items.map((f: any) => f.filename)).toEqual(["..%2Fa.md"]);
    // Nothing was ever written outside the agent's folder.
    expect(readdirSync(join(dataDir, "vault")).every((n) => /^[0-9a-f-]{36}$/.test(n))).toBe(true);
  });

  test("a percent-encoded name is the decoded name; a decomposed one is its NFC form", async () => {
    const a = await h.user();
    expect((await put(a, "my%20notes%2Fa.md", "x")).body.filename).toBe("my notes/a.md");
    expect((await get(a, "my%20notes/a.md")).body.content).toBe("x");
    expect((await put(a, "cafe%CC%81.md", "y")).body.filename).toBe("café.md");
    expect((await get(a, "caf%C3%A9.md")).body.content).toBe("y");
  });
});

describe("vault folders and the purchase routes", () => {
  test("top-level folders with their counts, by name; files without a slash under (root); own files only", async () => {
    const [a, b] = [await h.user(), await h.user()];
    expect((await h.req("GET", "/api/v1/vault/folders", { token: a.token })).body).toEqual({ items: [], total: 0 });
    for (const n of ["top.md", "notes/a.md", "notes/deep/b.md", "zeta/c.md", "Notes/d.md", "readme.txt"]) await put(a, n, "x");
    await put(b, "other/e.md", "x");
    const r = await h.req("GET", "/api/v1/vault/folders", { token: a.token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      items: [
        { folder: "(root)", file_count: 2 },
        { folder: "Notes", file_count: 1 },
        { folder: "notes", file_count: 2 },
        { folder: "zeta", file_count: 1 },
      ],
      total: 4,
    });
    expect((await h.req("GET", "/api/v1/vault/folders")).status).toBe(401);
    const human = await h.user({ human: true });
    const refusal = await h.req("GET", "/api/v1/vault/folders", { token: human.token });
    expect([refusal.status, refusal.body.detail.code]).toEqual([403, "AUTH_AGENT_ONLY"]);
  });

  test("POST /vault/purchase and /vault/purchase/{id}/check are 410 Gone for anyone", async () => {
    const a = await h.user();
    for (const path of ["/api/v1/vault/purchase", "/api/v1/vault/purchase/abc/check"]) {
      for (const token of [a.token, undefined]) {
        const r = await h.req("POST", path, { token, body: { amount_sats: 1000 } });
        expect([r.status, r.body.detail.code]).toEqual([410, "GONE"]);
      }
    }
  });
});
