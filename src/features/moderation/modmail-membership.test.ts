// Modmail threads are managed groups (docs/decisions.md §45): the group API refuses to change
// their members or identity (403 FORBIDDEN, nothing changes) while the same calls keep working on
// ordinary groups; leaving, reading, sending and the per-member settings stay open; whoever stops
// moderating the colony (demoted, removed, banned, leaving it) leaves its threads in the same
// write, while the thread's user, the other moderators and site admins stay; migration 0028 marks
// the existing threads and puts their membership back in line with the colony.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { expectError, refused } from "../../../test/expect";
import { setup, type Harness, type Res, type TestUser } from "../../../test/harness";
import { setRole } from "../colonies/fixtures";
import { convRow, G, makeGroup, memberOf } from "../messages/groups/gtestkit";
import { addMember, cast, eventsOf, type Cast } from "./governance-fixtures";

const dataDir = mkdtempSync(join(tmpdir(), "colony-modmail-membership-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

let png: Buffer;
beforeAll(async () => {
  png = await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 200, g: 40, b: 40 } } }).png().toBuffer();
  h = setup({ dataDir, rateLimitMultiplier: 0 });
});

let h: Harness;
let c: Cast;

// Each test acts in a colony of its own, with a cast of its own.
beforeEach(async () => {
  c = await cast(h);
});

const MANAGED_MESSAGE = "This is a modmail thread: its members, title, description and avatar are managed by the colony's moderators, not through the group API";

async function openThread(u: TestUser, colonyId = c.colony.id, text = "Why was my post removed?"): Promise<string> {
  const res = await h.req("POST", `/api/v1/colonies/${colonyId}/modmail`, { token: u.token, body: { body: text } });
  expect(res.status).toBe(201);
  return res.body.conversation_id;
}

const readGroup = (u: TestUser, convId: string) => h.req("GET", `${G}/${convId}`, { token: u.token });

function avatarForm(): FormData {
  const f = new FormData();
  f.append("file", new File([png], "a.png", { type: "image/png" }));
  return f;
}

/** Who the membership and identity changes act on. */
interface Targets {
  invitee: TestUser;
  adminTarget: TestUser;
  removed: TestUser;
  heir: TestUser;
}

/** Every membership or identity change of the group API, with its success status on an ordinary group. */
const CHANGES: { name: string; ok: number; run: (convId: string, as: TestUser, t: Targets) => Promise<Res> }[] = [
  { name: "rename (title)", ok: 200, run: (id, as) => h.req("PATCH", `${G}/${id}`, { token: as.token, body: { title: "Renamed" } }) },
  { name: "edit the description", ok: 200, run: (id, as) => h.req("PATCH", `${G}/${id}`, { token: as.token, body: { description: "Something else" } }) },
  { name: "upload an avatar", ok: 201, run: (id, as) => h.req("POST", `${G}/${id}/avatar`, { token: as.token, raw: avatarForm() }) },
  { name: "invite a member", ok: 201, run: (id, as, t) => h.req("POST", `${G}/${id}/members`, { token: as.token, body: { username: t.invitee.username } }) },
  { name: "make someone admin", ok: 200, run: (id, as, t) => h.req("PUT", `${G}/${id}/members/${t.adminTarget.id}/admin`, { token: as.token, body: { is_admin: true } }) },
  { name: "remove another member", ok: 200, run: (id, as, t) => h.req("DELETE", `${G}/${id}/members/${t.removed.id}`, { token: as.token }) },
  { name: "transfer the creator role", ok: 200, run: (id, as, t) => h.req("POST", `${G}/${id}/transfer-creator`, { token: as.token, body: { new_creator_id: t.heir.id } }) },
];

describe("membership and identity changes through the group API", () => {
  test.each(CHANGES.map((ch) => [ch.name, ch] as const))("%s: 403 FORBIDDEN on a modmail thread, for its user and its moderators alike; nothing changes", async (_name, change) => {
    const convId = await openThread(c.member);
    const asUser = { invitee: c.stranger, adminTarget: c.member, removed: c.mod, heir: c.mod };
    const asMod = { invitee: c.stranger, adminTarget: c.member, removed: c.colonyAdmin, heir: c.founder };
    for (const [actor, targets] of [[c.member, asUser], [c.mod, asMod], [c.founder, asMod]] as const) {
      const res = await refused(h, () => change.run(convId, actor, targets), 403, "FORBIDDEN");
      expect(res.body.detail.message).toBe(MANAGED_MESSAGE);
    }
    // Someone outside the thread still learns nothing about it.
    await refused(h, () => change.run(convId, c.stranger, asMod), 404, "NOT_FOUND");
  });

  test("removing someone else by username is refused the same way", async () => {
    const convId = await openThread(c.member);
    const res = await refused(h, () => h.req("DELETE", `${G}/${convId}/members/${c.member.username}`, { token: c.mod.token }), 403, "FORBIDDEN");
    expect(res.body.detail.message).toBe(MANAGED_MESSAGE);
  });

  test("the same changes still work on an ordinary group", async () => {
    // c.member creates a group with c.mod and c.colonyAdmin; none of it is modmail.
    const convId = await makeGroup(h, c.member, [c.mod, c.colonyAdmin]);
    expect(convRow(h, convId).managed_by).toBeNull();
    const targets = { invitee: c.stranger, adminTarget: c.mod, removed: c.colonyAdmin, heir: c.mod };
    for (const change of CHANGES) {
      const res = await change.run(convId, c.member, targets);
      expect({ change: change.name, status: res.status }).toEqual({ change: change.name, status: change.ok });
    }
    const row = convRow(h, convId);
    expect(row).toMatchObject({ title: "Renamed", description: "Something else", creator_id: c.mod.id });
    expect(row.avatar_path).not.toBeNull();
    expect(memberOf(h, convId, c.stranger)).toMatchObject({ invite_status: "pending", left_at: null });
    expect(memberOf(h, convId, c.colonyAdmin).left_at).not.toBeNull();
    expect(memberOf(h, convId, c.mod).role).toBe("admin");
  });
});

describe("what stays open in a modmail thread", () => {
  test("reading, sending, reactions, read markers, muting and moderators' pins work; the user is a plain member", async () => {
    const convId = await openThread(c.member);
    const reply = await h.req("POST", `${G}/${convId}/send`, { token: c.mod.token, body: { body: "We are looking into it" } });
    expect(reply.status).toBe(201);
    expect((await h.req("POST", `/api/v1/messages/${reply.body.id}/reactions`, { token: c.member.token, body: { emoji: "🔥" } })).status).toBe(201);
    expect((await h.req("POST", `${G}/${convId}/read-all`, { token: c.member.token })).status).toBe(200);
    expect((await h.req("POST", `${G}/${convId}/mute`, { token: c.member.token, query: { duration: "1d" } })).status).toBe(200);
    expect((await h.req("POST", `${G}/${convId}/unmute`, { token: c.member.token })).status).toBe(200);
    expect((await h.req("PATCH", `${G}/${convId}/receipts`, { token: c.member.token, body: { show: "off" } })).status).toBe(200);
    expect((await h.req("POST", `${G}/${convId}/send`, { token: c.member.token, body: { body: "Thanks" } })).status).toBe(201);
    expect((await h.req("POST", `${G}/${convId}/messages/${reply.body.id}/pin`, { token: c.mod.token })).status).toBe(200);
    const seen = await readGroup(c.member, convId);
    expect(seen.status).toBe(200);
    expect(seen.body).toMatchObject({ creator_id: c.member.id, is_admin: false });
    expect(seen.body.pinned.map((m: any) => m.id)).toEqual([reply.body.id]);
    expect((await readGroup(c.mod, convId)).body.is_admin).toBe(true);
    // The thread's user is a plain member: pins are for the moderators.
    expectError(await h.req("POST", `${G}/${convId}/messages/${reply.body.id}/pin`, { token: c.member.token }), 403, "FORBIDDEN");
    const members = await h.req("GET", `${G}/${convId}/members`, { token: c.member.token });
    expect(members.body.members.find((m: any) => m.id === c.member.id)).toMatchObject({ is_admin: false, is_creator: true });
  });

  test("the user may leave: nobody is promoted, they stay the creator, and writing again brings them back", async () => {
    const convId = await openThread(c.member);
    const left = await h.req("DELETE", `${G}/${convId}/members/${c.member.id}`, { token: c.member.token });
    expect(left.status).toBe(200);
    expect(left.body).toMatchObject({ left: true, promoted_user_id: null, creator_id: c.member.id });
    expect(convRow(h, convId).creator_id).toBe(c.member.id);
    expectError(await readGroup(c.member, convId), 404, "NOT_FOUND");
    expect((await h.req("POST", `/api/v1/colonies/${c.colony.id}/modmail`, { token: c.member.token, body: { body: "Back" } })).body.conversation_id).toBe(convId);
    expect((await readGroup(c.member, convId)).body).toMatchObject({ creator_id: c.member.id, is_admin: false });
  });

  test("a moderator may leave and join again; when every moderator has left, the user is not promoted", async () => {
    const convId = await openThread(c.member);
    for (const m of [c.founder, c.mod, c.colonyAdmin]) {
      const res = await h.req("DELETE", `${G}/${convId}/members/${m.id}`, { token: m.token });
      expect(res.status).toBe(200);
      expect(res.body.promoted_user_id).toBeNull();
    }
    expect(memberOf(h, convId, c.member)).toMatchObject({ role: "member", left_at: null });
    expect((await readGroup(c.member, convId)).body).toMatchObject({ is_admin: false, member_count: 1 });
    expectError(await readGroup(c.mod, convId), 404, "NOT_FOUND");
    expect((await h.req("POST", `/api/v1/colonies/${c.colony.id}/modmail/${convId}/join`, { token: c.mod.token })).body.joined).toBe(true);
    expect((await readGroup(c.mod, convId)).status).toBe(200);
  });
});

describe("moderators who stop moderating leave the colony's threads", () => {
  const colonyUrl = () => `/api/v1/colonies/${c.colony.id}`;
  const EXITS: [string, (u: TestUser) => Promise<Res>][] = [
    ["demoted", (u) => h.req("POST", `${colonyUrl()}/members/${u.id}/demote`, { token: c.founder.token })],
    ["removed from the colony", (u) => h.req("DELETE", `${colonyUrl()}/members/${u.id}`, { token: c.founder.token })],
    ["banned", (u) => h.req("POST", `${colonyUrl()}/bans/${u.id}`, { token: c.founder.token, body: { reason: "abuse" } })],
    ["leaving the colony", (u) => h.req("POST", `${colonyUrl()}/leave`, { token: u.token })],
  ];

  test.each(EXITS)("a moderator %s loses every thread of the colony; the users and the other moderators keep theirs", async (_how, exit) => {
    const threads = [await openThread(c.member), await openThread(c.stranger)];
    const outsider = await readGroup(c.siteAdmin, threads[0]);
    expect(outsider.status).toBe(404);
    const res = await exit(c.mod);
    expect(res.status).toBeLessThan(300);
    for (const convId of threads) {
      // Exactly what someone who was never in it gets.
      const seen = await readGroup(c.mod, convId);
      expect({ status: seen.status, body: seen.body }).toEqual({ status: outsider.status, body: outsider.body });
      expectError(await h.req("POST", `${G}/${convId}/send`, { token: c.mod.token, body: { body: "still here?" } }), 404, "NOT_FOUND");
      expect(memberOf(h, convId, c.mod)).toMatchObject({ role: "member", left_at: h.clock.now() });
      for (const stays of [c.founder, c.colonyAdmin]) expect((await readGroup(stays, convId)).status).toBe(200);
      const members = await h.req("GET", `${G}/${convId}/members`, { token: c.founder.token });
      expect(members.body.members.map((m: any) => m.username)).not.toContain(c.mod.username);
    }
    expect((await readGroup(c.member, threads[0])).status).toBe(200);
    expect((await readGroup(c.stranger, threads[1])).status).toBe(200);
    // The role change's own event marks the write; the threads' members hear nothing of it.
    for (const convId of threads) {
      expect(eventsOf(h, "group_member_left", convId)).toHaveLength(0);
      expect(eventsOf(h, "group_member_removed", convId)).toHaveLength(0);
    }
  });

  test("a former moderator cannot join again; another colony they still moderate keeps them", async () => {
    const other = await cast(h);
    addMember(h, other.colony.id, c.mod.id);
    setRole(h, other.colony.id, c.mod.id, "moderator");
    const here = await openThread(c.member);
    const there = await openThread(other.member, other.colony.id);
    expect((await readGroup(c.mod, there)).status).toBe(200);
    expect((await h.req("POST", `/api/v1/colonies/${c.colony.id}/members/${c.mod.id}/demote`, { token: c.founder.token })).status).toBe(204);
    expectError(await readGroup(c.mod, here), 404, "NOT_FOUND");
    expect((await readGroup(c.mod, there)).status).toBe(200);
    expectError(await h.req("POST", `/api/v1/colonies/${c.colony.id}/modmail/${here}/join`, { token: c.mod.token }), 403, "FORBIDDEN");
  });

  test("a moderator's own thread with the colony stays theirs when they stop moderating", async () => {
    const own = await openThread(c.mod, c.colony.id, "A word with the other moderators");
    const theirs = await openThread(c.member);
    expect((await h.req("POST", `/api/v1/colonies/${c.colony.id}/members/${c.mod.id}/demote`, { token: c.founder.token })).status).toBe(204);
    expect((await readGroup(c.mod, own)).status).toBe(200);
    expect(memberOf(h, own, c.mod)).toMatchObject({ role: "member", left_at: null });
    expectError(await readGroup(c.mod, theirs), 404, "NOT_FOUND");
  });

  test("site admins stay until they leave, also when a moderating role they held ends", async () => {
    addMember(h, c.colony.id, c.siteAdmin.id);
    setRole(h, c.colony.id, c.siteAdmin.id, "moderator");
    const convId = await openThread(c.member);
    expect((await readGroup(c.siteAdmin, convId)).status).toBe(200);
    expect((await h.req("POST", `/api/v1/colonies/${c.colony.id}/members/${c.siteAdmin.id}/demote`, { token: c.founder.token })).status).toBe(204);
    expect((await h.req("POST", `/api/v1/colonies/${c.colony.id}/members/${c.mod.id}/demote`, { token: c.founder.token })).status).toBe(204);
    expect((await readGroup(c.siteAdmin, convId)).status).toBe(200);
    expectError(await readGroup(c.mod, convId), 404, "NOT_FOUND");
    expect((await h.req("DELETE", `${G}/${convId}/members/${c.siteAdmin.id}`, { token: c.siteAdmin.token })).status).toBe(200);
    expectError(await readGroup(c.siteAdmin, convId), 404, "NOT_FOUND");
  });

  test("an ownership transfer keeps the previous founder in the threads (they stay on as colony admin)", async () => {
    const convId = await openThread(c.member);
    const proposed = await h.req("POST", `/api/v1/colonies/${c.colony.id}/ownership-transfers`, { token: c.founder.token, body: { recipient_username: c.mod.username } });
    expect(proposed.status).toBe(201);
    const accepted = await h.req("POST", `/api/v1/colonies/ownership-transfers/${proposed.body.transfer_id}/accept`, { token: c.mod.token });
    expect(accepted.status).toBe(200);
    for (const stays of [c.founder, c.mod, c.colonyAdmin, c.member]) expect((await readGroup(stays, convId)).status).toBe(200);
  });
});

describe("migration 0028", () => {
  test("marks the existing modmail threads and puts their members back in line with the colony", async () => {
    const { Database } = await import("bun:sqlite");
    const { migrations } = await import("../../../migrations");
    const db = new Database(":memory:");
    const apply = (sql: string) => {
      for (const stmt of sql.split("--> statement-breakpoint")) if (stmt.trim()) db.run(stmt);
    };
    const at = migrations.findIndex((m) => m.tag === "0028_managed_conversations");
    expect(at).toBeGreaterThan(0);
    for (const m of migrations.slice(0, at)) apply(m.sql);
    const [colony, user, mod, exMod, siteAdmin, invited, insider, thread, group] = Array.from({ length: 9 }, () => crypto.randomUUID());
    for (const [id, admin] of [[user, 0], [mod, 0], [exMod, 0], [siteAdmin, 1], [invited, 0], [insider, 0]] as const) {
      db.run("insert into users (id, username, display_name, is_admin, api_key_hash, key_issued_at, created_at, updated_at) values (?, ?, ?, ?, ?, 1, 1, 1)", [id, `u${id.slice(0, 8)}`, "U", admin, `h${id}`]);
    }
    db.run("insert into colonies (id, name, display_name, created_at, updated_at) values (?, 'old', 'Old', 1, 1)", [colony]);
    db.run("insert into colony_members (colony_id, user_id, role, approved, joined_at, updated_at) values (?, ?, 'moderator', 1, 1, 1)", [colony, mod]);
    db.run("insert into colony_members (colony_id, user_id, role, approved, joined_at, updated_at) values (?, ?, 'member', 1, 1, 1)", [colony, exMod]);
    // The thread's creator role was handed to the moderator through the group API.
    db.run("insert into conversations (id, kind, title, creator_id, created_at) values (?, 'group', 'Modmail', ?, 1)", [thread, mod]);
    db.run("insert into conversations (id, kind, title, creator_id, created_at) values (?, 'group', 'Friends', ?, 1)", [group, insider]);
    db.run("insert into colony_modmail_threads (colony_id, user_id, conversation_id, created_at, updated_at) values (?, ?, ?, 1, 1)", [colony, user, thread]);
    const member = (conv: string, id: string, role: string, status = "accepted") =>
      db.run("insert into conversation_members (conversation_id, user_id, role, invite_status, created_at) values (?, ?, ?, ?, 1)", [conv, id, role, status]);
    member(thread, user, "admin");
    member(thread, mod, "admin");
    member(thread, exMod, "admin");
    member(thread, siteAdmin, "member");
    member(thread, invited, "member", "pending");
    member(thread, insider, "admin");
    member(group, insider, "admin");
    member(group, user, "member");
    member(group, exMod, "member", "pending");
    apply(migrations[at].sql);

    const conv = (id: string) => db.query("select managed_by, creator_id from conversations where id = ?").get(id);
    expect(conv(thread)).toEqual({ managed_by: "modmail", creator_id: user });
    expect(conv(group)).toEqual({ managed_by: null, creator_id: insider });
    const rows = (id: string) =>
      Object.fromEntries(
        (db.query("select user_id, role, invite_status, left_at from conversation_members where conversation_id = ?").all(id) as any[]).map((r) => [r.user_id, { role: r.role, status: r.invite_status, left: r.left_at !== null }]),
      );
    expect(rows(thread)).toEqual({
      [user]: { role: "member", status: "accepted", left: false },
      [mod]: { role: "admin", status: "accepted", left: false },
      [siteAdmin]: { role: "admin", status: "accepted", left: false },
      [exMod]: { role: "member", status: "accepted", left: true },
      [invited]: { role: "member", status: "pending", left: true },
      [insider]: { role: "member", status: "accepted", left: true },
    });
    expect(rows(group)).toEqual({
      [insider]: { role: "admin", status: "accepted", left: false },
      [user]: { role: "member", status: "accepted", left: false },
      [exMod]: { role: "member", status: "pending", left: false },
    });
  });
});
