// Web sessions: their lifetimes (moved by the TestClock), the sessions list, signing out one or
// everywhere, and every change that ends them.
import { beforeEach, describe, expect, test } from "bun:test";
import { DAY, MINUTE } from "../../core/clock";
import { setup, type Harness } from "../../../test/harness";
import { ADMIN_ROTATION, callerOf, deleteOwnAccount, rotateKey } from "../auth/service";
import * as usersService from "../users/service";
import { changePassword } from "./account";
import { CLIENT, PASSWORD, human, refusal } from "./fixtures";
import { verifyPassword } from "./passwords";
import { endSession, listSessions, purgeEndedSessions, resolveSession, revokeAllSessions, revokeSession, startSession } from "./service";

// One instance for the file: each test makes its own accounts and sessions. A test that moves
// the clock by days, or counts what a sweep removed, has an instance of its own.
const shared = setup();
let h: Harness;
beforeEach(() => {
  h = shared;
});

const resolve = (token: string) => resolveSession(h.ctx, token, CLIENT);
const callerFor = (id: string) => callerOf(usersService.findById(h.ctx, id)!);


describe("lifetimes", () => {
  test("a session unused for 30 days is over, and is deleted when met", async () => {
    h = setup();
    const u = await human(h);
    const { token } = startSession(h.ctx, u.id, CLIENT);
    h.clock.advance(30 * DAY - 1);
    expect(resolve(token)?.user.id).toBe(u.id);
    const { token: idle } = startSession(h.ctx, u.id, CLIENT);
    h.clock.advance(30 * DAY);
    expect(resolve(idle)).toBeNull();
    expect(h.ctx.db.$client.query("select count(*) n from web_sessions").get()).toEqual({ n: 1 });
  });

  test("use keeps a session alive, but never past 90 days after sign-in", async () => {
    h = setup();
    const u = await human(h);
    const { token } = startSession(h.ctx, u.id, CLIENT);
    for (let day = 20; day < 90; day += 20) {
      h.clock.advance(20 * DAY);
      expect([day, resolve(token)?.user.id]).toEqual([day, u.id]);
    }
    h.clock.set(h.clock.now() + (90 - 80) * DAY - 1);
    expect(resolve(token)?.user.id).toBe(u.id);
    h.clock.advance(1);
    expect(resolve(token)).toBeNull();
  });

  test("last seen, the address and the browser move at most once a minute", async () => {
    const u = await human(h);
    const { token, session } = startSession(h.ctx, u.id, CLIENT);
    h.clock.advance(MINUTE - 1);
    expect(resolveSession(h.ctx, token, { ip: "203.0.113.1", userAgent: "Other" })?.session.lastSeenAt).toBe(session.createdAt);
    h.clock.advance(1);
    const seen = resolveSession(h.ctx, token, { ip: "203.0.113.1", userAgent: "Other" })!.session;
    expect(seen).toMatchObject({ lastSeenAt: h.clock.now(), ip: "203.0.113.1", userAgent: "Other" });
    expect(listSessions(h.ctx, u.id)[0]).toMatchObject({ lastSeenAt: h.clock.now(), ip: "203.0.113.1" });
  });

  test("the sweep deletes sessions that are over and keeps the others", async () => {
    h = setup();
    const u = await human(h);
    startSession(h.ctx, u.id, CLIENT);
    h.clock.advance(29 * DAY);
    const { token } = startSession(h.ctx, u.id, CLIENT);
    h.clock.advance(2 * DAY);
    expect(purgeEndedSessions(h.ctx)).toBe(1);
    expect(resolve(token)?.user.id).toBe(u.id);
  });

  test("tokens that are not a session's resolve to nothing", async () => {
    for (const t of ["", "short", "x".repeat(43), "ä".repeat(43), "a".repeat(500)]) expect(resolve(t)).toBeNull();
  });
});

describe("signing out", () => {
  test("the sessions list shows the account's sessions, most recent first, and no one else's", async () => {
    const u = await human(h);
    const other = await human(h);
    const a = startSession(h.ctx, u.id, CLIENT);
    h.clock.advance(MINUTE);
    const b = startSession(h.ctx, u.id, { ip: "203.0.113.5", userAgent: null });
    startSession(h.ctx, other.id, CLIENT);
    expect(listSessions(h.ctx, u.id).map((s) => s.id)).toEqual([b.session.id, a.session.id]);
  });

  test("revoking one session ends it; another account's session is 404 and stays", async () => {
    const u = await human(h);
    const other = await human(h);
    const mine = startSession(h.ctx, u.id, CLIENT);
    const theirs = startSession(h.ctx, other.id, CLIENT);
    expect(await refusal(() => revokeSession(h.ctx, u.id, theirs.session.id))).toEqual({ status: 404, code: "NOT_FOUND" });
    expect(resolve(theirs.token)?.user.id).toBe(other.id);
    revokeSession(h.ctx, u.id, mine.session.id);
    expect(resolve(mine.token)).toBeNull();
    expect(await refusal(() => revokeSession(h.ctx, u.id, mine.session.id))).toEqual({ status: 404, code: "NOT_FOUND" });
  });

  test("signing out everywhere ends every session of the account, and only those", async () => {
    const u = await human(h);
    const other = await human(h);
    const sessions = [startSession(h.ctx, u.id, CLIENT), startSession(h.ctx, u.id, CLIENT)];
    const theirs = startSession(h.ctx, other.id, CLIENT);
    expect(revokeAllSessions(h.ctx, u.id)).toBe(2);
    for (const s of sessions) expect(resolve(s.token)).toBeNull();
    expect(resolve(theirs.token)?.user.id).toBe(other.id);
  });

  test("signing out ends the cookie's session only", async () => {
    const u = await human(h);
    const a = startSession(h.ctx, u.id, CLIENT);
    const b = startSession(h.ctx, u.id, CLIENT);
    endSession(h.ctx, a.token);
    endSession(h.ctx, "not a token");
    expect(resolve(a.token)).toBeNull();
    expect(resolve(b.token)?.user.id).toBe(u.id);
  });
});

describe("changes that end sessions", () => {
  test("a password change ends every other session and keeps the one that made it", async () => {
    const u = await human(h);
    const here = startSession(h.ctx, u.id, CLIENT);
    const there = startSession(h.ctx, u.id, CLIENT);
    await changePassword(h.ctx, callerFor(u.id), { current: PASSWORD, password: "a brand new passphrase" }, here.session.id);
    expect(resolve(here.token)?.user.id).toBe(u.id);
    expect(resolve(there.token)).toBeNull();
    expect(await verifyPassword(h.ctx, u.id, "a brand new passphrase")).toBe(true);
  });

  test("a wrong current password is 403 and changes nothing; a refused new one is 422 first", async () => {
    const u = await human(h);
    const here = startSession(h.ctx, u.id, CLIENT);
    const there = startSession(h.ctx, u.id, CLIENT);
    expect(await refusal(() => changePassword(h.ctx, callerFor(u.id), { current: "not my password", password: "a brand new passphrase" }, here.session.id))).toEqual({ status: 403, code: "PASSWORD_INCORRECT" });
    await expect(changePassword(h.ctx, callerFor(u.id), { current: PASSWORD, password: "short" }, here.session.id)).rejects.toThrow("at least 10 characters");
    expect(resolve(there.token)?.user.id).toBe(u.id);
    expect(await verifyPassword(h.ctx, u.id, PASSWORD)).toBe(true);
  });

  test("an account without a password sets its first without a current one; agents have none to set", async () => {
    const u = await h.user({ human: true });
    const s = startSession(h.ctx, u.id, CLIENT);
    await changePassword(h.ctx, callerFor(u.id), { password: "my very first password" }, s.session.id);
    expect(await verifyPassword(h.ctx, u.id, "my very first password")).toBe(true);
    const agent = await h.user();
    expect(await refusal(() => changePassword(h.ctx, callerFor(agent.id), { password: "an agent's password" }, s.session.id))).toEqual({ status: 403, code: "AUTH_HUMAN_ONLY" });
  });

  test("a credential reset by an administrator ends the sessions made before it", async () => {
    const u = await human(h);
    const before = startSession(h.ctx, u.id, CLIENT);
    rotateKey(h.ctx, u.id, ADMIN_ROTATION);
    expect(resolve(before.token)).toBeNull();
    h.clock.advance(1);
    const after = startSession(h.ctx, u.id, CLIENT);
    expect(resolve(after.token)?.user.id).toBe(u.id);
  });

  test("an account that stops being active has no sessions, and a deleted one leaves nothing behind", async () => {
    const u = await human(h);
    const s = startSession(h.ctx, u.id, CLIENT);
    h.ctx.db.$client.query("update users set status = 'pending', pending_expires_at = 0 where id = ?").run(u.id);
    expect(resolve(s.token)).toBeNull();
    // The only deletion path today is an agent's own; the clean-up is the account's, whatever its type.
    const agent = await h.user();
    startSession(h.ctx, agent.id, CLIENT);
    deleteOwnAccount(h.ctx, callerFor(agent.id));
    await h.ctx.events.drain();
    expect(h.ctx.db.$client.query("select count(*) n from web_sessions where user_id = ?").get(agent.id)).toEqual({ n: 0 });
  });
});
