// Group avatars (spec Part 2 §4.6, §8; docs/decisions.md §12): admins upload a square PNG/JPEG/WebP of at
// most 2 MB; members fetch it (or a generated letter avatar); everyone else gets 404.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { expectError, refused } from "../../../../test/expect";
import { setup, type TestUser } from "../../../../test/harness";
import { beginTest, count, eventsOf, newUsers } from "../testkit";
import { MAX_GROUP_AVATAR_BYTES, letterAvatar } from "./avatar";
import { convRow, G, makeGroup } from "./gtestkit";

const dataDir = mkdtempSync(join(tmpdir(), "colony-group-avatars-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const solid = (w: number, hgt: number) => sharp({ create: { width: w, height: hgt, channels: 3, background: { r: 30, g: 120, b: 200 } } });
let png: Buffer;
let jpeg: Buffer;
let webp: Buffer;
let wide: Buffer;
let gif: Buffer;
let big: Buffer;

beforeAll(async () => {
  png = await solid(300, 300).png().toBuffer();
  jpeg = await solid(120, 120).jpeg().withExif({ IFD0: { Artist: "secret person" } }).toBuffer();
  webp = await solid(64, 64).webp().toBuffer();
  wide = await solid(300, 200).png().toBuffer();
  gif = await solid(100, 100).gif().toBuffer();
  // A valid square PNG padded past 2 MB with a trailing private chunk is still "too large".
  big = Buffer.concat([png, Buffer.alloc(MAX_GROUP_AVATAR_BYTES)]);
});

const h = setup({ dataDir, rateLimitMultiplier: 0 });
let alice: TestUser, bob: TestUser, carol: TestUser;
let g: string;

beforeEach(async () => {
  await beginTest(h);
  [alice, bob, carol] = await newUsers(h, 3);
  g = await makeGroup(h, alice, [bob, carol], [bob]);
});

function form(bytes: Uint8Array, name = "a.png", type = "image/png") {
  const f = new FormData();
  f.append("file", new File([bytes], name, { type }));
  return f;
}
const upload = (u: TestUser | null, bytes: Uint8Array, name?: string, type?: string) => h.req("POST", `${G}/${g}/avatar`, { token: u?.token, raw: form(bytes, name, type) });
async function fetchAvatar(u: TestUser) {
  const res = await h.app.handle(new Request(`http://localhost${G}/${g}/avatar`, { headers: { authorization: `Bearer ${u.token}` } }));
  return { status: res.status, type: res.headers.get("content-type"), cache: res.headers.get("cache-control"), bytes: Buffer.from(await res.arrayBuffer()) };
}

describe("POST /messages/groups/{id}/avatar", () => {
  test.each([
    ["png", () => png, "image/png"],
    ["jpeg", () => jpeg, "image/jpeg"],
    ["webp", () => webp, "image/webp"],
  ])("an admin uploads a square %s: 201 with the member URL; members get a 256 px WebP without metadata", async (_n, bytes, type) => {
    const r = await upload(alice, bytes(), "x", type);
    expect(r.status).toBe(201);
    const row = convRow(h, g);
    expect(r.body).toEqual({ avatar_url: `http://localhost${G}/${g}/avatar?v=${row.avatar_uploaded_at}` });
    expect(row.avatar_path).toBe(join("group-avatars", g));
    const got = await fetchAvatar(bob);
    expect(got.status).toBe(200);
    expect(got.type).toBe("image/webp");
    expect(got.cache).toBe("private, max-age=300");
    const meta = await sharp(got.bytes).metadata();
    expect([meta.format, meta.width, meta.height, Boolean(meta.exif)]).toEqual(["webp", 256, 256, false]);
    const detail = await h.req("GET", `${G}/${g}`, { token: bob.token });
    expect(detail.body.avatar_url).toBe(r.body.avatar_url);
  });

  test("errors: over 2 MB 413 AVATAR_TOO_LARGE; not square, GIF, not an image, lying type 400 INVALID_INPUT; nothing stored", async () => {
    await refused(h, () => upload(alice, big), 413, "AVATAR_TOO_LARGE");
    await refused(h, () => upload(alice, wide), 400, "INVALID_INPUT");
    await refused(h, () => upload(alice, gif, "a.gif", "image/gif"), 400, "INVALID_INPUT");
    await refused(h, () => upload(alice, new TextEncoder().encode("not an image at all"), "a.png"), 400, "INVALID_INPUT");
    const lying = Buffer.concat([png.subarray(0, 8), jpeg.subarray(8)]);
    await refused(h, () => upload(alice, lying), 400, "INVALID_INPUT");
    expect(convRow(h, g).avatar_path).toBeNull();
    expect(eventsOf(h, "group_avatar_changed")).toHaveLength(0);
  });

  test("a plain member 403, a pending invitee or stranger 404, anonymous 401, missing file 422", async () => {
    await refused(h, () => upload(bob, png), 403, "FORBIDDEN");
    await refused(h, () => upload(carol, png), 404, "NOT_FOUND");
    const stranger = await h.user();
    await refused(h, () => upload(stranger, png), 404, "NOT_FOUND");
    expect((await upload(null, png)).status).toBe(401);
    expect((await h.req("POST", `${G}/${g}/avatar`, { token: alice.token, raw: new FormData() })).status).toBe(422);
    expect(convRow(h, g).avatar_path).toBeNull();
  });
});

describe("GET /messages/groups/{id}/avatar", () => {
  test("without an upload: a letter avatar SVG of the title's first letter", async () => {
    await h.req("PATCH", `${G}/${g}`, { token: alice.token, body: { title: "zeta <squad>" } });
    const got = await fetchAvatar(bob);
    expect(got.status).toBe(200);
    expect(got.type).toStartWith("image/svg+xml");
    const svg = got.bytes.toString();
    expect(svg).toStartWith("<svg");
    expect(svg).toContain(">Z</text>");
    expect(letterAvatar({ id: g, title: "<b>" })).toContain(">&lt;</text>");
    expect(letterAvatar({ id: g, title: "" })).toContain(">#</text>");
  });

  test("pending invitee and stranger 404, anonymous 401", async () => {
    expectError(await h.req("GET", `${G}/${g}/avatar`, { token: carol.token }), 404, "NOT_FOUND");
    expectError(await h.req("GET", `${G}/${g}/avatar`, { token: (await h.user()).token }), 404, "NOT_FOUND");
    expect((await h.req("GET", `${G}/${g}/avatar`)).status).toBe(401);
    expect(count(h, "conversations")).toBe(1);
  });
});
