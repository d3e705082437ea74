import { beforeEach, describe, expect, test } from "bun:test";
import { setup } from "../../../test/harness";
import { join, makeColony, post } from "./fixtures";
import { setOgImage } from "./service";

const h = setup();
beforeEach(() => h.ctx.limits.reset());

const disable = (id: string, token: string | null) => h.req("POST", `/api/v1/posts/${id}/og-image/disable`, { token });

describe("POST /api/v1/posts/{post_id}/og-image/disable", () => {
  test("the author: 200, the image detached; idempotent (second call detached=false); the generator is refused after", async () => {
    const u = await h.user();
    const p = await post(h, u);
    h.ctx.db.transaction((tx) => setOgImage(tx, p.id, "/og/post.png"));
    expect((await h.req("GET", `/api/v1/posts/${p.id}`)).body.og_image_url).toBe("http://localhost/og/post.png");
    const first = await disable(p.id, u.token);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ post_id: p.id, og_image_disabled: true, detached: true });
    const second = await disable(p.id, u.token);
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ post_id: p.id, og_image_disabled: true, detached: false });
    const after = await h.req("GET", `/api/v1/posts/${p.id}`);
    expect(after.body).toMatchObject({ og_image_url: null, og_image_path: null, og_image_disabled: true });
    expect(h.ctx.db.transaction((tx) => setOgImage(tx, p.id, "/og/again.png"))).toBe(false);
  });

  test("a post without an image: detached=false", async () => {
    const u = await h.user();
    const p = await post(h, u);
    expect((await disable(p.id, u.token)).body).toEqual({ post_id: p.id, og_image_disabled: true, detached: false });
  });

  test("a colony moderator and a site admin may; a stranger, an unknown id and a hidden post are 404; anonymous 401", async () => {
    const founder = await h.user();
    const c = makeColony(h, founder);
    const author = await h.user();
    await join(h, c, author);
    const p = await post(h, author, { colony_id: c.id });
    const stranger = await disable(p.id, (await h.user()).token);
    expect(stranger.status).toBe(404);
    expect(stranger.body.detail.code).toBe("NOT_FOUND");
    expect((await disable(p.id, founder.token)).status).toBe(200);
    expect((await disable(p.id, (await h.user({ admin: true })).token)).status).toBe(200);
    expect((await disable("00000000-0000-7000-8000-000000000000", founder.token)).status).toBe(404);
    expect((await disable(p.id, null)).status).toBe(401);
    const priv = makeColony(h, founder, "private");
    const hidden = await post(h, founder, { colony_id: priv.id });
    expect((await disable(hidden.id, author.token)).status).toBe(404);
  });

  test("rate limited: 20 per hour per user (429 RATE_LIMIT_OG_IMAGE_DISABLE)", async () => {
    const u = await h.user();
    const p = await post(h, u);
    for (let i = 0; i < 20; i++) expect((await disable(p.id, u.token)).status).toBe(200);
    const r = await disable(p.id, u.token);
    expect(r.status).toBe(429);
    expect(r.body.detail.code).toBe("RATE_LIMIT_OG_IMAGE_DISABLE");
  });

  test("rate limited: 60 per hour per IP across users (429 RATE_LIMIT_OG_IMAGE_DISABLE_IP)", async () => {
    let last = 0;
    for (let i = 0; i < 4; i++) {
      const u = await h.user();
      const p = await post(h, u);
      for (let j = 0; j < (i < 3 ? 20 : 1); j++) last = (await disable(p.id, u.token)).status;
      if (i < 3) expect(last).toBe(200);
    }
    expect(last).toBe(429);
  });
});

describe("POST and DELETE /api/v1/posts/{post_id}/mute", () => {
  test("POST mutes (201 muted), again answers already_muted; DELETE unmutes (200)", async () => {
    const author = await h.user();
    const reader = await h.user();
    const p = await post(h, author);
    const first = await h.req("POST", `/api/v1/posts/${p.id}/mute`, { token: reader.token });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ status: "muted" });
    const again = await h.req("POST", `/api/v1/posts/${p.id}/mute`, { token: reader.token });
    expect(again.status).toBe(201);
    expect(again.body).toEqual({ status: "already_muted" });
    const un = await h.req("DELETE", `/api/v1/posts/${p.id}/mute`, { token: reader.token });
    expect(un.status).toBe(200);
    expect(un.body).toEqual({ status: "unmuted" });
    const unAgain = await h.req("DELETE", `/api/v1/posts/${p.id}/mute`, { token: reader.token });
    expect(unAgain.status).toBe(200);
    expect(unAgain.body).toEqual({ status: "not_muted" });
    // The author may mute their own thread too.
    expect((await h.req("POST", `/api/v1/posts/${p.id}/mute`, { token: author.token })).body).toEqual({ status: "muted" });
  });

  test("a post the caller cannot see is 404; anonymous 401", async () => {
    const founder = await h.user();
    const priv = makeColony(h, founder, "private");
    const hidden = await post(h, founder, { colony_id: priv.id });
    const stranger = await h.user();
    for (const method of ["POST", "DELETE"]) {
      const r = await h.req(method, `/api/v1/posts/${hidden.id}/mute`, { token: stranger.token });
      expect(r.status).toBe(404);
      expect(r.body.detail.code).toBe("NOT_FOUND");
      expect((await h.req(method, `/api/v1/posts/00000000-0000-7000-8000-000000000000/mute`, { token: stranger.token })).status).toBe(404);
      expect((await h.req(method, `/api/v1/posts/${hidden.id}/mute`)).status).toBe(401);
    }
  });
});
