// GET /vault/search (spec Part 3 §4.7): filename and content, own files only, ranking, paging,
// snippets, the short-query rule, and the index kept in step with every kind of write.
import { beforeAll, describe, expect, test } from "bun:test";
import { expectAnswer, type Harness, type TestUser } from "../../../test/harness";
import { checkIndex, drainIndexQueue, indexEntries } from "./fts";
import { VaultSearchOut } from "./routes";
import { vaultKit } from "./testkit";

const kit = vaultKit("search");
const { put, act } = kit;
let h: Harness;
beforeAll(() => (h = kit.h));
const search = (u: TestUser, q: string | undefined, extra: Record<string, string | number> = {}) =>
  h.req("GET", "/api/v1/vault/search", { token: u.token, query: { q, ...extra } });
const names = async (u: TestUser, q: string) => (await search(u, q)).body.items.map((i: any) => i.filename);
/** The matching names in name order (ranks differ with the length of name and content). */
const found = async (u: TestUser, q: string) => (await names(u, q)).sort();

describe("vault search", () => {
  test("matches filenames and content; the shape of the reference; filename hits first", async () => {
    const a = await h.user();
    await put(a, "notes/deploy.md", "How we ship: build, test, release.");
    await put(a, "log.txt", "Tuesday: the deploy went fine. Another deploy on Friday, a deploy again.");
    await put(a, "other.md", "nothing to see");
    h.clock.advance(1000);
    const r = await search(a, "deploy");
    expect(r.status).toBe(200);
    expectAnswer(VaultSearchOut, r.body);
    expect(r.body.total).toBe(2);
    // The filename hit ranks above three content hits.
    expect(r.body.items.map((i: any) => i.filename)).toEqual(["notes/deploy.md", "log.txt"]);
    expect(r.body.items[0]).toEqual({ filename: "notes/deploy.md", content_size: 34, snippet: "How we ship: build, test, release.", created_at: expect.any(String), updated_at: expect.any(String) });
    expect(r.body.items[1].snippet).toBe("Tuesday: the [[hl]]deploy[[/hl]] went fine. Another [[hl]]deploy[[/hl]] on Friday, a [[hl]]deploy[[/hl]] again.");
    expect(Object.keys(r.body.items[0]).sort()).toEqual(["content_size", "created_at", "filename", "snippet", "updated_at"]);
  });

  test("every word must match, in the name or the content; phrases, prefixes, case and accents", async () => {
    const a = await h.user();
    await put(a, "recipes/cafe.md", "Crème brûlée and espresso");
    await put(a, "recipes/tea.md", "Green tea, brewed short");
    expect(await names(a, "recipes espresso")).toEqual(["recipes/cafe.md"]);
    expect(await names(a, "CREME")).toEqual(["recipes/cafe.md"]);
    expect(await names(a, "recipes")).toEqual(["recipes/cafe.md", "recipes/tea.md"]);
    expect(await names(a, "brew*")).toEqual(["recipes/tea.md"]);
    expect(await names(a, "brew")).toEqual([]);
    expect(await names(a, '"green tea"')).toEqual(["recipes/tea.md"]);
    expect(await names(a, '"tea green"')).toEqual([]);
    expect(await names(a, "cafe.md")).toEqual(["recipes/cafe.md"]);
    // FTS5 syntax is text, never an operator or a column filter.
    expect(await names(a, "espresso OR tea")).toEqual([]);
    expect(await names(a, "scope:zu filename:tea")).toEqual([]);
    expect((await search(a, "NEAR(tea espresso)")).status).toBe(200);
  });

  test("own files only: another agent's matching files are neither listed nor counted", async () => {
    const [a, b] = [await h.user(), await h.user()];
    await put(a, "secret.md", "the launch codes");
    await put(b, "mine.md", "my launch plan");
    expect((await search(b, "launch")).body).toMatchObject({ total: 1, items: [{ filename: "mine.md" }] });
    expect((await search(b, "codes")).body).toEqual({ items: [], total: 0 });
  });

  test("under 2 characters, or nothing searchable, is an empty list", async () => {
    const a = await h.user();
    await put(a, "a.md", "a b c");
    for (const q of [undefined, "", "a", " a ", "é", "!!", "***", '""']) expect((await search(a, q)).body).toEqual({ items: [], total: 0 });
    expect((await search(a, "a b")).body.total).toBe(1);
  });

  test("limit 1-100 (default 20) and offset page through total; out of range is 422", async () => {
    const a = await h.user();
    for (let i = 0; i < 25; i++) await put(a, `f${String(i).padStart(2, "0")}.md`, `common word ${i}`);
    const first = await search(a, "common");
    expect(first.body.total).toBe(25);
    expect(first.body.items).toHaveLength(20);
    const all: string[] = [];
    for (let offset = 0; offset < 25; offset += 10) all.push(...(await search(a, "common", { limit: 10, offset })).body.items.map((i: any) => i.filename));
    // Equal ranks: by filename, each once.
    expect(all).toEqual(Array.from({ length: 25 }, (_, i) => `f${String(i).padStart(2, "0")}.md`));
    expect((await search(a, "common", { offset: 100 })).body).toEqual({ items: [], total: 25 });
    for (const bad of [{ limit: 0 }, { limit: 101 }, { offset: -1 }, { limit: "x" }] as Record<string, string | number>[]) expect((await search(a, "common", bad)).status).toBe(422);
    expect((await search(a, "common", { limit: 100 })).body.items).toHaveLength(25);
  });

  test("too many words or prefixes is 400 INVALID_INPUT", async () => {
    const a = await h.user();
    const r = await search(a, Array.from({ length: 17 }, (_, i) => `w${i}`).join(" "));
    expect([r.status, r.body.detail.code]).toEqual([400, "INVALID_INPUT"]);
    const p = await search(a, "a* b* c* d*");
    expect([p.status, p.body.detail.code]).toEqual([400, "INVALID_INPUT"]);
  });

  test("anonymous is 401, a human 403 AUTH_AGENT_ONLY; past 120 an hour 429", async () => {
    expect((await h.req("GET", "/api/v1/vault/search", { query: { q: "plan" } })).status).toBe(401);
    const human = await h.user({ human: true });
    const r = await h.req("GET", "/api/v1/vault/search", { token: human.token, query: { q: "plan" } });
    expect([r.status, r.body.detail.code]).toEqual([403, "AUTH_AGENT_ONLY"]);
    const a = await h.user();
    for (let i = 0; i < 120; i++) expect((await search(a, "plan")).status).toBe(200);
    const limited = await search(a, "plan");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBeTruthy();
  });
});

describe("the index follows every write", () => {
  test("replace, append, move, copy and delete", async () => {
    const a = await h.user();
    await put(a, "doc.md", "alpha");
    expect(await found(a, "alpha")).toEqual(["doc.md"]);
    // Replaced: the old words are gone, the new ones found.
    await put(a, "doc.md", "bravo");
    expect(await found(a, "alpha")).toEqual([]);
    expect(await found(a, "bravo")).toEqual(["doc.md"]);
    // Appended: both parts.
    await act(a, "doc.md", "append", { content: " charlie" });
    expect(await found(a, "bravo charlie")).toEqual(["doc.md"]);
    // Moved: the new name matches, the old one does not; the content still does.
    await act(a, "doc.md", "move", { destination: "archive/renamed.md" });
    expect(await found(a, "doc")).toEqual([]);
    expect(await found(a, "renamed")).toEqual(["archive/renamed.md"]);
    expect(await found(a, "charlie")).toEqual(["archive/renamed.md"]);
    // Copied: both names hold the content.
    await act(a, "archive/renamed.md", "copy", { destination: "copy.md" });
    expect(await found(a, "charlie")).toEqual(["archive/renamed.md", "copy.md"]);
    // A copy over an existing file replaces its entry.
    await put(a, "other.md", "delta");
    await act(a, "copy.md", "copy", { destination: "other.md", overwrite: true });
    expect(await found(a, "delta")).toEqual([]);
    expect(await found(a, "charlie")).toEqual(["archive/renamed.md", "copy.md", "other.md"]);
    // A move over an existing file drops the replaced file's entry.
    await put(a, "target.md", "echo");
    await act(a, "copy.md", "move", { destination: "target.md", overwrite: true });
    expect(await found(a, "echo")).toEqual([]);
    expect(await found(a, "charlie")).toEqual(["archive/renamed.md", "other.md", "target.md"]);
    // Deleted: gone.
    for (const n of ["archive/renamed.md", "other.md", "target.md"]) expect((await h.req("DELETE", `/api/v1/vault/files/${n}`, { token: a.token })).status).toBe(204);
    expect(await found(a, "charlie")).toEqual([]);
    // One entry per file, none left over.
    await drainIndexQueue(h.ctx);
    expect((await indexEntries(h.ctx, "", 10_000)).filter((e) => e.user_id === a.id)).toEqual([]);
    expect((await checkIndex(h.ctx)).ok).toBe(true);
  });

  test("a refused write leaves the index as it was", async () => {
    const a = await h.user();
    await put(a, "keep.md", "foxtrot");
    await h.req("PUT", "/api/v1/vault/files/keep.md", { token: a.token, body: { content: "golf" }, headers: { "if-match": '"stale"' } });
    await act(a, "keep.md", "move", { destination: "keep.exe" });
    expect(await found(a, "foxtrot")).toEqual(["keep.md"]);
    expect(await found(a, "golf")).toEqual([]);
  });
});
