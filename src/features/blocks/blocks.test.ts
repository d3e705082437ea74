import { beforeEach, describe, expect, test } from "bun:test";
import { setup, type TestUser } from "../../../test/harness";
import { G, makeGroup } from "../messages/groups/gtestkit";
import { expectError } from "../../../test/expect";
import { send, sent } from "../messages/testkit";
import { post } from "../posts/fixtures";

// One database for the file: each test blocks between three accounts of its own.
const h = setup();
let alice: TestUser, bob: TestUser, carol: TestUser;

beforeEach(async () => {
  alice = await h.user();
  bob = await h.user();
  carol = await h.user();
});

/** Rows of `table` naming any of the accounts in `column`s. */
const rowsAbout = (table: string, columns: string[], ids: string[]) =>
  (h.ctx.db.$client.query(`select count(*) as n from ${table} where ${columns.map((c) => `${c} in (${ids.map(() => "?").join(", ")})`).join(" or ")}`).get(...columns.flatMap(() => ids)) as { n: number }).n;

const block = (by: TestUser, target: string) => h.req("POST", `/api/v1/users/${target}/block`, { token: by.token });
const unblock = (by: TestUser, target: string) => h.req("DELETE", `/api/v1/users/${target}/block`, { token: by.token });
const blocked = (by: TestUser, query: Record<string, number> = {}) => h.req("GET", "/api/v1/users/me/blocked", { token: by.token, query });

describe("block, unblock, list", () => {
  test("block by id or username; the list is the blocker's own, newest first; unblock", async () => {
    expect(await block(alice, bob.id)).toMatchObject({ status: 201, body: { status: "blocked" } });
    h.clock.advance(1000);
    expect((await block(alice, carol.username)).status).toBe(201);
    const list = await blocked(alice);
    expect(list.status).toBe(200);
    expect(list.body.map((u: any) => u.username)).toEqual([carol.username, bob.username]);
    expect(list.headers.get("x-total-count")).toBe("2");
    expect((await blocked(alice, { limit: 1 })).body.map((u: any) => u.username)).toEqual([carol.username]);
    expect((await blocked(bob)).body).toEqual([]);
    expect((await unblock(alice, bob.username)).status).toBe(204);
    expect((await blocked(alice)).body.map((u: any) => u.username)).toEqual([carol.username]);
  });

  test("errors: 401 anonymous, 400 self, 404 unknown user, 409 already blocked, 404 unblocking someone not blocked, 429 after 30 an hour", async () => {
    expect((await h.req("POST", `/api/v1/users/${bob.id}/block`)).status).toBe(401);
    expect((await h.req("GET", "/api/v1/users/me/blocked")).status).toBe(401);
    expectError(await block(alice, alice.id), 400, "INVALID_INPUT");
    expectError(await block(alice, "nobody-here"), 404, "USER_NOT_FOUND");
    expect((await block(alice, bob.id)).status).toBe(201);
    expectError(await block(alice, bob.id), 409, "CONFLICT");
    expectError(await unblock(alice, carol.id), 404, "NOT_FOUND");
    expectError(await unblock(alice, "nobody-here"), 404, "USER_NOT_FOUND");
    expect((await blocked(alice, { limit: 101 })).status).toBe(422);
    for (let i = 0; i < 29; i++) await block(alice, (await h.user()).id);
    expect((await block(alice, carol.id)).status).toBe(429);
  });
});

describe("what a block does", () => {
  test("no DMs, typing, reactions or edits in the 1:1 thread, either way; groups are not affected", async () => {
    const m = await sent(h, bob, alice, "before");
    const mine = await sent(h, alice, bob, "mine");
    expect((await block(alice, bob.id)).status).toBe(201);
    expectError(await send(h, bob, alice), 403, "FORBIDDEN");
    expectError(await send(h, alice, bob), 403, "FORBIDDEN");
    expectError(await h.req("POST", `/api/v1/messages/conversations/${alice.username}/typing`, { token: bob.token }), 403, "FORBIDDEN");
    expectError(await h.req("POST", `/api/v1/messages/${m.id}/reactions`, { token: alice.token, body: { emoji: "👍" } }), 403, "FORBIDDEN");
    expectError(await h.req("PATCH", `/api/v1/messages/${mine.id}`, { token: alice.token, body: { body: "edited" } }), 403, "FORBIDDEN");
    // Forwarding to them is a send too.
    const other = await sent(h, carol, alice, "from carol");
    expectError(await h.req("POST", `/api/v1/messages/${other.id}/forward`, { token: alice.token, query: { recipient_username: bob.username } }), 403, "FORBIDDEN");
    // Others are unaffected; after unblocking, the thread works again.
    expect((await send(h, carol, alice)).status).toBe(201);
    expect((await unblock(alice, bob.id)).status).toBe(204);
    expect((await send(h, bob, alice)).status).toBe(201);
  });

  test("nobody is put in a group with someone who blocks them or whom they block", async () => {
    expect((await block(bob, alice.id)).status).toBe(201);
    expectError(await h.req("POST", `${G}?title=Team&members=${bob.username}&members=${carol.username}`, { token: alice.token }), 403, "FORBIDDEN");
    const conv = await makeGroup(h, alice, [carol]);
    expectError(await h.req("POST", `${G}/${conv}/members`, { token: alice.token, body: { username: bob.username } }), 403, "FORBIDDEN");
    expect((await h.req("POST", `${G}/${conv}/members`, { token: alice.token, body: { username: (await h.user()).username } })).status).toBeLessThan(300);
  });

  test("follows are removed both ways and cannot be made again; unblocking restores none", async () => {
    expect((await h.req("POST", `/api/v1/users/${bob.id}/follow`, { token: alice.token })).status).toBe(201);
    expect((await h.req("POST", `/api/v1/users/${alice.id}/follow`, { token: bob.token })).status).toBe(201);
    expect((await block(alice, bob.id)).status).toBe(201);
    await h.ctx.events.drain();
    expect(rowsAbout("follows", ["follower_id", "followee_id"], [alice.id, bob.id])).toBe(0);
    expectError(await h.req("POST", `/api/v1/users/${alice.id}/follow`, { token: bob.token }), 403, "FORBIDDEN");
    expectError(await h.req("POST", `/api/v1/users/${bob.id}/follow`, { token: alice.token }), 403, "FORBIDDEN");
    expect((await unblock(alice, bob.id)).status).toBe(204);
    await h.ctx.events.drain();
    expect(rowsAbout("follows", ["follower_id", "followee_id"], [alice.id, bob.id])).toBe(0);
    expect((await h.req("POST", `/api/v1/users/${alice.id}/follow`, { token: bob.token })).status).toBe(201);
  });

  test("the blocker is not notified of their social acts; they may still comment; others still notify", async () => {
    const p = await post(h, alice, { title: "Alice's post" });
    expect((await block(alice, bob.id)).status).toBe(201);
    expect((await h.req("POST", `/api/v1/posts/${p.id}/comments`, { token: bob.token, body: { body: `still here @${alice.username}` } })).status).toBe(201);
    expect((await h.req("POST", `/api/v1/posts/${p.id}/comments`, { token: carol.token, body: { body: "hello" } })).status).toBe(201);
    await h.ctx.events.drain();
    const notes = (await h.req("GET", "/api/v1/notifications", { token: alice.token })).body;
    const actors = (notes.items ?? notes).map((n: any) => n.actor?.username ?? n.actor_username ?? n.actor_id);
    expect(actors.some((a: string) => a === carol.username || a === carol.id)).toBe(true);
    expect(actors.some((a: string) => a === bob.username || a === bob.id)).toBe(false);
  });

  test("their posts leave the blocker's for-you feed", async () => {
    const p = await post(h, bob, { title: "Bob's popular post" });
    h.ctx.db.$client.query("update posts set score = 10 where id = ?").run(p.id);
    const feed = async () => (await h.req("GET", "/api/v1/feed/for-you", { token: alice.token })).body.items.map((i: any) => i.post?.id);
    expect(await feed()).toContain(p.id);
    expect((await block(alice, bob.id)).status).toBe(201);
    expect(await feed()).not.toContain(p.id);
  });

  test("a deleted account's blocks go with it", async () => {
    expect((await block(bob, alice.id)).status).toBe(201);
    expect((await h.req("DELETE", "/api/v1/auth/account", { token: bob.token })).status).toBe(204);
    await h.ctx.events.drain();
    expect(rowsAbout("user_blocks", ["blocker_id", "blocked_id"], [bob.id])).toBe(0);
  });
});
