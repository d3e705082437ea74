// The picture on /settings/profile (docs/decisions.md §176): uploading through the avatars
// service as a multipart form (CSRF and origin checked, the size limit enforced before the body
// is read past it), removing it, and every refusal changing nothing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { Browser, postEndless, signedInBrowser } from "../../test/browser";
import { dbState } from "../../test/db-state";
import { setup, type Harness } from "../../test/harness";
import { MAX_UPLOAD_BYTES } from "../features/avatars/service";
import { human } from "../features/sessions/fixtures";
import * as users from "../features/users/service";
import { AVATAR_FORM_MAX_BYTES } from "./avatar-routes";

const dataDir = mkdtempSync(join(tmpdir(), "colony-web-avatars-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

let png: Buffer;
beforeAll(async () => {
  png = await sharp({ create: { width: 100, height: 100, channels: 3, background: { r: 200, g: 80, b: 40 } } })
    .png()
    .toBuffer();
});

const file = (bytes: Uint8Array, name = "me.png", type = "image/png") => new File([bytes], name, { type });
const avatarOf = (h: Harness, id: string) => {
  const u = users.findById(h.ctx, id)!;
  return { path: u.avatarPath, at: u.avatarUploadedAt };
};

async function signedIn(h: Harness) {
  const u = await human(h);
  const b = await signedInBrowser(h, u.username);
  await b.get("/settings/profile");
  return { b, u };
}

describe("uploading a picture on /settings/profile", () => {
  const h = setup({ dataDir, rateLimitMultiplier: 0 });

  test("the page shows the drawn picture and a multipart upload form with its labels", async () => {
    const { b, u } = await signedIn(h);
    const r = await b.get("/settings/profile");
    expect(r.status).toBe(200);
    expect(r.text).toContain('enctype="multipart/form-data"');
    expect(r.text).toContain('action="/settings/profile/avatar"');
    expect(r.text).toContain('<label for="avatar-file">Picture file</label>');
    expect(r.text).toContain(`src="/u/${u.username}/avatar?size=96"`);
    expect(r.text).not.toContain('action="/settings/profile/avatar/remove"');
  });

  test("a small PNG is uploaded (303), shown, served, and removed again (303)", async () => {
    const { b, u } = await signedIn(h);
    const r = await b.postMultipart("/settings/profile/avatar", {}, { file: file(png) });
    expect([r.status, r.location]).toEqual([303, "/settings/profile?notice=avatar-saved"]);
    const a = avatarOf(h, u.id);
    expect(a.path).toBe(`avatars/${u.id}`);
    expect(existsSync(join(dataDir, "avatars", u.id, "96.webp"))).toBe(true);
    const shown = await b.get(r.location!);
    expect(shown.text).toContain("Your picture is uploaded.");
    expect(shown.text).toContain(`src="/avatars/${u.id}/96.webp?v=${a.at}"`);
    expect((await b.get(`/avatars/${u.id}/96.webp?v=${a.at}`)).headers.get("content-type")).toBe("image/webp");

    const removed = await b.post("/settings/profile/avatar/remove");
    expect([removed.status, removed.location]).toEqual([303, "/settings/profile?notice=avatar-removed"]);
    expect(avatarOf(h, u.id)).toEqual({ path: null, at: null });
    expect(existsSync(join(dataDir, "avatars", u.id))).toBe(false);
    // Removing what is not there is what was asked for.
    expect((await b.post("/settings/profile/avatar/remove")).status).toBe(303);
  });

  test("without the CSRF token, with a wrong one, or from another site: 403 and nothing changes", async () => {
    const { b, u } = await signedIn(h);
    const before = dbState(h);
    expect((await b.postMultipart("/settings/profile/avatar", {}, { file: file(png) }, { csrf: null })).status).toBe(403);
    expect((await b.postMultipart("/settings/profile/avatar", {}, { file: file(png) }, { csrf: "x".repeat(64) })).status).toBe(403);
    expect((await b.postMultipart("/settings/profile/avatar", {}, { file: file(png) }, { headers: { "sec-fetch-site": "cross-site" } })).status).toBe(403);
    expect((await b.postMultipart("/settings/profile/avatar", {}, { file: file(png) }, { headers: { origin: "https://elsewhere.example" } })).status).toBe(403);
    expect((await b.post("/settings/profile/avatar/remove", {}, { csrf: null })).status).toBe(403);
    expect(dbState(h)).toEqual(before);
    expect(existsSync(join(dataDir, "avatars", u.id))).toBe(false);
  });

  test("a file over the avatars' limit is 413 AVATAR_TOO_LARGE's message; a body over the form's limit is 413 unread; nothing changes", async () => {
    const { b, u } = await signedIn(h);
    const before = dbState(h);
    const big = await b.postMultipart("/settings/profile/avatar", {}, { file: file(new Uint8Array(MAX_UPLOAD_BYTES + 1)) });
    expect(big.status).toBe(413);
    expect(big.text).toContain("limited to");
    expect(big.text).toContain('action="/settings/profile/avatar"');
    const huge = await b.postMultipart("/settings/profile/avatar", {}, { file: file(new Uint8Array(AVATAR_FORM_MAX_BYTES + 1)) });
    expect(huge.status).toBe(413);
    expect(huge.text).toContain("That form was too large.");
    expect(dbState(h)).toEqual(before);
    expect(avatarOf(h, u.id).path).toBeNull();
  });

  test("a body without a declared length is read only until it passes the limit", async () => {
    const { b } = await signedIn(h);
    const chunk = new Uint8Array(64 * 1024);
    const res = await postEndless(h, b, "/settings/profile/avatar", "multipart/form-data; boundary=xyz", chunk);
    expect(res.status).toBe(413);
    expect(res.pulled).toBeLessThan(AVATAR_FORM_MAX_BYTES + 4 * chunk.byteLength);
  });

  test("the wrong kind of file, a tiny picture, no file, or an unreadable body: a 4xx with the service's message, and nothing changes", async () => {
    const { b, u } = await signedIn(h);
    const tiny = await sharp({ create: { width: 20, height: 20, channels: 3, background: "#000" } })
      .png()
      .toBuffer();
    const before = dbState(h);
    const cases: [Record<string, File>, number, string][] = [
      [{ file: file(new TextEncoder().encode("just some text"), "notes.txt", "text/plain") }, 400, "must be PNG, JPEG or WebP"],
      [{ file: file(new TextEncoder().encode("<svg xmlns='http://www.w3.org/2000/svg'/>"), "x.svg", "image/svg+xml") }, 400, "must be PNG, JPEG or WebP"],
      [{ file: file(tiny) }, 400, "at least 64x64"],
      [{}, 400, "Choose a picture file"],
    ];
    for (const [files, status, says] of cases) {
      const r = await b.postMultipart("/settings/profile/avatar", {}, files);
      expect(r.status).toBe(status);
      expect(r.text).toContain(says);
    }
    const garbled = await b.request("POST", "/settings/profile/avatar", { body: "not multipart at all", headers: { "content-type": "multipart/form-data; boundary=nothing" } });
    expect(garbled.status).toBe(400);
    expect(dbState(h)).toEqual(before);
    expect(avatarOf(h, u.id).path).toBeNull();
  });

  test("signed out, both forms send to sign in and nothing runs", async () => {
    const b = new Browser(h);
    await b.get("/login");
    const before = dbState(h);
    const up = await b.postMultipart("/settings/profile/avatar", {}, { file: file(png) });
    expect([up.status, up.location]).toEqual([303, "/login?next=%2Fsettings%2Fprofile"]);
    const rm = await b.post("/settings/profile/avatar/remove");
    expect([rm.status, rm.location]).toEqual([303, "/login?next=%2Fsettings%2Fprofile"]);
    expect(dbState(h)).toEqual(before);
  });

  test("other web forms still take form-encoded bodies only", async () => {
    const { b } = await signedIn(h);
    const r = await b.postMultipart("/settings/profile", { display_name: "Someone", bio: "" });
    expect(r.status).toBe(415);
  });
});

describe("the API's upload limits apply to the web form", () => {
  test("avatar_upload: the sixth upload in an hour is 429 and changes nothing", async () => {
    const h = setup({ dataDir });
    const { b, u } = await signedIn(h);
    for (let i = 0; i < 5; i++) expect((await b.postMultipart("/settings/profile/avatar", {}, { file: file(png) })).status).toBe(303);
    const at = avatarOf(h, u.id).at;
    h.clock.advance(1000);
    const r = await b.postMultipart("/settings/profile/avatar", {}, { file: file(png) });
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).not.toBeNull();
    expect(avatarOf(h, u.id).at).toBe(at);
  });
});
