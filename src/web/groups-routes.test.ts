// Group conversations on the web: /groups/new, a group's page and its forms (send, invite, remove,
// title and description, leave), the invitation and its answer, and the groups section of
// /messages — each form's success, its refusals (signed out, not a member, not an admin, no CSRF
// token, the service's errors) and that a refused form changes nothing.
import { beforeEach, describe, expect, test } from "bun:test";
import { Browser, signedInBrowser } from "../../test/browser";
import { dbState } from "../../test/db-state";
import { setup, type Harness, type TestUser } from "../../test/harness";
import { HOUR } from "../core/clock";
import { G, groupSent, makeGroup } from "../features/messages/groups/gtestkit";
import { human } from "../features/sessions/fixtures";
import { memberNames } from "./groups-routes";

// One harness for the file; before each test, four new people. The tests of the rate limits
// (another configuration) have a harness of their own.
const h = setup({ rateLimitMultiplier: 0, readCacheBytes: 0 });
let ann: TestUser;
let ben: TestUser;
let cat: TestUser;
let dan: TestUser;
beforeEach(async () => {
  [ann, ben, cat, dan] = [await human(h), await human(h), await human(h), await human(h)];
});

const signedIn = (hh: Harness, u: TestUser): Promise<Browser> => signedInBrowser(hh, u.username);
const q = (sql: string, ...args: string[]) => h.ctx.db.$client.query(sql).all(...args) as Record<string, unknown>[];
const memberStatus = (g: string, u: TestUser) => (q("select invite_status, left_at from conversation_members where conversation_id = ? and user_id = ?", g, u.id)[0] ?? null) as { invite_status: string; left_at: number | null } | null;
/** A location without its fragment, which a browser keeps to itself. */
const path = (location: string) => location.split("#")[0];
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

describe("signed out", () => {
  test.each(["/groups/new", "/groups/0190a1b2-0000-7000-8000-000000000000", "/groups"])("GET %s sends them to sign in", async (path) => {
    const r = await new Browser(h).get(path);
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/login?next=${encodeURIComponent(path === "/groups" ? "/messages" : path)}`);
  });

  test("a form sent with the anonymous token is sent to sign in and changes nothing", async () => {
    const g = await makeGroup(h, ann, [ben]);
    const b = new Browser(h);
    await b.get("/login");
    const before = dbState(h);
    for (const [path, fields] of [
      [`/groups/${g}/send`, { body: "hi" }],
      [`/groups/${g}/leave`, {}],
      [`/groups/${g}/respond`, { answer: "accept" }],
      ["/groups/new", { title: "T", members: ben.username }],
    ] as const) {
      const r = await b.post(path, fields);
      expect(r.status).toBe(303);
      expect(r.location).toStartWith("/login?next=");
    }
    expect(dbState(h)).toEqual(before);
  });
});

describe("/groups/new", () => {
  test("a group with two members: the creator is its admin, both are invited, and its page says so", async () => {
    const b = await signedIn(h, ann);
    const form = await b.get("/groups/new");
    expect(form.status).toBe(200);
    expect(form.text).toContain('<label for="group-members">Members</label>');
    const r = await b.post("/groups/new", { title: "Fern <club>", members: `@${ben.username}, ${cat.username}\n${ben.username}`, description: "Watering **schedules**" });
    expect(r.status).toBe(303);
    const id = new RegExp(`^/groups/(${UUID.source})\\?notice=created$`).exec(r.location!)![1];
    expect(q("select kind, title, description, creator_id from conversations where id = ?", id)[0]).toEqual({ kind: "group", title: "Fern <club>", description: "Watering **schedules**", creator_id: ann.id });
    expect(memberStatus(id, ben)?.invite_status).toBe("pending");
    expect(memberStatus(id, cat)?.invite_status).toBe("pending");
    const shown = await b.get(r.location!);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain("<h1>Fern &lt;club&gt;</h1>");
    expect(shown.text).toContain("Watering **schedules**");
    expect(shown.text).toContain('<p role="status">The group is made');
    expect(shown.text).toContain("2 invitations open");
    expect(shown.text).toContain('<span class="b">creator</span>');
    expect(shown.text).toContain('<span class="b">invited</span>');
    // An admin's forms.
    expect(shown.text).toContain(`action="/groups/${id}/members"`);
    expect(shown.text).toContain(`action="/groups/${id}/edit"`);
    expect(shown.text).toContain(`action="/groups/${id}/members/${ben.username}/remove"`);
    // Its creator is listed on /messages.
    expect((await b.get("/messages")).text).toContain(`<a href="/groups/${id}">Fern &lt;club&gt;</a>`);
  });

  test("refusals show the form again with what was typed and the service's reason; nothing is made", async () => {
    const b = await signedIn(h, ann);
    await b.get("/groups/new");
    const before = dbState(h);
    const unknown = await b.post("/groups/new", { title: "Kept <title>", members: `${ben.username} nobody-here` });
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain("User not found: nobody-here");
    expect(unknown.text).toContain('value="Kept <title>"');
    expect(unknown.text).toContain(`${ben.username} nobody-here</textarea>`);
    expect((await b.post("/groups/new", { title: "   ", members: ben.username })).status).toBe(400);
    const alone = await b.post("/groups/new", { title: "Just me", members: ann.username });
    expect(alone.status).toBe(400);
    expect(alone.text).toContain("A group needs at least one other member");
    expect((await b.post("/groups/new", { title: "x".repeat(101), members: ben.username })).status).toBe(422);
    expect((await b.post("/groups/new", { title: "Fine", members: ben.username, description: "d".repeat(501) })).status).toBe(422);
    expect((await b.post("/groups/new", { title: "Fine", members: ben.username }, { csrf: null })).status).toBe(403);
    expect(dbState(h)).toEqual(before);
  });

  test("the members field: commas, spaces and lines separate names, a leading @ is dropped", () => {
    expect(memberNames(" @ben-human,cat-human\n\ndan-human ;  ")).toEqual(["ben-human", "cat-human", "dan-human"]);
  });

  test("creating is charged to the API's group_create budget: the 11th in an hour is a 429 page, nothing made; an hour later it works", async () => {
    const hh = setup({ readCacheBytes: 0 });
    const a = await human(hh, { username: "maker" });
    await human(hh, { username: "friend" });
    const b = await signedIn(hh, a);
    await b.get("/groups/new");
    for (let i = 0; i < 10; i++) expect((await b.post("/groups/new", { title: `Group ${i}`, members: "friend" })).status).toBe(303);
    const before = dbState(hh);
    const refused = await b.post("/groups/new", { title: "One too many", members: "friend" });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.text).toContain('value="One too many"');
    expect(dbState(hh)).toEqual(before);
    // The same budget as POST /api/v1/messages/groups.
    expect((await hh.req("POST", `${G}?title=Api&members=friend`, { token: a.token })).status).toBe(429);
    hh.clock.advance(HOUR + 60_000);
    const again = await signedIn(hh, a);
    await again.get("/groups/new");
    expect((await again.post("/groups/new", { title: "Later", members: "friend" })).status).toBe(303);
  });
});

describe("invitations", () => {
  test("the invitee sees it on /messages and at the group's address, accepts, and reads the group", async () => {
    const g = await makeGroup(h, ann, [ben, cat], [], "Seed swap");
    await groupSent(h, ann, g, "Welcome, everyone");
    const b = await signedIn(h, ben);
    const list = await b.get("/messages");
    expect(list.text).toContain("<h3>Invitations</h3>");
    expect(list.text).toContain(`action="/groups/${g}/respond"`);
    // An invitee sees the invitation, not the messages.
    const inv = await b.get(`/groups/${g}`);
    expect(inv.status).toBe(200);
    expect(inv.text).toContain("<h1>Invitation: Seed swap</h1>");
    expect(inv.text).toContain(`<a href="/u/${ann.username}">@${ann.username}</a> invited you`);
    expect(inv.text).not.toContain("Welcome, everyone");
    // An invitee may not send.
    const before = dbState(h);
    expect((await b.post(`/groups/${g}/send`, { body: "too early" })).status).toBe(404);
    expect((await b.post(`/groups/${g}/respond`, { answer: "maybe" })).status).toBe(400);
    expect((await b.post(`/groups/${g}/respond`, { answer: "accept" }, { csrf: null })).status).toBe(403);
    expect(dbState(h)).toEqual(before);
    const ok = await b.post(`/groups/${g}/respond`, { answer: "accept" });
    expect(ok.status).toBe(303);
    expect(ok.location).toBe(`/groups/${g}?notice=joined`);
    expect(memberStatus(g, ben)?.invite_status).toBe("accepted");
    const page = await b.get(ok.location!);
    expect(page.text).toContain("You joined the group.");
    // Only the fixed notices: anything else in the address says nothing.
    expect((await b.get(`/groups/${g}?notice=constructor`)).text).not.toContain('role="status"');
    expect(page.text).toContain("Welcome, everyone");
    // Accepting again is what is already true.
    expect((await b.post(`/groups/${g}/respond`, { answer: "accept" })).status).toBe(303);
    // Declining once a member is the service's 409.
    expect((await b.post(`/groups/${g}/respond`, { answer: "decline" })).status).toBe(409);
  });

  test("declining takes the invitation away; the group is then the 404 page", async () => {
    const g = await makeGroup(h, ann, [ben, cat], [], "Declined");
    const c = await signedIn(h, cat);
    await c.get(`/groups/${g}`);
    const r = await c.post(`/groups/${g}/respond`, { answer: "decline" });
    expect(r.status).toBe(303);
    expect(r.location).toBe("/messages#groups");
    expect(memberStatus(g, cat)?.invite_status).toBe("declined");
    expect((await c.get(`/groups/${g}`)).status).toBe(404);
    expect((await c.post(`/groups/${g}/respond`, { answer: "accept" })).status).toBe(404);
  });
});

describe("a group's page", () => {
  test("not a member (a stranger, a bad id, an unknown group) is the 404 page, and its forms change nothing", async () => {
    const g = await makeGroup(h, ann, [ben]);
    const d = await signedIn(h, dan);
    for (const path of [`/groups/${g}`, "/groups/not-a-uuid", "/groups/0190a1b2-0000-7000-8000-000000000000"]) {
      const r = await d.get(path);
      expect(r.status).toBe(404);
      expect(r.text).toContain("There is nothing here, or it is not visible to you.");
    }
    await d.get("/groups/new");
    const before = dbState(h);
    for (const [path, fields] of [
      [`/groups/${g}/send`, { body: "let me in" }],
      [`/groups/${g}/leave`, {}],
      [`/groups/${g}/edit`, { title: "Mine now", description: "" }],
      [`/groups/${g}/members`, { username: dan.username }],
      [`/groups/${g}/members/${ben.username}/remove`, {}],
      [`/groups/${g}/respond`, { answer: "accept" }],
      ["/groups/not-a-uuid/send", { body: "x" }],
    ] as const) {
      const r = await d.post(path, fields);
      expect(r.status).toBe(404);
      expect(r.text).toContain("There is nothing here");
    }
    expect(dbState(h)).toEqual(before);
  });

  test("a message is sent from the page; the other member sees the unread count on /messages, and opening the group reads it", async () => {
    const g = await makeGroup(h, ann, [ben], [ben], "Chatty");
    const a = await signedIn(h, ann);
    await a.get(`/groups/${g}`);
    const sent = await a.post(`/groups/${g}/send`, { body: `Hello <team>,\n@${ben.username} look` });
    expect(sent.status).toBe(303);
    const mid = new RegExp(`^/groups/${g}#message-(${UUID.source})$`).exec(sent.location!)![1];
    expect(q("select sender_id, body from messages where id = ?", mid)[0]).toEqual({ sender_id: ann.id, body: `Hello <team>,\n@${ben.username} look` });
    expect((await a.get(`/groups/${g}`)).text).toContain(`Hello &lt;team&gt;,\n@${ben.username} look`);
    const b = await signedIn(h, ben);
    const list = await b.get("/messages");
    expect(list.text).toMatch(new RegExp(`<a href="/groups/${g}">Chatty</a><strong> 1 unread</strong>`));
    // The notification leads to the group.
    expect((await b.get("/notifications")).text).toContain(`<a href="/groups/${g}">`);
    await b.get(`/groups/${g}`);
    expect((await b.get("/messages")).text).not.toMatch(new RegExp(`<a href="/groups/${g}">Chatty</a><strong>`));
  });

  test("a refused message shows the page again with what was typed (422 empty, 422 too long, 400 too many mentions); CSRF checked; nothing sent", async () => {
    const g = await makeGroup(h, ann, [ben], [ben], "Strict");
    const a = await signedIn(h, ann);
    await a.get(`/groups/${g}`);
    const before = dbState(h);
    const blank = await a.post(`/groups/${g}/send`, { body: "" });
    expect(blank.status).toBe(422);
    expect(blank.text).toContain('role="alert"');
    expect(blank.text).toContain("<h1>Strict</h1>");
    expect((await a.post(`/groups/${g}/send`, { body: "x".repeat(10_001) })).status).toBe(422);
    const loud = Array.from({ length: 21 }, (_, i) => `@user-${i}`).join(" ");
    const mentions = await a.post(`/groups/${g}/send`, { body: loud });
    expect(mentions.status).toBe(400);
    expect(mentions.text).toContain(`${loud}</textarea>`);
    expect((await a.post(`/groups/${g}/send`, { body: "no token" }, { csrf: null })).status).toBe(403);
    expect(dbState(h)).toEqual(before);
  });

  test("sending is charged to the API's message budget: past it, a 429 on the group's page with Retry-After, the message kept, nothing sent", async () => {
    const hh = setup({ readCacheBytes: 0 });
    const a = await human(hh, { username: "talker" });
    const f = await human(hh, { username: "listener" });
    const g = await makeGroup(hh, a, [f], [f], "Busy");
    const b = await signedIn(hh, a);
    await b.get(`/groups/${g}`);
    let sent = 0;
    for (; sent < 100; sent++) if ((await b.post(`/groups/${g}/send`, { body: `number ${sent}` })).status !== 303) break;
    expect(sent).toBeGreaterThan(0);
    const before = dbState(hh);
    const refused = await b.post(`/groups/${g}/send`, { body: "one more <please>" });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.text).toContain("<h1>Busy</h1>");
    expect(refused.text).toContain("one more &lt;please&gt;</textarea>");
    expect(dbState(hh)).toEqual(before);
    // The same budget as POST /api/v1/messages/groups/{id}/send.
    expect((await hh.req("POST", `${G}/${g}/send`, { token: a.token, body: { body: "api" } })).status).toBe(429);
  });

  test("messages oldest first, a page at a time: older pages behind a link; a page past the last is a 400 page", async () => {
    const g = await makeGroup(h, ann, [ben], [ben], "Long");
    for (let i = 1; i <= 55; i++) await groupSent(h, i % 2 ? ann : ben, g, `message number ${i}.`);
    const b = await signedIn(h, ben);
    const first = await b.get(`/groups/${g}`);
    expect(first.text).toContain("message number 55.");
    expect(first.text).toContain("message number 6.");
    expect(first.text).not.toContain("message number 5.");
    expect(first.text.indexOf("message number 6.")).toBeLessThan(first.text.indexOf("message number 55."));
    expect(first.text).toContain(`<a href="/groups/${g}?page=2" rel="next">← Older messages</a>`);
    expect(first.text).not.toContain("Newer messages");
    const second = await b.get(`/groups/${g}?page=2`);
    expect(second.status).toBe(200);
    expect(second.text).toContain("message number 1.");
    expect(second.text).not.toContain("message number 6.");
    expect(second.text).toContain(`<a href="/groups/${g}" rel="prev">Newer messages →</a>`);
    expect(second.text).not.toContain("Older messages");
    for (const p of ["3", "0", "abc", "-1", "1.5"]) expect((await b.get(`/groups/${g}?page=${p}`)).status).toBe(400);
  });
});

describe("admins", () => {
  test("title and description: saved by an admin; a member who is not one gets 403 with the service's reason; a blank title is kept and refused", async () => {
    const g = await makeGroup(h, ann, [ben], [ben], "Before");
    const a = await signedIn(h, ann);
    await a.get(`/groups/${g}`);
    const saved = await a.post(`/groups/${g}/edit`, { title: "After <it>", description: "New words" });
    expect(saved.status).toBe(303);
    expect(saved.location).toBe(`/groups/${g}?notice=saved#settings-h`);
    expect(q("select title, description from conversations where id = ?", g)[0]).toEqual({ title: "After <it>", description: "New words" });
    expect((await a.get(path(saved.location!))).text).toContain("The title and description are saved.");
    const before = dbState(h);
    const blank = await a.post(`/groups/${g}/edit`, { title: "  ", description: "Typed <desc>" });
    expect(blank.status).toBe(400);
    expect(blank.text).toContain("Typed &lt;desc&gt;</textarea>");
    expect((await a.post(`/groups/${g}/edit`, { title: "Ok", description: "d".repeat(501) })).status).toBe(422);
    expect((await a.post(`/groups/${g}/edit`, { title: "No token", description: "" }, { csrf: null })).status).toBe(403);
    expect(dbState(h)).toEqual(before);
    const b = await signedIn(h, ben);
    const page = await b.get(`/groups/${g}`);
    expect(page.text).not.toContain(`action="/groups/${g}/edit"`);
    expect(page.text).not.toContain(`action="/groups/${g}/members"`);
    const beforeBen = dbState(h);
    const refused = await b.post(`/groups/${g}/edit`, { title: "Ben's now", description: "" });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("Only group admins can do that");
    expect(refused.text).toContain("<h1>After &lt;it&gt;</h1>");
    expect(dbState(h)).toEqual(beforeBen);
  });

  test("inviting: a new member is invited, someone already in is told so, an unknown name is a 404 on the page, a member who is not an admin gets 403", async () => {
    const g = await makeGroup(h, ann, [ben], [ben], "Growing");
    const a = await signedIn(h, ann);
    await a.get(`/groups/${g}`);
    const r = await a.post(`/groups/${g}/members`, { username: `@${cat.username}` });
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/groups/${g}?notice=invited#members-h`);
    expect(memberStatus(g, cat)?.invite_status).toBe("pending");
    const again = await a.post(`/groups/${g}/members`, { username: cat.username });
    expect(again.location).toBe(`/groups/${g}?notice=already-member#members-h`);
    expect((await a.get(path(again.location!))).text).toContain("They are already in the group, or already invited.");
    const b = await signedIn(h, ben);
    await b.get(`/groups/${g}`);
    const before = dbState(h);
    const unknown = await a.post(`/groups/${g}/members`, { username: "nobody-here" });
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain("User not found");
    expect(unknown.text).toContain("<h1>Growing</h1>");
    expect(unknown.text).toContain('value="nobody-here"');
    expect((await a.post(`/groups/${g}/members`, { username: dan.username }, { csrf: null })).status).toBe(403);
    const refused = await b.post(`/groups/${g}/members`, { username: dan.username });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("Only group admins can do that");
    expect(dbState(h)).toEqual(before);
  });

  test("removing: an admin removes a member and withdraws an invitation; others get 403, someone not in the group 404; CSRF checked", async () => {
    const g = await makeGroup(h, ann, [ben, cat, dan], [ben, cat], "Pruned");
    const b = await signedIn(h, ben);
    await b.get(`/groups/${g}`);
    const a = await signedIn(h, ann);
    const page = await a.get(`/groups/${g}`);
    expect(page.text).toContain(`Withdraw the invitation of @${dan.username}`);
    const before = dbState(h);
    const notAdmin = await b.post(`/groups/${g}/members/${cat.username}/remove`);
    expect(notAdmin.status).toBe(403);
    expect(notAdmin.text).toContain("Only group admins can remove other members");
    const creator = await b.post(`/groups/${g}/members/${ann.username}/remove`);
    expect(creator.status).toBe(403);
    const missing = await a.post(`/groups/${g}/members/nobody-here/remove`);
    expect(missing.status).toBe(404);
    expect(missing.text).toContain("Member not found in this group");
    expect(missing.text).toContain("<h1>Pruned</h1>");
    expect((await a.post(`/groups/${g}/members/${cat.username}/remove`, {}, { csrf: null })).status).toBe(403);
    expect(dbState(h)).toEqual(before);
    const r = await a.post(`/groups/${g}/members/${cat.username}/remove`);
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/groups/${g}?notice=removed#members-h`);
    expect(memberStatus(g, cat)?.left_at).not.toBeNull();
    expect((await a.post(`/groups/${g}/members/${dan.username}/remove`)).status).toBe(303);
    expect(memberStatus(g, dan)?.left_at).not.toBeNull();
    expect((await (await signedIn(h, cat)).get(`/groups/${g}`)).status).toBe(404);
  });
});

describe("leaving", () => {
  test("a member leaves from the page and the group is then the 404 page; CSRF checked", async () => {
    const g = await makeGroup(h, ann, [ben], [ben], "Leavable");
    const b = await signedIn(h, ben);
    await b.get(`/groups/${g}`);
    const before = dbState(h);
    expect((await b.post(`/groups/${g}/leave`, {}, { csrf: null })).status).toBe(403);
    expect(dbState(h)).toEqual(before);
    const r = await b.post(`/groups/${g}/leave`);
    expect(r.status).toBe(303);
    expect(r.location).toBe("/messages#groups");
    expect(memberStatus(g, ben)?.left_at).not.toBeNull();
    expect((await b.get(`/groups/${g}`)).status).toBe(404);
    expect((await b.get("/messages")).text).not.toContain(`/groups/${g}`);
  });
});

describe("/messages", () => {
  test("the groups section: a link to a new group, no groups yet; the 'Write to' form opens a conversation", async () => {
    const b = await signedIn(h, ann);
    const list = await b.get("/messages");
    expect(list.text).toContain('<h2 id="groups-h">Groups</h2>');
    expect(list.text).toContain('<a href="/groups/new">New group</a>');
    expect(list.text).toContain("No groups yet.");
    expect(list.text).toContain('<form method="get" action="/messages" class="write">');
    expect((await b.get(`/messages?to=${ben.username}`)).location).toBe(`/messages/${ben.username}`);
    expect((await b.get("/groups")).location).toBe("/messages#groups");
  });
});
