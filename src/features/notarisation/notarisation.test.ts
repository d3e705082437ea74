// Notarisation (spec Part 3 §4.15): POST …/notarise and GET …/notarisation for posts and
// comments against local OpenTimestamps calendars on 127.0.0.1 (real HTTP, the calendar's wire
// format), the record's files parsed back, every documented error, and the calendars that are
// down or slow.
import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { expectError } from "../../../test/expect";
import { setup, type Harness } from "../../../test/harness";
import { downCalendar, startCalendar } from "../../../test/ots-calendar";
import { proofFacts as proofFactsOf } from "../../adapters/timestamp/calendar";
import { parseDetached, toHex } from "../../adapters/timestamp/ots";
import { comment } from "../comments/fixtures";
import { eventsOf, GENERAL, makeColony, post, setColonySettings } from "../posts/fixtures";

const cal = startCalendar();
const second = startCalendar();
const slow = startCalendar({ delayMs: 1500 });
afterAll(() => [cal, second, slow].forEach((c) => c.stop()));

// Calendars get 2 s to answer, or 400 ms where a test waits for a slow one to be given up on.
const config = (calendars: string[], over: Partial<{ enabled: boolean; timeoutMs: number }> = {}) => ({
  notarisation: { enabled: true, calendars, timeoutMs: 2000, allowPrivate: true, ...over },
  rateLimitMultiplier: 0,
});
const h = setup(config([cal.url]));
const sha256 = (s: string | Uint8Array) => createHash("sha256").update(s).digest("hex");

/** The documented recomputation, written independently of the server's code. */
function recompute(doc: Record<string, unknown>): string {
  const keys = Object.keys(doc).sort();
  const json = "{" + keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(doc[k])}`).join(",") + "}";
  return sha256(json.replace(/[^\x00-\x7e]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0")));
}

const notarise = (hh: Harness, kind: "posts" | "comments", id: string, token?: string) => hh.req("POST", `/api/v1/${kind}/${id}/notarise`, { token });

describe("POST /posts/{post_id}/notarise", () => {
  test("201: the canonical document, its hash, the proof as the calendar answered it; only the hash left", async () => {
    const u = await h.user();
    const p = await post(h, u, { title: "A finding worth keeping", body: "The body, exactly as written — with a dash." });
    const before = cal.digests.length;
    const r = await notarise(h, "posts", p.id, u.token);
    expect(r.status).toBe(201);
    const now = new Date(h.clock.now()).toISOString();
    expect(r.body).toMatchObject({
      subject_type: "post",
      subject_id: p.id,
      recorder_id: "opentimestamps",
      seq: null,
      entry_hash: null,
      server_ts: null,
      calendars: [cal.url],
      proof_state: "recorded",
      proof_observed_at: now,
      bitcoin_block_height: null,
      beacon_round: null,
      served_content_matches: true,
      notarised_at: now,
      editable: false,
      proof_url: `http://localhost/api/v1/posts/${p.id}/notarisation/proof`,
      canonical_url: `http://localhost/api/v1/posts/${p.id}/notarisation/canonical`,
    });
    expect(r.body.canonical).toEqual({
      format: "colony-notarisation-v1",
      subject_type: "post",
      subject_id: p.id,
      post_type: "discussion",
      author_id: u.id,
      author_username: u.username,
      colony_id: GENERAL.id,
      colony_name: "general",
      title_sha256: sha256("A finding worth keeping"),
      body_sha256: sha256("The body, exactly as written — with a dash."),
      created_at: p.created_at,
      instance: "http://localhost",
      notarised_at: now,
    });
    expect(r.body.payload_hash).toBe(recompute(r.body.canonical));
    expect(r.body.asserted_by_the_platform).toEqual(["author_id", "author_username", "colony_id", "colony_name", "created_at", "instance", "notarised_at", "post_type", "subject_id", "subject_type"]);
    expect(r.body.recompute).toContain("sort_keys=True");
    expect(r.body.establishes).toMatch(/Nothing independent yet/);
    // The calendar saw the digest and nothing else.
    expect(cal.digests.slice(before)).toEqual([r.body.payload_hash]);
    // The post carries notarised_at; the record is public.
    expect((await h.req("GET", `/api/v1/posts/${p.id}`)).body.notarised_at).toBe(now);
    const pub = await h.req("GET", `/api/v1/posts/${p.id}/notarisation`);
    expect(pub.status).toBe(200);
    expect(pub.body).toEqual(r.body);
    const told = eventsOf(h, "content_notarised").filter((e) => e.subject_id === p.id);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ actor_id: u.id, subject_id: p.id, payload: { subject_type: "post", post_id: p.id, colony_id: GENERAL.id, payload_hash: r.body.payload_hash } });
  });

  test("…/proof is the detached .ots proof of the canonical document; …/canonical its exact bytes", async () => {
    const u = await h.user();
    const p = await post(h, u);
    const r = await notarise(h, "posts", p.id, u.token);
    const doc = await h.app.handle(new Request(r.body.canonical_url));
    expect(doc.headers.get("content-type")).toBe("application/json");
    expect(doc.headers.get("content-disposition")).toBe(`attachment; filename="post-${p.id}.json"`);
    const bytes = new Uint8Array(await doc.arrayBuffer());
    expect(sha256(bytes)).toBe(r.body.payload_hash);
    expect(JSON.parse(new TextDecoder().decode(bytes))).toEqual(r.body.canonical);

    const ots = await h.app.handle(new Request(r.body.proof_url));
    expect(ots.status).toBe(200);
    expect(ots.headers.get("content-type")).toBe("application/vnd.opentimestamps.v1");
    expect(ots.headers.get("content-disposition")).toBe(`attachment; filename="post-${p.id}.json.ots"`);
    const proof = parseDetached(new Uint8Array(await ots.arrayBuffer()));
    expect(proof.fileHashOp).toBe(0x08);
    expect(toHex(proof.timestamp.msg)).toBe(r.body.payload_hash);
    expect(proofFactsOf(proof.timestamp)).toEqual({ pending: [cal.url], bitcoinHeights: [] });
  });

  test("several calendars: a fork per calendar that answered; down and slow ones are left out", async () => {
    const hh = setup(config([cal.url, downCalendar(), slow.url, second.url], { timeoutMs: 400 }));
    const u = await hh.user();
    const p = await post(hh, u);
    const started = performance.now();
    const r = await notarise(hh, "posts", p.id, u.token);
    expect(r.status).toBe(201);
    expect(performance.now() - started).toBeLessThan(1400);
    expect(r.body.calendars).toEqual([cal.url, second.url]);
    const proof = parseDetached(new Uint8Array(await (await hh.app.handle(new Request(r.body.proof_url))).arrayBuffer()));
    expect(proof.timestamp.ops.length).toBe(2);
    expect(proofFactsOf(proof.timestamp).pending).toEqual([cal.url, second.url].sort());
  });

  test("502 UPSTREAM_FAILURE when every calendar is down or too slow; nothing is frozen or charged", async () => {
    const hh = setup({ ...config([downCalendar(), slow.url], { timeoutMs: 400 }), rateLimitMultiplier: 1 });
    const u = await hh.user();
    const p = await post(hh, u);
    expectError(await notarise(hh, "posts", p.id, u.token), 502, "UPSTREAM_FAILURE");
    hh.ctx.config.notarisation.calendars = [downCalendar()];
    for (let i = 0; i < 5; i++) expectError(await notarise(hh, "posts", p.id, u.token), 502, "UPSTREAM_FAILURE");
    expect((await hh.req("GET", `/api/v1/posts/${p.id}`)).body.notarised_at).toBeNull();
    expectError(await hh.req("GET", `/api/v1/posts/${p.id}/notarisation`), 404, "NOT_FOUND");
    expect((await hh.req("PUT", `/api/v1/posts/${p.id}`, { token: u.token, body: { title: "Still editable" } })).status).toBe(200);
    expect(hh.ctx.db.$client.query("select count(*) as n from notarisations").get()).toEqual({ n: 0 });
    // Six failures later the daily limit (5) is untouched: once the calendars are back, it works.
    hh.ctx.config.notarisation.calendars = [cal.url];
    expect((await notarise(hh, "posts", p.id, u.token)).status).toBe(201);
  });

  test("503 NOTARISATION_DISABLED when switched off; records made before stay readable", async () => {
    const u = await h.user();
    const [p, q] = [await post(h, u), await post(h, u)];
    expect((await notarise(h, "posts", p.id, u.token)).status).toBe(201);
    h.ctx.config.notarisation.enabled = false;
    try {
      expectError(await notarise(h, "posts", q.id, u.token), 503, "NOTARISATION_DISABLED");
      expect((await h.req("GET", `/api/v1/posts/${p.id}/notarisation`)).status).toBe(200);
      expect((await h.req("GET", `/api/v1/posts/${p.id}/notarisation/proof`)).status).toBe(200);
    } finally {
      h.ctx.config.notarisation.enabled = true;
    }
  });

  test("401 anonymous, 403 FORBIDDEN for anyone but the author (a moderator too), 404 for an unknown or invisible post, 422 for a bad id", async () => {
    const [u, stranger, admin] = [await h.user(), await h.user(), await h.user({ admin: true })];
    const p = await post(h, u);
    expect((await notarise(h, "posts", p.id)).status).toBe(401);
    expectError(await notarise(h, "posts", p.id, stranger.token), 403, "FORBIDDEN");
    expectError(await notarise(h, "posts", p.id, admin.token), 403, "FORBIDDEN");
    expectError(await notarise(h, "posts", "00000000-0000-7000-8000-000000000000", u.token), 404, "NOT_FOUND");
    expect((await notarise(h, "posts", "not-a-uuid", u.token)).status).toBe(422);
    const secret = makeColony(h, u, "private");
    const hidden = await post(h, u, { colony_id: secret.id });
    expectError(await notarise(h, "posts", hidden.id, stranger.token), 404, "NOT_FOUND");
    expect((await notarise(h, "posts", hidden.id, u.token)).status).toBe(201);
    // The record of a post in a private colony is as private as the post.
    expectError(await h.req("GET", `/api/v1/posts/${hidden.id}/notarisation`, { token: stranger.token }), 404, "NOT_FOUND");
    expectError(await h.req("GET", `/api/v1/posts/${hidden.id}/notarisation/proof`), 404, "NOT_FOUND");
    expect((await h.req("GET", `/api/v1/posts/${hidden.id}/notarisation`, { token: u.token })).status).toBe(200);
    expect((await h.req("GET", `/api/v1/posts/${p.id}`)).body.notarised_at).toBeNull();
  });

  test("409 CONFLICT when already notarised, still a draft (or scheduled), or held for moderation", async () => {
    const u = await h.user();
    const p = await post(h, u);
    expect((await notarise(h, "posts", p.id, u.token)).status).toBe(201);
    expectError(await notarise(h, "posts", p.id, u.token), 409, "CONFLICT");
    const scheduled = await post(h, u, { scheduled_for: new Date(h.clock.now() + 3600_000).toISOString() });
    expectError(await notarise(h, "posts", scheduled.id, u.token), 409, "CONFLICT");
    expect((await h.req("DELETE", `/api/v1/posts/${scheduled.id}/schedule`, { token: u.token })).status).toBe(200);
    const draft = await notarise(h, "posts", scheduled.id, u.token);
    expectError(draft, 409, "CONFLICT");
    expect(draft.body.detail.message).toMatch(/draft/);
    const founder = await h.user();
    const gated = makeColony(h, founder);
    setColonySettings(h, gated.id, { requires_post_approval: true });
    const held = await post(h, u, { colony_id: gated.id });
    expect(held.held).toBe(true);
    expect((await notarise(h, "posts", held.id, u.token)).body.detail.message).toMatch(/held for moderation/);
  });

  test("two at once: one 201, the other 409; one record", async () => {
    const u = await h.user();
    const p = await post(h, u);
    const [a, b] = await Promise.all([notarise(h, "posts", p.id, u.token), notarise(h, "posts", p.id, u.token)]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    expect(h.ctx.db.$client.query("select count(*) as n from notarisations where subject_id = ?").get(p.id)).toEqual({ n: 1 });
  });

  test("an edit that lands while the calendars answer: 409, nothing frozen, the edit stands", async () => {
    const hh = setup(config([cal.url]));
    const u = await hh.user();
    const p = await post(hh, u);
    // The calendar holds the digest it received until the edit has landed.
    const calendar = cal.holdNext();
    const pending = notarise(hh, "posts", p.id, u.token);
    await calendar.arrived;
    expect((await hh.req("PUT", `/api/v1/posts/${p.id}`, { token: u.token, body: { body: "Changed meanwhile" } })).status).toBe(200);
    calendar.release();
    const r = await pending;
    expectError(r, 409, "CONFLICT");
    expect(r.body.detail.message).toMatch(/changed while/);
    const now = (await hh.req("GET", `/api/v1/posts/${p.id}`)).body;
    expect(now).toMatchObject({ body: "Changed meanwhile", notarised_at: null });
  });

  test("the daily limit: 5 a day per account, shared by posts and comments (429 RATE_LIMIT_NOTARISE)", async () => {
    const hh = setup({ ...config([cal.url]), rateLimitMultiplier: 1 });
    const u = await hh.user();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await post(hh, u)).id);
    const host = await post(hh, u);
    for (let i = 0; i < 3; i++) ids.push("c:" + (await comment(hh, u, host.id)).id);
    for (const [i, id] of ids.entries()) {
      const r = id.startsWith("c:") ? await notarise(hh, "comments", id.slice(2), u.token) : await notarise(hh, "posts", id, u.token);
      if (i < 5) expect(r.status).toBe(201);
      else expectError(r, 429, "RATE_LIMIT_NOTARISE");
    }
  });
});

describe("the per-address limit", () => {
  test("20 a day from one address, whoever signs in (429 RATE_LIMIT_NOTARISE_IP)", async () => {
    const hh = setup({ ...config([cal.url]), rateLimitMultiplier: 1 });
    let done = 0;
    for (let n = 0; n < 5; n++) {
      const u = await hh.user();
      for (let i = 0; i < (n < 4 ? 5 : 1); i++) {
        const p = await post(hh, u);
        const r = await notarise(hh, "posts", p.id, u.token);
        if (done < 20) expect(r.status).toBe(201);
        else expectError(r, 429, "RATE_LIMIT_NOTARISE_IP");
        done++;
      }
    }
  });
});

describe("POST /comments/{comment_id}/notarise", () => {
  test("201 with the comment's canonical document; every comment carries notarised_at", async () => {
    const [u, v] = [await h.user(), await h.user()];
    const p = await post(h, v);
    const parent = await comment(h, v, p.id);
    const c = await comment(h, u, p.id, { body: "A reply to keep", parent_id: parent.id });
    expect(c.notarised_at).toBeNull();
    const r = await notarise(h, "comments", c.id, u.token);
    expect(r.status).toBe(201);
    const now = new Date(h.clock.now()).toISOString();
    expect(r.body).toMatchObject({ subject_type: "comment", subject_id: c.id, proof_state: "recorded", notarised_at: now, served_content_matches: true });
    expect(r.body.canonical).toEqual({
      format: "colony-notarisation-v1",
      subject_type: "comment",
      subject_id: c.id,
      post_id: p.id,
      parent_id: parent.id,
      author_id: u.id,
      author_username: u.username,
      colony_id: GENERAL.id,
      colony_name: "general",
      body_sha256: sha256("A reply to keep"),
      created_at: c.created_at,
      instance: "http://localhost",
      notarised_at: now,
    });
    expect(r.body.payload_hash).toBe(recompute(r.body.canonical));
    expect(r.body.proof_url).toBe(`http://localhost/api/v1/comments/${c.id}/notarisation/proof`);
    expect((await h.req("GET", `/api/v1/comments/${c.id}`)).body.notarised_at).toBe(now);
    const list = (await h.req("GET", `/api/v1/posts/${p.id}/comments`)).body.items;
    expect(list.find((x: any) => x.id === c.id).notarised_at).toBe(now);
    expect(list.find((x: any) => x.id === parent.id).notarised_at).toBeNull();
    // The post it answers is not frozen by it.
    expect((await h.req("GET", `/api/v1/posts/${p.id}`)).body.notarised_at).toBeNull();
    const pub = await h.req("GET", `/api/v1/comments/${c.id}/notarisation`);
    expect(pub.body).toEqual(r.body);
    const doc = await h.app.handle(new Request(r.body.canonical_url));
    expect(sha256(new Uint8Array(await doc.arrayBuffer()))).toBe(r.body.payload_hash);
    const proof = parseDetached(new Uint8Array(await (await h.app.handle(new Request(r.body.proof_url))).arrayBuffer()));
    expect(toHex(proof.timestamp.msg)).toBe(r.body.payload_hash);
  });

  test("401, 403 FORBIDDEN for others, 404 for unknown or deleted, 409 twice or held, 502 and 503", async () => {
    const [u, v] = [await h.user(), await h.user()];
    const p = await post(h, v);
    const c = await comment(h, u, p.id);
    expect((await notarise(h, "comments", c.id)).status).toBe(401);
    expectError(await notarise(h, "comments", c.id, v.token), 403, "FORBIDDEN");
    expectError(await notarise(h, "comments", "00000000-0000-7000-8000-000000000000", u.token), 404, "NOT_FOUND");
    const gone = await comment(h, u, p.id);
    await h.req("DELETE", `/api/v1/comments/${gone.id}`, { token: u.token });
    expectError(await notarise(h, "comments", gone.id, u.token), 404, "NOT_FOUND");
    expectError(await h.req("GET", `/api/v1/comments/${c.id}/notarisation`), 404, "NOT_FOUND");
    expect((await notarise(h, "comments", c.id, u.token)).status).toBe(201);
    expectError(await notarise(h, "comments", c.id, u.token), 409, "CONFLICT");
    const founder = await h.user();
    const strict = makeColony(h, founder);
    setColonySettings(h, strict.id, { banned_words: ["forbiddenword"], banned_words_action: "quarantine" });
    const sp = await post(h, founder, { colony_id: strict.id });
    const held = await comment(h, u, sp.id, { body: "this has forbiddenword in it" });
    expect(held.held).toBe(true);
    expectError(await notarise(h, "comments", held.id, u.token), 409, "CONFLICT");

    const c2 = await comment(h, u, p.id);
    h.ctx.config.notarisation.calendars = [downCalendar()];
    try {
      expectError(await notarise(h, "comments", c2.id, u.token), 502, "UPSTREAM_FAILURE");
      expect((await h.req("GET", `/api/v1/comments/${c2.id}`)).body.notarised_at).toBeNull();
    } finally {
      h.ctx.config.notarisation.calendars = [cal.url];
    }
    h.ctx.config.notarisation.enabled = false;
    try {
      expectError(await notarise(h, "comments", c2.id, u.token), 503, "NOTARISATION_DISABLED");
    } finally {
      h.ctx.config.notarisation.enabled = true;
    }
  });
});

describe("GET /users/{user_id}/notarisations", () => {
  test("newest first, posts and comments, by id, username or the by-username twin; what the caller cannot see is left out", async () => {
    const [u, stranger] = [await h.user(), await h.user()];
    const p = await post(h, u, { title: "First proof" });
    expect((await notarise(h, "posts", p.id, u.token)).status).toBe(201);
    h.clock.advance(1000);
    const host = await post(h, stranger);
    const c = await comment(h, u, host.id);
    expect((await notarise(h, "comments", c.id, u.token)).status).toBe(201);
    h.clock.advance(1000);
    const secret = makeColony(h, u, "private");
    const hidden = await post(h, u, { colony_id: secret.id });
    expect((await notarise(h, "posts", hidden.id, u.token)).status).toBe(201);

    const mine = await h.req("GET", `/api/v1/users/${u.id}/notarisations`, { token: u.token });
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ total: 3, has_more: false });
    expect(mine.body.items.map((i: any) => i.subject_id)).toEqual([hidden.id, c.id, p.id]);
    expect(mine.body.items[1]).toEqual({
      subject_type: "comment",
      subject_id: c.id,
      post_id: host.id,
      title: null,
      payload_hash: expect.any(String),
      proof_state: "recorded",
      proof_observed_at: expect.any(String),
      seq: null,
      server_ts: null,
      notarised_at: expect.any(String),
      proof_url: `http://localhost/api/v1/comments/${c.id}/notarisation/proof`,
      record_url: `http://localhost/api/v1/comments/${c.id}/notarisation`,
    });
    expect(mine.body.items[2]).toMatchObject({ subject_type: "post", post_id: p.id, title: "First proof" });

    const anon = await h.req("GET", `/api/v1/users/${u.username}/notarisations`);
    expect(anon.body.items.map((i: any) => i.subject_id)).toEqual([c.id, p.id]);
    expect((await h.req("GET", `/api/v1/users/by-username/${u.username}/notarisations`, { query: { limit: 1, offset: 1 } })).body).toMatchObject({ total: 2, has_more: false, items: [{ subject_id: p.id }] });
    // Content a moderator removed leaves the list (its record answers 404 too).
    const admin = await h.user({ admin: true });
    expect((await h.req("DELETE", `/api/v1/posts/${p.id}`, { token: admin.token })).status).toBe(204);
    expect((await h.req("GET", `/api/v1/users/${u.id}/notarisations`)).body.items.map((i: any) => i.subject_id)).toEqual([c.id]);
  });

  test("an unknown author is 404 USER_NOT_FOUND; a bad limit 422", async () => {
    expectError(await h.req("GET", "/api/v1/users/nobody-at-all/notarisations"), 404, "USER_NOT_FOUND");
    expectError(await h.req("GET", "/api/v1/users/by-username/nobody-at-all/notarisations"), 404, "USER_NOT_FOUND");
    const u = await h.user();
    expect((await h.req("GET", `/api/v1/users/${u.id}/notarisations`, { query: { limit: 101 } })).status).toBe(422);
    expect((await h.req("GET", `/api/v1/users/${u.id}/notarisations`)).body).toEqual({ items: [], total: 0, has_more: false });
  });
});
