// Calendar events (spec Part 3 §4.13): create, read, list, edit, delete, RSVPs with a capacity
// under concurrency, visibility of private colonies' events, and the iCalendar feeds.
import { describe, expect, test } from "bun:test";
import { expectAnswer, setup, type Harness, type TestUser } from "../../../test/harness";
import { DAY, HOUR, MINUTE } from "../../core/clock";
import { join, makeColony } from "../posts/fixtures";
import { EventDetail, EventOut, RsvpOut } from "./routes";

// One harness for the tests that only read their own events; a test that lists or feeds every
// event of the site, or reads the clock's starting instant, has one of its own (`const h = setup()`).
const h = setup();

const T0 = Date.UTC(2026, 0, 1, 12); // the harness clock's start
const at = (ms: number) => new Date(ms).toISOString();
const create = (h: Harness, u: TestUser, body: Record<string, unknown>) => h.req("POST", "/api/v1/events", { token: u.token, body: { title: "Agent meetup", starts_at: at(T0 + DAY), ...body } });
async function event(h: Harness, u: TestUser, body: Record<string, unknown> = {}) {
  const r = await create(h, u, body);
  if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.text}`);
  return r.body;
}
const rsvp = (h: Harness, u: TestUser, id: string, status: string) => h.req("POST", `/api/v1/events/${id}/rsvp`, { token: u.token, body: { status } });
const get = (h: Harness, id: string, u?: TestUser) => h.req("GET", `/api/v1/events/${id}`, { token: u?.token });
const list = (h: Harness, query: Record<string, string | number | boolean> = {}, u?: TestUser) => h.req("GET", "/api/v1/events", { token: u?.token, query });
const unfold = (s: string) => s.replace(/\r\n[ \t]/g, "");

describe("POST /api/v1/events", () => {
  test("201 with the event: defaults, author (and its deprecated copy user), no RSVPs", async () => {
    const u = await h.user();
    const r = await create(h, u, { description: "  Bring questions  ", location: " Room 5 ", ends_at: at(T0 + DAY + 2 * HOUR), max_attendees: 10 });
    expect(r.status).toBe(201);
    expectAnswer(EventOut, r.body);
    const author = { id: u.id, username: u.username, display_name: u.username, user_type: "agent" };
    expect(r.body).toEqual({
      id: expect.any(String),
      title: "Agent meetup",
      description: "Bring questions",
      colony_id: null,
      colony: null,
      author,
      user: author,
      starts_at: at(T0 + DAY),
      ends_at: at(T0 + DAY + 2 * HOUR),
      location: "Room 5",
      is_virtual: true,
      max_attendees: 10,
      created_at: at(h.clock.now()),
      rsvp_count: 0,
      going_count: 0,
      user_rsvp: null,
    });
    const offline = await event(h, u, { is_virtual: false, starts_at: "2026-03-01T09:00:00+02:00" });
    expect(offline).toMatchObject({ is_virtual: false, starts_at: "2026-03-01T07:00:00.000Z", ends_at: null, location: null, description: null });
  });

  test("401 without an account", async () => {
    expect((await h.req("POST", "/api/v1/events", { body: { title: "x", starts_at: at(T0 + DAY) } })).status).toBe(401);
  });

  test("422 for bad input, naming the field; nothing is created", async () => {
    const u = await h.user();
    const cases: [Record<string, unknown>, string][] = [
      [{ title: "" }, "title"],
      [{ title: "   " }, "title"],
      [{ title: "t".repeat(301) }, "title"],
      [{ starts_at: "next tuesday" }, "starts_at"],
      [{ starts_at: "2026-02-30T10:00:00Z" }, "starts_at"],
      [{ starts_at: undefined }, "starts_at"],
      [{ ends_at: at(T0 + DAY) }, "ends_at"],
      [{ ends_at: at(T0 + DAY - MINUTE) }, "ends_at"],
      [{ ends_at: "soon" }, "ends_at"],
      [{ max_attendees: 0 }, "max_attendees"],
      [{ max_attendees: 2.5 }, "max_attendees"],
      [{ description: "d".repeat(10_001) }, "description"],
      [{ location: "l".repeat(501) }, "location"],
      [{ colony_id: "general" }, "colony_id"],
    ];
    for (const [body, field] of cases) {
      const r = await create(h, u, body);
      expect([field, r.status]).toEqual([field, 422]);
      expect(r.body.detail[0].loc).toEqual(["body", field]);
    }
    expect(h.ctx.db.$client.query("select count(*) as n from calendar_events where author_id = ?").get(u.id)).toEqual({ n: 0 });
  });

  test("in a colony: approved members only; 404 for one you cannot see, 409 archived, 403 banned or pending; admins pass", async () => {
    const [founder, member, stranger, pending, admin] = [await h.user(), await h.user(), await h.user(), await h.user(), await h.user({ admin: true })];
    const open = makeColony(h, founder, "public");
    await join(h, open, member);
    const ok = await create(h, member, { colony_id: open.id });
    expect(ok.status).toBe(201);
    expect(ok.body.colony).toEqual({ id: open.id, name: open.name, display_name: open.displayName });
    expect((await create(h, founder, { colony_id: open.id })).status).toBe(201);
    const notMember = await create(h, stranger, { colony_id: open.id });
    expect(notMember.status).toBe(403);
    expect(notMember.body.detail.code).toBe("FORBIDDEN");
    expect((await create(h, admin, { colony_id: open.id })).status).toBe(201);

    const gated = makeColony(h, founder, "restricted");
    await join(h, gated, pending);
    expect((await create(h, pending, { colony_id: gated.id })).status).toBe(403);

    const secret = makeColony(h, founder, "private");
    const hidden = await create(h, stranger, { colony_id: secret.id });
    expect(hidden.status).toBe(404);
    expect(hidden.body.detail.code).toBe("NOT_FOUND");
    expect((await create(h, stranger, { colony_id: "0190a4f2-0000-7000-8000-000000000000" })).status).toBe(404);

    const ban = await h.req("POST", `/api/v1/colonies/${open.id}/bans/${member.id}`, { token: founder.token, body: {} });
    expect(ban.status).toBeLessThan(300);
    expect((await create(h, member, { colony_id: open.id })).status).toBe(403);

    h.ctx.db.$client.query("update colonies set archived_at = ? where id = ?").run(T0, open.id);
    const archived = await create(h, founder, { colony_id: open.id });
    expect(archived.status).toBe(409);
    expect(archived.body.detail.code).toBe("CONFLICT");
  });

  test("create, update and delete share 10 an hour (429 RATE_LIMIT_EVENT_WRITE)", async () => {
    const u = await h.user();
    const first = await event(h, u);
    for (let i = 0; i < 8; i++) await event(h, u);
    expect((await h.req("PUT", `/api/v1/events/${first.id}`, { token: u.token, body: { title: "Renamed" } })).status).toBe(200);
    const refused = await create(h, u, {});
    expect(refused.status).toBe(429);
    expect(refused.body.detail.code).toBe("RATE_LIMIT_EVENT_WRITE");
    expect(refused.headers.get("retry-after")).toBeTruthy();
    expect((await h.req("DELETE", `/api/v1/events/${first.id}`, { token: u.token })).status).toBe(429);
    h.clock.advance(HOUR);
    expect((await h.req("DELETE", `/api/v1/events/${first.id}`, { token: u.token })).status).toBe(204);
  });
});

describe("GET /api/v1/events/{event_id}", () => {
  test("the detail: non-declined RSVPs first come first, the rendered description, your own RSVP", async () => {
    const [author, a, b, c] = [await h.user(), await h.user(), await h.user(), await h.user()];
    const e = await event(h, author, { description: `Hosted with @${a.username}, see [the notes](https://example.org/n) <script>x</script>` });
    await rsvp(h, a, e.id, "going");
    h.clock.advance(MINUTE);
    await rsvp(h, b, e.id, "maybe");
    await rsvp(h, c, e.id, "declined");
    const anon = await get(h, e.id);
    expect(anon.status).toBe(200);
    expectAnswer(EventDetail, anon.body);
    expect(anon.body.rsvps.map((r: any) => [r.user.id, r.status])).toEqual([
      [a.id, "going"],
      [b.id, "maybe"],
    ]);
    expect(anon.body).toMatchObject({ rsvp_count: 2, going_count: 1, user_rsvp: null });
    expect(anon.body.description_html).toContain(`<a href="http://localhost/u/${a.username}" class="mention">@${a.username}</a>`);
    expect(anon.body.description_html).toContain('rel="nofollow ugc noopener"');
    expect(anon.body.description_html).not.toContain("<script>");
    expect((await get(h, e.id, c)).body.user_rsvp).toBe("declined");
    expect((await get(h, e.id, a)).body.user_rsvp).toBe("going");
  });

  test("404 for an unknown id; 422 for a malformed one", async () => {
    expect((await get(h, "0190a4f2-0000-7000-8000-000000000000")).status).toBe(404);
    expect((await get(h, "not-a-uuid")).status).toBe(422);
  });

  test("a private colony's event: 404 to anonymous callers and strangers, 200 to members and admins", async () => {
    const [founder, member, stranger, admin] = [await h.user(), await h.user(), await h.user(), await h.user({ admin: true })];
    const secret = makeColony(h, founder, "private");
    await join(h, secret, member, founder);
    const e = await event(h, member, { colony_id: secret.id });
    expect((await get(h, e.id)).status).toBe(404);
    expect((await get(h, e.id, stranger)).status).toBe(404);
    expect((await get(h, e.id, member)).status).toBe(200);
    expect((await get(h, e.id, admin)).status).toBe(200);
    // Not visible = not there, for every route.
    for (const [method, path, body] of [
      ["PUT", `/api/v1/events/${e.id}`, { title: "x" }],
      ["DELETE", `/api/v1/events/${e.id}`, undefined],
      ["POST", `/api/v1/events/${e.id}/rsvp`, { status: "going" }],
      ["DELETE", `/api/v1/events/${e.id}/rsvp`, undefined],
    ] as const) {
      const r = await h.req(method, path, { token: stranger.token, body });
      expect([method, path, r.status]).toEqual([method, path, 404]);
    }
    // A deleted colony's events go dark for everyone but nothing else changes.
    h.ctx.db.$client.query("update colonies set deleted_at = ? where id = ?").run(T0, secret.id);
    expect((await get(h, e.id, member)).status).toBe(404);
  });
});

describe("GET /api/v1/events", () => {
  test("upcoming soonest first (an event under way included), past most recent first", async () => {
    const h = setup();
    const u = await h.user();
    const later = await event(h, u, { title: "later", starts_at: at(T0 + 3 * DAY) });
    const soon = await event(h, u, { title: "soon", starts_at: at(T0 + HOUR) });
    const running = await event(h, u, { title: "running", starts_at: at(T0 - HOUR), ends_at: at(T0 + HOUR) });
    const over = await event(h, u, { title: "over", starts_at: at(T0 - 2 * DAY), ends_at: at(T0 - DAY) });
    const started = await event(h, u, { title: "open-ended, started", starts_at: at(T0 - MINUTE) });
    const older = await event(h, u, { title: "older", starts_at: at(T0 - 5 * DAY) });
    const up = await list(h);
    expect(up.status).toBe(200);
    for (const item of up.body.items) expectAnswer(EventOut, item);
    expect(up.body.items.map((e: any) => e.id)).toEqual([running.id, soon.id, later.id]);
    expect(up.body).toMatchObject({ total: 3, has_more: false });
    const past = await list(h, { past: true });
    expect(past.body.items.map((e: any) => e.id)).toEqual([started.id, over.id, older.id]);
    // Time moves: "running" ends and joins the past (at its end instant it is still on).
    h.clock.advance(HOUR);
    expect((await list(h)).body.items[0].id).toBe(running.id);
    h.clock.advance(1);
    // "soon", open-ended, started an hour ago: it is over too.
    expect((await list(h)).body.items.map((e: any) => e.id)).toEqual([later.id]);
    expect((await list(h, { past: true })).body.items.map((e: any) => e.id)).toEqual([soon.id, started.id, running.id, over.id, older.id]);
  });

  test("paging: limit 1-200 (default 50), offset, page", async () => {
    const h = setup();
    const u = await h.user();
    for (let i = 0; i < 55; i++) h.ctx.db.$client.run(`insert into calendar_events (id, author_id, title, starts_at, lasts_until, created_at, updated_at) values ('0190a4f2-0000-7000-8000-${String(i).padStart(12, "0")}', '${u.id}', 'e${i}', ${T0 + (i + 1) * HOUR}, ${T0 + (i + 1) * HOUR}, ${T0}, ${T0})`);
    const first = await list(h);
    expect(first.body.items).toHaveLength(50);
    expect(first.body).toMatchObject({ total: 55, has_more: true });
    expect((await list(h, { page: 2 })).body).toMatchObject({ page: 2, has_more: false });
    expect((await list(h, { page: 2 })).body.items.map((e: any) => e.title)).toEqual(["e50", "e51", "e52", "e53", "e54"]);
    expect((await list(h, { limit: 200 })).body.items).toHaveLength(55);
    expect((await list(h, { limit: 2, offset: 3 })).body.items.map((e: any) => e.title)).toEqual(["e3", "e4"]);
    for (const q of [{ limit: 0 }, { limit: 201 }, { offset: -1 }, { offset: 100001 }, { page: 0 }] as Record<string, number>[]) expect((await list(h, q)).status).toBe(422);
    expect((await list(h, { limit: 10, offset: 5, page: 2 })).status).toBe(400);
  });

  test("private colonies' events only for their members; the colony filter; your RSVP on each", async () => {
    const h = setup();
    const [founder, member, stranger] = [await h.user(), await h.user(), await h.user()];
    const secret = makeColony(h, founder, "private");
    const open = makeColony(h, founder, "public");
    await join(h, secret, member, founder);
    const site = await event(h, stranger, { starts_at: at(T0 + HOUR) });
    const hidden = await event(h, founder, { colony_id: secret.id, starts_at: at(T0 + 2 * HOUR) });
    const inOpen = await event(h, founder, { colony_id: open.id, starts_at: at(T0 + 3 * HOUR) });
    await rsvp(h, member, hidden.id, "maybe");
    const ids = (r: any) => r.body.items.map((e: any) => e.id);
    expect(ids(await list(h))).toEqual([site.id, inOpen.id]);
    expect(ids(await list(h, {}, stranger))).toEqual([site.id, inOpen.id]);
    const mine = await list(h, {}, member);
    expect(ids(mine)).toEqual([site.id, hidden.id, inOpen.id]);
    expect(mine.body.items.map((e: any) => e.user_rsvp)).toEqual([null, "maybe", null]);
    expect(ids(await list(h, { colony_id: open.id }))).toEqual([inOpen.id]);
    expect(ids(await list(h, { colony_id: secret.id }, member))).toEqual([hidden.id]);
    expect((await list(h, { colony_id: secret.id }, stranger)).body).toMatchObject({ items: [], total: 0 });
    expect((await list(h, { colony_id: "0190a4f2-0000-7000-8000-000000000000" })).body.total).toBe(0);
  });
});

describe("PUT and DELETE /api/v1/events/{event_id}", () => {
  test("the author changes what is sent; null clears the clearable fields and leaves the others", async () => {
    const u = await h.user();
    const e = await event(h, u, { description: "old", location: "Room", ends_at: at(T0 + DAY + HOUR), max_attendees: 5 });
    const r = await h.req("PUT", `/api/v1/events/${e.id}`, { token: u.token, body: { title: "New title", description: "**new**" } });
    expect(r.status).toBe(200);
    expectAnswer(EventOut, r.body);
    expect(r.body).toMatchObject({ title: "New title", description: "**new**", location: "Room", max_attendees: 5, ends_at: at(T0 + DAY + HOUR) });
    expect((await get(h, e.id)).body.description_html).toBe("<p><strong>new</strong></p>\n");
    const cleared = await h.req("PUT", `/api/v1/events/${e.id}`, { token: u.token, body: { description: null, location: null, ends_at: null, max_attendees: null, title: null, starts_at: null, is_virtual: null } });
    expect(cleared.body).toMatchObject({ title: "New title", description: null, location: null, ends_at: null, max_attendees: null, starts_at: e.starts_at, is_virtual: true });
    expect((await get(h, e.id)).body.description_html).toBeNull();
    const bad = await h.req("PUT", `/api/v1/events/${e.id}`, { token: u.token, body: { ends_at: at(T0 + DAY - HOUR) } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["body", "ends_at"]);
    // Moving the start past an existing end is refused too.
    await h.req("PUT", `/api/v1/events/${e.id}`, { token: u.token, body: { ends_at: at(T0 + DAY + HOUR) } });
    expect((await h.req("PUT", `/api/v1/events/${e.id}`, { token: u.token, body: { starts_at: at(T0 + 2 * DAY) } })).status).toBe(422);
    expect((await h.req("PUT", `/api/v1/events/${e.id}`, { token: u.token, body: { starts_at: at(T0 + 2 * DAY), ends_at: at(T0 + 2 * DAY + HOUR) } })).status).toBe(200);
  });

  test("who may edit and delete: author, a moderator of the colony, a site admin; others 403", async () => {
    const [founder, author, member, stranger, admin] = [await h.user(), await h.user(), await h.user(), await h.user(), await h.user({ admin: true })];
    const colony = makeColony(h, founder, "public");
    await join(h, colony, author);
    await join(h, colony, member);
    const e = await event(h, author, { colony_id: colony.id });
    for (const u of [member, stranger]) {
      const r = await h.req("PUT", `/api/v1/events/${e.id}`, { token: u.token, body: { title: "mine now" } });
      expect(r.status).toBe(403);
      expect(r.body.detail.code).toBe("FORBIDDEN");
      expect((await h.req("DELETE", `/api/v1/events/${e.id}`, { token: u.token })).status).toBe(403);
    }
    expect((await h.req("PUT", `/api/v1/events/${e.id}`, { token: founder.token, body: { title: "Moderated" } })).body.title).toBe("Moderated");
    const siteWide = await event(h, author);
    expect((await h.req("PUT", `/api/v1/events/${siteWide.id}`, { token: founder.token, body: { title: "x" } })).status).toBe(403);
    expect((await h.req("PUT", `/api/v1/events/${siteWide.id}`, { token: admin.token, body: { title: "Fixed by an admin" } })).status).toBe(200);
    expect((await h.req("DELETE", `/api/v1/events/${e.id}`, { token: founder.token })).status).toBe(204);
    expect((await get(h, e.id)).status).toBe(404);
    expect((await h.req("DELETE", `/api/v1/events/${e.id}`, { token: founder.token })).status).toBe(404);
    expect((await h.req("PUT", `/api/v1/events/${e.id}`, { token: author.token, body: {} })).status).toBe(404);
  });

  test("moving to another colony needs its membership; null makes the event site-wide", async () => {
    const [founder, author] = [await h.user(), await h.user()];
    const a = makeColony(h, founder, "public");
    const b = makeColony(h, founder, "public");
    await join(h, a, author);
    const e = await event(h, author, { colony_id: a.id });
    expect((await h.req("PUT", `/api/v1/events/${e.id}`, { token: author.token, body: { colony_id: b.id } })).status).toBe(403);
    await join(h, b, author);
    expect((await h.req("PUT", `/api/v1/events/${e.id}`, { token: author.token, body: { colony_id: b.id } })).body.colony_id).toBe(b.id);
    const r = await h.req("PUT", `/api/v1/events/${e.id}`, { token: author.token, body: { colony_id: null } });
    expect(r.body).toMatchObject({ colony_id: null, colony: null });
  });

  test("deleting an event deletes its RSVPs", async () => {
    const [u, v] = [await h.user(), await h.user()];
    const e = await event(h, u);
    await rsvp(h, v, e.id, "going");
    expect((await h.req("DELETE", `/api/v1/events/${e.id}`, { token: u.token })).status).toBe(204);
    expect(h.ctx.db.$client.query("select count(*) as n from calendar_rsvps where event_id = ?").get(e.id)).toEqual({ n: 0 });
  });
});

describe("RSVPs", () => {
  test("201 creates, 200 replaces; counts follow; DELETE removes the row (204, then 404)", async () => {
    const [author, u] = [await h.user(), await h.user()];
    const e = await event(h, author);
    const t = h.clock.now();
    const first = await rsvp(h, u, e.id, "maybe");
    expect(first.status).toBe(201);
    expectAnswer(RsvpOut, first.body);
    expect(first.body).toEqual({ id: expect.any(String), user: { id: u.id, username: u.username, display_name: u.username, user_type: "agent" }, status: "maybe", created_at: at(t) });
    expect((await get(h, e.id)).body).toMatchObject({ rsvp_count: 1, going_count: 0 });
    h.clock.advance(MINUTE);
    const again = await rsvp(h, u, e.id, "going");
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, status: "going", created_at: at(t) });
    expect((await get(h, e.id)).body).toMatchObject({ rsvp_count: 1, going_count: 1 });
    expect((await rsvp(h, u, e.id, "going")).status).toBe(200);
    expect((await get(h, e.id)).body).toMatchObject({ rsvp_count: 1, going_count: 1 });
    await rsvp(h, u, e.id, "declined");
    expect((await get(h, e.id)).body).toMatchObject({ rsvp_count: 0, going_count: 0, rsvps: [] });
    expect((await h.req("DELETE", `/api/v1/events/${e.id}/rsvp`, { token: u.token })).status).toBe(204);
    const none = await h.req("DELETE", `/api/v1/events/${e.id}/rsvp`, { token: u.token });
    expect(none.status).toBe(404);
    expect(none.body.detail.code).toBe("NOT_FOUND");
    expect((await get(h, e.id, u)).body.user_rsvp).toBeNull();
  });

  test("bad status is 422; anonymous is 401; unknown event 404", async () => {
    const u = await h.user();
    const e = await event(h, u);
    expect((await rsvp(h, u, e.id, "attending")).status).toBe(422);
    expect((await h.req("POST", `/api/v1/events/${e.id}/rsvp`, { token: u.token, body: {} })).status).toBe(422);
    expect((await h.req("POST", `/api/v1/events/${e.id}/rsvp`, { body: { status: "going" } })).status).toBe(401);
    expect((await rsvp(h, u, "0190a4f2-0000-7000-8000-000000000000", "going")).status).toBe(404);
  });

  test("max_attendees: going is refused when full (409), maybe and declined never; a place freed can be taken", async () => {
    const [author, a, b, c] = [await h.user(), await h.user(), await h.user(), await h.user()];
    const e = await event(h, author, { max_attendees: 2 });
    expect((await rsvp(h, a, e.id, "going")).status).toBe(201);
    expect((await rsvp(h, b, e.id, "going")).status).toBe(201);
    const full = await rsvp(h, c, e.id, "going");
    expect(full.status).toBe(409);
    expect(full.body.detail.code).toBe("CONFLICT");
    expect((await rsvp(h, c, e.id, "maybe")).status).toBe(201);
    // Refused from maybe: the maybe stays.
    expect((await rsvp(h, c, e.id, "going")).status).toBe(409);
    expect((await get(h, e.id, c)).body).toMatchObject({ user_rsvp: "maybe", going_count: 2, rsvp_count: 3 });
    expect((await rsvp(h, a, e.id, "declined")).status).toBe(200);
    expect((await rsvp(h, c, e.id, "going")).status).toBe(200);
    expect((await get(h, e.id)).body).toMatchObject({ going_count: 2, rsvp_count: 2 });
    // Lowering the cap keeps those going; nobody new gets in until they fall below it.
    await h.req("PUT", `/api/v1/events/${e.id}`, { token: author.token, body: { max_attendees: 1 } });
    expect((await get(h, e.id)).body.going_count).toBe(2);
    expect((await rsvp(h, a, e.id, "going")).status).toBe(409);
    await h.req("DELETE", `/api/v1/events/${e.id}/rsvp`, { token: b.token });
    await h.req("DELETE", `/api/v1/events/${e.id}/rsvp`, { token: c.token });
    expect((await rsvp(h, a, e.id, "going")).status).toBe(200);
  });

  test("max_attendees holds under concurrent requests: exactly that many get in", async () => {
    const author = await h.user();
    const e = await event(h, author, { max_attendees: 3 });
    const people = await Promise.all(Array.from({ length: 12 }, () => h.user()));
    const answers = await Promise.all(people.map((u) => rsvp(h, u, e.id, "going")));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(3);
    expect(answers.filter((r) => r.status === 409)).toHaveLength(9);
    const detail = (await get(h, e.id)).body;
    expect(detail).toMatchObject({ going_count: 3, rsvp_count: 3 });
    expect(detail.rsvps).toHaveLength(3);
    // Switching back and forth at once never oversubscribes either.
    const flips = await Promise.all(people.flatMap((u) => [rsvp(h, u, e.id, "maybe"), rsvp(h, u, e.id, "going")]));
    expect(flips.every((r) => [200, 201, 409].includes(r.status))).toBe(true);
    const after = h.ctx.db.$client.query("select going_count as g, (select count(*) from calendar_rsvps where event_id = ? and status = 'going') as n from calendar_events where id = ?").get(e.id, e.id) as { g: number; n: number };
    expect(after.g).toBe(after.n);
    expect(after.n).toBeLessThanOrEqual(3);
  });

  test("RSVPs close when the event is over (409); banned members are refused (403)", async () => {
    const [founder, member] = [await h.user(), await h.user()];
    const colony = makeColony(h, founder, "public");
    await join(h, colony, member);
    const now = h.clock.now();
    const e = await event(h, founder, { colony_id: colony.id, starts_at: at(now + HOUR), ends_at: at(now + 2 * HOUR) });
    await h.req("POST", `/api/v1/colonies/${colony.id}/bans/${member.id}`, { token: founder.token, body: {} });
    const banned = await rsvp(h, member, e.id, "going");
    expect(banned.status).toBe(403);
    h.clock.advance(2 * HOUR + 1);
    const over = await rsvp(h, founder, e.id, "going");
    expect(over.status).toBe(409);
    expect(over.body.detail.code).toBe("CONFLICT");
  });
});

describe("iCalendar feeds", () => {
  test("GET /api/v1/events.ics: text/calendar, CRLF, 75-octet lines, one VEVENT per visible event", async () => {
    const h = setup();
    const [founder, member] = [await h.user(), await h.user()];
    const secret = makeColony(h, founder, "private");
    await join(h, secret, member, founder);
    const pub = await event(h, founder, { title: "Public, with; specials\\", description: "Line one\nLine two " + "é".repeat(80), ends_at: at(T0 + DAY + HOUR), location: "Room 7" });
    const hidden = await event(h, member, { colony_id: secret.id, title: "Members only" });
    const r = await h.req("GET", "/api/v1/events.ics");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/calendar; charset=utf-8");
    const body = r.text;
    expect(body.replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);
    for (const line of body.split("\r\n")) expect(new TextEncoder().encode(line).length).toBeLessThanOrEqual(75);
    const lines = unfold(body).split("\r\n");
    expect(lines[0]).toBe("BEGIN:VCALENDAR");
    expect(lines.filter((l) => l === "BEGIN:VEVENT")).toHaveLength(1);
    expect(lines).toContain(`UID:${pub.id}@localhost`);
    expect(lines).toContain("DTSTAMP:20260101T120000Z");
    expect(lines).toContain("DTSTART:20260102T120000Z");
    expect(lines).toContain("DTEND:20260102T130000Z");
    expect(lines).toContain("SUMMARY:Public\\, with\\; specials\\\\");
    expect(lines).toContain(`DESCRIPTION:Line one\\nLine two ${"é".repeat(80)}`);
    expect(lines).toContain("LOCATION:Room 7");
    expect(lines).toContain("SEQUENCE:0");
    expect(body).not.toContain(hidden.id);
  });

  test("a feed key (or a bearer token) adds the private colonies the owner belongs to; replacing or revoking it retires the address", async () => {
    const [founder, member] = [await h.user(), await h.user()];
    const secret = makeColony(h, founder, "private");
    await join(h, secret, member, founder);
    const hidden = await event(h, member, { colony_id: secret.id });
    const issued = await h.req("POST", "/api/v1/events/feed-key", { token: member.token });
    expect(issued.status).toBe(201);
    const { key, feed_url, colony_feed_url } = issued.body;
    expect(key).toMatch(/^colcal_[0-9A-Za-z]{40}$/);
    expect(feed_url).toBe(`http://localhost/api/v1/events.ics?key=${key}`);
    expect(colony_feed_url).toBe(`http://localhost/api/v1/colonies/{colony_id}/events.ics?key=${key}`);
    expect((await h.req("GET", "/api/v1/events.ics", { query: { key } })).text).toContain(hidden.id);
    expect((await h.req("GET", "/api/v1/events.ics", { token: member.token })).text).toContain(hidden.id);
    const colonyFeed = await h.req("GET", `/api/v1/colonies/${secret.id}/events.ics`, { query: { key } });
    expect(colonyFeed.status).toBe(200);
    expect(unfold(colonyFeed.text)).toContain(`X-WR-CALNAME:${secret.displayName} events`);
    expect(colonyFeed.text).toContain(hidden.id);
    // Strangers and anonymous callers do not see the colony at all.
    expect((await h.req("GET", `/api/v1/colonies/${secret.id}/events.ics`)).status).toBe(404);
    expect((await h.req("GET", `/api/v1/colonies/${secret.id}/events.ics`, { token: founder.token })).status).toBe(200);
    // Replaced: the old key is 401, the new one works.
    const replaced = await h.req("POST", "/api/v1/events/feed-key", { token: member.token });
    const old = await h.req("GET", "/api/v1/events.ics", { query: { key } });
    expect(old.status).toBe(401);
    expect(old.body.detail.code).toBe("AUTH_INVALID_TOKEN");
    expect((await h.req("GET", "/api/v1/events.ics", { query: { key: replaced.body.key } })).status).toBe(200);
    expect((await h.req("DELETE", "/api/v1/events/feed-key", { token: member.token })).status).toBe(204);
    expect((await h.req("GET", "/api/v1/events.ics", { query: { key: replaced.body.key } })).status).toBe(401);
    expect((await h.req("DELETE", "/api/v1/events/feed-key", { token: member.token })).status).toBe(404);
    expect((await h.req("GET", "/api/v1/events.ics", { query: { key: "colcal_guess" } })).status).toBe(401);
    expect((await h.req("POST", "/api/v1/events/feed-key")).status).toBe(401);
  });

  test("ETag and 304; an edit changes the feed and bumps SEQUENCE", async () => {
    const h = setup();
    const u = await h.user();
    const e = await event(h, u);
    const first = await h.req("GET", "/api/v1/events.ics");
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-z]+"$/);
    const again = await h.req("GET", "/api/v1/events.ics", { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    h.clock.advance(MINUTE);
    await h.req("PUT", `/api/v1/events/${e.id}`, { token: u.token, body: { title: "Moved" } });
    const changed = await h.req("GET", "/api/v1/events.ics", { headers: { "if-none-match": etag } });
    expect(changed.status).toBe(200);
    const lines = unfold(changed.text).split("\r\n");
    expect(lines).toContain("SEQUENCE:1");
    expect(lines).toContain("SUMMARY:Moved");
    expect(lines).toContain("LAST-MODIFIED:20260101T120100Z");
    expect(lines).toContain("DTSTAMP:20260101T120100Z");
  });

  test("events over for more than a year leave the feed", async () => {
    const u = await h.user();
    const e = await event(h, u, { starts_at: at(T0 - 400 * DAY), ends_at: at(T0 - 366 * DAY) });
    const recent = await event(h, u, { starts_at: at(T0 - 300 * DAY) });
    const body = (await h.req("GET", "/api/v1/events.ics")).text;
    expect(body).not.toContain(e.id);
    expect(body).toContain(recent.id);
  });

  test("an unknown colony's feed is 404", async () => {
    expect((await h.req("GET", "/api/v1/colonies/0190a4f2-0000-7000-8000-000000000000/events.ics")).status).toBe(404);
  });
});

describe("accounts", () => {
  test("a self-deleted account's events, RSVPs and feed key go, and the counts follow", async () => {
    const author = await h.user();
    const e = await event(h, author);
    const gone = await h.user();
    await event(h, gone);
    await rsvp(h, gone, e.id, "going");
    await h.req("POST", "/api/v1/events/feed-key", { token: gone.token });
    expect((await h.req("DELETE", "/api/v1/auth/account", { token: gone.token })).status).toBe(204);
    await h.ctx.events.drain();
    const n = (sql: string) => (h.ctx.db.$client.query(sql).get(gone.id) as { n: number }).n;
    expect(n("select count(*) as n from calendar_events where author_id = ?")).toBe(0);
    expect(n("select count(*) as n from calendar_rsvps where user_id = ?")).toBe(0);
    expect(n("select count(*) as n from calendar_feed_keys where user_id = ?")).toBe(0);
    expect((await get(h, e.id)).body).toMatchObject({ going_count: 0, rsvp_count: 0 });
  });
});
