// Message attachments (spec Part 2 §2.8, §4.7, §8): upload (sniffed, 10 MB, EXIF removed, thumb
// and full variants), attach on send, serve to participants only, delete by the uploader.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { expectError, refused } from "../../../test/expect";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { DAY, HOUR } from "../../core/clock";
import { uuidv7 } from "../../core/ids";
import { MAX_ATTACHMENT_BYTES, purgeOrphans, sniffAttachment } from "./attachments";
import { beginTest, count, expect422, newUsers, send, sent } from "./testkit";

const dataDir = mkdtempSync(join(tmpdir(), "colony-attachments-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const solid = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 20 } } });
let png: Buffer;
let exifJpeg: Buffer;
let webp: Buffer;
let gifAnimated: Buffer;

beforeAll(async () => {
  png = await solid(640, 480).png().toBuffer();
  webp = await solid(100, 50).webp().toBuffer();
  exifJpeg = await solid(400, 300)
    .jpeg()
    .withExif({ IFD0: { Copyright: "secret-owner", Artist: "someone", ImageDescription: "home address" } })
    .toBuffer();
  const frame = (r: number) => sharp({ create: { width: 60, height: 40, channels: 3, background: { r, g: 0, b: 0 } } }).png().toBuffer();
  gifAnimated = await sharp([await frame(0), await frame(255)], { join: { animated: true } }).gif({ loop: 0, delay: [100, 100] }).toBuffer();
});

const h = setup({ dataDir, rateLimitMultiplier: 0 });
let alice: TestUser, bob: TestUser, carol: TestUser;

beforeEach(async () => {
  await beginTest(h);
  [alice, bob, carol] = await newUsers(h, 3);
});

function form(bytes: Uint8Array, name = "x.png", type = "image/png") {
  const f = new FormData();
  f.append("file", new File([bytes], name, { type }));
  return f;
}
const uploadTo = (on: Harness) => (u: TestUser | null, bytes: Uint8Array, name?: string, type?: string) =>
  on.req("POST", "/api/v1/messages/attachments/upload", { token: u?.token, raw: form(bytes, name, type) });
const upload = uploadTo(h);
const fetchVariant = (u: TestUser | null, id: string, variant: string) => h.req("GET", `/api/v1/messages/attachments/${id}/${variant}`, { token: u?.token });
const bytesOf = async (u: TestUser, id: string, variant: string) => {
  const res = await h.app.handle(new Request(`http://localhost/api/v1/messages/attachments/${id}/${variant}`, { headers: { authorization: `Bearer ${u.token}` } }));
  expect(res.status).toBe(200);
  return { type: res.headers.get("content-type"), cache: res.headers.get("cache-control"), bytes: Buffer.from(await res.arrayBuffer()) };
};

describe("POST /messages/attachments/upload", () => {
  test("201 with the reference fields; thumb is a 320 px square WebP, full keeps the format and size", async () => {
    const r = await upload(alice, png);
    expect(r.status).toBe(201);
    const id = r.body.attachment_id;
    expect(r.body).toEqual({
      attachment_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      mime_type: "image/png",
      size_bytes: expect.any(Number),
      width: 640,
      height: 480,
      thumb_url: `http://localhost/api/v1/messages/attachments/${id}/thumb`,
      full_url: `http://localhost/api/v1/messages/attachments/${id}/full`,
      deduped: false,
    });
    const thumb = await bytesOf(alice, id, "thumb");
    expect(thumb.type).toBe("image/webp");
    expect(thumb.cache).toContain("private");
    const tm = await sharp(thumb.bytes).metadata();
    expect([tm.format, tm.width, tm.height]).toEqual(["webp", 320, 320]);
    const full = await bytesOf(alice, id, "full");
    expect(full.type).toBe("image/png");
    expect(full.bytes.length).toBe(r.body.size_bytes);
    const fm = await sharp(full.bytes).metadata();
    expect([fm.format, fm.width, fm.height]).toEqual(["png", 640, 480]);
    expect(existsSync(join(dataDir, "attachments", id, "thumb.webp"))).toBe(true);
  });

  test("EXIF is removed from both variants", async () => {
    expect((await sharp(exifJpeg).metadata()).exif).toBeDefined();
    const r = await upload(alice, exifJpeg, "photo.jpg", "image/jpeg");
    expect(r.status).toBe(201);
    expect(r.body.mime_type).toBe("image/jpeg");
    for (const v of ["thumb", "full"]) {
      const { bytes } = await bytesOf(alice, r.body.attachment_id, v);
      const meta = await sharp(bytes).metadata();
      expect(meta.exif).toBeUndefined();
      expect(meta.xmp).toBeUndefined();
      expect(bytes.includes("secret-owner")).toBe(false);
    }
  });

  test("the type comes from the bytes, not the declared type or name; WebP and animated GIF accepted", async () => {
    const lying = await upload(alice, webp, "cat.png", "image/png");
    expect(lying.status).toBe(201);
    expect(lying.body.mime_type).toBe("image/webp");
    const gif = await upload(alice, gifAnimated, "a.gif", "image/gif");
    expect(gif.status).toBe(201);
    expect([gif.body.mime_type, gif.body.width, gif.body.height]).toEqual(["image/gif", 60, 40]);
    const meta = await sharp((await bytesOf(alice, gif.body.attachment_id, "full")).bytes, { animated: true }).metadata();
    expect(meta.pages).toBe(2);
  });

  test.each([
    ["text named .png", () => new TextEncoder().encode("not an image\n".repeat(20)), "note.png", "image/png"],
    ["an SVG", () => new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'), "a.svg", "image/svg+xml"],
    ["a truncated PNG", () => png.subarray(0, 60), "a.png", "image/png"],
    ["a PNG signature in front of garbage", () => Buffer.concat([png.subarray(0, 8), Buffer.alloc(200, 7)]), "a.png", "image/png"],
  ])("%s is 400 INVALID_INPUT and stores nothing", async (_n, bytes, name, type) => {
    await refused(h, () => upload(alice, bytes(), name, type), 400, "INVALID_INPUT");
    expect(count(h, "message_attachments")).toBe(0);
  });

  test("over 10 MB (10,485,760 bytes) is 413 ATTACHMENT_TOO_LARGE", async () => {
    const big = Buffer.concat([png, Buffer.alloc(MAX_ATTACHMENT_BYTES + 1 - png.length)]);
    expect(big.length).toBe(10_485_761);
    await refused(h, () => upload(alice, big), 413, "ATTACHMENT_TOO_LARGE");
    expect(count(h, "message_attachments")).toBe(0);
  });

  test("no file is 422; anonymous 401", async () => {
    expect422(await h.req("POST", "/api/v1/messages/attachments/upload", { token: alice.token, raw: new FormData() }));
    expect((await upload(null, png)).status).toBe(401);
  });
});

describe("sending with attachments and who may fetch them", () => {
  test("attach on send; participants fetch, strangers get 404; a body is optional", async () => {
    const up = await upload(alice, png);
    const id = up.body.attachment_id;
    // Before sending only the uploader can see it.
    expectError(await fetchVariant(bob, id, "full"), 404, "NOT_FOUND");
    const r = await send(h, alice, bob, { attachment_ids: [id] });
    expect(r.status).toBe(201);
    expect(r.body.body).toBe("");
    expect(r.body.attachments).toEqual([
      { id, mime_type: "image/png", size_bytes: up.body.size_bytes, width: 640, height: 480, thumb_url: up.body.thumb_url, full_url: up.body.full_url },
    ]);
    expect((await fetchVariant(bob, id, "thumb")).status).toBe(200);
    expect((await fetchVariant(alice, id, "full")).status).toBe(200);
    expectError(await fetchVariant(carol, id, "full"), 404, "NOT_FOUND");
    expectError(await fetchVariant(bob, id, "original"), 404, "NOT_FOUND");
    expectError(await fetchVariant(bob, uuidv7(1), "full"), 404, "NOT_FOUND");
    expectError(await fetchVariant(bob, "not-a-uuid", "full"), 404, "NOT_FOUND");
    expect((await fetchVariant(null, id, "full")).status).toBe(401);
    // The conversation view carries it too.
    const view = await h.req("GET", `/api/v1/messages/conversations/${alice.username}`, { token: bob.token });
    expect(view.body.messages[0].attachments[0].id).toBe(id);
  });

  test("someone else's upload is 404, an attached one 409; nothing is sent", async () => {
    const mine = (await upload(alice, png)).body.attachment_id;
    const theirs = (await upload(carol, png)).body.attachment_id;
    await refused(h, () => send(h, alice, bob, { body: "x", attachment_ids: [theirs] }), 404, "NOT_FOUND");
    await refused(h, () => send(h, alice, bob, { body: "x", attachment_ids: [uuidv7(1)] }), 404, "NOT_FOUND");
    expect((await send(h, alice, bob, { attachment_ids: [mine] })).status).toBe(201);
    await refused(h, () => send(h, alice, carol, { body: "again", attachment_ids: [mine] }), 409, "CONFLICT");
    expect(count(h, "messages")).toBe(1);
    expect422(await send(h, alice, bob, { body: "x", attachment_ids: Array.from({ length: 11 }, () => uuidv7(1)) }));
  });

  test("deleting the message removes its attachments for everyone", async () => {
    const id = (await upload(alice, png)).body.attachment_id;
    const m = (await send(h, alice, bob, { body: "pic", attachment_ids: [id] })).body;
    await h.req("DELETE", `/api/v1/messages/${m.id}`, { token: alice.token });
    expectError(await fetchVariant(bob, id, "full"), 404, "NOT_FOUND");
    expectError(await fetchVariant(alice, id, "full"), 404, "NOT_FOUND");
    expect(existsSync(join(dataDir, "attachments", id))).toBe(false);
  });
});

describe("DELETE /messages/attachments/{id}", () => {
  test("the uploader deletes (files gone, the message stays); others 404; anonymous 401", async () => {
    const id = (await upload(alice, png)).body.attachment_id;
    const m = (await send(h, alice, bob, { body: "pic", attachment_ids: [id] })).body;
    expectError(await h.req("DELETE", `/api/v1/messages/attachments/${id}`, { token: bob.token }), 404, "NOT_FOUND");
    expect((await h.req("DELETE", `/api/v1/messages/attachments/${id}`)).status).toBe(401);
    const r = await h.req("DELETE", `/api/v1/messages/attachments/${id}`, { token: alice.token });
    expect(r.status).toBe(204);
    expect(existsSync(join(dataDir, "attachments", id))).toBe(false);
    expectError(await fetchVariant(bob, id, "full"), 404, "NOT_FOUND");
    expectError(await h.req("DELETE", `/api/v1/messages/attachments/${id}`, { token: alice.token }), 404, "NOT_FOUND");
    const view = await h.req("GET", `/api/v1/messages/conversations/${alice.username}`, { token: bob.token });
    expect(view.body.messages[0]).toMatchObject({ id: m.id, body: "pic", attachments: [] });
  });
});

describe("housekeeping", () => {
  test("uploads never sent are purged after 24 hours; sent ones stay", async () => {
    // The purge takes every orphan of the database, and the clock moves a day on: a harness of its own.
    const hh = setup({ dataDir, rateLimitMultiplier: 0 });
    const [a, b] = await newUsers(hh, 2);
    const orphan = (await uploadTo(hh)(a, png)).body.attachment_id;
    const used = (await uploadTo(hh)(a, png)).body.attachment_id;
    await sent(hh, a, b);
    await send(hh, a, b, { attachment_ids: [used] });
    hh.clock.advance(23 * HOUR);
    expect(await purgeOrphans(hh.ctx)).toBe(0);
    hh.clock.advance(DAY);
    expect(await purgeOrphans(hh.ctx)).toBe(1);
    expect(existsSync(join(dataDir, "attachments", orphan))).toBe(false);
    expect(existsSync(join(dataDir, "attachments", used))).toBe(true);
  });

  test("a self-deleted account's unsent uploads and drafts are removed", async () => {
    const fresh = await h.user();
    const id = (await upload(fresh, png)).body.attachment_id;
    await h.req("PUT", `/api/v1/messages/conversations/${bob.username}/draft`, { token: fresh.token, body: { body: "never sent" } });
    expect((await h.req("DELETE", "/api/v1/auth/account", { token: fresh.token })).status).toBe(204);
    await h.ctx.events.drain();
    expect(existsSync(join(dataDir, "attachments", id))).toBe(false);
    expect(count(h, "message_attachments")).toBe(0);
    expect(count(h, "message_drafts")).toBe(0);
  });

  test("sniffing by magic bytes", () => {
    expect(sniffAttachment(png)).toBe("png");
    expect(sniffAttachment(exifJpeg)).toBe("jpeg");
    expect(sniffAttachment(webp)).toBe("webp");
    expect(sniffAttachment(gifAnimated)).toBe("gif");
    expect(sniffAttachment(new Uint8Array([1, 2, 3]))).toBeNull();
  });
});
