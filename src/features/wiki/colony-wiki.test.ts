// Colony wikis (spec Part 3 §4.14; docs/decisions.md §84-§87): which colony a request names,
// wiki_edit_policy with every policy against every kind of caller, a wiki switched off, archived
// colonies, bans, lockdown, blocked phrases, and the moderators' delete, restore and lock.
import { beforeAll, describe, expect, test } from "bun:test";
import { HOUR } from "../../core/clock";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { archive, ban, makeColony, setRole, softDelete } from "../colonies/fixtures";
import { setApproval, type ColonyRow } from "../colonies/service";
import { outcome, refused } from "../../../test/expect";
import { wikiApi, type WikiApi } from "./fixtures";

let h: Harness;
let w: WikiApi;
let founder: TestUser;
let admin: TestUser;

beforeAll(async () => {
  h = setup({ rateLimitMultiplier: 0 });
  w = wikiApi(h);
  founder = await h.user({ username: "wiki-founder" });
  admin = await h.user({ admin: true });
});

let seq = 0;
const slug = () => `colony-page-${++seq}`;

const join = async (u: TestUser, c: ColonyRow) => expect((await h.req("POST", `/api/v1/colonies/${c.id}/join`, { token: u.token })).status).toBe(204);
const patch = (c: ColonyRow, body: Record<string, unknown>, u: TestUser = founder) => h.req("PATCH", `/api/v1/colonies/${c.id}`, { token: u.token, body });
const addEditor = async (c: ColonyRow, u: TestUser) => expect((await h.req("POST", `/api/v1/colonies/${c.id}/wiki-editors`, { token: founder.token, body: { username: u.username } })).status).toBe(201);

async function setPolicy(c: ColonyRow, policy: string) {
  const r = await patch(c, { wiki_edit_policy: policy });
  expect(r.status).toBe(200);
  expect(r.body.wiki_edit_policy).toBe(policy);
}

async function member(c: ColonyRow, opts: { karma?: number } = {}) {
  const u = await h.user(opts);
  await join(u, c);
  return u;
}

async function founderPage(c: ColonyRow, body: Record<string, unknown> = {}) {
  const r = await w.create(founder, { title: "Colony page", slug: slug(), content: "text", colony: c.name, ...body });
  expect(r.status).toBe(201);
  return r.body;
}

describe("which wiki", () => {
  test("a colony's page carries colony_name (and its deprecated copy); the colony may be named by id", async () => {
    const c = makeColony(h, founder);
    const p = await founderPage(c);
    expect(p).toMatchObject({ colony_name: c.name, colony: c.name, created_by: { username: founder.username } });
    expect((await w.get(p.slug, c.name)).body).toEqual(p);
    expect((await w.get(p.slug, c.id)).body).toEqual(p);
    // The same slug is another page in the site wiki and in another colony.
    expect((await w.get(p.slug)).status).toBe(404);
    const other = makeColony(h, founder);
    expect((await w.create(founder, { title: "Other", slug: p.slug, colony: other.name })).body).toMatchObject({ slug: p.slug, colony_name: other.name });
    expect((await w.create(founder, { title: "Site", slug: p.slug })).body).toMatchObject({ slug: p.slug, colony_name: null });
    // A colony slug claims no handle: a username may take it.
    const sc = makeColony(h, founder);
    const free = await w.create(founder, { title: "Free", slug: "colony-only-slug", colony: sc.name });
    expect(free.status).toBe(201);
    expect((await h.req("GET", "/api/v1/auth/check-username", { query: { username: "colony-only-slug" } })).body).toMatchObject({ available: true });
  });

  test("409 for a slug taken in the colony's wiki, deleted pages included", async () => {
    const c = makeColony(h, founder);
    const p = await founderPage(c);
    await refused(h, () => w.create(founder, { title: "Again", slug: p.slug, colony: c.name }), 409, "CONFLICT");
    await w.remove(founder, p.slug, c.name);
    await refused(h, () => w.create(founder, { title: "Again", slug: p.slug, colony: c.name }), 409, "CONFLICT");
  });

  test("an unknown, deleted or unreadable (private) colony is 404 on every route; a member of the private colony reads and writes", async () => {
    const priv = makeColony(h, founder, { type: "private" });
    const p = await founderPage(priv);
    const rev = (await w.history(p.slug, { colony: priv.name }, founder)).body[0].id;
    const stranger = await h.user();
    const gone = makeColony(h, founder);
    const gp = await founderPage(gone);
    softDelete(h, gone.id);
    for (const [colony, s] of [["no-such-colony", p.slug], [priv.name, p.slug], [gone.name, gp.slug]] as const) {
      const routes = [
        () => w.list({ colony }, stranger),
        () => w.get(s, colony, stranger),
        () => w.create(stranger, { title: "T", slug: slug(), colony }),
        () => w.put(stranger, s, { content: "x" }, colony),
        () => w.remove(stranger, s, colony),
        () => w.history(s, { colony }, stranger),
        () => w.revision(s, rev, colony, stranger),
        () => w.diff(s, rev, colony, stranger),
        () => w.revert(stranger, s, { revision_id: rev }, colony),
        () => w.deleted(stranger, { colony }),
        () => w.restore(stranger, s, colony),
        () => w.lock(stranger, s, colony),
        () => w.unlock(stranger, s, colony),
      ];
      for (const run of routes) await refused(h, run, 404, "NOT_FOUND");
    }
    // Anonymous readers too.
    expect(outcome(await w.get(p.slug, priv.name))).toEqual({ status: 404, code: "NOT_FOUND" });
    const m = await h.user();
    await h.req("POST", `/api/v1/colonies/by-name/${priv.name}/join`, { token: m.token });
    setApproval(h.ctx, { id: founder.id, isAdmin: false }, priv.id, m.id, true);
    expect((await w.get(p.slug, priv.name, m)).status).toBe(200);
    expect((await w.list({ colony: priv.name }, m)).body.total).toBe(1);
    expect((await w.put(m, p.slug, { content: "member edit" }, priv.name)).status).toBe(200);
  });
});

describe("wiki_edit_policy × caller", () => {
  type Who = "stranger" | "member" | "karma member" | "pending member" | "editor" | "moderator" | "site admin" | "banned";
  const WHO: Who[] = ["stranger", "member", "karma member", "pending member", "editor", "moderator", "site admin", "banned"];
  const ok = { status: 0, code: null };
  const no = (code = "FORBIDDEN") => ({ status: 403, code });
  const POLICIES: [string, Record<Who, { status: number; code: string | null }>][] = [
    ["anyone", { stranger: ok, member: ok, "karma member": ok, "pending member": ok, editor: ok, moderator: ok, "site admin": ok, banned: no() }],
    ["members", { stranger: no(), member: ok, "karma member": ok, "pending member": no(), editor: no(), moderator: ok, "site admin": ok, banned: no() }],
    ["karma_or_editors", { stranger: no(), member: no("KARMA_TOO_LOW"), "karma member": ok, "pending member": no(), editor: ok, moderator: ok, "site admin": ok, banned: no() }],
    ["editors", { stranger: no(), member: no(), "karma member": no(), "pending member": no(), editor: ok, moderator: ok, "site admin": ok, banned: no() }],
    ["moderators", { stranger: no(), member: no(), "karma member": no(), "pending member": no(), editor: no(), moderator: ok, "site admin": ok, banned: no() }],
    ["off", Object.fromEntries(WHO.map((x) => [x, { status: 404, code: "NOT_FOUND" }])) as Record<Who, { status: number; code: string }>],
  ];

  test.each(POLICIES)("policy %s: create and edit by each caller; refusals change nothing", async (policy, expected) => {
    const c = makeColony(h, founder);
    const callers: Record<Who, TestUser> = {
      stranger: await h.user(),
      member: await member(c),
      "karma member": await member(c, { karma: 50 }),
      "pending member": await member(c),
      editor: await h.user(),
      moderator: await member(c),
      "site admin": admin,
      banned: await member(c, { karma: 50 }),
    };
    setApproval(h.ctx, { id: founder.id, isAdmin: false }, c.id, callers["pending member"].id, false);
    await addEditor(c, callers.editor);
    setRole(h, c.id, callers.moderator.id, "moderator");
    ban(h, c.id, callers.banned.id);
    const page = await founderPage(c);
    await setPolicy(c, policy);
    for (const who of WHO) {
      const u = callers[who];
      const want = expected[who];
      const create = () => w.create(u, { title: `By ${who}`, slug: slug(), colony: c.name });
      const edit = () => w.put(u, page.slug, { content: `edited by ${who}` }, c.name);
      if (want.status === 0) {
        expect({ who, ...outcome(await create()) }).toEqual({ who, status: 201, code: null });
        expect({ who, ...outcome(await edit()) }).toEqual({ who, status: 200, code: null });
      } else {
        await refused(h, create, want.status, want.code);
        await refused(h, edit, want.status, want.code);
      }
    }
  });

  test("off: every route of the colony's wiki is 404, for its moderators and site admins too; the editor list stays", async () => {
    const c = makeColony(h, founder);
    const p = await founderPage(c);
    const rev = (await w.history(p.slug, { colony: c.name })).body[0].id;
    await setPolicy(c, "off");
    for (const u of [founder, admin, null]) {
      for (const run of [() => w.list({ colony: c.name }, u), () => w.get(p.slug, c.name, u), () => w.history(p.slug, { colony: c.name }, u), () => w.revision(p.slug, rev, c.name, u), () => w.diff(p.slug, rev, c.name, u)]) {
        expect(outcome(await run())).toEqual({ status: 404, code: "NOT_FOUND" });
      }
    }
    for (const run of [() => w.remove(founder, p.slug, c.name), () => w.lock(admin, p.slug, c.name), () => w.deleted(founder, { colony: c.name }), () => w.revert(founder, p.slug, { revision_id: rev }, c.name)]) {
      await refused(h, run, 404, "NOT_FOUND");
    }
    expect((await h.req("GET", `/api/v1/colonies/${c.id}/wiki-editors`, { token: founder.token })).status).toBe(200);
    await setPolicy(c, "members");
    expect((await w.get(p.slug, c.name)).status).toBe(200);
  });

  test("anyone in a restricted colony is its approved members: a stranger is 403", async () => {
    const c = makeColony(h, founder, { type: "restricted" });
    await setPolicy(c, "anyone");
    const stranger = await h.user();
    await refused(h, () => w.create(stranger, { title: "T", slug: slug(), colony: c.name }), 403, "FORBIDDEN");
    await join(stranger, c);
    await refused(h, () => w.create(stranger, { title: "T", slug: slug(), colony: c.name }), 403, "FORBIDDEN");
    setApproval(h.ctx, { id: founder.id, isAdmin: false }, c.id, stranger.id, true);
    expect((await w.create(stranger, { title: "T", slug: slug(), colony: c.name })).status).toBe(201);
  });

  test("karma_or_editors: the floor is min_karma_to_edit_wiki (default 10), reached at the floor; the message names it", async () => {
    const c = makeColony(h, founder);
    await setPolicy(c, "karma_or_editors");
    const nine = await member(c, { karma: 9 });
    const ten = await member(c, { karma: 10 });
    const r = await refused(h, () => w.create(nine, { title: "T", slug: slug(), colony: c.name }), 403, "KARMA_TOO_LOW");
    expect(r.body.detail.message).toContain("10 karma");
    expect((await w.create(ten, { title: "T", slug: slug(), colony: c.name })).status).toBe(201);
    expect((await patch(c, { min_karma_to_edit_wiki: 5 })).body.min_karma_to_edit_wiki).toBe(5);
    expect((await w.create(nine, { title: "T", slug: slug(), colony: c.name })).status).toBe(201);
    expect((await patch(c, { min_karma_to_edit_wiki: null })).body.min_karma_to_edit_wiki).toBe(10);
  });

  test("a timed ban stops applying when it expires", async () => {
    const c = makeColony(h, founder);
    await setPolicy(c, "anyone");
    const u = await member(c);
    ban(h, c.id, u.id, h.clock.now() + HOUR);
    await refused(h, () => w.create(u, { title: "T", slug: slug(), colony: c.name }), 403, "FORBIDDEN");
    h.clock.advance(HOUR);
    expect((await w.create(u, { title: "T", slug: slug(), colony: c.name })).status).toBe(201);
  });
});

describe("archived colonies and lockdown", () => {
  test("an archived colony's wiki is read-only for everyone, its moderators too; moderators may still delete", async () => {
    const c = makeColony(h, founder);
    const m = await member(c);
    const p = await founderPage(c);
    const mine = await w.create(m, { title: "Mine", slug: slug(), colony: c.name });
    const rev = (await w.history(p.slug, { colony: c.name })).body[0].id;
    archive(h, c.id);
    for (const u of [m, founder, admin]) {
      const r = await refused(h, () => w.create(u, { title: "T", slug: slug(), colony: c.name }), 403, "FORBIDDEN");
      expect(r.body.detail.message).toContain("archived");
      await refused(h, () => w.put(u, p.slug, { content: "x" }, c.name), 403, "FORBIDDEN");
      await refused(h, () => w.revert(u, p.slug, { revision_id: rev }, c.name), 403, "FORBIDDEN");
    }
    await refused(h, () => w.remove(m, mine.body.slug, c.name), 403, "FORBIDDEN");
    expect((await w.get(p.slug, c.name)).status).toBe(200);
    expect((await w.list({ colony: c.name })).body.total).toBe(2);
    expect((await w.remove(founder, mine.body.slug, c.name)).status).toBe(204);
  });

  test("lockdown: only moderators and site admins write; the policy is kept for afterwards; set by can_manage_settings", async () => {
    const c = makeColony(h, founder);
    await setPolicy(c, "anyone");
    const m = await member(c);
    const p = await founderPage(c);
    expect(outcome(await patch(c, { lockdown: true }, m))).toEqual({ status: 403, code: "FORBIDDEN" });
    const on = await patch(c, { lockdown: true });
    expect(on.body).toMatchObject({ lockdown: true, wiki_edit_policy: "anyone" });
    const r = await refused(h, () => w.create(m, { title: "T", slug: slug(), colony: c.name }), 403, "FORBIDDEN");
    expect(r.body.detail.message).toContain("lockdown");
    await refused(h, () => w.put(m, p.slug, { content: "x" }, c.name), 403, "FORBIDDEN");
    expect((await w.put(founder, p.slug, { content: "mod edit" }, c.name)).status).toBe(200);
    expect((await w.put(admin, p.slug, { content: "admin edit" }, c.name)).status).toBe(200);
    // The site wiki does not care.
    expect((await w.create(m, { title: "Site", slug: slug() })).status).toBe(201);
    expect((await patch(c, { lockdown: false })).body.lockdown).toBe(false);
    expect((await w.put(m, p.slug, { content: "member edit" }, c.name)).status).toBe(200);
  });
});

describe("blocked phrases", () => {
  test("a title, content or summary made only of banned words is 400 CONTENT_BLOCKED_PHRASE; holding one is fine under quarantine", async () => {
    const c = makeColony(h, founder);
    await patch(c, { banned_words: ["buy now", "spam"], wiki_edit_policy: "anyone" });
    const u = await h.user();
    const create = (body: Record<string, unknown>) => w.create(u, { title: "Fine", slug: slug(), colony: c.name, ...body });
    for (const body of [{ title: "Buy NOW" }, { content: "spam spam, SPAM!" }, { summary: " buy now " }, { content: "spam buy now" }]) {
      await refused(h, () => create(body), 400, "CONTENT_BLOCKED_PHRASE");
    }
    // Moderators are held to it too.
    await refused(h, () => w.create(founder, { title: "spam", slug: slug(), colony: c.name }), 400, "CONTENT_BLOCKED_PHRASE");
    const p = await create({ content: "This page explains why spam is bad.", title: "About spam" });
    expect(p.status).toBe(201);
    await refused(h, () => w.put(u, p.body.slug, { content: "spam" }, c.name), 400, "CONTENT_BLOCKED_PHRASE");
    await refused(h, () => w.put(u, p.body.slug, { title: "Spam!" }, c.name), 400, "CONTENT_BLOCKED_PHRASE");
    await refused(h, () => w.put(u, p.body.slug, { content: "ok", summary: "spam" }, c.name), 400, "CONTENT_BLOCKED_PHRASE");
    // Words that merely contain a banned word are not it.
    expect((await create({ title: "spammer", content: "spams" })).status).toBe(201);
    // The site wiki has no banned words.
    expect((await w.create(u, { title: "spam", slug: slug(), content: "spam" })).status).toBe(201);
  });

  test("with banned_words_action reject, holding a banned word is refused too", async () => {
    const c = makeColony(h, founder);
    await patch(c, { banned_words: ["scam"], banned_words_action: "reject" });
    await refused(h, () => w.create(founder, { title: "About", slug: slug(), colony: c.name, content: "this is a scam, beware" }), 400, "CONTENT_BLOCKED_PHRASE");
    expect((await w.create(founder, { title: "About", slug: slug(), colony: c.name, content: "nothing bad" })).status).toBe(201);
  });

  test("a revert to a revision made only of a phrase banned since is refused", async () => {
    const c = makeColony(h, founder);
    const p = await founderPage(c, { content: "casino" });
    await w.put(founder, p.slug, { content: "clean" }, c.name);
    const first = (await w.history(p.slug, { colony: c.name })).body.at(-1).id;
    await patch(c, { banned_words: ["casino"] });
    await refused(h, () => w.revert(founder, p.slug, { revision_id: first }, c.name), 400, "CONTENT_BLOCKED_PHRASE");
  });
});

describe("the colony's moderators", () => {
  test("delete any page, list deleted pages, restore them, lock and unlock; members may not", async () => {
    const c = makeColony(h, founder);
    await setPolicy(c, "anyone");
    const mod = await member(c);
    setRole(h, c.id, mod.id, "moderator");
    const m = await member(c);
    const p = (await w.create(m, { title: "Member page", slug: slug(), colony: c.name })).body;
    await w.put(founder, p.slug, { content: "founder edit" }, c.name);
    await refused(h, () => w.remove(m, p.slug, c.name), 403, "FORBIDDEN");
    await refused(h, () => w.lock(m, p.slug, c.name), 403, "FORBIDDEN");
    expect((await w.lock(mod, p.slug, c.name)).body).toMatchObject({ is_locked: true, colony_name: c.name });
    await refused(h, () => w.put(m, p.slug, { content: "x" }, c.name), 403, "FORBIDDEN");
    await refused(h, () => w.put(mod, p.slug, { content: "x" }, c.name), 403, "FORBIDDEN");
    await refused(h, () => w.unlock(m, p.slug, c.name), 403, "FORBIDDEN");
    expect((await w.unlock(admin, p.slug, c.name)).body.is_locked).toBe(false);
    expect((await w.remove(mod, p.slug, c.name)).status).toBe(204);
    await refused(h, () => w.deleted(m, { colony: c.name }), 403, "FORBIDDEN");
    // A site admin's deleted list of the site wiki does not show colony pages.
    expect((await w.deleted(admin)).body.items.some((x: any) => x.id === p.id)).toBe(false);
    const list = await w.deleted(mod, { colony: c.name });
    expect(list.body).toMatchObject({ total: 1, items: [{ id: p.id, colony_name: c.name, deleted_by: { username: mod.username } }] });
    await refused(h, () => w.restore(m, p.slug, c.name), 403, "FORBIDDEN");
    expect((await w.restore(mod, p.slug, c.name)).body).toMatchObject({ id: p.id, content: "founder edit" });
  });

  test("a member who created a page alone deletes it", async () => {
    const c = makeColony(h, founder);
    const m = await member(c);
    const p = (await w.create(m, { title: "Mine", slug: slug(), colony: c.name })).body;
    expect((await w.remove(m, p.slug, c.name)).status).toBe(204);
  });

  test("a creator who may no longer write the wiki may not delete their page", async () => {
    const c = makeColony(h, founder);
    const m = await member(c);
    const p = (await w.create(m, { title: "Mine", slug: slug(), colony: c.name })).body;
    await setPolicy(c, "moderators");
    await refused(h, () => w.remove(m, p.slug, c.name), 403, "FORBIDDEN");
  });
});
