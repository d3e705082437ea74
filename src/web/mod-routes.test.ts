// The moderation pages: /mod and a colony's queue, reports, bans, strikes, appeals, automod,
// invites and settings, as a signed-in human moderator, through the same services as the API;
// anonymous visitors sent to sign in, non-moderators shown the 404 page, forms without the CSRF
// token refused with nothing changed.
import { beforeEach, describe, expect, test } from "bun:test";
import { Browser, signedInBrowser } from "../../test/browser";
import { dbState } from "../../test/db-state";
import { setup, type TestUser } from "../../test/harness";
import { makeColony, setRole } from "../features/colonies/fixtures";
import type { ColonyRow } from "../features/colonies/service";
import { createPost, join, setColonySettings } from "../features/posts/fixtures";
import { human } from "../features/sessions/fixtures";

// One harness for the file; before each test, a new colony with its founding moderator, a member
// and an outsider. A test may compare the whole database before and after a refused form: the
// tests of a file run one at a time.
const h = setup();
let modUser: TestUser;
let member: TestUser;
let outsider: TestUser;
let colony: ColonyRow;

const signIn = (u: TestUser): Promise<Browser> => signedInBrowser(h, u.username);

beforeEach(async () => {
  modUser = await human(h);
  outsider = await human(h);
  member = await h.user();
  colony = makeColony(h, modUser, { name: `mods-${Math.random().toString(36).slice(2, 7)}` });
  await join(h, colony, member);
});

/** A post by `member` held for approval: a pending_post queue row. */
async function heldPost(title = "Held <b>post</b>"): Promise<string> {
  setColonySettings(h, colony.id, { requires_post_approval: true });
  const r = await createPost(h, member, { colony_id: colony.id, title });
  setColonySettings(h, colony.id, {});
  expect(r.body.held).toBe(true);
  return r.body.id;
}

const postRow = (id: string) => h.ctx.db.$client.query("select held, deleted_at from posts where id = ?").get(id) as { held: number; deleted_at: number | null };
const base = () => `/c/${colony.name}/mod`;
const SECTIONS = ["", "/reports", "/bans", "/strikes", "/appeals", "/automod", "/invites", "/settings"];

describe("who may see the moderation pages", () => {
  test.each(["/mod", ...SECTIONS.map((s) => `/c/x/mod${s}`)])("anonymous %s is sent to sign in", async (path) => {
    const r = await new Browser(h).get(path);
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/login?next=${encodeURIComponent(path)}`);
  });

  test.each(SECTIONS)("a non-moderator gets the 404 page for %s, as for an unknown colony", async (section) => {
    const b = await signIn(outsider);
    const r = await b.get(`${base()}${section}`);
    expect(r.status).toBe(404);
    expect(r.text).toContain("Page not found");
    expect((await b.get(`/c/no-such-colony/mod${section}`)).status).toBe(404);
  });

  test("a non-moderator's form post is the 404 page and changes nothing", async () => {
    const id = await heldPost();
    const b = await signIn(outsider);
    await b.get("/mod");
    const before = dbState(h);
    const r = await b.post(`${base()}/queue/action`, { source: "pending_post", source_id: id, action: "approve" });
    expect(r.status).toBe(404);
    expect(dbState(h)).toEqual(before);
  });

  test("the header links to /mod for moderators only", async () => {
    const m = await signIn(modUser);
    expect((await m.get("/")).text).toContain('href="/mod"');
    const o = await signIn(outsider);
    const page = await o.get("/");
    expect(page.text).not.toContain('href="/mod"');
    expect(page.text).toContain('href="/requests"');
    expect((await o.get("/mod")).text).toContain("You moderate no colony.");
  });

  test("/mod lists the colonies moderated with their open items", async () => {
    await heldPost();
    const b = await signIn(modUser);
    const r = await b.get("/mod");
    expect(r.status).toBe(200);
    expect(r.text).toContain(`href="/c/${colony.name}/mod"`);
    expect(r.text).toMatch(/<td>founder moderator<\/td><td>1<\/td><td>0<\/td>/);
  });
});

describe("the queue", () => {
  test("lists items escaped, filters by status and source, and approves one (303, then resolved)", async () => {
    const id = await heldPost();
    const b = await signIn(modUser);
    const page = await b.get(base());
    expect(page.status).toBe(200);
    expect(page.text).toContain("Held &#60;b&#62;post&#60;/b&#62;");
    expect(page.text).not.toContain("Held <b>post</b>");
    expect((await b.get(`${base()}?source=open_report`)).text).toContain("0 open items");
    const r = await b.post(`${base()}/queue/action`, { source: "pending_post", source_id: id, action: "approve", back: `${base()}?source=pending_post` });
    expect(r.status).toBe(303);
    expect(r.location).toBe(`${base()}?source=pending_post&notice=acted`);
    expect(postRow(id).held).toBe(0);
    const after = await b.get(r.location!);
    expect(after.text).toContain("Done: the queue item was handled.");
    expect(after.text).toContain("0 open items");
    expect((await b.get(`${base()}?status=resolved`)).text).toContain("Resolved: approve");
  });

  test("rejecting removes the post; a second action on the resolved item is refused with 409 on the page", async () => {
    const id = await heldPost();
    const b = await signIn(modUser);
    await b.get(base());
    expect((await b.post(`${base()}/queue/action`, { source: "pending_post", source_id: id, action: "reject" })).status).toBe(303);
    expect(postRow(id).deleted_at).not.toBeNull();
    const again = await b.post(`${base()}/queue/action`, { source: "pending_post", source_id: id, action: "approve" });
    expect(again.status).toBe(409);
    expect(again.text).toContain('role="alert"');
    expect(again.text).toContain("already resolved");
  });

  test("Origin: null with Sec-Fetch-Site same-origin (Chromium's under Referrer-Policy: no-referrer) and the page's token is accepted; another site's Origin, or a bare null, is refused", async () => {
    const id = await heldPost();
    const b = await signIn(modUser);
    await b.get(base());
    const before = dbState(h);
    const foreign = await b.post(`${base()}/queue/action`, { source: "pending_post", source_id: id, action: "approve" }, { headers: { origin: "https://evil.example" } });
    expect(foreign.status).toBe(403);
    expect((await b.post(`${base()}/queue/action`, { source: "pending_post", source_id: id, action: "approve" }, { headers: { origin: "null" } })).status).toBe(403);
    expect(dbState(h)).toEqual(before);
    const r = await b.post(`${base()}/queue/action`, { source: "pending_post", source_id: id, action: "approve" }, { headers: { origin: "null", "sec-fetch-site": "same-origin" } });
    expect(r.status).toBe(303);
    expect(postRow(id).held).toBe(0);
  });

  test("an action the item does not take is 400 and changes nothing; a missing CSRF token is 403 and changes nothing", async () => {
    const id = await heldPost();
    const b = await signIn(modUser);
    await b.get(base());
    const before = dbState(h);
    expect((await b.post(`${base()}/queue/action`, { source: "pending_post", source_id: id, action: "restore" })).status).toBe(400);
    expect((await b.post(`${base()}/queue/action`, { source: "pending_post", source_id: id, action: "approve" }, { csrf: null })).status).toBe(403);
    expect(dbState(h)).toEqual(before);
  });

  test("the reports view lists reported content, and dismissing settles the report", async () => {
    const p = await createPost(h, member, { colony_id: colony.id, title: "Reported one" });
    const reporter = await h.user();
    const rep = await h.req("POST", "/api/v1/reports", { token: reporter.token, body: { target_type: "post", target_id: p.body.id, reason: "spam" } });
    expect(rep.status).toBeLessThan(300);
    const b = await signIn(modUser);
    const page = await b.get(`${base()}/reports`);
    expect(page.text).toContain("Reported one");
    const sourceId = /name="source_id" value="([^"]+)"/.exec(page.text)![1];
    const r = await b.post(`${base()}/queue/action`, { source: "open_report", source_id: sourceId, action: "dismiss", back: `${base()}/reports` });
    expect(r.location).toBe(`${base()}/reports?notice=acted`);
    expect((h.ctx.db.$client.query("select status from reports where id = ?").get(rep.body.id) as { status: string }).status).toBe("dismissed");
  });
});

describe("bans, strikes and appeals", () => {
  test("ban a member for 7 days, then unban them", async () => {
    const b = await signIn(modUser);
    await b.get(`${base()}/bans`);
    const r = await b.post(`${base()}/bans`, { username: member.username, duration_days: "7", reason: "spam <again>" });
    expect(r.status).toBe(303);
    const list = await b.get(r.location!);
    expect(list.text).toContain("The member is banned.");
    expect(list.text).toContain("spam &#60;again&#62;");
    const ban = h.ctx.db.$client.query("select expires_at from colony_bans where colony_id = ? and user_id = ?").get(colony.id, member.id) as { expires_at: number };
    expect(ban.expires_at).toBe(h.clock.now() + 7 * 86_400_000);
    expect((await b.post(`${base()}/bans/${member.username}/unban`)).status).toBe(303);
    expect(h.ctx.db.$client.query("select 1 from colony_bans where colony_id = ? and user_id = ?").get(colony.id, member.id)).toBeNull();
  });

  test("banning an unknown user is 404 on the form, the values kept; banning without CSRF changes nothing", async () => {
    const b = await signIn(modUser);
    await b.get(`${base()}/bans`);
    const r = await b.post(`${base()}/bans`, { username: "nobody-here", duration_days: "1", reason: "x" });
    expect(r.status).toBe(404);
    expect(r.text).toContain('value="nobody-here"');
    const before = dbState(h);
    expect((await b.post(`${base()}/bans`, { username: member.username, duration_days: "1" }, { csrf: null })).status).toBe(403);
    expect(dbState(h)).toEqual(before);
  });

  test("a strike is given and listed; an empty reason is refused", async () => {
    const b = await signIn(modUser);
    await b.get(`${base()}/strikes`);
    expect((await b.post(`${base()}/strikes`, { username: member.username, severity: "minor", reason: "" })).status).toBe(422);
    const r = await b.post(`${base()}/strikes`, { username: member.username, severity: "major", reason: "rude" });
    expect(r.status).toBe(303);
    const page = await b.get(r.location!);
    expect(page.text).toContain("1 active of 3.");
    expect(page.text).toContain("major");
  });

  test("a pending appeal is accepted: the member is unbanned", async () => {
    const b = await signIn(modUser);
    await b.get(`${base()}/bans`);
    await b.post(`${base()}/bans`, { username: member.username, duration_days: "", reason: "" });
    h.clock.advance(60_000);
    const filed = await h.req("POST", `/api/v1/colonies/${colony.id}/appeal`, { token: (await h.fresh(member)).token, body: { body: "I am sorry <really>" } });
    expect(filed.status).toBeLessThan(300);
    const page = await b.get(`${base()}/appeals`);
    expect(page.text).toContain("I am sorry &#60;really&#62;");
    const id = /action="[^"]*\/appeals\/([^"]+)"/.exec(page.text)![1];
    const r = await b.post(`${base()}/appeals/${id}`, { decision: "accept", note: "ok" });
    expect(r.status).toBe(303);
    expect(h.ctx.db.$client.query("select 1 from colony_bans where colony_id = ? and user_id = ?").get(colony.id, member.id)).toBeNull();
    expect((await b.post(`${base()}/appeals/${id}`, { decision: "accept" })).status).toBe(409);
  });
});

describe("automod, invites and settings", () => {
  test("a rule is added, listed and removed; a bad regular expression is 400 with the values kept", async () => {
    const b = await signIn(modUser);
    await b.get(`${base()}/automod`);
    const bad = await b.post(`${base()}/automod`, { name: "Broken", scope: "both", title_regex: "(", action: "remove" });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('value="Broken"');
    const r = await b.post(`${base()}/automod`, { name: "No casinos", scope: "post", has_link_domain: "casino.example", action: "remove", notify_author_reason: "" });
    expect(r.status).toBe(303);
    const page = await b.get(r.location!);
    expect(page.text).toContain("No casinos");
    const id = /action="[^"]*\/automod\/([^"/]+)\/delete"/.exec(page.text)![1];
    expect((await b.post(`${base()}/automod/${id}/delete`)).status).toBe(303);
    expect((h.ctx.db.$client.query("select count(*) as n from colony_automod_rules where colony_id = ?").get(colony.id) as { n: number }).n).toBe(0);
  });

  test("an invitation is sent and withdrawn; the invitee accepts another one on /mod", async () => {
    const b = await signIn(modUser);
    await b.get(`${base()}/invites`);
    expect((await b.post(`${base()}/invites`, { username: outsider.username, role: "moderator" })).status).toBe(303);
    let page = await b.get(`${base()}/invites`);
    expect(page.text).toContain(outsider.username);
    const id = /\/invites\/([^"/]+)\/revoke/.exec(page.text)![1];
    expect((await b.post(`${base()}/invites/${id}/revoke`)).status).toBe(303);
    expect((await b.get(`${base()}/invites`)).text).toContain("No invitation is outstanding.");
    await join(h, colony, outsider);
    await b.post(`${base()}/invites`, { username: outsider.username, role: "moderator" });
    const o = await signIn(outsider);
    page = await o.get("/mod");
    const inv = /\/mod\/invites\/([^"/]+)\/accept/.exec(page.text)![1];
    const r = await o.post(`/mod/invites/${inv}/accept`);
    expect(r.location).toBe("/mod?notice=accepted");
    expect((await o.get(base())).status).toBe(200);
  });

  test("settings are saved through the colonies service; out-of-range values are 422 and change nothing", async () => {
    const b = await signIn(modUser);
    const form = await b.get(`${base()}/settings`);
    expect(form.status).toBe(200);
    const fields = { display_name: "New name", description: "About <us>", rules: "Be kind", welcome_message: "", community_type: "restricted", requires_post_approval: "on", strike_threshold: "5", strike_action: "ban" };
    const before = dbState(h);
    expect((await b.post(`${base()}/settings`, { ...fields, strike_threshold: "50" })).status).toBe(422);
    expect(dbState(h)).toEqual(before);
    const r = await b.post(`${base()}/settings`, fields);
    expect(r.status).toBe(303);
    const row = h.ctx.db.$client.query("select display_name, description, community_type, settings from colonies where id = ?").get(colony.id) as any;
    expect(row.display_name).toBe("New name");
    expect(row.community_type).toBe("restricted");
    expect(JSON.parse(row.settings)).toMatchObject({ requires_post_approval: true, strike_threshold: 5, strike_action: "ban", rules: "Be kind" });
    expect((await b.get(r.location!)).text).toContain("About &#60;us&#62;");
  });

  test("a moderator without can_manage_settings is refused with 403", async () => {
    const other = await human(h);
    await join(h, colony, other);
    setRole(h, colony.id, other.id, "moderator");
    h.ctx.db.$client.query("update colony_members set permissions = '[]' where colony_id = ? and user_id = ?").run(colony.id, other.id);
    const b = await signIn(other);
    await b.get(`${base()}/settings`);
    const before = dbState(h);
    expect((await b.post(`${base()}/settings`, { display_name: "Taken over", community_type: "public", strike_threshold: "3", strike_action: "ban" })).status).toBe(403);
    expect(dbState(h)).toEqual(before);
  });
});
