// Documents for sale (spec Part 3 §4.5, docs/decisions.md §123, §124, §126): listing with its
// content rules, the catalogue, reading, changing, delisting, the preview, the seller's list;
// anonymous, stranger and seller.
import { describe, expect, test } from "bun:test";
import { setup } from "../../../test/harness";
import { DEFAULT_CONTENT, UNKNOWN, createDocument, listed, seller, sha256 } from "./fixtures";

const h = setup({ trustProxy: true });

describe("POST /market/documents", () => {
  test("201 with the DocumentOut fields and duplicate_warning null; hash and size are of the UTF-8 bytes", async () => {
    const s = await seller(h);
    const content = "Ünïcode café ☕ guide\n".repeat(20);
    const r = await createDocument(h, s, { content, description: "A guide", preview_auto_chars: 10 });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(String),
      seller_id: s.id,
      seller_username: s.username,
      title: "Colony API field guide",
      description: "A guide",
      filename: "guide.md",
      content_size: Buffer.byteLength(content),
      content_hash: sha256(content),
      price_sats: 1000,
      visibility: "public",
      status: "active",
      preview: { text: "Ünïcode ca", type: "auto", chars: 10, content_ratio: Math.round((10 / [...content].length) * 10_000) / 10_000 },
      download_count: 0,
      total_earned_sats: 0,
      created_at: new Date(h.clock.now()).toISOString(),
      duplicate_warning: null,
    });
  });

  test("400 first when the seller has no lightning address, before any other rule", async () => {
    const s = await seller(h, null);
    const r = await createDocument(h, s, { filename: "virus.exe", content: "\u0000" });
    expect(r.status).toBe(400);
    expect(r.body.detail).toMatchObject({ code: "INVALID_INPUT", message: expect.stringContaining("lightning_address") });
    expect((await createDocument(h, null)).status).toBe(401);
  });

  test("content and filename rules: binary, mis-typed, too big, bad names are 400 INVALID_INPUT and record nothing", async () => {
    const s = await seller(h);
    const count = () => (h.ctx.db.$client.query("select count(*) n from documents").get() as { n: number }).n;
    const before = count();
    const cases: [string, Record<string, unknown>, string][] = [
      ["NUL byte", { content: "text\u0000more" }, "control characters"],
      ["bell", { content: "ding\u0007" }, "control characters"],
      ["C1 control", { content: "\u0089PNG" }, "control characters"],
      ["replacement character", { content: "decoded \ufffd badly" }, "U+FFFD"],
      ["lone surrogate", { content: "half \ud800 a pair" }, "lone surrogates"],
      ["PDF", { content: "%PDF-1.7\n1 0 obj" }, "binary"],
      ["base64 blob", { filename: "blob.txt", content: Buffer.from(crypto.getRandomValues(new Uint8Array(1200))).toString("base64").replace(/(.{76})/g, "$1\n") }, "base64"],
      ["empty", { content: "" }, "empty"],
      ["over 1 MiB of UTF-8 (fewer characters)", { content: "é".repeat(524_289) }, "1048576"],
      ["json that does not parse", { filename: "data.json", content: "{not json" }, "valid JSON"],
      ["html without markup", { filename: "page.html", content: "just words" }, "markup"],
      ["xml without markup", { filename: "feed.xml", content: "just words" }, "markup"],
      ["extension not allowed", { filename: "tool.exe" }, "extension"],
      ["no extension", { filename: "README" }, "extension"],
      ["a path", { filename: "notes/guide.md" }, "not a path"],
      ["control in the name", { filename: "gu\u0001ide.md" }, "control"],
      ["blank title", { title: "   " }, "title"],
    ];
    for (const [what, body, says] of cases) {
      const r = await createDocument(h, s, body);
      expect(`${what}: ${r.status} ${r.body.detail?.code}`).toBe(`${what}: 400 INVALID_INPUT`);
      expect(r.body.detail.message).toContain(says);
    }
    expect(count()).toBe(before);
    // Allowed: exactly 1 MiB, valid JSON, markup, tabs and CRLF, an upper-case extension.
    const ok: Record<string, unknown>[] = [
      { content: "a".repeat(1_048_576) },
      { filename: "data.json", content: '{"a": [1, 2]}' },
      { filename: "Page.HTML", content: "\n  <!doctype html><p>hi</p>" },
      { filename: "table.csv", content: "a,b\r\n1,\t2\r\n" },
    ];
    for (const body of ok) expect((await createDocument(h, s, body)).status).toBe(201);
  });

  test("schema limits are 422: title 150, filename 255, description 500, preview 2000, price 100..1,000,000, auto chars 0..500, visibility", async () => {
    const s = await seller(h);
    for (const body of [
      { title: "t".repeat(151) },
      { title: "" },
      { filename: `${"f".repeat(253)}.md` },
      { description: "d".repeat(501) },
      { preview_text: "p".repeat(2001) },
      { price_sats: 99 },
      { price_sats: 1_000_001 },
      { price_sats: 10.5 },
      { preview_auto_chars: 501 },
      { preview_auto_chars: -1 },
      { visibility: "secret" },
      { content: undefined },
    ]) {
      const r = await createDocument(h, s, body);
      expect(`${JSON.stringify(body).slice(0, 40)} ${r.status}`).toBe(`${JSON.stringify(body).slice(0, 40)} 422`);
    }
    // The edges themselves are fine.
    expect((await createDocument(h, s, { title: "t".repeat(150), description: "d".repeat(500), preview_text: "p".repeat(2000), price_sats: 100 })).status).toBe(201);
    expect((await createDocument(h, s, { filename: `${"f".repeat(252)}.md`, price_sats: 1_000_000, preview_auto_chars: 0 })).status).toBe(201);
  });

  test("identical bytes already listed: listed anyway, with duplicate_warning naming the public listing (not another's invite-only one)", async () => {
    const [a, b, c] = [await seller(h), await seller(h), await seller(h)];
    const content = "Unique content for the duplicate check.\n";
    const first = await listed(h, a, { content, title: "Original" });
    await listed(h, c, { content, title: "Hidden copy", visibility: "invite_only" });
    const second = await createDocument(h, b, { content, title: "Copy" });
    expect(second.status).toBe(201);
    expect(second.body.duplicate_warning).toEqual({
      message: expect.stringContaining(sha256(content)),
      content_hash: sha256(content),
      documents: [{ id: first.id, title: "Original", seller_username: a.username }],
    });
    expect(second.body.content_hash).toBe(first.content_hash);
  });

  test("5 an hour per seller (429 RATE_LIMIT_DOCUMENT_CREATE); refused attempts are not charged", async () => {
    const s = await seller(h);
    expect((await createDocument(h, s, { filename: "x.exe" })).status).toBe(400);
    for (let i = 0; i < 5; i++) expect((await createDocument(h, s, { content: `doc ${i}` })).status).toBe(201);
    const r = await createDocument(h, s, { content: "one more" });
    expect(r.status).toBe(429);
    expect(r.body.detail.code).toBe("RATE_LIMIT_DOCUMENT_CREATE");
  });
});

describe("catalogue and reading", () => {
  test("GET /market/documents: active public ones newest first; invite-only and delisted hidden; q and hash; the paged envelope", async () => {
    h.clock.advance(10 * 3_600_000);
    const s = await seller(h);
    const tag = `zq${Date.now().toString(36)}`;
    const d1 = await listed(h, s, { title: `${tag} first`, content: `${tag} one` });
    h.clock.advance(1000);
    const d2 = await listed(h, s, { title: "second", description: `about ${tag}_x`, content: `${tag} two` });
    h.clock.advance(1000);
    const hidden = await listed(h, s, { title: `${tag} hidden`, visibility: "invite_only", content: `${tag} three` });
    h.clock.advance(1000);
    const gone = await listed(h, s, { title: `${tag} gone`, content: `${tag} four` });
    expect((await h.req("DELETE", `/api/v1/market/documents/${gone.id}`, { token: s.token })).status).toBe(204);
    const r = await h.req("GET", "/api/v1/market/documents", { query: { q: tag } });
    expect(r.status).toBe(200);
    expect(r.body.items.map((d: any) => d.id)).toEqual([d2.id, d1.id]);
    expect(r.body).toMatchObject({ total: 2, has_more: false, page: 1, pages: 1 });
    expect((await h.req("GET", "/api/v1/market/documents", { query: { q: tag, limit: 1, page: 2 } })).body).toMatchObject({ items: [{ id: d1.id }], total: 2, has_more: false, page: 2, pages: 2 });
    expect((await h.req("GET", "/api/v1/market/documents", { query: { hash: d1.content_hash.toUpperCase() } })).body.items.map((d: any) => d.id)).toEqual([d1.id]);
    expect((await h.req("GET", "/api/v1/market/documents", { query: { hash: hidden.content_hash } })).body.total).toBe(0);
    // LIKE metacharacters are literal.
    expect((await h.req("GET", "/api/v1/market/documents", { query: { q: `${tag}%` } })).body.total).toBe(0);
    expect((await h.req("GET", "/api/v1/market/documents", { query: { q: `${tag}_x` } })).body.items.map((d: any) => d.id)).toEqual([d2.id]);
  });

  test("GET one: anyone for an active document (invite-only by its id too); a delisted one only to its seller; missing 404", async () => {
    const [s, stranger] = [await seller(h), await h.user()];
    const d = await listed(h, s, { visibility: "invite_only" });
    expect((await h.req("GET", `/api/v1/market/documents/${d.id}`)).body).toEqual(Object.fromEntries(Object.entries(d).filter(([k]) => k !== "duplicate_warning")));
    await h.req("DELETE", `/api/v1/market/documents/${d.id}`, { token: s.token });
    expect((await h.req("GET", `/api/v1/market/documents/${d.id}`)).status).toBe(404);
    expect((await h.req("GET", `/api/v1/market/documents/${d.id}`, { token: stranger.token })).status).toBe(404);
    expect((await h.req("GET", `/api/v1/market/documents/${d.id}`, { token: s.token })).body).toMatchObject({ status: "delisted" });
    expect((await h.req("GET", `/api/v1/market/documents/${UNKNOWN}`)).status).toBe(404);
    expect((await h.req("GET", "/api/v1/market/documents/not-an-id")).status).toBe(404);
  });

  test("GET …/preview: the free preview and is_truncated; a short document shown whole is not truncated; a manual preview", async () => {
    const s = await seller(h);
    const long = await listed(h, s, { preview_auto_chars: 12 });
    const r = await h.req("GET", `/api/v1/market/documents/${long.id}/preview`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      preview: DEFAULT_CONTENT.slice(0, 12),
      is_truncated: true,
      document_id: long.id,
      title: long.title,
      seller_username: s.username,
      preview_text: DEFAULT_CONTENT.slice(0, 12),
      preview_type: "auto",
      content_ratio: long.preview.content_ratio,
      price_sats: 1000,
      content_hash: long.content_hash,
      purchase_url: `http://localhost/api/v1/market/documents/${long.id}/purchase`,
    });
    const short = await listed(h, s, { content: "tiny", preview_auto_chars: 300 });
    expect((await h.req("GET", `/api/v1/market/documents/${short.id}/preview`)).body).toMatchObject({ preview: "tiny", is_truncated: false, content_ratio: 1 });
    const manual = await listed(h, s, { content: "the whole secret", preview_text: "A teaser" });
    expect(manual.preview).toEqual({ text: "A teaser", type: "manual", chars: 8, content_ratio: 0.5 });
    const none = await listed(h, s, { content: "nothing shown", preview_auto_chars: 0 });
    expect(none.preview).toBeNull();
    expect((await h.req("GET", `/api/v1/market/documents/${none.id}/preview`)).body).toMatchObject({ preview: null, is_truncated: true, preview_type: null, content_ratio: null });
    expect((await h.req("GET", `/api/v1/market/documents/${UNKNOWN}/preview`)).status).toBe(404);
  });
});

describe("changing and delisting", () => {
  test("PATCH: the seller changes any subset; null or empty clears description and preview_text; content and filename are 400; others 404", async () => {
    const [s, other] = [await seller(h), await seller(h)];
    const d = await listed(h, s, { description: "Old", preview_text: "Manual teaser" });
    const patch = (token: string | null, body: Record<string, unknown>) => h.req("PATCH", `/api/v1/market/documents/${d.id}`, { token, body });
    const r = await patch(s.token, { title: "New title", price_sats: 2500, visibility: "invite_only" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ title: "New title", price_sats: 2500, visibility: "invite_only", description: "Old", preview: { text: "Manual teaser", type: "manual" } });
    expect((await patch(s.token, { description: null, preview_text: null, preview_auto_chars: 5 })).body).toMatchObject({ description: null, preview: { text: "# Fie", type: "auto", chars: 5 } });
    expect((await patch(s.token, { preview_auto_chars: 0 })).body.preview).toBeNull();
    expect((await patch(s.token, { preview_text: "Back" })).body.preview).toMatchObject({ text: "Back", type: "manual" });
    expect((await patch(s.token, { title: null })).body.title).toBe("New title");
    expect((await patch(s.token, {})).status).toBe(200);
    for (const body of [{ content: "new bytes" }, { filename: "other.md" }]) {
      const x = await patch(s.token, body);
      expect(x.status).toBe(400);
      expect(x.body.detail.code).toBe("INVALID_INPUT");
    }
    expect((await patch(s.token, { price_sats: 50 })).status).toBe(422);
    expect((await patch(s.token, { title: "  " })).status).toBe(400);
    expect((await patch(other.token, { title: "Mine now" })).status).toBe(404);
    expect((await patch(null, { title: "x" })).status).toBe(401);
    expect((await h.req("PATCH", `/api/v1/market/documents/${UNKNOWN}`, { token: s.token, body: { title: "x" } })).status).toBe(404);
    expect((await h.req("GET", `/api/v1/market/documents/${d.id}`)).body.content_hash).toBe(d.content_hash);
  });

  test("DELETE: 204 and idempotent; another seller's 404; anonymous 401; the listing leaves the catalogue", async () => {
    const [s, other] = [await seller(h), await seller(h)];
    const d = await listed(h, s, { title: "To be delisted" });
    expect((await h.req("DELETE", `/api/v1/market/documents/${d.id}`, { token: other.token })).status).toBe(404);
    expect((await h.req("DELETE", `/api/v1/market/documents/${d.id}`)).status).toBe(401);
    const r = await h.req("DELETE", `/api/v1/market/documents/${d.id}`, { token: s.token });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect((await h.req("DELETE", `/api/v1/market/documents/${d.id}`, { token: s.token })).status).toBe(204);
    expect((await h.req("GET", "/api/v1/market/documents", { query: { hash: d.content_hash } })).body.items.some((x: any) => x.id === d.id)).toBe(false);
  });

  test("update and delist share 10 an hour each (429)", async () => {
    const s = await seller(h);
    const d = await listed(h, s);
    for (let i = 0; i < 10; i++) expect((await h.req("PATCH", `/api/v1/market/documents/${d.id}`, { token: s.token, body: { title: `T${i}` } })).status).toBe(200);
    expect((await h.req("PATCH", `/api/v1/market/documents/${d.id}`, { token: s.token, body: { title: "T" } })).body.detail.code).toBe("RATE_LIMIT_DOCUMENT_UPDATE");
    for (let i = 0; i < 10; i++) expect((await h.req("DELETE", `/api/v1/market/documents/${d.id}`, { token: s.token })).status).toBe(204);
    expect((await h.req("DELETE", `/api/v1/market/documents/${d.id}`, { token: s.token })).body.detail.code).toBe("RATE_LIMIT_DOCUMENT_DELIST");
  });

  test("my-documents: the seller's own, delisted ones too, newest first, a bare array with X-Total-Count; 401 anonymous", async () => {
    const [s, other] = [await seller(h), await seller(h)];
    const d1 = await listed(h, s);
    h.clock.advance(1000);
    const d2 = await listed(h, s, { content: "second" });
    await listed(h, other);
    await h.req("DELETE", `/api/v1/market/documents/${d1.id}`, { token: s.token });
    const r = await h.req("GET", "/api/v1/market/my-documents", { token: s.token });
    expect(r.status).toBe(200);
    expect(r.body.map((d: any) => [d.id, d.status])).toEqual([
      [d2.id, "active"],
      [d1.id, "delisted"],
    ]);
    expect(r.headers.get("x-total-count")).toBe("2");
    expect((await h.req("GET", "/api/v1/market/my-documents", { token: s.token, query: { limit: 1 } })).headers.get("x-has-more")).toBe("true");
    expect((await h.req("GET", "/api/v1/market/my-documents")).status).toBe(401);
  });

  test("a deleted seller's documents are delisted", async () => {
    const s = await seller(h);
    const d = await listed(h, s);
    const { purgeUser } = await import("./service");
    purgeUser(h.ctx, s.id);
    expect((await h.req("GET", `/api/v1/market/documents/${d.id}`)).status).toBe(404);
  });
});
