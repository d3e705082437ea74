// GET /live, the web pages' live stream (docs/decisions.md §170-§172): signed-in only, the
// viewer's events and nobody else's (their unread count as it opens and as it changes, their
// direct messages, with ?post= the comments others add to a post they may read), refusals that are
// never a stream, the session checked as the stream runs, unsubscribing when the page goes or the
// server stops, and the pages' markers and script that use it.
import { describe, expect, test } from "bun:test";
import { Browser, signedInBrowser } from "../../test/browser";
import { BASE, setup, type Harness, type TestUser } from "../../test/harness";
import { DAY } from "../core/clock";
import { postTopic, webKey } from "../core/realtime";
import { callerOf } from "../features/auth/caller";
import { comment } from "../features/comments/fixtures";
import * as direct from "../features/messages/direct";
import { join, makeColony, post } from "../features/posts/fixtures";
import { human } from "../features/sessions/fixtures";
import * as users from "../features/users/service";
import { eventStream } from "../features/realtime/stream";
import { LIVE_SCRIPT } from "./assets";
import { LIVE_MAX_STREAMS } from "./live-routes";
import { GROUP_MESSAGES_PER_PAGE } from "./groups-routes";
import { groupSent, makeGroup } from "../features/messages/groups/gtestkit";
import { sseReader } from "../../test/sse";

// One harness for the file: every test makes its own people, posts and colonies. The test that
// moves the clock a month has a harness of its own, as has the one that closes the hub.
const OPTIONS = { streamHeartbeatMs: 25, rateLimitMultiplier: 0, readCacheBytes: 0 };
const h = setup(OPTIONS);
/** A new person with a password (signedInBrowser signs in as them). */
const person = () => human(h);

const reader = sseReader;

/** GET `path` with the browser's cookies, as its EventSource would (same origin). */
function openLive(b: Browser | null, path = "/live", headers: Record<string, string> = { "sec-fetch-site": "same-origin" }, on: Harness = h): Promise<Response> {
  const all: Record<string, string> = { accept: "text/event-stream", ...headers };
  if (b?.jar.size) all.cookie = [...b.jar].map(([k, v]) => `${k}=${v}`).join("; ");
  return Promise.resolve(on.app.handle(new Request(`${BASE}${path}`, { headers: all })));
}

/** Opens a signed-in stream and reads up to its first frames (the opening unread count). */
async function liveOf(b: Browser, path = "/live", on: Harness = h) {
  const res = await openLive(b, path, undefined, on);
  expect(res.status).toBe(200);
  const s = reader(res);
  await s.next((f) => f.some((x) => x.event === "notifications.unread"));
  return s;
}

const callerFor = (u: TestUser) => callerOf(users.findById(h.ctx, u.id)!);
const send = (from: TestUser, to: TestUser, body: string) => direct.send(h.ctx, callerFor(from), to.username, { body });
const settle = () => h.ctx.events.drain();

describe("refusals are never a stream", () => {
  test("anonymous: 401, and nothing subscribes", async () => {
    const before = h.ctx.realtime.total();
    const res = await openLive(null);
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toContain("text/plain");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.text()).toContain("Sign in");
    expect(h.ctx.realtime.total()).toBe(before);
  });

  test("a bearer token does not open it (the cookie's stream, not the API's)", async () => {
    const agent = await h.user();
    const res = await h.app.handle(new Request(`${BASE}/live`, { headers: { authorization: `Bearer ${agent.token}` } }));
    expect(res.status).toBe(401);
    expect(h.ctx.realtime.subscribers(agent.id)).toBe(0);
  });

  test("an unknown session cookie: 401, and the cookie is cleared", async () => {
    const b = new Browser(h);
    b.jar.set("colony_session", "x".repeat(43));
    const res = await openLive(b);
    expect(res.status).toBe(401);
    expect(res.headers.getSetCookie().some((c) => c.startsWith("colony_session=;") && c.includes("Max-Age=0"))).toBe(true);
  });

  test("a request from another site: 403", async () => {
    const ann = await person();
    const b = await signedInBrowser(h, ann.username);
    for (const headers of [{ "sec-fetch-site": "cross-site" }, { origin: "https://elsewhere.example" }] as Record<string, string>[]) {
      const res = await openLive(b, "/live", headers);
      expect(res.status).toBe(403);
    }
    expect(h.ctx.realtime.subscribers(webKey(ann.id))).toBe(0);
  });

  test("?post= of a post the viewer cannot read, unknown, malformed or repeated: 404", async () => {
    const [owner, ann, ben] = [await person(), await person(), await person()];
    const secret = makeColony(h, owner, "private");
    const hidden = await post(h, owner, { colony_id: secret.id });
    const open = await post(h, ann);
    const b = await signedInBrowser(h, ben.username);
    for (const q of [`?post=${hidden.id}`, "?post=00000000-0000-7000-8000-000000000000", "?post=nope", `?post=${open.id}&post=${open.id}`, "?post="]) {
      const res = await openLive(b, `/live${q}`);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toContain("text/plain");
    }
    expect(h.ctx.realtime.subscribers(postTopic(hidden.id))).toBe(0);
    expect(h.ctx.realtime.subscribers(webKey(ben.id))).toBe(0);
  });

  test(`more than ${LIVE_MAX_STREAMS} open streams of one account: 429`, async () => {
    const cat = await person();
    const b = await signedInBrowser(h, cat.username);
    const open = [];
    for (let i = 0; i < LIVE_MAX_STREAMS; i++) open.push(await liveOf(b));
    const res = await openLive(b);
    expect(res.status).toBe(429);
    for (const s of open) await s.cancel();
    expect(h.ctx.realtime.subscribers(webKey(cat.id))).toBe(0);
    const again = await liveOf(b);
    await again.cancel();
  });
});

describe("the viewer's events, and only theirs", () => {
  test("opens with the unread count; a direct message arrives with the new count; another's does not", async () => {
    const [ann, ben, cat] = [await person(), await person(), await person()];
    const b = await signedInBrowser(h, ann.username);
    const s = await liveOf(b);
    const res = s.frames.find((f) => f.event === "notifications.unread")!;
    expect(res.data).toEqual({ unread: 0, channel: `user:${ann.id}:notifications` });
    expect(s.frames[0].retry).toBe("3000");
    expect(h.ctx.realtime.subscribers(ann.id)).toBe(1);
    expect(h.ctx.realtime.subscribers(webKey(ann.id))).toBe(1);

    send(cat, ben, "not for ann");
    const msg = send(ben, ann, "hello <b>ann</b>");
    await settle();
    await s.next((f) => f.some((x) => x.event === "dm.new") && f.filter((x) => x.event === "notifications.unread").length >= 2);
    const dm = s.events("dm.new");
    expect(dm).toHaveLength(1);
    expect(dm[0].data).toMatchObject({ message_id: msg.id, sender_id: ben.id, is_group: false, channel: `user:${ann.id}:dm` });
    expect(dm[0].data.message.body).toBe("hello <b>ann</b>");
    expect(s.events("notifications.unread").at(-1)!.data).toEqual({ unread: 1, channel: `user:${ann.id}:notifications` });
    expect(JSON.stringify(s.frames)).not.toContain("not for ann");

    // The viewer's own message (sent from another tab) reaches this page too; their count stays.
    const mine = send(ann, ben, "and back");
    await settle();
    await s.next((f) => f.filter((x) => x.event === "dm.new").length >= 2);
    expect(s.events("dm.new")[1].data.message_id).toBe(mine.id);
    await s.cancel();
    expect(h.ctx.realtime.subscribers(ann.id)).toBe(0);
    expect(h.ctx.realtime.subscribers(webKey(ann.id))).toBe(0);
  });

  test("reading notifications on another page sends the lower count; other events of the channel stay off the wire", async () => {
    const [ben, cat] = [await person(), await person()];
    const b = await signedInBrowser(h, ben.username);
    send(cat, ben, "one");
    await settle();
    const s = await liveOf(b);
    expect(s.events("notifications.unread")[0].data.unread).toBeGreaterThan(0);
    // A typing indicator is on ben's dm channel but is not an event the pages use.
    direct.typing(h.ctx, callerFor(cat), ben.username);
    const other = await signedInBrowser(h, ben.username);
    await other.get("/notifications");
    expect((await other.post("/notifications/read-all")).status).toBe(303);
    // Both pushes start from the outbox (notifications_changed, dm_typing), as on several workers.
    await settle();
    await s.next((f) => f.filter((x) => x.event === "notifications.unread").length >= 2);
    expect(s.events("notifications.unread").at(-1)!.data.unread).toBe(0);
    expect(s.events("dm.typing")).toHaveLength(0);
    await s.cancel();
  });

  test("a notification of any kind (a comment on their post) updates the count", async () => {
    const [ann, ben] = [await person(), await person()];
    const mine = await post(h, ann);
    const b = await signedInBrowser(h, ann.username);
    const s = await liveOf(b);
    const start = s.events("notifications.unread")[0].data.unread;
    await comment(h, ben, mine.id, { body: "Nice post" });
    await settle();
    await s.next((f) => f.filter((x) => x.event === "notifications.unread").length >= 2);
    expect(s.events("notifications.unread").at(-1)!.data.unread).toBe(start + 1);
    await s.cancel();
  });

  test("the API's stream carries none of the web's events", async () => {
    const [agent, ben] = [await h.user(), await person()];
    const res = await h.app.handle(new Request(`${BASE}/api/v1/stream?token=${agent.token}`));
    const api = reader(res);
    await api.next((f) => f.length >= 1);
    const p = await post(h, agent);
    await comment(h, ben, p.id);
    await settle();
    const frames = await api.next((f) => f.some((x) => x.comment?.startsWith("heartbeat")));
    expect(frames.filter((f) => f.event)).toEqual([]);
    await api.cancel();
  });
});

describe("?post=: comments others add to the post", () => {
  test("someone else's comment arrives as ids only; the viewer's own, and other posts', do not", async () => {
    const [ann, ben, cat] = [await person(), await person(), await person()];
    const colony = makeColony(h, cat, "public");
    await join(h, colony, ann);
    await join(h, colony, ben);
    const p = await post(h, cat, { colony_id: colony.id });
    const elsewhere = await post(h, cat, { colony_id: colony.id });
    const b = await signedInBrowser(h, ann.username);
    const s = await liveOf(b, `/live?post=${p.id}`);
    const plain = await liveOf(await signedInBrowser(h, ben.username));
    expect(h.ctx.realtime.subscribers(postTopic(p.id))).toBe(1);

    await comment(h, ann, p.id, { body: "my own" });
    await comment(h, ben, elsewhere.id, { body: "another post" });
    const c = await comment(h, ben, p.id, { body: "secret words" });
    await settle();
    await s.next((f) => f.some((x) => x.event === "comment.new"));
    const got = s.events("comment.new");
    expect(got).toHaveLength(1);
    expect(got[0].data).toEqual({ post_id: p.id, comment_id: c.id, parent_id: null, author_id: ben.id, channel: postTopic(p.id) });
    expect(JSON.stringify(s.frames)).not.toContain("secret words");
    // Without ?post= a page hears no comments.
    await plain.next((f) => f.some((x) => x.comment?.startsWith("heartbeat")));
    expect(plain.events("comment.new")).toEqual([]);
    await s.cancel();
    await plain.cancel();
    expect(h.ctx.realtime.subscribers(postTopic(p.id))).toBe(0);
  });

  test("a member of a private colony may follow its post", async () => {
    const [ben, cat] = [await person(), await person()];
    const secret = makeColony(h, cat, "private");
    await join(h, secret, ben, cat);
    const p = await post(h, cat, { colony_id: secret.id });
    const s = await liveOf(await signedInBrowser(h, ben.username), `/live?post=${p.id}`);
    await comment(h, cat, p.id);
    await settle();
    await s.next((f) => f.some((x) => x.event === "comment.new"));
    await s.cancel();
  });
});

describe("the session, the page and the server", () => {
  test("signing out elsewhere ends the stream at the next heartbeat; reconnecting is refused", async () => {
    const ann = await person();
    const b = await signedInBrowser(h, ann.username);
    const s = await liveOf(b);
    // "Sign out everywhere" from another browser ends this session too.
    const other = await signedInBrowser(h, ann.username);
    await other.get("/settings/account");
    expect((await other.post("/settings/account/sessions/revoke-all")).status).toBe(303);
    await s.next(() => false);
    expect(s.state.ended).toBe(true);
    expect(s.events().at(-1)).toMatchObject({ event: "session.ended", data: { reason: "the session has ended" } });
    expect(h.ctx.realtime.subscribers(ann.id)).toBe(0);
    expect(h.ctx.realtime.subscribers(webKey(ann.id))).toBe(0);
    expect((await openLive(b)).status).toBe(401);
  });

  test("closing the page unsubscribes every key; a server shutdown sends its last frame and ends", async () => {
    const ben = await person();
    const p = await post(h, ben);
    const b = await signedInBrowser(h, ben.username);
    const streams = h.ctx.realtime.streams;
    const s = await liveOf(b, `/live?post=${p.id}`);
    // One stream, whatever keys it listens to (the colony_realtime_subscribers gauge counts streams).
    expect(h.ctx.realtime.streams).toBe(streams + 1);
    const keys = () => [h.ctx.realtime.subscribers(ben.id), h.ctx.realtime.subscribers(webKey(ben.id)), h.ctx.realtime.subscribers(postTopic(p.id))];
    expect(keys()).toEqual([1, 1, 1]);
    await s.cancel();
    expect(keys()).toEqual([0, 0, 0]);

    // The shutdown test gets a harness of its own: closeAll leaves the hub closed.
    const h2 = setup({ streamHeartbeatMs: 25 });
    const u = await human(h2);
    const b2 = await signedInBrowser(h2, u.username);
    const res = await h2.app.handle(new Request(`${BASE}/live`, { headers: { cookie: [...b2.jar].map(([k, v]) => `${k}=${v}`).join("; ") } }));
    const s2 = reader(res);
    await s2.next((f) => f.some((x) => x.event === "notifications.unread"));
    expect(h2.ctx.realtime.closeAll()).toBe(1);
    await s2.next(() => false);
    expect(s2.state.ended).toBe(true);
    expect(s2.events().at(-1)).toMatchObject({ event: "server.shutdown", retry: "5000" });
    expect(h2.ctx.realtime.total()).toBe(0);
  });
});

describe("over a real socket", () => {
  test("events arrive, and a page that goes away is unsubscribed", async () => {
    const [ben, cat] = [await person(), await person()];
    const b = await signedInBrowser(h, ben.username);
    const server = h.app.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const controller = new AbortController();
      const cookie = [...b.jar].map(([k, v]) => `${k}=${v}`).join("; ");
      const res = await fetch(`http://127.0.0.1:${server.server!.port}/live`, { headers: { cookie, "sec-fetch-site": "same-origin" }, signal: controller.signal });
      expect(res.status).toBe(200);
      const s = reader(res);
      await s.next((f) => f.some((x) => x.event === "notifications.unread"));
      expect(h.ctx.realtime.subscribers(webKey(ben.id))).toBe(1);
      send(cat, ben, "over the wire");
      await settle();
      await s.next((f) => f.some((x) => x.event === "dm.new"));
      controller.abort();
      // The server notices the closed socket on its next write (a heartbeat at the latest).
      for (let i = 0; i < 1000 && h.ctx.realtime.subscribers(webKey(ben.id)) > 0; i++) await Bun.sleep(10);
      expect([h.ctx.realtime.subscribers(ben.id), h.ctx.realtime.subscribers(webKey(ben.id))]).toEqual([0, 0]);
    } finally {
      await server.stop();
    }
  });
});

describe("the stream underneath (features/realtime/stream.ts)", () => {
  test("a session check that cannot run ends the stream without session.ended, so the page reconnects", async () => {
    const s = reader(new Response(eventStream(h.ctx, ["k-broken", "k-other"], { heartbeatMs: 25, alive: () => { throw new Error("the database is closing"); } })));
    await s.next(() => false);
    expect(s.state.ended).toBe(true);
    expect(s.events()).toEqual([]);
    expect([h.ctx.realtime.subscribers("k-broken"), h.ctx.realtime.subscribers("k-other")]).toEqual([0, 0]);
  });
});

describe("the pages", () => {
  test("signed-in pages load the live script and a post page names its post; anonymous pages have neither", async () => {
    const [ann, ben] = [await person(), await person()];
    const p = await post(h, ann);
    const anon = await new Browser(h).get(`/post/${p.id}`);
    expect(anon.text).not.toContain(LIVE_SCRIPT.path);
    expect(anon.text).not.toContain("data-live");
    const b = await signedInBrowser(h, ben.username);
    const page = await b.get(`/post/${p.id}`);
    expect(page.text).toContain(`<script type="module" src="${LIVE_SCRIPT.path}"></script>`);
    expect(page.text).toContain(`data-live-post="${p.id}"`);
    const js = await h.app.handle(new Request(`${BASE}${LIVE_SCRIPT.path}`));
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toContain("text/javascript");
    expect(await js.text()).toContain("new EventSource(");
  });

  test("a conversation page names its peer and conversation for the script", async () => {
    const [ann, agent] = [await person(), await h.user()];
    const b = await signedInBrowser(h, ann.username);
    const fresh = await b.get(`/messages/${agent.username}`);
    expect(fresh.text).toContain(`<div data-live-dm="${agent.username}" data-conversation="">`);
    const msg = send(ann, agent, "hi");
    const page = await b.get(`/messages/${agent.username}`);
    expect(page.text).toContain(`<div data-live-dm="${agent.username}" data-conversation="${msg.conversationId}">`);
  });

  test("a group's newest page names the group for the script; an older page, whose list does not grow, does not", async () => {
    const [ann, ben] = [await person(), await person()];
    const g = await makeGroup(h, ann, [ben]);
    for (let i = 0; i <= GROUP_MESSAGES_PER_PAGE; i++) await groupSent(h, i % 2 ? ann : ben, g, `message ${i}`);
    const b = await signedInBrowser(h, ann.username);
    const newest = await b.get(`/groups/${g}`);
    expect(newest.text).toContain(`<div data-live-group="${g}"><ol class="dm"`);
    expect(newest.text).toContain(`<script type="module" src="${LIVE_SCRIPT.path}"></script>`);
    const older = await b.get(`/groups/${g}?page=2`);
    expect(older.status).toBe(200);
    expect(older.text).toContain("message 0");
    expect(older.text).not.toContain("data-live-group");
  });
});

describe("a session that runs out", () => {
  test("a session that runs out while the stream is open ends it; an open stream is not a use of the session", async () => {
    // A harness of its own: it moves the clock a month ahead.
    const own = setup(OPTIONS);
    const cat = await human(own);
    const b = await signedInBrowser(own, cat.username);
    const s = await liveOf(b, "/live", own);
    const seen = () => (own.ctx.db.$client.query("select max(last_seen_at) as t from web_sessions where user_id = ?").get(cat.id) as { t: number }).t;
    const before = seen();
    // Past the minute after which a page view would record the visit: heartbeats check, never touch.
    own.clock.advance(5 * 60_000);
    await s.next((f) => f.filter((x) => x.comment?.startsWith("heartbeat")).length >= 3);
    expect(seen()).toBe(before);
    own.clock.advance(31 * DAY);
    await s.next(() => false);
    expect(s.state.ended).toBe(true);
    expect(s.events().at(-1)!.event).toBe("session.ended");
    expect(seen()).toBe(before);
    expect((await openLive(b, "/live", undefined, own)).status).toBe(401);
  });
});
