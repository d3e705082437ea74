// Automod rules (spec Part 2 §4.2; docs/decisions.md §40, §42): the five routes as anonymous,
// stranger, member, moderator, founder and site admin; validation; and the rules acting on the
// create and edit of posts and comments (queue rows, audit rows, the author's notification, the
// rule's reply).
import { beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { dbState } from "../../../test/db-state";
import { expectError, refused } from "../../../test/expect";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { crew } from "../colonies/mod-fixtures";
import type { ColonyRow } from "../colonies/service";
import { createPost, makeColony, setColonySettings } from "../posts/fixtures";

let h: Harness;
let founder: TestUser;
let mod: TestUser;
let member: TestUser;
let stranger: TestUser;
let admin: TestUser;
let colony: ColonyRow;

beforeAll(() => {
  h = setup();
});

// Each test acts in a colony of its own, with a crew of its own.
beforeEach(async () => {
  ({ founder, mod, member, stranger, admin, colony } = await crew(h));
});

const base = () => `/api/v1/colonies/${colony.id}/automod-rules`;
const rule = (body: Record<string, unknown>, token: string | null = mod.token) => h.req("POST", base(), { token, body });
const RULE = { name: "No casino spam", triggers: { body_regex: "\\bcasino\\b" }, actions: { remove: true } };

async function newRule(body: Record<string, unknown> = RULE): Promise<any> {
  const r = await rule(body);
  if (r.status !== 201) throw new Error(`rule failed: ${r.status} ${r.text}`);
  return r.body;
}

const queue = async (token = mod.token, query: Record<string, string | number> = {}) => (await h.req("GET", `/api/v1/colonies/${colony.id}/queue`, { token, query })).body;
const ruleCount = () => h.ctx.db.$client.query("select count(*) as n from colony_automod_rules where colony_id = ?").get(colony.id);
const modLog = () => h.ctx.db.$client.query("select actor_id, action, target_type, target_id, reason from colony_mod_log where colony_id = ? order by created_at, rowid").all(colony.id) as any[];
const postRow = (id: string) => h.ctx.db.$client.query("select held, listed, locked_at, held_explanation from posts where id = ?").get(id) as any;

describe("automod rule management", () => {
  test("create, list, patch, reorder and delete as a moderator", async () => {
    const a = await newRule();
    expect(a).toMatchObject({ name: "No casino spam", scope: "both", enabled: true, order_index: 0, triggers: { body_regex: "\\bcasino\\b" }, actions: { remove: true } });
    expect(a.rule_id).toBeString();
    const b = await newRule({ name: "Links from new accounts", scope: "post", triggers: { account_age_days_below: 3, has_link_domain: ["https://Spam.example/x"] }, actions: { report_to_mods: true } });
    expect(b).toMatchObject({ order_index: 1, scope: "post", triggers: { account_age_days_below: 3, has_link_domain: ["spam.example"] } });

    const list = await h.req("GET", base(), { token: mod.token });
    expect(list.status).toBe(200);
    expect(list.body.rules.map((r: any) => r.rule_id)).toEqual([a.rule_id, b.rule_id]);

    const patched = await h.req("PATCH", `${base()}/${a.rule_id}`, { token: mod.token, body: { name: "Casino", enabled: false, order_index: 1 } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: "Casino", enabled: false, order_index: 1, triggers: a.triggers });

    const order = await h.req("PUT", `${base()}/order`, { token: mod.token, body: { rule_ids: [a.rule_id, b.rule_id] } });
    expect(order.status).toBe(200);
    expect(order.body.rules.map((r: any) => [r.rule_id, r.order_index])).toEqual([[a.rule_id, 0], [b.rule_id, 1]]);

    expect((await h.req("DELETE", `${base()}/${a.rule_id}`, { token: mod.token })).status).toBe(204);
    expectError(await h.req("DELETE", `${base()}/${a.rule_id}`, { token: mod.token }), 404, "NOT_FOUND");
    expect((await h.req("GET", base(), { token: mod.token })).body.rules).toHaveLength(1);
  });

  test("roles: anonymous 401, stranger and member 403, founder and site admin allowed, private colony 404 to non-members", async () => {
    expectError(await rule(RULE, null), 401, "AUTH_INVALID_TOKEN");
    expectError(await h.req("GET", base()), 401, "AUTH_INVALID_TOKEN");
    expectError(await rule(RULE, stranger.token), 403, "FORBIDDEN");
    expectError(await rule(RULE, member.token), 403, "FORBIDDEN");
    expectError(await h.req("GET", base(), { token: member.token }), 403, "FORBIDDEN");
    expect((await rule(RULE, founder.token)).status).toBe(201);
    expect((await rule(RULE, admin.token)).status).toBe(201);
    const secret = makeColony(h, founder, "private");
    const r = await h.req("GET", `/api/v1/colonies/${secret.id}/automod-rules`, { token: stranger.token });
    expectError(r, 404, "NOT_FOUND");
    expect((await h.req("GET", `/api/v1/colonies/${secret.id}/automod-rules`, { token: admin.token })).status).toBe(200);
    expect(ruleCount()).toEqual({ n: 2 });
  });

  test("a refused config is 400 INVALID_INPUT and saves nothing", async () => {
    const cases: Record<string, unknown>[] = [
      { name: "bad", triggers: { body_regex: "(unclosed" }, actions: { remove: true } },
      { name: "lookbehind", triggers: { title_regex: "(?<=x)y" }, actions: { remove: true } },
      { name: "backref", triggers: { body_regex: "(a)\\1" }, actions: { remove: true } },
      { name: "no trigger", triggers: {}, actions: { remove: true } },
      { name: "empty trigger", triggers: { body_regex: "", author_usernames: [] }, actions: { remove: true } },
      { name: "no action", triggers: { has_image: true }, actions: {} },
      { name: "both", triggers: { has_image: true }, actions: { remove: true, approve: true } },
      { name: "post type", triggers: { post_type: ["essay"] }, actions: { lock: true } },
      { name: "domain", triggers: { has_link_domain: ["not a domain"] }, actions: { lock: true } },
      { name: "karma", triggers: { author_karma_above: 10, author_karma_below: 5 }, actions: { lock: true } },
      { name: "   ", triggers: { has_image: true }, actions: { lock: true } },
    ];
    for (const body of cases) await refused(h, () => rule(body), 400, "INVALID_INPUT");
    // Schema refusals: an unknown key (the house's body-shape check), a regex over 1024 characters.
    await refused(h, () => rule({ name: "x", triggers: { nope: 1 }, actions: { remove: true } }), 400);
    await refused(h, () => rule({ name: "x", triggers: { body_regex: "a".repeat(1025) }, actions: { remove: true } }), 422);
    expect(ruleCount()).toEqual({ n: 0 });
    const ok = await newRule();
    expectError(await h.req("PATCH", `${base()}/${ok.rule_id}`, { token: mod.token, body: { triggers: { body_regex: "(" } } }), 400, "INVALID_INPUT");
    expectError(await h.req("PATCH", `${base()}/${ok.rule_id}`, { token: mod.token, body: { actions: { approve: true, remove: true } } }), 400, "INVALID_INPUT");
    expect((await h.req("GET", base(), { token: mod.token })).body.rules[0].triggers).toEqual({ body_regex: "\\bcasino\\b" });
  });

  test("a rule of another colony is 404; reorder with a stale list is 409, with a repeated id 400", async () => {
    const a = await newRule();
    const b = await newRule({ ...RULE, name: "second" });
    const other = makeColony(h, mod);
    expectError(await h.req("PATCH", `/api/v1/colonies/${other.id}/automod-rules/${a.rule_id}`, { token: mod.token, body: { name: "x" } }), 404, "NOT_FOUND");
    expectError(await h.req("PUT", `${base()}/order`, { token: mod.token, body: { rule_ids: [a.rule_id] } }), 409, "CONFLICT");
    expectError(await h.req("PUT", `${base()}/order`, { token: mod.token, body: { rule_ids: [a.rule_id, a.rule_id] } }), 400, "INVALID_INPUT");
    expectError(await h.req("PUT", `${base()}/order`, { token: mod.token, body: { rule_ids: [a.rule_id, b.rule_id, crypto.randomUUID()] } }), 409, "CONFLICT");
    expectError(await h.req("PUT", `${base()}/order`, { token: member.token, body: { rule_ids: [b.rule_id, a.rule_id] } }), 403, "FORBIDDEN");
    const r = await h.req("PUT", `${base()}/order`, { token: mod.token, body: { rule_ids: [b.rule_id, a.rule_id] } });
    expect(r.body.rules.map((x: any) => x.rule_id)).toEqual([b.rule_id, a.rule_id]);
  });

  test("a colony holds at most 200 rules: the next is 400 LIMIT_EXCEEDED", async () => {
    for (let i = 0; i < 200; i++) await newRule({ ...RULE, name: `rule ${i}` });
    await refused(h, () => rule(RULE), 400, "LIMIT_EXCEEDED");
    expect(ruleCount()).toEqual({ n: 200 });
  });

  test("dry-run reports what the config would match among recent posts and comments, and changes nothing", async () => {
    const hit = (await createPost(h, member, { colony_id: colony.id, title: "Best casino deals", body: "visit the casino" })).body;
    await createPost(h, member, { colony_id: colony.id, title: "Gardening", body: "tomatoes" });
    h.clock.advance(1000);
    const c = await h.req("POST", `/api/v1/posts/${hit.id}/comments`, { token: stranger.token, body: { body: "I love the casino too" } });
    expect(c.status).toBe(201);
    const before = dbState(h);
    const r = await h.req("POST", `${base()}/dry-run`, { token: mod.token, body: RULE });
    expect(r.status).toBe(200);
    expect(r.body.scanned).toEqual({ posts: 2, comments: 1 });
    expect(r.body.matched).toEqual({ posts: 1, comments: 1 });
    expect(r.body.matches.map((m: any) => [m.target_kind, m.target_id])).toEqual([["comment", c.body.id], ["post", hit.id]]);
    expect(r.body.matches[1].matched_triggers).toEqual(["body_regex"]);
    const postsOnly = await h.req("POST", `${base()}/dry-run`, { token: mod.token, body: { ...RULE, scope: "post", triggers: { title_regex: "casino", user_type: "agent" } } });
    expect(postsOnly.body.matched).toEqual({ posts: 1, comments: 0 });
    expect(dbState(h)).toEqual(before);
    expectError(await h.req("POST", `${base()}/dry-run`, { token: mod.token, body: { ...RULE, triggers: { body_regex: "(?=x)" } } }), 400, "INVALID_INPUT");
    expectError(await h.req("POST", `${base()}/dry-run`, { token: member.token, body: RULE }), 403, "FORBIDDEN");
  });
});

describe("automod acting on posts and comments", () => {
  test("remove hides a new post, queues it as automod_removed_post and writes an audit row with no actor", async () => {
    const r = await newRule();
    const p = await createPost(h, member, { colony_id: colony.id, title: "Hello", body: "Come to my CASINO tonight" });
    expect(p.status).toBe(201);
    expect(p.body.held).toBe(true);
    expect(postRow(p.body.id)).toMatchObject({ held: 1, listed: 0 });
    const q = await queue();
    expect(q.items).toHaveLength(1);
    expect(q.items[0]).toMatchObject({ source_kind: "automod_removed_post", source_id: p.body.id, target_kind: "post", target_id: p.body.id, author_id: member.id, payload: { rule_id: r.rule_id, rule_name: r.name } });
    expect(q.chip_counts.automod_removed_post).toBe(1);
    expect(modLog()).toEqual([{ actor_id: null, action: "automod_remove", target_type: "post", target_id: p.body.id, reason: r.name }]);
    const listed = await h.req("GET", "/api/v1/posts", { query: { colony_id: colony.id } });
    expect(listed.body.items).toHaveLength(0);
  });

  test("moderators are not subject to automod; a disabled or deleted rule stops acting at once", async () => {
    const r = await newRule();
    const own = await createPost(h, mod, { colony_id: colony.id, body: "casino night for the mods" });
    expect(own.body.held).toBe(false);
    await h.req("PATCH", `${base()}/${r.rule_id}`, { token: mod.token, body: { enabled: false } });
    expect((await createPost(h, member, { colony_id: colony.id, body: "casino" })).body.held).toBe(false);
    await h.req("PATCH", `${base()}/${r.rule_id}`, { token: mod.token, body: { enabled: true } });
    expect((await createPost(h, member, { colony_id: colony.id, body: "casino" })).body.held).toBe(true);
    await h.req("DELETE", `${base()}/${r.rule_id}`, { token: mod.token });
    expect((await createPost(h, member, { colony_id: colony.id, body: "casino" })).body.held).toBe(false);
  });

  test("rules run in order: the first removal ends the evaluation", async () => {
    await newRule({ name: "report agents", triggers: { user_type: "agent" }, actions: { lock: true } });
    await newRule();
    await newRule({ name: "never reached", triggers: { body_regex: "casino" }, actions: { report_to_mods: true } });
    const p = await createPost(h, member, { colony_id: colony.id, body: "casino" });
    expect(modLog().map((r) => [r.action, r.reason])).toEqual([["automod_lock", "report agents"], ["automod_remove", "No casino spam"]]);
    expect(postRow(p.body.id).locked_at).not.toBeNull();
  });

  test("report_to_mods holds a post for review (automod_filtered_post) and opens an open_report row for a comment, which stays up", async () => {
    await newRule({ name: "watch", triggers: { author_usernames: [`@${member.username.toUpperCase()}`] }, actions: { report_to_mods: true } });
    const p = await createPost(h, member, { colony_id: colony.id });
    expect(p.body.held).toBe(true);
    const target = (await createPost(h, stranger, { colony_id: colony.id })).body;
    const c = await h.req("POST", `/api/v1/posts/${target.id}/comments`, { token: member.token, body: { body: "a comment" } });
    expect(c.body.held).toBe(false);
    const q = await queue();
    expect(q.items.map((i: any) => [i.source_kind, i.target_id])).toEqual([["open_report", c.body.id], ["automod_filtered_post", p.body.id]]);
    expect(q.items[0].payload).toMatchObject({ reporter: "automod", rule_name: "watch" });
  });

  test("approve lets a post past requires_post_approval; lock stops comments but a moderator's", async () => {
    setColonySettings(h, colony.id, { requires_post_approval: true });
    expect((await createPost(h, member, { colony_id: colony.id })).body.held).toBe(true);
    await newRule({ name: "trusted", triggers: { author_karma_above: 49 }, actions: { approve: true, lock: true } });
    h.ctx.db.$client.query("update users set karma = 50 where id = ?").run(member.id);
    const p = await createPost(h, member, { colony_id: colony.id });
    expect(p.status).toBe(201);
    expect(p.body.held).toBe(false);
    expectError(await h.req("POST", `/api/v1/posts/${p.body.id}/comments`, { token: stranger.token, body: { body: "hi" } }), 403, "FORBIDDEN");
    expect((await h.req("POST", `/api/v1/posts/${p.body.id}/comments`, { token: mod.token, body: { body: "locked, sorry" } })).status).toBe(201);
    const q = await queue();
    expect(q.chip_counts.pending_post).toBe(1);
  });

  test("edits are evaluated too: a post and a comment edited into a match are removed", async () => {
    await newRule({ name: "no links to spam", triggers: { has_link_domain: ["spam.example"] }, actions: { remove: true } });
    const p = (await createPost(h, member, { colony_id: colony.id, body: "clean" })).body;
    const e = await h.req("PUT", `/api/v1/posts/${p.id}`, { token: member.token, body: { body: "see https://www.spam.example/offer" } });
    expect(e.status).toBe(200);
    expect(e.body.held).toBe(true);
    const c = (await h.req("POST", `/api/v1/posts/${(await createPost(h, mod, { colony_id: colony.id })).body.id}/comments`, { token: member.token, body: { body: "fine" } })).body;
    const ce = await h.req("PUT", `/api/v1/comments/${c.id}`, { token: member.token, body: { body: "now http://spam.example" } });
    expect(ce.status).toBe(200);
    expect(ce.body.held).toBe(true);
    const q = await queue();
    expect(q.items.map((i: any) => i.source_kind).sort()).toEqual(["automod_removed_comment", "automod_removed_post"]);
  });

  test("notify_author_reason notifies the author in the same transaction; reply_with_comment posts the rule author's reply after commit", async () => {
    await newRule({ name: "explain", triggers: { has_image: true }, actions: { remove: true, notify_author_reason: "No images here", reply_with_comment: "Images are not allowed in this colony." } });
    const p = (await createPost(h, member, { colony_id: colony.id, body: "look ![x](https://img.example/a.png)" })).body;
    const n = h.ctx.db.$client.query("select kind, meta from notifications where user_id = ?").all(member.id) as any[];
    expect(n).toHaveLength(1);
    expect(n[0].kind).toBe("automod_action");
    expect(JSON.parse(n[0].meta)).toMatchObject({ reason: "No images here", rule_name: "explain", removed: true });
    const listed = await h.req("GET", "/api/v1/notifications", { token: member.token });
    expect(listed.body.items?.[0]?.message ?? listed.body[0]?.message).toBe("Automod removed your post: No images here");
    await h.ctx.events.drain();
    await h.ctx.events.drain();
    const replies = h.ctx.db.$client.query("select author_id, body from comments where post_id = ?").all(p.id) as any[];
    expect(replies).toEqual([{ author_id: mod.id, body: "Images are not allowed in this colony." }]);
  });

  test("a pathological pattern cannot hang the server (RE2, linear time)", async () => {
    await newRule({ name: "evil", triggers: { body_regex: "(a+)+$" }, actions: { report_to_mods: true } });
    const started = performance.now();
    const p = await createPost(h, member, { colony_id: colony.id, body: "a".repeat(20_000) + "!" });
    expect(p.status).toBe(201);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe("scheduled posts", () => {
  test("automod and the hold rules run when a scheduled post is published; a held one lands in the queue", async () => {
    await newRule();
    const at = new Date(h.clock.now() + 3600_000).toISOString();
    const s = await createPost(h, member, { colony_id: colony.id, body: "casino later", scheduled_for: at });
    expect(s.status).toBe(201);
    expect((await queue()).total).toBe(0);
    h.clock.advance(3600_000 + 1000);
    const { publishScheduled } = await import("../posts/scheduling");
    const row = publishScheduled(h.ctx, s.body.id);
    expect(row?.held).toBe(true);
    const mod2 = await h.user({ admin: true });
    const q = (await h.req("GET", `/api/v1/colonies/${colony.id}/queue`, { token: mod2.token })).body;
    expect(q.items.map((i: any) => [i.source_kind, i.source_id])).toEqual([["automod_removed_post", s.body.id]]);
  });
});
