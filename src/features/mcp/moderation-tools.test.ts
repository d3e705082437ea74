// The moderation tools (issue 16): the queue, an action on it, bans and modmail through the SDK's
// client, checked against the REST routes; the colony named by `colony` (or the deprecated
// colony_name, as the reference spells it).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { setup, type TestUser } from "../../../test/harness";
import { makeColony, post } from "../posts/fixtures";
import { connect, listen, type Connected, type Listening } from "./testkit";

const h = setup();
let srv: Listening;
let mod: TestUser;
let member: TestUser;
let asMod: Connected;
let asMember: Connected;
let colony: { id: string; name: string };

beforeAll(async () => {
  srv = listen(h);
  mod = await h.user({ karma: 100, username: "mcp-mod" });
  member = await h.user({ karma: 100, username: "mcp-member" });
  h.ctx.db.$client.query("update users set created_at = ?").run(h.clock.now() - 30 * 86_400_000);
  colony = makeColony(h, mod) as { id: string; name: string };
  asMod = await connect(srv.url, mod.token);
  asMember = await connect(srv.url, member.token);
});
afterAll(async () => {
  await asMod.close();
  await asMember.close();
  await srv.stop();
});

async function ok(c: Connected, name: string, args: Record<string, unknown>): Promise<any> {
  const r = await c.call(name, args);
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.body)}`);
  return r;
}

describe("moderation tools", () => {
  test("colony_get_mod_queue answers GET /colonies/{id}/queue; colony_mod_queue_action answers POST …/queue/action (deprecated spellings accepted)", async () => {
    expect((await h.req("POST", `/api/v1/colonies/${colony.id}/join`, { token: member.token })).status).toBeLessThan(300);
    const p = await post(h, member, { colony_id: colony.id });
    const rep = await h.req("POST", "/api/v1/reports", { token: mod.token, body: { target_type: "post", target_id: p.id, reason: "spam" } });
    expect(rep.status).toBeLessThan(300);
    const tool = (await ok(asMod, "colony_get_mod_queue", { colony: colony.name })).body;
    const r = await h.req("GET", `/api/v1/colonies/${colony.id}/queue`, { token: mod.token });
    expect(tool).toEqual(r.body);
    expect(tool.items.length).toBe(1);
    const old = await ok(asMod, "colony_get_mod_queue", { colony_name: colony.name, page_size: 5 });
    expect(old.result._meta?.["colony/deprecated_arguments"]).toEqual(["colony_name=colony", "page_size=limit"]);
    const row = tool.items[0];
    const done = await ok(asMod, "colony_mod_queue_action", { colony_name: colony.name, source_kind: row.source, source_id: row.source_id, action: "dismiss" });
    expect(done.body).toMatchObject({ source: row.source, source_kind: row.source, source_id: row.source_id, action: "dismiss" });
    expect((await h.req("GET", `/api/v1/colonies/${colony.id}/queue`, { token: mod.token })).body.items).toEqual([]);
  });

  test("a non-moderator is refused the queue and its actions as on REST (403); an unknown colony is 404", async () => {
    const rr = await h.req("GET", `/api/v1/colonies/${colony.id}/queue`, { token: member.token });
    const e = (await asMember.call("colony_get_mod_queue", { colony: colony.name })).body.detail;
    expect({ status: e.status, code: e.code }).toEqual({ status: rr.status, code: rr.body.detail.code });
    expect(e.status).toBe(403);
    const ea = (await asMember.call("colony_mod_queue_action", { colony: colony.id, source: "open_report", source_id: "00000000-0000-7000-8000-000000000000", action: "dismiss" })).body.detail;
    expect(ea.status).toBe(403);
    const missing = await asMod.call("colony_get_mod_queue", { colony: "no-such-colony" });
    expect(missing.isError).toBe(true);
    expect(missing.body.detail.status).toBe(404);
  });

  test("colony_ban_user answers POST /colonies/{id}/bans/{user}; colony_unban_user lifts it; a member may not ban (403 as on REST)", async () => {
    const target = await h.user({ username: "mcp-banned" });
    const banned = (await ok(asMod, "colony_ban_user", { colony: colony.name, user_id: target.username, ban_duration_days: 7, reason: "spam" })).body;
    const list = await h.req("GET", `/api/v1/colonies/${colony.id}/bans`, { token: mod.token });
    expect(list.body[0]).toEqual(banned);
    expect(banned).toMatchObject({ username: target.username });
    expect((await ok(asMod, "colony_unban_user", { colony: colony.name, user_id: target.username })).body).toEqual({ status: "unbanned", user_id: target.username });
    expect((await h.req("GET", `/api/v1/colonies/${colony.id}/bans`, { token: mod.token })).body.filter((b: any) => b.is_active)).toEqual([]);
    const rr = await h.req("POST", `/api/v1/colonies/${colony.id}/bans/${target.username}`, { token: member.token, body: {} });
    const e = (await asMember.call("colony_ban_user", { colony: colony.name, user_id: target.username })).body.detail;
    expect({ status: e.status, code: e.code }).toEqual({ status: rr.status, code: rr.body.detail.code });
  });

  test("colony_open_modmail answers POST /colonies/{id}/modmail; a blank body is refused", async () => {
    const opened = (await ok(asMember, "colony_open_modmail", { colony: colony.name, body: "A question for the moderators" })).body;
    expect(opened).toMatchObject({ colony_id: colony.id, created: true });
    const again = await h.req("POST", `/api/v1/colonies/${colony.id}/modmail`, { token: member.token, body: { body: "And another" } });
    expect(again.body).toMatchObject({ conversation_id: opened.conversation_id, colony_id: colony.id, created: false });
    const g = await h.req("GET", `/api/v1/messages/groups/${opened.conversation_id}`, { token: mod.token });
    expect(g.body.messages.map((m: any) => m.body)).toEqual(["A question for the moderators", "And another"]);
    const e = await asMember.call("colony_open_modmail", { colony: colony.name, body: "" });
    expect(e.isError).toBe(true);
    expect(e.body.detail.status).toBe(422);
  });
});
