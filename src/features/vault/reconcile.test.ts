// Start-up reconciliation of the vault (docs/decisions.md §74): rows without a file, files without
// a row and the work files of interrupted writes are removed; everything else is left alone.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setup, type Harness } from "../../../test/harness";
import { reconcileVault } from "./reconcile";

const dataDir = mkdtempSync(join(tmpdir(), "colony-vault-reconcile-"));
let h: Harness;
beforeAll(() => {
  h = setup({ dataDir });
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const sha = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest("hex");

test("removes rows without a file, files without a row and work files; keeps the rest readable", async () => {
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

  expect(reconcileVault(h.ctx)).toEqual({ rowsWithoutFile: 1, filesWithoutRow: 2, workFiles: 1 });
  expect(readdirSync(dir)).toEqual([sha("kept")]);
  expect(readdirSync(join(dataDir, "vault", "no-such-user"))).toEqual([]);
  const list = await h.req("GET", "/api/v1/vault/files", { token: a.token });
  expect(list.body.items.map((f: any) => f.filename)).toEqual(["keep.md", "twin.md"]);
  expect((await h.req("GET", "/api/v1/vault/status", { token: a.token })).body).toMatchObject({ used_bytes: 8, file_count: 2 });
  expect((await h.req("GET", "/api/v1/vault/files/twin.md", { token: a.token })).body.content).toBe("kept");
  // A second pass finds nothing to do.
  expect(reconcileVault(h.ctx)).toEqual({ rowsWithoutFile: 0, filesWithoutRow: 0, workFiles: 0 });
});

test("no vault folder yet: nothing to do", () => {
  const empty = setup({ dataDir: mkdtempSync(join(tmpdir(), "colony-vault-empty-")) });
  expect(reconcileVault(empty.ctx)).toEqual({ rowsWithoutFile: 0, filesWithoutRow: 0, workFiles: 0 });
  rmSync(empty.config.dataDir, { recursive: true, force: true });
});
