// Two-step registration: POST /api/v1/auth/register/begin and /register/confirm
// (spec Part 1 §2.2, §3 registration rows, §4.1, §5.1.3; docs/decisions.md §1).
import { describe, expect, test } from "bun:test";
import { setup } from "../../../test/harness";
import { MINUTE } from "../../core/clock";
import { hashSecret } from "../../core/ids";

const SECOND = 1000;

// One instance for the file, its rate limits off (beginning a registration and minting a token
// are limited per address, and every in-process request comes from the same one). Each test
// registers names of its own; the purge job it may run removes only lapsed registrations, which
// no other test reads again.
const h = setup({ rateLimitMultiplier: 0 });
let seq = 0;

const begin = (body: unknown) => h.req("POST", "/api/v1/auth/register/begin", { body });
const confirm = (claim_token: string, key_fingerprint: string) => h.req("POST", "/api/v1/auth/register/confirm", { body: { claim_token, key_fingerprint } });
const checkName = async (username: string) => (await h.req("GET", "/api/v1/auth/check-username", { query: { username } })).body;
const statusOf = (id: string) => (h.ctx.db.$client.query("select status from users where id = ?").get(id) as { status: string } | null)?.status ?? null;

async function pending(username = `pending-${++seq}`) {
  const res = await begin({ username, display_name: "Pending Agent" });
  expect(res.status).toBe(201);
  return res.body as { status: string; api_key: string; claim_token: string; id: string; username: string; expires_at: string };
}

describe("begin", () => {
  test("201 with a pending record, an rct_ claim token and a 15-minute window", async () => {
    const res = await begin({ username: "Begin-Agent", display_name: "Begin" });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["api_key", "claim_token", "expires_at", "id", "important", "key_persistence_required", "status", "username"]);
    expect(res.body.status).toBe("pending");
    expect(res.body.username).toBe("begin-agent");
    expect(res.body.api_key).toMatch(/^col_[0-9A-Za-z]{43}$/);
    expect(res.body.claim_token).toMatch(/^rct_[0-9A-Za-z]{20,}$/);
    expect(res.body.key_persistence_required).toBe(true);
    expect(res.body.important).toMatch(/fingerprint/);
    expect(res.body.expires_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(Date.parse(res.body.expires_at) - h.clock.now()).toBe(15 * MINUTE);
    expect(statusOf(res.body.id)).toBe("pending");
  });

  test("neither the key nor the claim token is stored in plain text", async () => {
    const p = await pending();
    const dump = JSON.stringify([
      h.ctx.db.$client.query("select * from users").all(),
      h.ctx.db.$client.query("select * from registration_claims").all(),
    ]);
    expect(dump).not.toContain(p.api_key);
    expect(dump).not.toContain(p.claim_token);
    expect(dump).toContain(hashSecret(p.api_key));
    expect(dump).toContain(hashSecret(p.claim_token));
  });

  test("409 CONFLICT when the name is taken; 400 INVALID_INPUT when display_name is blank; 422 on a bad name", async () => {
    await h.user({ username: "owned" });
    const taken = await begin({ username: "owned", display_name: "X" });
    expect(taken.status).toBe(409);
    expect(taken.body.detail.code).toBe("CONFLICT");
    const blank = await begin({ username: "blank-one", display_name: "   " });
    expect(blank.status).toBe(400);
    expect(blank.body.detail.code).toBe("INVALID_INPUT");
    const bad = await begin({ username: "bad name", display_name: "X" });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["body", "username"]);
  });

  test("a pending name is not available while the claim window is open", async () => {
    await pending("held-name");
    expect(await checkName("held-name")).toMatchObject({ valid: true, available: false });
    const again = await begin({ username: "held-name", display_name: "Second" });
    expect(again.status).toBe(409);
    expect(again.body.detail.code).toBe("CONFLICT");
  });
});

describe("the pending key", () => {
  test("POST /auth/token with it is 403 AUTH_PENDING_ACTIVATION", async () => {
    const p = await pending();
    const res = await h.req("POST", "/api/v1/auth/token", { body: { api_key: p.api_key } });
    expect(res.status).toBe(403);
    expect(res.body.detail.code).toBe("AUTH_PENDING_ACTIVATION");
  });

  test.each([
    ["GET", "/api/v1/users/me"],
    ["PUT", "/api/v1/users/me"],
    ["GET", "/api/v1/limits/me"],
    ["POST", "/api/v1/auth/rotate-key"],
    ["DELETE", "/api/v1/auth/account"],
  ])("sent as bearer to %s %s is 403 AUTH_PENDING_ACTIVATION", async (method, path) => {
    const p = await pending();
    const res = await h.req(method, path, { token: p.api_key, body: method === "PUT" ? { bio: "x" } : undefined });
    expect(res.status).toBe(403);
    expect(res.body.detail.code).toBe("AUTH_PENDING_ACTIVATION");
    expect(statusOf(p.id)).toBe("pending");
  });

  test("once the window has lapsed the key is simply invalid (401 AUTH_INVALID_TOKEN)", async () => {
    const p = await pending();
    h.clock.advance(15 * MINUTE);
    const token = await h.req("POST", "/api/v1/auth/token", { body: { api_key: p.api_key } });
    expect(token.status).toBe(401);
    expect(token.body.detail.code).toBe("AUTH_INVALID_TOKEN");
    const bearer = await h.req("GET", "/api/v1/users/me", { token: p.api_key });
    expect(bearer.status).toBe(401);
    expect(bearer.body.detail.code).toBe("AUTH_INVALID_TOKEN");
  });

  test("a pending account is invisible to profile lookups", async () => {
    const p = await pending("ghost-agent");
    for (const path of [`/api/v1/users/${p.id}`, "/api/v1/users/ghost-agent", "/api/v1/users/by-username/ghost-agent"]) {
      const res = await h.req("GET", path);
      expect(res.status).toBe(404);
      expect(res.body.detail.code).toBe("USER_NOT_FOUND");
    }
  });
});

describe("confirm", () => {
  test("200 {status:'active', id, username}; the key then works", async () => {
    const p = await pending();
    const res = await confirm(p.claim_token, p.api_key.slice(-6));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "active", id: p.id, username: p.username });
    expect(statusOf(p.id)).toBe("active");
    const tok = await h.req("POST", "/api/v1/auth/token", { body: { api_key: p.api_key } });
    expect(tok.status).toBe(200);
    const me = await h.req("GET", "/api/v1/users/me", { token: tok.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(p.id);
  });

  test("confirm just before the window closes still activates", async () => {
    const p = await pending();
    h.clock.advance(15 * MINUTE - SECOND);
    const res = await confirm(p.claim_token, p.api_key.slice(-6));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("active");
  });

  test("a wrong fingerprint is 400 REGISTER_FINGERPRINT_MISMATCH, stays pending, and a retry works", async () => {
    const p = await pending();
    const right = p.api_key.slice(-6);
    const flipped = right.slice(0, 5) + (right[5] === "a" ? "b" : "a");
    for (const wrong of [flipped, right.toUpperCase() === right ? right.toLowerCase() + "x" : right.toUpperCase(), p.api_key.slice(-7, -1), p.api_key, right.slice(1)]) {
      const res = await confirm(p.claim_token, wrong);
      expect(res.status).toBe(400);
      expect(res.body.detail.code).toBe("REGISTER_FINGERPRINT_MISMATCH");
      expect(statusOf(p.id)).toBe("pending");
    }
    const token = await h.req("POST", "/api/v1/auth/token", { body: { api_key: p.api_key } });
    expect(token.status).toBe(403);
    expect(token.body.detail.code).toBe("AUTH_PENDING_ACTIVATION");
    const ok = await confirm(p.claim_token, right);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ status: "active", id: p.id, username: p.username });
  });

  test("confirming twice is 409 REGISTER_ALREADY_ACTIVE (the claim token is burned)", async () => {
    const p = await pending();
    expect((await confirm(p.claim_token, p.api_key.slice(-6))).status).toBe(200);
    for (const fp of [p.api_key.slice(-6), "wrong!"]) {
      const res = await confirm(p.claim_token, fp);
      expect(res.status).toBe(409);
      expect(res.body.detail.code).toBe("REGISTER_ALREADY_ACTIVE");
    }
    // Still 409 long after the window would have closed.
    h.clock.advance(60 * MINUTE);
    const late = await confirm(p.claim_token, p.api_key.slice(-6));
    expect(late.status).toBe(409);
    expect(late.body.detail.code).toBe("REGISTER_ALREADY_ACTIVE");
  });

  test("after 15 minutes: 410 REGISTER_CLAIM_EXPIRED and the name is released", async () => {
    const p = await pending("lapsed-name");
    h.clock.advance(15 * MINUTE);
    const res = await confirm(p.claim_token, p.api_key.slice(-6));
    expect(res.status).toBe(410);
    expect(res.body.detail.code).toBe("REGISTER_CLAIM_EXPIRED");
    expect(statusOf(p.id)).toBe("pending");

    expect(await checkName("lapsed-name")).toEqual({ username: "lapsed-name", valid: true, available: true, reason: null });
    const fresh = await h.req("POST", "/api/v1/auth/register", { body: { username: "lapsed-name", display_name: "New Owner" } });
    expect(fresh.status).toBe(201);
    expect(fresh.body.username).toBe("lapsed-name");
    expect(fresh.body.id).not.toBe(p.id);

    // The old claim cannot take the name back.
    const late = await confirm(p.claim_token, p.api_key.slice(-6));
    expect(late.status).toBe(410);
    expect(late.body.detail.code).toBe("REGISTER_CLAIM_EXPIRED");
    const profile = await h.req("GET", "/api/v1/users/by-username/lapsed-name");
    expect(profile.status).toBe(200);
    expect(profile.body.id).toBe(fresh.body.id);
    expect(profile.body.display_name).toBe("New Owner");
  });

  test("a lapsed name can be begun again and confirmed by its new holder", async () => {
    const p = await pending("second-try");
    h.clock.advance(16 * MINUTE);
    const q = await pending("second-try");
    expect(q.id).not.toBe(p.id);
    const old = await confirm(p.claim_token, p.api_key.slice(-6));
    expect(old.status).toBe(410);
    expect(old.body.detail.code).toBe("REGISTER_CLAIM_EXPIRED");
    const ok = await confirm(q.claim_token, q.api_key.slice(-6));
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ status: "active", id: q.id, username: "second-try" });
  });

  test("the purge job deletes the expired pending account; a later confirm still answers 410", async () => {
    const p = await pending("purged-name");
    const sameAge = await pending("same-age");
    await h.ctx.jobs.runRecurring("purge-registrations");
    expect(statusOf(p.id)).toBe("pending"); // nothing is due yet

    h.clock.advance(15 * MINUTE);
    const pLive = await pending("still-live"); // begun later, still inside its window
    await h.ctx.jobs.runRecurring("purge-registrations");
    expect(statusOf(p.id)).toBeNull();
    expect(statusOf(sameAge.id)).toBeNull();
    expect(statusOf(pLive.id)).toBe("pending");

    const res = await confirm(p.claim_token, p.api_key.slice(-6));
    expect(res.status).toBe(410);
    expect(res.body.detail.code).toBe("REGISTER_CLAIM_EXPIRED");
    expect(await checkName("purged-name")).toMatchObject({ valid: true, available: true });

    const ok = await confirm(pLive.claim_token, pLive.api_key.slice(-6));
    expect(ok.status).toBe(200);
  });

  test("the purge job leaves active accounts alone", async () => {
    const p = await pending("kept");
    expect((await confirm(p.claim_token, p.api_key.slice(-6))).status).toBe(200);
    h.clock.advance(60 * MINUTE);
    await h.ctx.jobs.runRecurring("purge-registrations");
    expect(statusOf(p.id)).toBe("active");
  });

  test("an unknown claim token is 400 INVALID_INPUT", async () => {
    const p = await pending();
    for (const token of ["rct_doesnotexist", p.api_key, "", "x".repeat(100)]) {
      const res = await confirm(token, p.api_key.slice(-6));
      expect(res.status).toBe(400);
      expect(res.body.detail.code).toBe("INVALID_INPUT");
    }
    expect(statusOf(p.id)).toBe("pending");
  });

  test.each([
    ["missing claim_token", { key_fingerprint: "abcdef" }, ["body", "claim_token"]],
    ["missing key_fingerprint", { claim_token: "rct_x" }, ["body", "key_fingerprint"]],
    ["empty key_fingerprint", { claim_token: "rct_x", key_fingerprint: "" }, ["body", "key_fingerprint"]],
  ])("422 HTTPValidationError: %s", async (_why, body, loc) => {
    const res = await h.req("POST", "/api/v1/auth/register/confirm", { body });
    expect(res.status).toBe(422);
    expect(res.body.detail.some((d: any) => JSON.stringify(d.loc) === JSON.stringify(loc))).toBe(true);
  });

  test("an activated account that self-deletes frees its name; its old claim token is 410", async () => {
    const p = await pending("undo-me");
    expect((await confirm(p.claim_token, p.api_key.slice(-6))).status).toBe(200);
    const tok = await h.req("POST", "/api/v1/auth/token", { body: { api_key: p.api_key } });
    const del = await h.req("DELETE", "/api/v1/auth/account", { token: tok.body.access_token });
    expect(del.status).toBe(204);
    expect(await checkName("undo-me")).toMatchObject({ available: true });
    const res = await confirm(p.claim_token, p.api_key.slice(-6));
    // The claim was used: it stays "already active" rather than reviving anything.
    expect(res.status).toBe(409);
    expect(res.body.detail.code).toBe("REGISTER_ALREADY_ACTIVE");
  });
});
