// A colony's wiki editors (GET/POST/DELETE /colonies/{colony_id}/wiki-editors; spec Part 3
// §4.14; docs/decisions.md §87): the list newest first, adding (409 when listed), removing
// (404 when not listed), and who may keep it.
import { beforeAll, describe, expect, test } from "bun:test";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { makeColony, setRole } from "../colonies/fixtures";
import type { ColonyRow } from "../colonies/service";
import { outcome, refused } from "../../../test/expect";

let h: Harness;
let founder: TestUser;
let admin: TestUser;

beforeAll(async () => {
  h = setup({ rateLimitMultiplier: 0 });
  founder = await h.user({ username: "editors-founder" });
  admin = await h.user({ admin: true });
});

const path = (c: ColonyRow | string) => `/api/v1/colonies/${typeof c === "string" ? c : c.id}/wiki-editors`;
const list = (c: ColonyRow | string, u: TestUser | null = founder, query: Record<string, number> = {}) => h.req("GET", path(c), { token: u?.token ?? null, query });
const add = (c: ColonyRow | string, username: string, u: TestUser | null = founder) => h.req("POST", path(c), { token: u?.token ?? null, body: { username } });
const remove = (c: ColonyRow | string, target: string, u: TestUser | null = founder) => h.req("DELETE", `${path(c)}/${target}`, { token: u?.token ?? null });

async function member(c: ColonyRow) {
  const u = await h.user();
  expect((await h.req("POST", `/api/v1/colonies/${c.id}/join`, { token: u.token })).status).toBe(204);
  return u;
}

describe("the editor list", () => {
  test("empty at first; adding answers 201 with the editor; newest first", async () => {
    const c = makeColony(h, founder);
    expect((await list(c)).body).toEqual({ items: [], total: 0, has_more: false });
    const a = await h.user({ username: "first-editor" });
    const b = await h.user({ username: "second-editor" });
    const at = new Date(h.clock.now()).toISOString();
    const r = await add(c, a.username);
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      user_id: a.id,
      username: a.username,
      display_name: a.username,
      added_by: { username: founder.username, display_name: founder.username },
      created_at: at,
    });
    h.clock.advance(1000);
    expect((await add(c, ` ${b.username.toUpperCase()} `)).status).toBe(201);
    const l = await list(c);
    expect(l.body).toMatchObject({ total: 2, has_more: false, items: [{ username: b.username }, { username: a.username }] });
    expect((await list(c, founder, { limit: 1 })).body).toMatchObject({ total: 2, has_more: true, items: [{ username: b.username }] });
    expect((await list(c, founder, { limit: 1, page: 2 })).body).toMatchObject({ page: 2, items: [{ username: a.username }] });
  });

  test("409 CONFLICT when already listed; 404 USER_NOT_FOUND for an unknown account; 422 without a username; nothing changes", async () => {
    const c = makeColony(h, founder);
    const a = await h.user();
    await add(c, a.username);
    await refused(h, () => add(c, a.username), 409, "CONFLICT");
    await refused(h, () => add(c, "nobody-by-that-name"), 404, "USER_NOT_FOUND");
    await refused(h, () => h.req("POST", path(c), { token: founder.token, body: {} }), 422, null);
  });

  test("removing by id or username answers 204; 404 NOT_FOUND when not listed", async () => {
    const c = makeColony(h, founder);
    const a = await h.user();
    const b = await h.user();
    await add(c, a.username);
    await add(c, b.username);
    expect((await remove(c, a.id)).status).toBe(204);
    expect((await remove(c, b.username)).status).toBe(204);
    expect((await list(c)).body.total).toBe(0);
    await refused(h, () => remove(c, a.id), 404, "NOT_FOUND");
    await refused(h, () => remove(c, "nobody-by-that-name"), 404, "NOT_FOUND");
  });

  test("the list is the colony's: another colony's editors are not listed or removable here", async () => {
    const c1 = makeColony(h, founder);
    const c2 = makeColony(h, founder);
    const a = await h.user();
    await add(c1, a.username);
    expect((await list(c2)).body.total).toBe(0);
    await refused(h, () => remove(c2, a.id), 404, "NOT_FOUND");
    expect((await add(c2, a.username)).status).toBe(201);
  });
});

describe("who keeps the list", () => {
  test("the founder, colony admins, moderators holding can_manage_settings and site admins; not other moderators, members or strangers", async () => {
    const c = makeColony(h, founder);
    const modDefault = await member(c);
    setRole(h, c.id, modDefault.id, "moderator");
    const modNarrow = await member(c);
    setRole(h, c.id, modNarrow.id, "moderator");
    h.ctx.db.$client.query("update colony_members set permissions = ? where colony_id = ? and user_id = ?").run(JSON.stringify(["can_remove"]), c.id, modNarrow.id);
    const colonyAdmin = await member(c);
    setRole(h, c.id, colonyAdmin.id, "admin");
    const plain = await member(c);
    const stranger = await h.user();
    let n = 0;
    for (const u of [founder, modDefault, colonyAdmin, admin]) {
      const target = await h.user({ username: `kept-by-${++n}` });
      expect((await list(c, u)).status).toBe(200);
      expect((await add(c, target.username, u)).status).toBe(201);
      expect((await remove(c, target.id, u)).status).toBe(204);
    }
    const target = await h.user();
    await add(c, target.username);
    for (const u of [modNarrow, plain, stranger]) {
      await refused(h, () => list(c, u), 403, "FORBIDDEN");
      await refused(h, () => add(c, stranger.username, u), 403, "FORBIDDEN");
      await refused(h, () => remove(c, target.id, u), 403, "FORBIDDEN");
    }
    await refused(h, () => list(c, null), 401, "AUTH_INVALID_TOKEN");
    await refused(h, () => add(c, stranger.username, null), 401, "AUTH_INVALID_TOKEN");
    await refused(h, () => remove(c, target.id, null), 401, "AUTH_INVALID_TOKEN");
  });

  test("404 for an unknown colony and for a private colony the caller may not read; 422 for a colony id that is not a uuid", async () => {
    const priv = makeColony(h, founder, { type: "private" });
    const stranger = await h.user();
    await refused(h, () => list(priv, stranger), 404, "NOT_FOUND");
    await refused(h, () => add(priv, stranger.username, stranger), 404, "NOT_FOUND");
    await refused(h, () => remove(priv, stranger.id, stranger), 404, "NOT_FOUND");
    const unknown = "0190f3c0-0000-7000-8000-000000000000";
    expect(outcome(await list(unknown))).toEqual({ status: 404, code: "NOT_FOUND" });
    expect((await list("not-a-uuid")).status).toBe(422);
    expect((await list(priv, admin)).status).toBe(200);
  });
});
