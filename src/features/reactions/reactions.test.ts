// Reactions (spec Part 1 §2.8, §4.6): toggle, who, visibility, limits, notifications.
import { beforeAll, describe, expect, test } from "bun:test";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { HOUR } from "../../core/clock";
import { comment } from "../comments/fixtures";
import { eventsOf, join, makeColony, post } from "../posts/fixtures";

// One instance for the file: every test reacts with its own accounts on its own posts.
let h: Harness;
beforeAll(() => {
  h = setup();
});

const UNKNOWN = "00000000-0000-7000-8000-000000000000";
const toggle = (u: TestUser | null, body: Record<string, unknown>) => h.req("POST", "/api/v1/reactions/toggle", { token: u?.token ?? null, body });
const who = (query: Record<string, string>, u: TestUser | null = null) => h.req("GET", "/api/v1/reactions/who", { token: u?.token ?? null, query });
/** The reaction_added events about one post (its comments' included). */
const reactionsOn = (postId: string) => eventsOf(h, "reaction_added").filter((e) => e.payload.post_id === postId);
const notificationsOf = (userId: string) => h.ctx.db.$client.query("select kind from notifications where user_id = ?").all(userId) as { kind: string }[];

describe("POST /reactions/toggle", () => {
  test("toggles on and off, answering the target's counts; reaction_added only when added", async () => {
    const author = await h.user();
    const p = await post(h, author);
    const a = await h.user();
    const b = await h.user();
    const on = await toggle(a, { emoji: "fire", post_id: p.id });
    expect(on.status).toBe(200);
    expect(on.body).toEqual({ reactions: [{ emoji: "fire", emoji_char: "🔥", count: 1, user_reacted: true }] });
    const two = await toggle(b, { emoji: "fire", post_id: p.id });
    expect(two.body.reactions).toEqual([{ emoji: "fire", emoji_char: "🔥", count: 2, user_reacted: true }]);
    const heart = await toggle(b, { emoji: "heart", post_id: p.id });
    expect(heart.body.reactions.map((r: any) => [r.emoji, r.count])).toEqual([["heart", 1], ["fire", 2]]);
    const off = await toggle(a, { emoji: "fire", post_id: p.id });
    expect(off.body.reactions).toEqual([
      { emoji: "heart", emoji_char: "❤️", count: 1, user_reacted: false },
      { emoji: "fire", emoji_char: "🔥", count: 1, user_reacted: false },
    ]);
    const ev = reactionsOn(p.id);
    expect(ev).toHaveLength(3);
    expect(ev[0]).toMatchObject({ actor_id: a.id, activity: 1, payload: { emoji: "fire", post_id: p.id, author_id: author.id } });
    await h.ctx.events.drain();
    expect(notificationsOf(author.id).filter((n) => n.kind === "post_reaction")).toHaveLength(3);
  });

  test("comment reactions carry comment_id; self-reactions notify nobody", async () => {
    const author = await h.user();
    const p = await post(h, author);
    const c = await comment(h, author, p.id);
    const r = await toggle(author, { emoji: "clap", comment_id: c.id });
    expect(r.status).toBe(200);
    expect(r.body.reactions[0]).toMatchObject({ emoji: "clap", count: 1, user_reacted: true });
    expect(reactionsOn(p.id)[0].payload).toEqual({
      emoji: "clap",
      post_id: p.id,
      comment_id: c.id,
      author_id: author.id,
      reactor_username: author.username,
      readers: { colony_id: p.colony_id, members_only: false, restricted: false },
    });
    await h.ctx.events.drain();
    expect(notificationsOf(author.id).filter((n) => n.kind === "post_reaction")).toHaveLength(0);
  });

  test("400 INVALID_INPUT: unknown emoji, no target, both targets; 422 for a non-uuid id", async () => {
    const author = await h.user();
    const p = await post(h, author);
    const c = await comment(h, author, p.id);
    const u = await h.user();
    const events = eventsOf(h, "reaction_added").length;
    for (const body of [{ emoji: "👍", post_id: p.id }, { emoji: "smile", post_id: p.id }, { emoji: "fire" }, { emoji: "fire", post_id: p.id, comment_id: c.id }]) {
      const r = await toggle(u, body);
      expect(r.status).toBe(400);
      expect(r.body.detail.code).toBe("INVALID_INPUT");
    }
    expect((await toggle(u, { emoji: "fire", post_id: "nope" })).status).toBe(422);
    expect((await toggle(u, { post_id: p.id })).status).toBe(422);
    expect(eventsOf(h, "reaction_added")).toHaveLength(events);
  });

  test("401 anonymously; 404 NOT_FOUND for unknown or hidden targets; 403 FORBIDDEN for pending members", async () => {
    const author = await h.user();
    const p = await post(h, author);
    expect((await toggle(null, { emoji: "fire", post_id: p.id })).status).toBe(401);
    const u = await h.user();
    for (const body of [{ emoji: "fire", post_id: UNKNOWN }, { emoji: "fire", comment_id: UNKNOWN }]) {
      const r = await toggle(u, body);
      expect(r.status).toBe(404);
      expect(r.body.detail.code).toBe("NOT_FOUND");
    }
    const priv = makeColony(h, author, "private");
    const hidden = await post(h, author, { colony_id: priv.id });
    const r = await toggle(u, { emoji: "fire", post_id: hidden.id });
    expect(r.status).toBe(404);
    expect(r.body.detail.code).toBe("NOT_FOUND");

    const restricted = makeColony(h, author, "restricted");
    const gated = await post(h, author, { colony_id: restricted.id });
    await join(h, restricted, u);
    const pending = await toggle(u, { emoji: "fire", post_id: gated.id });
    expect(pending.status).toBe(403);
    expect(pending.body.detail.code).toBe("FORBIDDEN");
  });

  test("429 RATE_LIMIT_REACTION past the hourly limit", async () => {
    const author = await h.user();
    const p = await post(h, author);
    const u = await h.user();
    const max = (await h.req("GET", "/api/v1/limits/me", { token: u.token })).body.limits.find((l: any) => l.action === "reaction").max;
    for (let i = 0; i < max; i++) expect((await toggle(u, { emoji: "eyes", post_id: p.id })).status).toBe(200);
    const r = await toggle(u, { emoji: "eyes", post_id: p.id });
    expect(r.status).toBe(429);
    expect(r.body.detail.code).toBe("RATE_LIMIT_REACTION");
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    h.clock.advance(HOUR);
    expect((await toggle(u, { emoji: "eyes", post_id: p.id })).status).toBe(200);
  });
});

describe("taking a reaction back", () => {
  test("emits reaction_removed, which tells nobody and drops cached reads of the colony through its read scopes", async () => {
    const author = await h.user();
    const p = await post(h, author);
    const c = await comment(h, author, p.id);
    const a = await h.user();
    expect((await toggle(a, { emoji: "fire", post_id: p.id })).status).toBe(200);
    expect((await toggle(a, { emoji: "rocket", comment_id: c.id })).status).toBe(200);
    await h.ctx.events.drain();
    const told = notificationsOf(author.id).length;

    // The anonymous post page is kept in the read cache: a change no event announces stays unseen.
    const page = async () => (await h.req("GET", `/post/${p.id}`, { headers: { accept: "text/html" } })).text;
    const first = await page();
    h.ctx.db.$client.query("update posts set title = 'Changed behind the back' where id = ?").run(p.id);
    expect(await page()).toBe(first);

    const scopes = ["forum", `colony:${p.colony_id}`];
    const before = scopes.map((s) => h.ctx.events.version(s));
    const off = await toggle(a, { emoji: "fire", post_id: p.id });
    expect(off.body).toEqual({ reactions: [] });
    const removed = () => eventsOf(h, "reaction_removed").filter((e) => e.payload.post_id === p.id);
    expect(removed()).toEqual([{ type: "reaction_removed", actor_id: a.id, subject_id: p.id, activity: 0, payload: { emoji: "fire", post_id: p.id, colony_id: p.colony_id } }]);
    scopes.forEach((s, i) => expect(h.ctx.events.version(s)).toBeGreaterThan(before[i]));
    // The event's scopes made the kept page stale: it is rendered again.
    expect(await page()).toContain("Changed behind the back");

    // A comment's reaction taken back names the comment too.
    expect((await toggle(a, { emoji: "rocket", comment_id: c.id })).body).toEqual({ reactions: [] });
    expect(removed()[1].payload).toEqual({ emoji: "rocket", post_id: p.id, comment_id: c.id, colony_id: p.colony_id });
    await h.ctx.events.drain();
    expect(notificationsOf(author.id)).toHaveLength(told);
  });
});

describe("GET /reactions/who", () => {
  test("anonymous, newest first, at most 20", async () => {
    const author = await h.user();
    const p = await post(h, author);
    const people: TestUser[] = [];
    for (let i = 0; i < 22; i++) {
      const u = await h.user();
      people.push(u);
      await toggle(u, { emoji: "rocket", post_id: p.id });
      h.clock.advance(1000);
    }
    const r = await who({ emoji: "rocket", post_id: p.id });
    expect(r.status).toBe(200);
    expect(r.body.emoji).toBe("rocket");
    expect(r.body.users).toHaveLength(20);
    expect(r.body.users[0]).toEqual({ username: people[21].username, display_name: people[21].username });
    expect(r.body.users.map((x: any) => x.username)).not.toContain(people[0].username);
    expect((await who({ emoji: "heart", post_id: p.id })).body).toEqual({ emoji: "heart", users: [] });
  });

  test("comments; no target is an empty list; both targets and unknown emoji are 400; hidden content 404", async () => {
    const author = await h.user();
    const p = await post(h, author);
    const c = await comment(h, author, p.id);
    const u = await h.user();
    await toggle(u, { emoji: "thinking", comment_id: c.id });
    expect((await who({ emoji: "thinking", comment_id: c.id })).body.users).toEqual([{ username: u.username, display_name: u.username }]);
    expect((await who({ emoji: "thinking" })).body).toEqual({ emoji: "thinking", users: [] });
    const both = await who({ emoji: "thinking", post_id: p.id, comment_id: c.id });
    expect(both.status).toBe(400);
    expect(both.body.detail.code).toBe("INVALID_INPUT");
    const bad = await who({ emoji: "nope", post_id: p.id });
    expect(bad.status).toBe(400);
    expect(bad.body.detail.code).toBe("INVALID_INPUT");
    expect((await h.req("GET", "/api/v1/reactions/who", { query: { post_id: p.id } })).status).toBe(422);

    const priv = makeColony(h, author, "private");
    const hidden = await post(h, author, { colony_id: priv.id });
    await toggle(author, { emoji: "fire", post_id: hidden.id });
    for (const caller of [null, u]) {
      const r = await who({ emoji: "fire", post_id: hidden.id }, caller);
      expect(r.status).toBe(404);
      expect(r.body.detail.code).toBe("NOT_FOUND");
    }
    expect((await who({ emoji: "fire", post_id: hidden.id }, author)).body.users).toHaveLength(1);
  });
});
