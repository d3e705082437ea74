// Idempotency-Key (spec Part 1 §8.1) on real endpoints: PUT /api/v1/users/me and
// POST /api/v1/auth/rotate-key.
import { beforeEach, describe, expect, test } from "bun:test";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { HOUR, MINUTE } from "../../core/clock";

// One instance for the file: idempotency keys are per user, and each test has its own. A test
// that moves the clock a day ahead has an instance of its own.
const shared = setup();
let h: Harness;
let u: TestUser;

beforeEach(async () => {
  h = shared;
  u = await h.user();
});

/** For a test that moves the clock a day ahead: an instance and an account of its own. */
async function ownInstance() {
  h = setup();
  u = await h.user();
}

const put = (body: unknown, key?: string, token = u.token) =>
  h.req("PUT", "/api/v1/users/me", { token, body, headers: key === undefined ? {} : { "idempotency-key": key } });
const rotate = (key?: string, token = u.token) => h.req("POST", "/api/v1/auth/rotate-key", { token, headers: key === undefined ? {} : { "idempotency-key": key } });
const mint = (api_key: string) => h.req("POST", "/api/v1/auth/token", { body: { api_key } });
const getMe = (token = u.token) => h.req("GET", "/api/v1/users/me", { token });

describe("PUT /users/me", () => {
  test("a replay answers the stored status and body with Idempotent-Replay: true, without re-executing", async () => {
    const first = await put({ bio: "one" }, "k-1");
    expect(first.status).toBe(200);
    expect(first.body.bio).toBe("one");
    expect(first.headers.get("idempotent-replay")).toBeNull();

    // Change the profile in between without a key: a re-execution would overwrite it.
    expect((await put({ bio: "two" })).body.bio).toBe("two");
    h.clock.advance(HOUR);

    const replay = await put({ bio: "one" }, "k-1");
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replay")).toBe("true");
    expect(replay.headers.get("content-type")).toMatch(/^application\/json/);
    expect(replay.text).toBe(first.text);
    expect((await getMe()).body.bio).toBe("two");
  });

  test("the same key with a different body is 409 idempotency_payload_mismatch and changes nothing", async () => {
    expect((await put({ bio: "one" }, "k-2")).status).toBe(200);
    const res = await put({ bio: "other" }, "k-2");
    expect(res.status).toBe(409);
    expect(res.body.detail.code).toBe("idempotency_payload_mismatch");
    expect((await getMe()).body.bio).toBe("one");
  });

  test("keys are per user: another user's identical key is independent", async () => {
    const other = await h.user();
    const mine = await put({ bio: "mine" }, "shared-key");
    const theirs = await put({ bio: "theirs" }, "shared-key", other.token);
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get("idempotent-replay")).toBeNull();
    expect(theirs.body).toMatchObject({ id: other.id, bio: "theirs" });
    // Even with the same body, the other user's request executes on their own record.
    const same = await put({ bio: "mine" }, "shared-key-2");
    const sameOther = await put({ bio: "mine" }, "shared-key-2", other.token);
    expect(same.body.id).toBe(u.id);
    expect(sameOther.body.id).toBe(other.id);
    expect(sameOther.headers.get("idempotent-replay")).toBeNull();
    expect(mine.body.id).toBe(u.id);
    expect((await getMe(other.token)).body.bio).toBe("mine");
  });

  test("a non-2xx response is not stored: the key is free for the next request", async () => {
    const bad = await put({ bio: "x".repeat(1001) }, "k-3");
    expect(bad.status).toBe(422);
    const blank = await put({ display_name: "   " }, "k-3");
    expect(blank.status).toBe(400);
    expect(blank.body.detail.code).toBe("INVALID_INPUT");
    expect(blank.headers.get("idempotent-replay")).toBeNull();
    const ok = await put({ bio: "fine" }, "k-3");
    expect(ok.status).toBe(200);
    expect(ok.headers.get("idempotent-replay")).toBeNull();
    expect(ok.body.bio).toBe("fine");
  });

  test("a failed request retried with the same key and body executes", async () => {
    const bad = await put({ lightning_address: "nope" }, "k-4");
    expect(bad.status).toBe(422);
    const again = await put({ lightning_address: "nope" }, "k-4");
    expect(again.status).toBe(422);
    expect(again.headers.get("idempotent-replay")).toBeNull();
  });

  test("records expire after 24 hours: the request then executes again", async () => {
    await ownInstance();
    expect((await put({ bio: "one" }, "k-5")).status).toBe(200);
    expect((await put({ bio: "two" })).status).toBe(200);

    h.clock.advance(24 * HOUR);
    const token = (await mint(u.apiKey)).body.access_token; // the first token just expired
    const stillStored = await put({ bio: "one" }, "k-5", token);
    expect(stillStored.headers.get("idempotent-replay")).toBe("true");
    expect((await getMe(token)).body.bio).toBe("two");

    h.clock.advance(1);
    const fresh = await put({ bio: "one" }, "k-5", token);
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get("idempotent-replay")).toBeNull();
    expect((await getMe(token)).body.bio).toBe("one");
  });

  test("a key still being processed is 409 idempotency_in_progress", async () => {
    // Two in-process requests cannot be made to overlap deterministically, so put the stored record
    // back into the state it has while its first request runs.
    expect((await put({ bio: "slow" }, "k-6")).status).toBe(200);
    h.ctx.db.$client.query("update idempotency_keys set state = 'in_progress', status = null, body = null where user_id = ? and key = ?").run(u.id, "k-6");
    const res = await put({ bio: "slow" }, "k-6");
    expect(res.status).toBe(409);
    expect(res.body.detail.code).toBe("idempotency_in_progress");
    expect(res.headers.get("retry-after")).not.toBeNull();
  });

  test("an over-long key is 400 INVALID_INPUT; 255 characters is fine", async () => {
    const long = await put({ bio: "x" }, "k".repeat(256));
    expect(long.status).toBe(400);
    expect(long.body.detail.code).toBe("INVALID_INPUT");
    const max = await put({ bio: "x" }, "k".repeat(255));
    expect(max.status).toBe(200);
    expect((await put({ bio: "x" }, "k".repeat(255))).headers.get("idempotent-replay")).toBe("true");
  });

  test("an unauthenticated request with a key is 401 and stores nothing", async () => {
    const res = await put({ bio: "anon" }, "k-7", null as unknown as string);
    expect(res.status).toBe(401);
    expect(res.body.detail.code).toBe("AUTH_INVALID_TOKEN");
    const ok = await put({ bio: "anon" }, "k-7");
    expect(ok.status).toBe(200);
    expect(ok.headers.get("idempotent-replay")).toBeNull();
  });
});

describe("POST /auth/rotate-key", () => {
  test("a replay returns the same key, which still works: the rotation ran once", async () => {
    const first = await rotate("rot-1");
    expect(first.status).toBe(200);
    const replay = await rotate("rot-1");
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replay")).toBe("true");
    expect(replay.body).toEqual(first.body);
    expect(replay.body.api_key).toBe(first.body.api_key);

    const works = await mint(first.body.api_key);
    expect(works.status).toBe(200);
    const old = await mint(u.apiKey);
    expect(old.status).toBe(401);
    expect(old.body.detail.code).toBe("AUTH_INVALID_TOKEN");
  });

  test("a different key rotates again (with a token of the new key: the rotation revoked the old ones)", async () => {
    const first = await rotate("rot-a");
    expect((await rotate("rot-b")).body.detail.code).toBe("AUTH_TOKEN_REVOKED");
    const second = await rotate("rot-b", (await mint(first.body.api_key)).body.access_token);
    expect(second.status).toBe(200);
    expect(second.headers.get("idempotent-replay")).toBeNull();
    expect(second.body.api_key).not.toBe(first.body.api_key);
    const stale = await mint(first.body.api_key);
    expect(stale.status).toBe(401);
    expect(stale.body.detail.code).toBe("AUTH_INVALID_TOKEN");
    expect((await mint(second.body.api_key)).status).toBe(200);
  });

  test("the same key with a body is a different request: 409 idempotency_payload_mismatch (to the revoked token: 401, nothing told)", async () => {
    const first = await rotate("rot-2");
    const again = (token: string) => h.req("POST", "/api/v1/auth/rotate-key", { token, body: { reason: "again" }, headers: { "idempotency-key": "rot-2" } });
    expect((await again(u.token)).body.detail.code).toBe("AUTH_TOKEN_REVOKED");
    const fresh = (await mint(first.body.api_key)).body.access_token;
    const res = await again(fresh);
    expect(res.status).toBe(409);
    expect(res.body.detail.code).toBe("idempotency_payload_mismatch");
    expect((await mint(first.body.api_key)).status).toBe(200);
  });

  test("the token a rotation revoked gets that rotation's answer again for 10 minutes, and nothing else", async () => {
    await ownInstance();
    const first = await rotate("rot-lost");
    expect(first.status).toBe(200);
    h.clock.advance(9 * MINUTE);
    const replay = await rotate("rot-lost");
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replay")).toBe("true");
    expect(replay.body.api_key).toBe(first.body.api_key);
    // Without the key, with another key, or on another route: revoked.
    for (const r of [await rotate(), await rotate("rot-other"), await getMe()]) expect(r.body.detail.code).toBe("AUTH_TOKEN_REVOKED");
    h.clock.advance(2 * MINUTE);
    expect((await rotate("rot-lost")).body.detail.code).toBe("AUTH_TOKEN_REVOKED");
    expect((await mint(first.body.api_key)).status).toBe(200);
  });

  test("keys are per user", async () => {
    const other = await h.user();
    const mine = await rotate("rot-shared");
    const theirs = await rotate("rot-shared", other.token);
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get("idempotent-replay")).toBeNull();
    expect(theirs.body.api_key).not.toBe(mine.body.api_key);
    expect((await mint(mine.body.api_key)).status).toBe(200);
    expect((await mint(theirs.body.api_key)).status).toBe(200);
  });

  test("after 24 hours the same key rotates again", async () => {
    await ownInstance();
    const first = await rotate("rot-3");
    h.clock.advance(24 * HOUR + 1);
    const token = (await mint(first.body.api_key)).body.access_token;
    const second = await rotate("rot-3", token);
    expect(second.status).toBe(200);
    expect(second.headers.get("idempotent-replay")).toBeNull();
    expect(second.body.api_key).not.toBe(first.body.api_key);
    const stale = await mint(first.body.api_key);
    expect(stale.status).toBe(401);
    expect(stale.body.detail.code).toBe("AUTH_INVALID_TOKEN");
  });
});
