import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { DAY, HOUR } from "../../core/clock";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { closestRendition, declaresAnimation, sniffFormat } from "./service";
import { defaultsFor, escapeXml } from "./svg";

const dataDir = mkdtempSync(join(tmpdir(), "colony-avatars-"));
let h: Harness;
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const solid = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: { r: 30, g: 120, b: 200 } } });

let png100: Buffer;
let png32: Buffer;
let png2000: Buffer;
let animatedWebp: Buffer;
let animatedGif: Buffer;
let exifJpeg: Buffer;
let webp80: Buffer;

beforeAll(async () => {
  h = setup({ dataDir });
  png100 = await solid(100, 100).png().toBuffer();
  png32 = await solid(32, 32).png().toBuffer();
  png2000 = await solid(2000, 2000).png({ compressionLevel: 9 }).toBuffer();
  webp80 = await solid(80, 120).webp().toBuffer();
  const frame = (r: number) => sharp({ create: { width: 100, height: 100, channels: 3, background: { r, g: 0, b: 0 } } }).png().toBuffer();
  const frames = [await frame(0), await frame(255)];
  animatedWebp = await sharp(frames, { join: { animated: true } }).webp({ loop: 0, delay: [100, 100] }).toBuffer();
  animatedGif = await sharp(frames, { join: { animated: true } }).gif({ loop: 0, delay: [100, 100] }).toBuffer();
  exifJpeg = await solid(120, 100).jpeg().withExif({ IFD0: { Copyright: "secret-owner", Artist: "someone", ImageDescription: "home address" } }).toBuffer();
});

function form(bytes: Uint8Array, name = "avatar.png", type = "image/png") {
  const f = new FormData();
  f.append("file", new File([bytes], name, { type }));
  return f;
}

const upload = (u: TestUser | null, bytes: Uint8Array, name?: string, type?: string) =>
  h.req("POST", "/api/v1/users/me/avatar/upload", { token: u?.token, raw: form(bytes, name, type) });

describe("PUT /api/v1/users/me/avatar", () => {
  test("stores the settings, returns the profile, and {} resets", async () => {
    const u = await h.user();
    const settings = { bg: 3, accent: 15, eyes: 5, mouth: 0, head: 2, ears: true };
    const r = await h.req("PUT", "/api/v1/users/me/avatar", { token: u.token, body: settings });
    expect(r.status).toBe(200);
    expect(r.body.username).toBe(u.username);
    expect(r.body.avatar_url).toBe(`http://localhost/u/${u.username}/avatar`);
    const stored = h.ctx.db.$client.query("select avatar_settings from users where id = ?").get(u.id) as { avatar_settings: string };
    expect(JSON.parse(stored.avatar_settings)).toEqual(settings);

    // The public avatar is drawn from the stored settings: the same as a preview with them.
    const mine = await h.req("GET", `/u/${u.username}/avatar`, { query: { size: 120 } });
    const preview = await h.req("GET", "/api/v1/avatar/preview", { query: { username: u.username, ...settings } });
    expect(mine.text).toBe(preview.text);

    const reset = await h.req("PUT", "/api/v1/users/me/avatar", { token: u.token, body: {} });
    expect(reset.status).toBe(200);
    const after = h.ctx.db.$client.query("select avatar_settings from users where id = ?").get(u.id) as { avatar_settings: string | null };
    expect(after.avatar_settings).toBeNull();
    const plain = await h.req("GET", "/api/v1/avatar/preview", { query: { username: u.username } });
    expect((await h.req("GET", `/u/${u.username}/avatar`, { query: { size: 120 } })).text).toBe(plain.text);
  });

  test.each([
    [{ bg: 16 }],
    [{ accent: -1 }],
    [{ eyes: 6 }],
    [{ mouth: 1.5 }],
    [{ head: "two" }],
    [{ ears: "maybe" }],
  ])("out-of-range %j is a 422", async (body) => {
    const u = await h.user();
    const r = await h.req("PUT", "/api/v1/users/me/avatar", { token: u.token, body });
    expect(r.status).toBe(422);
  });

  test("anonymous is a 401", async () => {
    const r = await h.req("PUT", "/api/v1/users/me/avatar", { body: {} });
    expect(r.status).toBe(401);
  });
});

describe("GET /api/v1/avatar/preview", () => {
  test("an SVG, deterministic, sized, with no external references", async () => {
    const a = await h.req("GET", "/api/v1/avatar/preview", { query: { username: "someone" } });
    const b = await h.req("GET", "/api/v1/avatar/preview", { query: { username: "someone" } });
    expect(a.status).toBe(200);
    expect(a.headers.get("content-type")).toStartWith("image/svg+xml");
    expect(a.headers.get("cache-control")).toContain("max-age");
    expect(a.text).toBe(b.text);
    expect(a.text).toStartWith("<svg ");
    expect(a.text).toContain('width="120" height="120"');
    expect(a.text).not.toMatch(/href|<script|<image|url\(|@import|<foreignObject/i);
    const other = await h.req("GET", "/api/v1/avatar/preview", { query: { username: "someone-else" } });
    expect(other.text).not.toBe(a.text);
    const sized = await h.req("GET", "/api/v1/avatar/preview", { query: { username: "someone", size: 16 } });
    expect(sized.text).toContain('width="16" height="16"');
  });

  test("defaults come from the username hash; explicit choices override them", async () => {
    const d = defaultsFor("someone");
    const explicit = await h.req("GET", "/api/v1/avatar/preview", { query: { username: "someone", ...d, skin: undefined } });
    const derived = await h.req("GET", "/api/v1/avatar/preview", { query: { username: "SomeOne" } });
    expect(explicit.text.replace(/<title>.*<\/title>/, "")).toBe(derived.text.replace(/<title>.*<\/title>/, ""));
    const changed = await h.req("GET", "/api/v1/avatar/preview", { query: { username: "someone", bg: (d.bg + 1) % 16 } });
    expect(changed.text).not.toBe(derived.text);
  });

  test("agents and humans look different", async () => {
    const agent = await h.req("GET", "/api/v1/avatar/preview", { query: { username: "same", user_type: "agent" } });
    const human = await h.req("GET", "/api/v1/avatar/preview", { query: { username: "same", user_type: "human" } });
    expect(agent.text).not.toBe(human.text);
    // The agent has an antenna; the human has hair and a skin tone instead.
    expect(agent.text).toContain('<line x1="50" y1="24" x2="50" y2="12"');
    expect(human.text).not.toContain('<line x1="50" y1="24" x2="50" y2="12"');
  });

  test("the username is escaped", async () => {
    const evil = `"><script>alert(1)</script><a href='x'>&`;
    const r = await h.req("GET", "/api/v1/avatar/preview", { query: { username: evil } });
    expect(r.status).toBe(200);
    expect(r.text).not.toContain("<script>");
    expect(r.text).not.toContain("<a ");
    expect(r.text).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(r.text).toContain("&quot;&gt;");
    expect(r.text).toContain("&amp;");
    expect(escapeXml("a\u0000b\u001f<'")).toBe("ab&lt;&apos;");
  });

  test.each([
    [{ size: 15 }],
    [{ size: 201 }],
    [{ user_type: "robot" }],
    [{ bg: 16 }],
    [{ eyes: -1 }],
    [{ ears: "sometimes" }],
  ])("%j is a 422", async (query) => {
    const r = await h.req("GET", "/api/v1/avatar/preview", { query: query as Record<string, string | number> });
    expect(r.status).toBe(422);
  });
});

describe("POST /api/v1/users/me/avatar/upload", () => {
  test("writes three square WebP renditions and returns their URLs", async () => {
    const u = await h.user();
    h.clock.advance(1000);
    const r = await upload(u, png100);
    expect(r.status).toBe(200);
    expect(r.body.avatar_path).toBe(`/avatars/${u.id}`);
    expect(r.body.uploaded_at).toBe(new Date(h.clock.now()).toISOString());
    expect(Object.keys(r.body.urls).sort()).toEqual(["lg", "md", "sm"]);
    for (const [name, size] of [["sm", 32], ["md", 96], ["lg", 256]] as const) {
      expect(r.body.urls[name]).toBe(`http://localhost/avatars/${u.id}/${size}.webp?v=${h.clock.now()}`);
      const onDisk = join(dataDir, "avatars", u.id, `${size}.webp`);
      expect(existsSync(onDisk)).toBe(true);
      const served = await h.app.handle(new Request(r.body.urls[name]));
      expect(served.status).toBe(200);
      expect(served.headers.get("content-type")).toBe("image/webp");
      expect(served.headers.get("cache-control")).toContain("max-age");
      const meta = await sharp(Buffer.from(await served.arrayBuffer())).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(["webp", size, size]);
    }
  });

  test("JPEG and WebP are accepted; non-square images are cropped to squares", async () => {
    const u = await h.user();
    expect((await upload(u, exifJpeg, "a.jpg", "image/jpeg")).status).toBe(200);
    const r = await upload(u, webp80, "a.webp", "image/webp");
    expect(r.status).toBe(200);
    const meta = await sharp(join(dataDir, "avatars", u.id, "96.webp")).metadata();
    expect([meta.width, meta.height]).toEqual([96, 96]);
  });

  test("EXIF is removed from every rendition", async () => {
    expect((await sharp(exifJpeg).metadata()).exif).toBeDefined();
    const u = await h.user();
    expect((await upload(u, exifJpeg, "photo.jpg", "image/jpeg")).status).toBe(200);
    for (const size of [32, 96, 256]) {
      const file = join(dataDir, "avatars", u.id, `${size}.webp`);
      const meta = await sharp(file).metadata();
      expect(meta.exif).toBeUndefined();
      expect(meta.xmp).toBeUndefined();
      expect(Buffer.from(await Bun.file(file).arrayBuffer()).includes("secret-owner")).toBe(false);
    }
  });

  test("a new upload replaces the previous one", async () => {
    const u = await h.user();
    const first = await upload(u, png100);
    h.clock.advance(5000);
    const second = await upload(u, webp80, "b.webp", "image/webp");
    expect(second.status).toBe(200);
    expect(second.body.uploaded_at).not.toBe(first.body.uploaded_at);
    expect(second.body.urls.md).toContain(`?v=${h.clock.now()}`);
  });

  const big = () => {
    const b = new Uint8Array(2 * 1024 * 1024 + 1);
    b.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    return b;
  };

  test.each([
    ["a text file renamed .png", () => new TextEncoder().encode("just some text, not an image at all\n".repeat(10)), 400, "AVATAR_INVALID_FORMAT"],
    ["a GIF", () => animatedGif, 400, "AVATAR_INVALID_FORMAT"],
    ["an SVG", () => new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"/>'), 400, "AVATAR_INVALID_FORMAT"],
    ["a PNG signature over garbage", () => Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...new Array(200).fill(7)]), 400, "AVATAR_INVALID_FORMAT"],
    ["over 2 MiB", big, 413, "AVATAR_TOO_LARGE"],
    ["32x32", () => png32, 400, "AVATAR_TOO_SMALL"],
    ["2000x2000", () => png2000, 400, "AVATAR_TOO_LARGE_DIMENSIONS"],
    ["an animated WebP", () => animatedWebp, 400, "AVATAR_ANIMATED"],
  ] as const)("%s is refused with its code, and nothing is written", async (_name, bytes, status, code) => {
    const u = await h.user();
    const r = await upload(u, bytes(), "avatar.png", "image/png");
    expect(r.status).toBe(status);
    expect(r.body.detail.code).toBe(code);
    expect(typeof r.body.detail.message).toBe("string");
    expect(existsSync(join(dataDir, "avatars", u.id))).toBe(false);
    // A refused upload is not charged against the rate limit.
    expect(h.ctx.db.$client.query("select avatar_path from users where id = ?").get(u.id)).toEqual({ avatar_path: null });
  });

  test("exactly 2 MiB is not refused for its size", async () => {
    const u = await h.user();
    const b = new Uint8Array(2 * 1024 * 1024);
    const r = await upload(u, b);
    expect(r.status).toBe(400);
    expect(r.body.detail.code).toBe("AVATAR_INVALID_FORMAT");
  });

  test("a missing file is a 422; anonymous is a 401", async () => {
    const u = await h.user();
    const none = await h.req("POST", "/api/v1/users/me/avatar/upload", { token: u.token, raw: new FormData() });
    expect(none.status).toBe(422);
    const anon = await upload(null, png100);
    expect(anon.status).toBe(401);
  });

  test("5 an hour and 10 a day; refused uploads cost nothing", async () => {
    const u = await h.user();
    for (let i = 0; i < 3; i++) expect((await upload(u, png32)).status).toBe(400);
    for (let hour = 0; hour < 2; hour++) {
      for (let i = 0; i < 5; i++) expect((await upload(u, png100)).status).toBe(200);
      const r = await upload(u, png100);
      expect(r.status).toBe(429);
      expect(r.body.detail.code).toBe("RATE_LIMIT_AVATAR_UPLOAD");
      h.clock.advance(HOUR);
    }
    const daily = await upload(u, png100);
    expect(daily.status).toBe(429);
    expect(daily.body.detail.code).toBe("RATE_LIMIT_AVATAR_UPLOAD_DAILY");
    h.clock.advance(DAY);
    const fresh = await h.req("POST", "/api/v1/auth/token", { body: { api_key: u.apiKey } });
    expect((await upload({ ...u, token: fresh.body.access_token }, png100)).status).toBe(200);
  });
});

describe("DELETE /api/v1/users/me/avatar/upload", () => {
  test("removes the files, falls back to the procedural avatar, then 404s", async () => {
    const u = await h.user();
    const up = await upload(u, png100);
    expect(up.status).toBe(200);
    const del = await h.req("DELETE", "/api/v1/users/me/avatar/upload", { token: u.token });
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    expect(existsSync(join(dataDir, "avatars", u.id))).toBe(false);
    const served = await h.app.handle(new Request(up.body.urls.md));
    expect(served.status).toBe(404);
    expect(((await served.json()) as { detail: { code: string } }).detail.code).toBe("AVATAR_NOT_FOUND");
    const avatar = await h.req("GET", `/u/${u.username}/avatar`);
    expect(avatar.status).toBe(200);
    expect(avatar.headers.get("content-type")).toStartWith("image/svg+xml");

    const again = await h.req("DELETE", "/api/v1/users/me/avatar/upload", { token: u.token });
    expect(again.status).toBe(404);
    expect(again.body.detail.code).toBe("AVATAR_NOT_FOUND");
  });

  test("procedural settings survive an upload and its removal", async () => {
    const u = await h.user();
    await h.req("PUT", "/api/v1/users/me/avatar", { token: u.token, body: { bg: 1, eyes: 2 } });
    const before = (await h.req("GET", `/u/${u.username}/avatar`)).text;
    await upload(u, png100);
    await h.req("DELETE", "/api/v1/users/me/avatar/upload", { token: u.token });
    expect((await h.req("GET", `/u/${u.username}/avatar`)).text).toBe(before);
  });

  test("anonymous is a 401; a stranger cannot remove someone else's upload", async () => {
    const owner = await h.user();
    const stranger = await h.user();
    await upload(owner, png100);
    expect((await h.req("DELETE", "/api/v1/users/me/avatar/upload")).status).toBe(401);
    const r = await h.req("DELETE", "/api/v1/users/me/avatar/upload", { token: stranger.token });
    expect(r.status).toBe(404);
    expect(existsSync(join(dataDir, "avatars", owner.id, "96.webp"))).toBe(true);
  });
});

describe("GET /u/{username}/avatar", () => {
  test("without an upload: the procedural SVG for the account's type and settings", async () => {
    const human = await h.user({ human: true });
    const r = await h.req("GET", `/u/${human.username}/avatar`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toStartWith("image/svg+xml");
    expect(r.headers.get("cache-control")).toMatch(/public, max-age=\d+/);
    expect(r.text).toContain('width="96" height="96"');
    const preview = await h.req("GET", "/api/v1/avatar/preview", { query: { username: human.username, user_type: "human", size: 96 } });
    expect(r.text).toBe(preview.text);
  });

  test("with an upload: a 302 to the closest rendition", async () => {
    const u = await h.user();
    const up = await upload(u, png100);
    for (const [size, file] of [[16, 32], [40, 32], [64, 96], [96, 96], [150, 96], [200, 256], [512, 256]] as const) {
      const r = await h.req("GET", `/u/${u.username}/avatar`, { query: { size } });
      expect(r.status).toBe(302);
      expect(r.headers.get("location")).toBe(`/avatars/${u.id}/${file}.webp?v=${Date.parse(up.body.uploaded_at)}`);
      expect(r.headers.get("cache-control")).toMatch(/max-age=\d+/);
    }
    const plain = await h.req("GET", `/u/${u.username.toUpperCase()}/avatar`);
    expect(plain.headers.get("location")).toContain("/96.webp");
  });

  test("never a 404: unknown names still get a picture", async () => {
    for (const name of ["nobody-here", "x", "%3Cscript%3E", "deleted"]) {
      const r = await h.req("GET", `/u/${name}/avatar`);
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toStartWith("image/svg+xml");
      expect(r.text).not.toContain("<script>");
    }
    const a = await h.req("GET", "/u/nobody-here/avatar");
    const b = await h.req("GET", "/u/nobody-here/avatar");
    expect(a.text).toBe(b.text);
  });

  test("size outside 16-512 is a 422", async () => {
    expect((await h.req("GET", "/u/someone/avatar", { query: { size: 15 } })).status).toBe(422);
    expect((await h.req("GET", "/u/someone/avatar", { query: { size: 513 } })).status).toBe(422);
    expect((await h.req("GET", "/u/someone/avatar", { query: { size: 512 } })).status).toBe(200);
  });
});

describe("rendition route", () => {
  test("only the three sizes of an existing upload are served", async () => {
    const u = await h.user();
    await upload(u, png100);
    for (const path of [`/avatars/${u.id}/64.webp`, `/avatars/${u.id}/96.png`, `/avatars/${u.id}/..%2F..%2Fetc.webp`, `/avatars/not-a-uuid/96.webp`, `/avatars/00000000-0000-7000-8000-000000000000/96.webp`]) {
      const r = await h.req("GET", path);
      expect(r.status).toBe(404);
      expect(r.body.detail.code).toBe("AVATAR_NOT_FOUND");
    }
  });
});

describe("helpers", () => {
  test("format sniffing and animation flags", async () => {
    expect(sniffFormat(png100)).toBe("png");
    expect(sniffFormat(exifJpeg)).toBe("jpeg");
    expect(sniffFormat(webp80)).toBe("webp");
    expect(sniffFormat(animatedGif)).toBeNull();
    expect(sniffFormat(new Uint8Array())).toBeNull();
    expect(declaresAnimation(animatedWebp, "webp")).toBe(true);
    expect(declaresAnimation(webp80, "webp")).toBe(false);
    expect(declaresAnimation(png100, "png")).toBe(false);
    // An APNG: an acTL chunk ahead of the image data.
    const actl = Buffer.alloc(20);
    actl.writeUInt32BE(8, 0);
    actl.write("acTL", 4, "ascii");
    const apng = Buffer.concat([png100.subarray(0, 33), actl, png100.subarray(33)]);
    expect(declaresAnimation(apng, "png")).toBe(true);
    const u = await h.user();
    const r = await upload(u, apng);
    expect(r.status).toBe(400);
    expect(r.body.detail.code).toBe("AVATAR_ANIMATED");
  });

  test("closest rendition", () => {
    expect([16, 63, 64, 96, 175, 176, 512].map(closestRendition)).toEqual([32, 32, 96, 96, 96, 256, 256]);
  });
});

describe("account self-delete", () => {
  test("removes the uploaded files once the account_deleted event is delivered", async () => {
    const u = await h.user();
    expect((await upload(u, png100)).status).toBe(200);
    const dir = join(dataDir, "avatars", u.id);
    expect(existsSync(dir)).toBe(true);
    expect((await h.req("DELETE", "/api/v1/auth/account", { token: u.token })).status).toBe(204);
    await h.ctx.events.drain();
    expect(existsSync(dir)).toBe(false);
  });
});
