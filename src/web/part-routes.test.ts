// Taking part as a signed-in person: /submit, comments and replies, votes, reactions, bookmarks,
// poll votes, follows, /notifications and /messages — each form's success, its refusals (signed
// out, not allowed, no CSRF token) and that a refused form changes nothing.
import { beforeEach, describe, expect, test } from "bun:test";
import { Browser, signedInBrowser } from "../../test/browser";
import { dbState } from "../../test/db-state";
import { setup, type Harness, type TestUser } from "../../test/harness";
import { DAY } from "../core/clock";
import { comment } from "../features/comments/fixtures";
import { iso, join, makeColony, post } from "../features/posts/fixtures";
import { human } from "../features/sessions/fixtures";
import type { ColonyRow } from "../features/colonies/service";
import * as users from "../features/users/service";

// One harness for the file; before each test, a new colony with its owner and another member.
// The tests of the rate limits (another configuration) and of a poll that closes (the clock moves
// days ahead) have a harness of their own.
const h = setup({ rateLimitMultiplier: 0, readCacheBytes: 0 });
let owner: TestUser;
let other: TestUser;
let colony: ColonyRow;
beforeEach(async () => {
  owner = await human(h);
  other = await human(h);
  colony = makeColony(h, owner, "public");
  await join(h, colony, other);
});

/** A browser signed in through the form. */
const signedIn = (hh: Harness, u: TestUser): Promise<Browser> => signedInBrowser(hh, u.username);

const q = (sql: string, ...args: string[]) => h.ctx.db.$client.query(sql).all(...args) as Record<string, unknown>[];

describe("signed out", () => {
  test.each(["/submit", "/notifications", "/messages", "/messages/ann-human"])("GET %s sends them to sign in and back", async (path) => {
    const r = await new Browser(h).get(path);
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/login?next=${encodeURIComponent(path)}`);
  });

  test("a post page offers sign-in instead of the forms; a form sent with the anonymous token changes nothing", async () => {
    const p = await post(h, owner, { colony_id: colony.id });
    const b = new Browser(h);
    const page = await b.get(`/post/${p.id}`);
    expect(page.text).toContain(`<a href="/login?next=${encodeURIComponent(`/post/${p.id}`)}">Sign in</a> to comment.`);
    expect(page.text).not.toContain(`action="/post/${p.id}/comment"`);
    await b.get("/login");
    const before = dbState(h);
    const r = await b.post(`/post/${p.id}/vote`, { value: "1" });
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/login?next=${encodeURIComponent(`/post/${p.id}`)}`);
    expect(dbState(h)).toEqual(before);
  });
});

describe("/submit", () => {
  test("the form lists the colonies, picks the one named, and a post is made and shown", async () => {
    const b = await signedIn(h, other);
    const form = await b.get(`/submit?colony=${colony.name}`);
    expect(form.status).toBe(200);
    expect(form.text).toContain(`<option value="${colony.name}" selected>`);
    expect(form.text).toContain('<label for="title">Title</label>');
    const r = await b.post("/submit", { colony: colony.name, post_type: "question", title: "How do <b>you</b> water ferns?", body: "Asking for **a friend**.", tags: "plants, Ferns" });
    expect(r.status).toBe(303);
    const id = /^\/post\/([0-9a-f-]{36})$/.exec(r.location!)![1];
    const row = q("select author_id, post_type, tags, client from posts where id = ?", id)[0];
    expect(row).toMatchObject({ author_id: other.id, post_type: "question", client: "web" });
    expect(JSON.parse(row.tags as string)).toEqual(["plants", "ferns"]);
    const shown = await b.get(r.location!);
    expect(shown.text).toContain("How do &lt;b&gt;you&lt;/b&gt; water ferns?");
    expect(shown.text).toContain("<strong>a friend</strong>");
  });

  test("a refused post shows the form again with what was typed and the service's reason; nothing is made", async () => {
    const b = await signedIn(h, other);
    await b.get("/submit");
    const before = dbState(h);
    const r = await b.post("/submit", { colony: colony.name, post_type: "discussion", title: "ok", body: "A body <kept>", tags: "" });
    expect(r.status).toBe(400);
    expect(r.text).toContain('role="alert"');
    expect(r.text).toContain("title must be at least 3 characters");
    expect(r.text).toContain("A body &lt;kept&gt;");
    const unknown = await b.post("/submit", { colony: "no-such-colony", post_type: "discussion", title: "A good title", body: "Body" });
    expect(unknown.status).toBe(404);
    const badType = await b.post("/submit", { colony: colony.name, post_type: "paid_offer", title: "A good title", body: "Body" });
    expect(badType.status).toBe(400);
    expect(dbState(h)).toEqual(before);
  });

  test("without the CSRF token: 403 and nothing made", async () => {
    const b = await signedIn(h, other);
    await b.get("/submit");
    const before = dbState(h);
    const r = await b.post("/submit", { colony: colony.name, post_type: "discussion", title: "A good title", body: "Body" }, { csrf: null });
    expect(r.status).toBe(403);
    expect(dbState(h)).toEqual(before);
  });
});

describe("where a form comes from", () => {
  test("Origin: null (Chromium, under no-referrer) with Sec-Fetch-Site same-origin is let through; cross-site is refused", async () => {
    const p = await post(h, owner, { colony_id: colony.id });
    const b = await signedIn(h, other);
    await b.get(`/post/${p.id}`);
    const before = dbState(h);
    const cross = await b.post(`/post/${p.id}/comment`, { body: "from elsewhere" }, { headers: { origin: "null", "sec-fetch-site": "cross-site" } });
    expect(cross.status).toBe(403);
    expect(dbState(h)).toEqual(before);
    const same = await b.post(`/post/${p.id}/comment`, { body: "from here" }, { headers: { origin: "null", "sec-fetch-site": "same-origin" } });
    expect(same.status).toBe(303);
  });
});

describe("comments and replies", () => {
  test("a comment, then a reply in the reply form of that comment, both shown nested on the post page", async () => {
    const p = await post(h, owner, { colony_id: colony.id, title: "Seeds to share" });
    const b = await signedIn(h, other);
    const page = await b.get(`/post/${p.id}`);
    expect(page.text).toContain(`<form method="post" action="/post/${p.id}/comment" class="write">`);
    const c = await b.post(`/post/${p.id}/comment`, { body: "I would like *some*." });
    expect(c.status).toBe(303);
    const cid = new RegExp(`^/post/${p.id}#comment-([0-9a-f-]{36})$`).exec(c.location!)![1];
    const withComment = await b.get(`/post/${p.id}`);
    expect(withComment.text).toContain(`<a class="reply" href="/comment/${cid}/reply">Reply</a>`);
    const ownerBrowser = await signedIn(h, owner);
    const form = await ownerBrowser.get(`/comment/${cid}/reply`);
    expect(form.status).toBe(200);
    expect(form.text).toContain(`<h1>Reply to ${other.username}</h1>`);
    expect(form.text).toContain("<p>I would like <em>some</em>.</p>");
    expect(form.text).toContain(`<form method="post" action="/post/${p.id}/comment" class="write">`);
    expect(form.text).toContain(`<input type="hidden" name="parent_id" value="${cid}"/>`);
    const reply = await ownerBrowser.post(`/post/${p.id}/comment`, { body: "Here you go.", parent_id: cid });
    expect(reply.status).toBe(303);
    const rid = /#comment-(.+)$/.exec(reply.location!)![1];
    expect(q("select parent_id from comments where id = ?", rid)[0].parent_id).toBe(cid);
    const html = (await ownerBrowser.get(`/post/${p.id}`)).text;
    const at = html.indexOf(`id="comment-${cid}"`);
    expect(at).toBeGreaterThan(0);
    expect(html.indexOf(`id="comment-${rid}"`)).toBeGreaterThan(at);
    expect(html).toContain("Here you go.");
  });

  test("an empty comment is refused (400 page), an unknown post is a 404 page; nothing changes", async () => {
    const p = await post(h, owner, { colony_id: colony.id });
    const b = await signedIn(h, other);
    await b.get(`/post/${p.id}`);
    const before = dbState(h);
    expect((await b.post(`/post/${p.id}/comment`, { body: "   " })).status).toBe(400);
    expect((await b.post(`/post/00000000-0000-7000-8000-000000000000/comment`, { body: "hello" })).status).toBe(404);
    expect((await b.post(`/post/not-a-uuid/comment`, { body: "hello" })).status).toBe(404);
    expect(dbState(h)).toEqual(before);
  });
});

describe("votes, reactions, bookmarks", () => {
  test("an upvote on a post and a downvote on a comment show as the viewer's current votes", async () => {
    const p = await post(h, owner, { colony_id: colony.id });
    const c = await comment(h, owner, p.id, { body: "a comment" });
    const b = await signedIn(h, other);
    await b.get(`/post/${p.id}`);
    const up = await b.post(`/post/${p.id}/vote`, { value: "1" });
    expect(up.status).toBe(303);
    expect(up.location).toBe(`/post/${p.id}`);
    const down = await b.post(`/comment/${c.id}/vote`, { value: "-1" });
    expect(down.location).toBe(`/post/${p.id}#comment-${c.id}`);
    const html = (await b.get(`/post/${p.id}`)).text;
    expect(html).toMatch(new RegExp(`action="/post/${p.id}/vote".*?value="1" aria-pressed="true"`, "s"));
    expect(html).toMatch(new RegExp(`action="/comment/${c.id}/vote".*?value="-1" aria-pressed="true"`, "s"));
    expect(q("select value from votes where user_id = ? and target_id = ?", other.id, p.id)[0].value).toBe(1);
  });

  test("voting on your own post is refused with the service's status; a bad value is 400; nothing changes", async () => {
    const p = await post(h, owner, { colony_id: colony.id });
    const b = await signedIn(h, owner);
    await b.get(`/post/${p.id}`);
    const before = dbState(h);
    const self = await b.post(`/post/${p.id}/vote`, { value: "1" });
    expect(self.status).toBe(400);
    expect(self.text).toContain("You cannot vote on your own post");
    expect((await b.post(`/post/${p.id}/vote`, { value: "5" })).status).toBe(400);
    expect(dbState(h)).toEqual(before);
  });

  test("every reaction the API offers is a button; one toggles on and off", async () => {
    const p = await post(h, owner, { colony_id: colony.id });
    const b = await signedIn(h, other);
    const page = await b.get(`/post/${p.id}`);
    for (const k of ["thumbs_up", "heart", "laugh", "thinking", "fire", "eyes", "rocket", "clap"]) expect(page.text).toContain(`name="emoji" value="${k}"`);
    expect((await b.post(`/post/${p.id}/react`, { emoji: "fire" })).status).toBe(303);
    expect((await b.get(`/post/${p.id}`)).text).toMatch(/value="fire" aria-pressed="true"[^>]*>.*? 1<\/button>/s);
    await b.post(`/post/${p.id}/react`, { emoji: "fire" });
    expect((await b.get(`/post/${p.id}`)).text).toContain('value="fire" aria-pressed="false"');
    expect((await b.post(`/post/${p.id}/react`, { emoji: "skull" })).status).toBe(400);
  });

  test("a comment's reactions: counts in its summary, a press toggles the viewer's own", async () => {
    const p = await post(h, owner, { colony_id: colony.id });
    const c = await comment(h, owner, p.id, { body: "react to me" });
    await h.req("POST", "/api/v1/reactions/toggle", { token: owner.token, body: { comment_id: c.id, emoji: "rocket" } });
    const b = await signedIn(h, other);
    await b.get(`/post/${p.id}`);
    const r = await b.post(`/comment/${c.id}/react`, { emoji: "rocket" });
    expect(r.location).toBe(`/post/${p.id}#comment-${c.id}`);
    const html = (await b.get(`/post/${p.id}`)).text;
    expect(html).toContain(`<a class="react" href="/comment/${c.id}/react">React · <span aria-hidden="true">🚀</span><span class="mine"><span class="vh">rocket</span> 2<span class="vh"> (yours)</span></span></a>`);
    const picker = (await b.get(`/comment/${c.id}/react`)).text;
    expect(picker).toMatch(new RegExp(`action="/comment/${c.id}/react".*?value="rocket" aria-pressed="true"`, "s"));
    // Taken back: the count and the mark follow.
    await b.post(`/comment/${c.id}/react`, { emoji: "rocket" });
    expect((await b.get(`/post/${p.id}`)).text).toContain(`<a class="react" href="/comment/${c.id}/react">React · <span aria-hidden="true">🚀</span><span><span class="vh">rocket</span> 1</span></a>`);
    expect((await b.post(`/comment/00000000-0000-7000-8000-000000000000/react`, { emoji: "rocket" })).status).toBe(404);
  });

  test("a bookmark is added and removed", async () => {
    const p = await post(h, owner, { colony_id: colony.id });
    const b = await signedIn(h, other);
    await b.get(`/post/${p.id}`);
    expect((await b.post(`/post/${p.id}/bookmark`, { do: "add" })).status).toBe(303);
    expect((await b.get(`/post/${p.id}`)).text).toContain('aria-pressed="true">Bookmarked</button>');
    expect(q("select 1 from bookmarks where user_id = ? and post_id = ?", other.id, p.id)).toHaveLength(1);
    await b.post(`/post/${p.id}/bookmark`, { do: "remove" });
    expect(q("select 1 from bookmarks where user_id = ? and post_id = ?", other.id, p.id)).toHaveLength(0);
  });

  test("a poll vote through its form", async () => {
    // A harness of its own: closing the poll moves the clock past the others' tokens.
    const hh = setup({ rateLimitMultiplier: 0, readCacheBytes: 0 });
    const a = await human(hh, { username: "pollster" });
    const voter = await human(hh, { username: "voter" });
    const pc = makeColony(hh, a, "public", "polls-here");
    await join(hh, pc, voter);
    const options = [{ id: "a", text: "Apples" }, { id: "b", text: "Bananas" }];
    const poll = await post(hh, a, { colony_id: pc.id, post_type: "poll", title: "Fruit?", metadata: { poll_options: options, closes_at: iso(hh.clock.now() + 2 * DAY) } });
    const b = await signedIn(hh, voter);
    const page = await b.get(`/post/${poll.id}`);
    expect(page.text).toContain(`<input type="radio" name="option" value="b"/>`);
    expect((await b.post(`/post/${poll.id}/poll`, { option: "b" })).status).toBe(303);
    expect((await b.get(`/post/${poll.id}`)).text).toContain(`<input type="radio" name="option" value="b" checked/>`);
    expect((await b.post(`/post/${poll.id}/poll`, { option: "zzz" })).status).toBe(400);
    hh.clock.advance(3 * DAY);
    const closed = await b.post(`/post/${poll.id}/poll`, { option: "a" });
    expect(closed.status).toBe(409);
  });
});

describe("following", () => {
  test("follow and unfollow from the profile; no button on your own", async () => {
    const b = await signedIn(h, other);
    const [ann, ben] = [owner.username, other.username];
    const profile = await b.get(`/u/${ann}`);
    expect(profile.text).toContain(`action="/u/${ann}/follow"`);
    expect((await b.post(`/u/${ann}/follow`, { do: "follow" })).location).toBe(`/u/${ann}`);
    expect((await b.get(`/u/${ann}`)).text).toContain("<button type=\"submit\">Unfollow</button>");
    expect(q("select 1 from follows where follower_id = ?", other.id)).toHaveLength(1);
    await b.post(`/u/${ann}/follow`, { do: "unfollow" });
    expect(q("select 1 from follows where follower_id = ?", other.id)).toHaveLength(0);
    expect((await b.get(`/u/${ben}`)).text).not.toContain(`action="/u/${ben}/follow"`);
    expect((await b.post(`/u/${ben}/follow`, { do: "follow" })).status).toBe(400);
  });
});

describe("/notifications", () => {
  test("listed with the unread count in the header; one marked read, then all", async () => {
    const p = await post(h, owner, { colony_id: colony.id, title: "Notice me" });
    await comment(h, other, p.id, { body: "one" });
    await comment(h, other, p.id, { body: "two" });
    const b = await signedIn(h, owner);
    const list = await b.get("/notifications");
    expect(list.status).toBe(200);
    expect(list.text).toContain('<a href="/notifications">Notifications (2)</a>');
    expect(list.text).toContain(`href="/post/${p.id}#comment-`);
    const ids = [...list.text.matchAll(/action="\/notifications\/([0-9a-f-]{36})\/read"/g)].map((m) => m[1]);
    expect(ids).toHaveLength(2);
    expect((await b.post(`/notifications/${ids[0]}/read`)).location).toBe("/notifications");
    expect((await b.get("/notifications")).text).toContain("Notifications (1)");
    // Someone else's notification is not found, and stays unread.
    const stranger = await signedIn(h, other);
    await stranger.get("/notifications");
    expect((await stranger.post(`/notifications/${ids[1]}/read`)).status).toBe(404);
    await b.post("/notifications/read-all");
    const after = await b.get("/notifications");
    expect(after.text).toContain('<a href="/notifications">Notifications</a>');
    expect(after.text).not.toContain("Mark all read");
  });

  test("without the CSRF token: 403, nothing marked", async () => {
    const p = await post(h, owner, { colony_id: colony.id });
    await comment(h, other, p.id, { body: "ping" });
    const b = await signedIn(h, owner);
    await b.get("/notifications");
    const before = dbState(h);
    expect((await b.post("/notifications/read-all", {}, { csrf: null })).status).toBe(403);
    expect(dbState(h)).toEqual(before);
  });
});

describe("/messages", () => {
  test("a message sent from the conversation page; the other side sees the conversation with its unread count", async () => {
    const b = await signedIn(h, owner);
    const empty = await b.get(`/messages/${other.username}`);
    expect(empty.status).toBe(200);
    expect(empty.text).toContain("No messages yet.");
    const sent = await b.post(`/messages/${other.username}`, { body: "Hello <Ben>!" });
    expect(sent.status).toBe(303);
    expect(sent.location).toMatch(new RegExp(`^/messages/${other.username}#message-[0-9a-f-]{36}$`));
    expect((await b.get(`/messages/${other.username}`)).text).toContain("Hello &lt;Ben&gt;!");
    const ben = await signedIn(h, other);
    const list = await ben.get("/messages");
    expect(list.text).toContain(`<a href="/messages/${owner.username}">`);
    expect(list.text).toContain("1 unread");
    expect((await ben.get(`/messages?to=@${owner.username.toUpperCase()}`)).location).toBe(`/messages/${owner.username}`);
  });

  test("yourself is refused (400), an unknown person is a 404 page, an empty message re-renders the form (422); nothing sent", async () => {
    const b = await signedIn(h, owner);
    await b.get("/messages");
    const before = dbState(h);
    expect((await b.get(`/messages/${owner.username}`)).status).toBe(400);
    expect((await b.get("/messages/nobody-here")).status).toBe(404);
    const blank = await b.post(`/messages/${other.username}`, { body: "" });
    expect(blank.status).toBe(422);
    expect(blank.text).toContain('<label for="message-body">Message</label>');
    expect((await b.post(`/messages/${other.username}`, { body: "hi" }, { csrf: null })).status).toBe(403);
    expect(dbState(h)).toEqual(before);
  });
});

describe("limits", () => {
  test("votes share the API's hourly budget: the 11th is a 429 page with Retry-After, a refused vote costs nothing, and an hour later it works", async () => {
    const hh = setup({ readCacheBytes: 0 });
    const a = await human(hh, { username: "writer" });
    const a2 = await human(hh, { username: "writer-two" });
    const v = await human(hh, { username: "voter" });
    const c = makeColony(hh, a, "public", "limits");
    await join(hh, c, v);
    await join(hh, c, a2);
    const ids: string[] = [];
    // Two writers: each may post 10 an hour.
    for (let i = 0; i < 12; i++) ids.push((await post(hh, i % 2 ? a2 : a, { colony_id: c.id, title: `Post number ${i}` })).id);
    const own = await post(hh, v, { colony_id: c.id, title: "The voter's own" });
    const b = await signedIn(hh, v);
    await b.get(`/post/${ids[0]}`);
    expect((await b.post(`/post/${own.id}/vote`, { value: "1" })).status).toBe(400);
    for (let i = 0; i < 10; i++) expect((await b.post(`/post/${ids[i]}/vote`, { value: "1" })).status).toBe(303);
    const before = dbState(hh);
    const refused = await b.post(`/post/${ids[10]}/vote`, { value: "1" });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(dbState(hh)).toEqual(before);
    // The same budget as POST /api/v1/posts/{id}/vote.
    const api = await hh.req("POST", `/api/v1/posts/${ids[10]}/vote`, { token: (await hh.fresh(v)).token, body: { value: 1 } });
    expect(api.status).toBe(429);
    hh.clock.advance(61 * 60 * 1000);
    const again = await signedIn(hh, v);
    await again.get(`/post/${ids[11]}`);
    expect((await again.post(`/post/${ids[11]}/vote`, { value: "1" })).status).toBe(303);
  });
});

describe("/settings/profile", () => {
  test("display name and bio saved through the users service, shown on the profile; an empty name is refused and kept; CSRF checked", async () => {
    expect((await new Browser(h).get("/settings/profile")).location).toBe("/login?next=%2Fsettings%2Fprofile");
    const b = await signedIn(h, owner);
    const form = await b.get("/settings/profile");
    expect(form.status).toBe(200);
    expect(form.text).toContain('<label for="bio">Bio</label>');
    const saved = await b.post("/settings/profile", { display_name: "Pro <Filed>", bio: "I grow **ferns**." });
    expect(saved.location).toBe("/settings/profile?notice=saved");
    expect((await b.get(saved.location!)).text).toContain('<p role="status">Your profile is saved.</p>');
    expect(h.ctx.db.$client.query("select display_name, bio from users where id = ?").get(owner.id)).toEqual({ display_name: "Pro <Filed>", bio: "I grow **ferns**." });
    expect((await b.get(`/u/${owner.username}`)).text).toContain("Pro &lt;Filed&gt;");
    const before = dbState(h);
    const empty = await b.post("/settings/profile", { display_name: "  ", bio: "Kept <bio>" });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain("Kept &lt;bio&gt;");
    expect((await b.post("/settings/profile", { display_name: "x", bio: "y".repeat(1001) })).status).toBe(422);
    expect((await b.post("/settings/profile", { display_name: "Other" }, { csrf: null })).status).toBe(403);
    expect(dbState(h)).toEqual(before);
  });

  test("the Lightning address: saved (lower-cased) and shown, refused when it is not name@domain with what was typed kept, cleared when emptied, untouched by a form without it", async () => {
    const b = await signedIn(h, owner);
    const form = await b.get("/settings/profile");
    expect(form.text).toContain('<label for="lightning_address">Lightning address</label>');
    const saved = await b.post("/settings/profile", { display_name: "Payee", bio: "", lightning_address: " Payee@Wallet.Example " });
    expect(saved.location).toBe("/settings/profile?notice=saved");
    expect((await b.get(saved.location!)).text).toContain('name="lightning_address" type="text" inputmode="email" autocomplete="off" maxlength="255" value="payee@wallet.example"');
    expect((await h.req("GET", "/api/v1/users/me", { token: owner.token })).body.lightning_address).toBe("payee@wallet.example");
    const before = dbState(h);
    const bad = await b.post("/settings/profile", { display_name: "Payee", bio: "", lightning_address: "not \"an\" address" });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain("lightning_address must look like name@domain");
    expect(bad.text).toContain(`value="not &#34;an&#34; address"`);
    expect(dbState(h)).toEqual(before);
    // A form without the field (as before it had one) keeps the address.
    await b.get("/settings/profile");
    expect((await b.post("/settings/profile", { display_name: "Payee", bio: "" })).status).toBe(303);
    expect(users.findById(h.ctx, owner.id)?.lightningAddress).toBe("payee@wallet.example");
    await b.get("/settings/profile");
    expect((await b.post("/settings/profile", { display_name: "Payee", bio: "", lightning_address: "  " })).status).toBe(303);
    expect(users.findById(h.ctx, owner.id)?.lightningAddress).toBeNull();
  });
});
