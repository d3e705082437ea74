// Colony icon and header (spec Part 2 §4.1, §7, §8; docs/decisions.md §12, §36): real images
// made with sharp, uploaded as multipart; the WebP renditions, their sizes and the EXIF removal
// checked on the files served; every error code, the karma floor, the rate limits and each
// permission rule.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { expectError, refused } from "../../../test/expect";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { HOUR } from "../../core/clock";
import { DATA_FOLDER_NAMES } from "../../core/data-folders";
import { advance, cast, eventsOf, setPermissions, type Cast } from "./governance-fixtures";
import { HEADER_MAX_BYTES } from "./media";

const dataDir = mkdtempSync(join(tmpdir(), "colony-media-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const solid = (w: number, hgt: number) => sharp({ create: { width: w, height: hgt, channels: 3, background: { r: 200, g: 90, b: 30 } } });
let iconJpeg: Buffer, iconPng: Buffer, wideIcon: Buffer, tinyIcon: Buffer, hugeIcon: Buffer, gif: Buffer;
let headerJpeg: Buffer, headerPng: Buffer, tallHeader: Buffer, smallHeader: Buffer, bigHeader: Buffer, hugeHeader: Buffer, animatedHeader: Buffer, animatedIcon: Buffer;

beforeAll(async () => {
  iconJpeg = await solid(400, 400).jpeg().withExif({ IFD0: { Artist: "secret person", Copyright: "someone" } }).toBuffer();
  iconPng = await solid(128, 128).png().toBuffer();
  wideIcon = await solid(300, 200).png().toBuffer();
  tinyIcon = await solid(40, 40).png().toBuffer();
  hugeIcon = await solid(1100, 1100).png().toBuffer();
  gif = await solid(100, 100).gif().toBuffer();
  headerJpeg = await solid(2400, 800).jpeg().withExif({ IFD0: { Artist: "banner author" } }).toBuffer();
  headerPng = await solid(800, 200).png().toBuffer();
  tallHeader = await solid(700, 900).png().toBuffer();
  smallHeader = await solid(500, 100).png().toBuffer();
  // A valid PNG padded past 5 MB.
  bigHeader = Buffer.concat([headerPng, Buffer.alloc(HEADER_MAX_BYTES)]);
  hugeHeader = await solid(8100, 200).png().toBuffer();
  const frames = (w: number, hgt: number) => Promise.all(["#336699", "#993366"].map((bg) => sharp({ create: { width: w, height: hgt, channels: 3, background: bg } }).png().toBuffer()));
  animatedHeader = await sharp(await frames(800, 400), { join: { animated: true } }).webp({ loop: 0 }).toBuffer();
  animatedIcon = await sharp(await frames(128, 128), { join: { animated: true } }).webp({ loop: 0 }).toBuffer();
  h = setup({ dataDir, rateLimitMultiplier: 0 });
});

let h: Harness;
let c: Cast;

// Each test acts in a colony of its own, with a cast of its own; the tests of the rate limits make
// a database of their own, with the limits on.
beforeEach(async () => {
  c = await cast(h);
  for (const u of [c.founder, c.mod, c.colonyAdmin, c.member, c.stranger]) setKarma(u, 150);
});

const setKarma = (u: TestUser, karma: number) => h.ctx.db.$client.query("update users set karma = ? where id = ?").run(karma, u.id);

function form(bytes: Uint8Array, name = "image.png", type = "image/png") {
  const f = new FormData();
  f.append("file", new File([bytes], name, { type }));
  return f;
}
const upload = (kind: "icon" | "header", u: TestUser | null, bytes: Uint8Array, colonyId = c.colony.id) =>
  h.req("POST", `/api/v1/colonies/${colonyId}/${kind}`, { token: u?.token, raw: form(bytes) });
const remove = (kind: "icon" | "header", u: TestUser | null, colonyId = c.colony.id) => h.req("DELETE", `/api/v1/colonies/${colonyId}/${kind}`, { token: u?.token });

/** Fetches a served URL (as `u`) and reads the image back. */
async function served(url: string, u: TestUser | null = null) {
  const res = await h.app.handle(new Request(url, { headers: u ? { authorization: `Bearer ${u.token}` } : {} }));
  const bytes = Buffer.from(await res.arrayBuffer());
  const meta = res.status === 200 ? await sharp(bytes).metadata() : null;
  return { status: res.status, type: res.headers.get("content-type"), meta };
}

describe("POST /colonies/{id}/icon", () => {
  test("a JPEG with EXIF: 201 colony with three square WebP renditions, without metadata", async () => {
    const res = await upload("icon", c.mod, iconJpeg);
    expect(res.status).toBe(201);
    expect(res.body.id).toBe(c.colony.id);
    const urls = [res.body.icon_url, res.body.icon_url_96, res.body.icon_url_256];
    expect(urls.every((u: string) => /^http:\/\/localhost\/colony-media\/[0-9a-f-]+\/icon-\d+\.webp\?v=\d+$/.test(u))).toBe(true);
    for (const [url, size] of [[urls[0], 32], [urls[1], 96], [urls[2], 256]] as const) {
      const img = await served(url);
      expect(img.status).toBe(200);
      expect(img.type).toBe("image/webp");
      expect(img.meta).toMatchObject({ format: "webp", width: size, height: size });
      expect(img.meta?.exif).toBeUndefined();
      expect(img.meta?.icc).toBeUndefined();
    }
    // The colony answers with them from now on; the files live in a backed-up folder.
    expect((await h.req("GET", `/api/v1/colonies/by-name/${c.colony.name}`)).body.icon_url_256).toBe(urls[2]);
    expect(DATA_FOLDER_NAMES).toContain("colony-media");
    expect(existsSync(join(dataDir, "colony-media", c.colony.id, "icon-256.webp"))).toBe(true);
    expect(eventsOf(h, "colony_image_changed", c.colony.id).map((e) => e.payload)).toEqual([{ colony_id: c.colony.id, colony_name: c.colony.name, image: "icon", removed: false }]);
  });

  test("a non-square PNG is centre-cropped to squares", async () => {
    const res = await upload("icon", c.founder, wideIcon);
    expect(res.status).toBe(201);
    expect((await served(res.body.icon_url_96)).meta).toMatchObject({ width: 96, height: 96 });
  });

  test("who may: moderators holding can_manage_settings, colony admins, the founder, site admins", async () => {
    expect((await upload("icon", null, iconPng)).status).toBe(401);
    expectError(await upload("icon", c.member, iconPng), 403, "FORBIDDEN");
    expectError(await upload("icon", c.stranger, iconPng), 403, "FORBIDDEN");
    setPermissions(h, c.colony.id, c.mod.id, ["can_remove"]);
    expectError(await upload("icon", c.mod, iconPng), 403, "FORBIDDEN");
    for (const u of [c.colonyAdmin, c.founder, c.siteAdmin]) expect((await upload("icon", u, iconPng)).status).toBe(201);
    const p = await cast(h, "private");
    expectError(await upload("icon", c.stranger, iconPng, p.colony.id), 404, "NOT_FOUND");
  });

  test("errors: not an image, GIF, too small, too large in pixels, animated, over 2 MB; nothing changes", async () => {
    await refused(h, () => upload("icon", c.mod, new TextEncoder().encode("not an image at all")), 400, "AVATAR_INVALID_FORMAT");
    await refused(h, () => upload("icon", c.mod, gif), 400, "AVATAR_INVALID_FORMAT");
    await refused(h, () => upload("icon", c.mod, tinyIcon), 400, "AVATAR_TOO_SMALL");
    await refused(h, () => upload("icon", c.mod, hugeIcon), 400, "AVATAR_TOO_LARGE_DIMENSIONS");
    await refused(h, () => upload("icon", c.mod, animatedIcon), 400, "AVATAR_ANIMATED");
    await refused(h, () => upload("icon", c.mod, Buffer.concat([iconPng, Buffer.alloc(2 * 1024 * 1024)])), 413, "AVATAR_TOO_LARGE");
    await refused(h, () => h.req("POST", `/api/v1/colonies/${c.colony.id}/icon`, { token: c.mod.token, raw: new FormData() }), 422);
    expect((await h.req("GET", `/api/v1/colonies/by-name/${c.colony.name}`)).body.icon_url).toBeNull();
    expect(eventsOf(h, "colony_image_changed", c.colony.id)).toHaveLength(0);
    expect(existsSync(join(dataDir, "colony-media", c.colony.id))).toBe(false);
  });

  test("5 uploads an hour per account (429 RATE_LIMIT_COLONY_ICON_UPLOAD)", async () => {
    const limited = setup({ dataDir });
    const lc = await cast(limited);
    const go = () => limited.req("POST", `/api/v1/colonies/${lc.colony.id}/icon`, { token: lc.founder.token, raw: form(iconPng) });
    for (let i = 0; i < 5; i++) expect((await go()).status).toBe(201);
    const res = await go();
    expectError(res, 429, "RATE_LIMIT_COLONY_ICON_UPLOAD");
    expect(res.headers.get("retry-after")).toBeTruthy();
  });
});

describe("DELETE /colonies/{id}/icon", () => {
  test("204, the files go; a second DELETE is 404; no icon 404", async () => {
    expectError(await remove("icon", c.mod), 404, "NOT_FOUND");
    const up = await upload("icon", c.mod, iconPng);
    expect((await remove("icon", null)).status).toBe(401);
    expectError(await remove("icon", c.member), 403, "FORBIDDEN");
    expect((await remove("icon", c.mod)).status).toBe(204);
    expect((await served(up.body.icon_url)).status).toBe(404);
    expect(existsSync(join(dataDir, "colony-media", c.colony.id, "icon-32.webp"))).toBe(false);
    const col = (await h.req("GET", `/api/v1/colonies/by-name/${c.colony.name}`)).body;
    expect([col.icon_url, col.icon_url_96, col.icon_url_256]).toEqual([null, null, null]);
    expectError(await remove("icon", c.mod), 404, "NOT_FOUND");
  });
});

describe("POST /colonies/{id}/header", () => {
  test("a JPEG banner with EXIF: 201 colony with header_url, one WebP fitted to 1920x960 without metadata", async () => {
    const res = await upload("header", c.mod, headerJpeg);
    expect(res.status).toBe(201);
    expect(res.body.header_url).toMatch(/^http:\/\/localhost\/colony-media\/[0-9a-f-]+\/header\.webp\?v=\d+$/);
    const img = await served(res.body.header_url);
    expect(img.type).toBe("image/webp");
    expect(img.meta).toMatchObject({ format: "webp", width: 1920, height: 640 });
    expect(img.meta?.exif).toBeUndefined();
    // A smaller banner is not enlarged.
    const png = await upload("header", c.mod, headerPng);
    expect((await served(png.body.header_url)).meta).toMatchObject({ width: 800, height: 200 });
  });

  test("who may: can_manage_settings and 100 karma (site admins whatever their karma)", async () => {
    expect((await upload("header", null, headerPng)).status).toBe(401);
    expectError(await upload("header", c.member, headerPng), 403, "FORBIDDEN");
    setKarma(c.mod, 99);
    expectError(await upload("header", c.mod, headerPng), 403, "KARMA_TOO_LOW");
    setKarma(c.mod, 100);
    expect((await upload("header", c.mod, headerPng)).status).toBe(201);
    setKarma(c.colonyAdmin, 0);
    expectError(await upload("header", c.colonyAdmin, headerPng), 403, "KARMA_TOO_LOW");
    expect((await upload("header", c.siteAdmin, headerPng)).status).toBe(201);
    expect((await upload("header", c.founder, headerPng)).status).toBe(201);
  });

  test("errors: HEADER_INVALID_FORMAT (text, GIF), HEADER_TOO_SMALL, HEADER_BAD_ASPECT_RATIO, HEADER_TOO_LARGE_DIMENSIONS, HEADER_ANIMATED, 413 over 5 MB", async () => {
    expectError(await upload("header", c.mod, new TextEncoder().encode("GIF89a nope")), 400, "HEADER_INVALID_FORMAT");
    expectError(await upload("header", c.mod, gif), 400, "HEADER_INVALID_FORMAT");
    expectError(await upload("header", c.mod, smallHeader), 400, "HEADER_TOO_SMALL");
    expectError(await upload("header", c.mod, tallHeader), 400, "HEADER_BAD_ASPECT_RATIO");
    expectError(await upload("header", c.mod, bigHeader), 413, "HEADER_TOO_LARGE");
    expectError(await upload("header", c.mod, hugeHeader), 400, "HEADER_TOO_LARGE_DIMENSIONS");
    expectError(await upload("header", c.mod, animatedHeader), 400, "HEADER_ANIMATED");
    expect((await h.req("GET", `/api/v1/colonies/by-name/${c.colony.name}`)).body.header_url).toBeNull();
  });

  test("limits: 5 an hour per account (429 RATE_LIMIT_COLONY_HEADER_UPLOAD)", async () => {
    const limited = setup({ dataDir });
    const lc = await cast(limited);
    limited.ctx.db.$client.query("update users set karma = 150 where id = ?").run(lc.founder.id);
    const go = () => limited.req("POST", `/api/v1/colonies/${lc.colony.id}/header`, { token: lc.founder.token, raw: form(headerPng) });
    for (let i = 0; i < 5; i++) expect((await go()).status).toBe(201);
    expectError(await go(), 429, "RATE_LIMIT_COLONY_HEADER_UPLOAD");
  });

  test("limits: 30 an hour per IP, whoever uploads (429 RATE_LIMIT_COLONY_HEADER_UPLOAD_IP)", async () => {
    const limited = setup({ dataDir });
    const lc = await cast(limited);
    limited.ctx.db.$client.query("update users set karma = 150 where id = ?").run(lc.founder.id);
    for (let i = 0; i < 30; i++) limited.ctx.limits.consume(["colony_header_upload_ip"], { ip: "local" });
    const res = await limited.req("POST", `/api/v1/colonies/${lc.colony.id}/header`, { token: lc.founder.token, raw: form(headerPng) });
    expectError(res, 429, "RATE_LIMIT_COLONY_HEADER_UPLOAD_IP");
  });

  test("limits: 15 a day per account (429 RATE_LIMIT_COLONY_HEADER_UPLOAD_DAILY)", async () => {
    const limited = setup({ dataDir });
    const lc = await cast(limited);
    limited.ctx.db.$client.query("update users set karma = 150 where id = ?").run(lc.founder.id);
    const go = () => limited.req("POST", `/api/v1/colonies/${lc.colony.id}/header`, { token: lc.founder.token, raw: form(headerPng) });
    for (let hour = 0; hour < 3; hour++) {
      for (let i = 0; i < 5; i++) expect((await go()).status).toBe(201);
      await advance(limited, HOUR + 1000, lc.founder);
    }
    expectError(await go(), 429, "RATE_LIMIT_COLONY_HEADER_UPLOAD_DAILY");
  });
});

describe("DELETE /colonies/{id}/header", () => {
  test("204 then 404; the same authority as the upload", async () => {
    expectError(await remove("header", c.mod), 404, "NOT_FOUND");
    const up = await upload("header", c.mod, headerPng);
    expectError(await remove("header", c.member), 403, "FORBIDDEN");
    setKarma(c.mod, 10);
    expectError(await remove("header", c.mod), 403, "KARMA_TOO_LOW");
    expect((await remove("header", c.founder)).status).toBe(204);
    expect((await served(up.body.header_url)).status).toBe(404);
    expectError(await remove("header", c.founder), 404, "NOT_FOUND");
    expect(eventsOf(h, "colony_image_changed", c.colony.id).map((e) => [e.payload.image, e.payload.removed])).toEqual([["header", false], ["header", true]]);
  });
});

describe("GET /colony-media/{colony_id}/{file}", () => {
  test("a private colony's images are served to its members only; unknown names 404", async () => {
    const p = await cast(h, "private");
    const up = await upload("icon", p.founder, iconPng, p.colony.id);
    expect((await served(up.body.icon_url, p.member)).status).toBe(200);
    expect((await served(up.body.icon_url, c.stranger)).status).toBe(404);
    expect((await served(up.body.icon_url)).status).toBe(404);
    expect((await served(`http://localhost/colony-media/${p.colony.id}/secrets.txt`, p.member)).status).toBe(404);
    expect((await served(`http://localhost/colony-media/${c.colony.id}/header.webp`)).status).toBe(404);
  });
});
