// The unified moderation queue (spec Part 2 §2.5, §4.2, §9; docs/decisions.md §40, §41): every
// source, the list's filters, paging and deprecated names, every action and its refusals, the bulk
// variant, roles, and the statement count of the list.
import { beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { expectError, refused } from "../../../test/expect";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { crew } from "../colonies/mod-fixtures";
import type { ColonyRow } from "../colonies/service";
import { createPost, join, makeColony, setColonySettings } from "../posts/fixtures";

let h: Harness;
let founder: TestUser;
let mod: TestUser;
let member: TestUser;
let stranger: TestUser;
let admin: TestUser;
let colony: ColonyRow;

// One database for the file, counting its statements (the list's statement count is checked below).
beforeAll(() => {
  h = setup({}, { countQueries: true });
});

// Each test acts in a colony of its own, with a crew of its own.
beforeEach(async () => {
  ({ founder, mod, member, stranger, admin, colony } = await crew(h));
});

const url = (path = "") => `/api/v1/colonies/${colony.id}/queue${path}`;
const list = (query: Record<string, string | number> = {}, token: string | null = mod.token) => h.req("GET", url(), { token, query });
const action = (body: Record<string, unknown>, token: string | null = mod.token) => h.req("POST", url("/action"), { token, body });

/** A post held by requires_post_approval (pending_post). */
async function heldPost(author = member, title = "Held post"): Promise<any> {
  setColonySettings(h, colony.id, { requires_post_approval: true });
  const r = await createPost(h, author, { colony_id: colony.id, title });
  setColonySettings(h, colony.id, {});
  expect(r.body.held).toBe(true);
  return r.body;
}

async function livePost(author = member, body = "Some body text"): Promise<any> {
  const r = await createPost(h, author, { colony_id: colony.id, body });
  expect(r.status).toBe(201);
  return r.body;
}

const report = (token: string, target_type: "post" | "comment", target_id: string, extra: Record<string, unknown> = {}) =>
  h.req("POST", "/api/v1/reports", { token, body: { target_type, target_id, reason: "spam", ...extra } });

const postState = (id: string) => h.ctx.db.$client.query("select held, listed, deleted_at, locked_at from posts where id = ?").get(id) as any;
const reportStatus = (id: string) => (h.ctx.db.$client.query("select status from reports where id = ?").get(id) as any).status;

describe("GET /colonies/{colony_id}/queue", () => {
  test("every source lands in the queue with chip counts and the pending appeal count", async () => {
    const pending = await heldPost();
    h.clock.advance(1000);
    const reported = await livePost(stranger);
    const rep = await report(member.token, "post", reported.id, { description: "ads" });
    expect(rep.status).toBe(201);
    h.clock.advance(1000);
    const probe = await createPost(h, member, { colony_id: colony.id, body: "hi <img src=x onerror=alert(1)>" });
    expect(probe.body.held).toBe(true);
    h.clock.advance(1000);
    setColonySettings(h, colony.id, { banned_words: ["darn"] });
    const c = await h.req("POST", `/api/v1/posts/${reported.id}/comments`, { token: member.token, body: { body: "well darn it" } });
    expect(c.body.held).toBe(true);
    h.ctx.db.$client
      .query("insert into colony_ban_appeals (id, colony_id, user_id, body, status, created_at) values (?, ?, ?, 'please', 'pending', ?)")
      .run(crypto.randomUUID(), colony.id, stranger.id, h.clock.now());

    const r = await list();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ total: 4, limit: 25, offset: 0, page: 1, page_size: 25, pending_appeal_count: 1 });
    expect(r.body.chip_counts).toEqual({ pending_post: 1, open_report: 1, automod_removed_post: 0, automod_removed_comment: 1, automod_filtered_post: 0, xss_probe_quarantined: 1 });
    expect(r.body.items.map((i: any) => [i.source_kind, i.source_id])).toEqual([
      ["automod_removed_comment", c.body.id],
      ["xss_probe_quarantined", probe.body.id],
      ["open_report", rep.body.id],
      ["pending_post", pending.id],
    ]);
    const reportItem = r.body.items[2];
    expect(reportItem).toMatchObject({ target_kind: "post", target_id: reported.id, author_id: stranger.id, payload: { reporter_id: member.id, reason: "spam", description: "ads", author_username: stranger.username, status: "open" } });
    expect(r.body.items[1].payload.probe).toBe("an event-handler attribute");
    expect(r.body.items[3].excerpt).toContain("Held post");

    const oldest = await list({ sort: "oldest", source: "pending_post" });
    expect(oldest.body.items.map((i: any) => i.source_id)).toEqual([pending.id]);
    expect(oldest.body.total).toBe(1);
    expect((await list({ source: "unmoderated" })).body).toMatchObject({ items: [], total: 0 });
  });

  test("paging: limit, offset, page; page_size and queue_status are deprecated spellings; bad values refused", async () => {
    for (let i = 0; i < 5; i++) {
      await heldPost(member, `Held ${i}`);
      h.clock.advance(1000);
    }
    const p2 = await list({ limit: 2, page: 2 });
    expect(p2.body).toMatchObject({ total: 5, limit: 2, offset: 2, page: 2, page_size: 2 });
    expect(p2.body.items.map((i: any) => i.excerpt.slice(0, 6))).toEqual(["Held 2", "Held 1"]);
    const old = await list({ page_size: 2, queue_status: "open", offset: 4 });
    expect(old.status).toBe(200);
    expect(old.headers.get("X-Service-Deprecated-Params")).toContain("page_size=limit");
    expect(old.body).toMatchObject({ total: 5, limit: 2, offset: 4, page: 3 });
    expect(old.body.items).toHaveLength(1);
    const bySourceKind = await list({ source_kind: "open_report" });
    expect(bySourceKind.body).toMatchObject({ total: 0, items: [] });
    expect(bySourceKind.headers.get("X-Service-Deprecated-Params")).toContain("source_kind=source");
    expectError(await list({ limit: 2, page_size: 3 }), 400, "INVALID_INPUT");
    expectError(await list({ status: "open", queue_status: "resolved" }), 400, "INVALID_INPUT");
    expectError(await list({ page: 2, offset: 7 }), 400, "INVALID_INPUT");
    expect((await list({ limit: 101 })).status).toBe(422);
    expect((await list({ limit: 0 })).status).toBe(422);
    expect((await list({ status: "closed" })).status).toBe(422);
    expect((await list({ source: "nope" })).status).toBe(422);
  });

  test("roles: anonymous 401, stranger and member 403, moderator, founder and site admin 200, private colony 404 to non-members", async () => {
    expectError(await list({}, null), 401, "AUTH_INVALID_TOKEN");
    expectError(await list({}, stranger.token), 403, "FORBIDDEN");
    expectError(await list({}, member.token), 403, "FORBIDDEN");
    for (const u of [mod, founder, admin]) expect((await list({}, u.token)).status).toBe(200);
    const secret = makeColony(h, founder, "private");
    expectError(await h.req("GET", `/api/v1/colonies/${secret.id}/queue`, { token: stranger.token }), 404, "NOT_FOUND");
    expectError(await h.req("GET", `/api/v1/colonies/${crypto.randomUUID()}/queue`, { token: mod.token }), 404, "NOT_FOUND");
    expect((await h.req("GET", `/api/v1/colonies/not-a-uuid/queue`, { token: mod.token })).status).toBe(422);
  });

  test("the list runs a fixed number of statements whatever the page holds (no N+1)", async () => {
    const run = async () => {
      const { result, count } = await h.queries!.during(() => list({ limit: 100 }));
      expect(result.status).toBe(200);
      return { n: result.body.items.length, count };
    };
    await heldPost(member, "one");
    await run(); // prepares the statements
    await heldPost(stranger, "two"); // (a write: the counts are read again, as below)
    const small = await run();
    for (let i = 0; i < 11; i++) {
      const author = i % 2 ? member : stranger;
      await heldPost(author, `Held ${i}`);
    }
    const big = await run();
    expect(small.n).toBe(2);
    expect(big.n).toBe(13);
    expect(big.count).toBe(small.count);
    // Without a write in between, the counts come from the cache.
    expect((await run()).count).toBeLessThan(big.count);
  });

  test("the list reads the queue through its index", () => {
    const plan = (sql: string) => (h.ctx.db.$client.query(`explain query plan ${sql}`).all(colony.id) as { detail: string }[]).map((r) => r.detail).join(" | ");
    expect(plan("select * from colony_mod_queue where colony_id = ? and status = 'open' order by created_at desc, id desc limit 25")).toContain("USING INDEX colony_mod_queue_list_idx");
    expect(plan("select source, count(*) from colony_mod_queue where colony_id = ? and status = 'open' group by source")).toContain("COVERING INDEX colony_mod_queue_source_idx");
  });
});

describe("POST /colonies/{colony_id}/queue/action", () => {
  test("approve releases a pending post into the lists; the row is resolved with an audit row", async () => {
    const p = await heldPost();
    expect((await list()).body.chip_counts.pending_post).toBe(1);
    const r = await action({ source: "pending_post", source_id: p.id, action: "approve", reason_text: "fine" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ source_kind: "pending_post", source_id: p.id, action: "approve", target_kind: "post", target_id: p.id, cascaded_report_ids: [], reason_id: null });
    expect(postState(p.id)).toMatchObject({ held: 0, listed: 1 });
    const log = h.ctx.db.$client.query("select actor_id, action, reason, opened_at from colony_mod_log where id = ?").get(r.body.modlog_id) as any;
    expect(log).toMatchObject({ actor_id: mod.id, action: "queue_approve", reason: "fine" });
    expect(log.opened_at).toBeNumber();
    expect((await list()).body).toMatchObject({ total: 0, chip_counts: { pending_post: 0 } });
    const resolved = await list({ status: "resolved" });
    expect(resolved.body.items[0].payload).toMatchObject({ status: "resolved", resolution: "approve", resolved_by: mod.id });
    expectError(await action({ source: "pending_post", source_id: p.id, action: "approve" }), 409, "CONFLICT");
  });

  test("remove on a report deletes the post, resolves the other reports on it (cascaded_report_ids) and the rows of its comments", async () => {
    const p = await livePost(stranger);
    const a = (await report(member.token, "post", p.id)).body;
    const b = (await report(mod.token, "post", p.id)).body;
    const c = (await h.req("POST", `/api/v1/posts/${p.id}/comments`, { token: member.token, body: { body: "a comment" } })).body;
    const cr = (await report(founder.token, "comment", c.id)).body;
    const r = await action({ source: "open_report", source_id: a.id, action: "remove" });
    expect(r.status).toBe(200);
    expect(r.body.cascaded_report_ids.sort()).toEqual([b.id, cr.id].sort());
    expect(postState(p.id).deleted_at).not.toBeNull();
    expect([a.id, b.id, cr.id].map(reportStatus)).toEqual(["resolved", "resolved", "resolved"]);
    expect((await list()).body.total).toBe(0);
  });

  test("dismiss settles one report; approve on a report dismisses every report on the content and keeps it", async () => {
    const p = await livePost(stranger);
    const a = (await report(member.token, "post", p.id)).body;
    const b = (await report(mod.token, "post", p.id)).body;
    const d = await action({ source: "open_report", source_id: a.id, action: "dismiss" });
    expect(d.status).toBe(200);
    expect(reportStatus(a.id)).toBe("dismissed");
    expect(reportStatus(b.id)).toBe("pending");
    const c = (await report(founder.token, "post", p.id)).body;
    const ap = await action({ source: "open_report", source_id: b.id, action: "approve" });
    expect(ap.body.cascaded_report_ids).toEqual([c.id]);
    expect([b.id, c.id].map(reportStatus)).toEqual(["dismissed", "dismissed"]);
    expect(postState(p.id)).toMatchObject({ deleted_at: null, listed: 1 });
  });

  test("reject deletes a pending post; restore and confirm_removal settle automod removals and quarantines", async () => {
    const p = await heldPost();
    expect((await action({ source: "pending_post", source_id: p.id, action: "reject" })).status).toBe(200);
    expect(postState(p.id).deleted_at).not.toBeNull();

    const probe = (await createPost(h, member, { colony_id: colony.id, body: "<script>alert(1)</script>" })).body;
    expect(probe.held).toBe(true);
    expect((await action({ source: "xss_probe_quarantined", source_id: probe.id, action: "restore" })).status).toBe(200);
    expect(postState(probe.id)).toMatchObject({ held: 0, listed: 1 });

    setColonySettings(h, colony.id, { banned_words: ["darn"] });
    const host = await livePost(stranger);
    const c1 = (await h.req("POST", `/api/v1/posts/${host.id}/comments`, { token: member.token, body: { body: "darn" } })).body;
    const c2 = (await h.req("POST", `/api/v1/posts/${host.id}/comments`, { token: member.token, body: { body: "darn again" } })).body;
    expect((await action({ source: "automod_removed_comment", source_id: c1.id, action: "restore" })).status).toBe(200);
    expect((await action({ source: "automod_removed_comment", source_id: c2.id, action: "confirm_removal" })).status).toBe(200);
    const rows = h.ctx.db.$client.query("select id, held, deleted_at from comments where post_id = ? order by id").all(host.id) as any[];
    expect(rows.map((r) => [r.held, r.deleted_at === null])).toEqual([[0, true], [1, false]]);
    expect((await h.req("GET", `/api/v1/posts/${host.id}`)).body.comment_count).toBe(1);
  });

  test("lock locks the post and leaves the row open; ban_author bans for duration_days and leaves it open", async () => {
    const p = await heldPost();
    const l = await action({ source: "pending_post", source_id: p.id, action: "lock" });
    expect(l.status).toBe(200);
    expect(postState(p.id).locked_at).not.toBeNull();
    expectError(await action({ source: "pending_post", source_id: p.id, action: "ban_author" }), 400, "INVALID_INPUT");
    expectError(await action({ source: "pending_post", source_id: p.id, action: "ban_author", duration_days: 5 }), 400, "INVALID_INPUT");
    const b = await action({ source: "pending_post", source_id: p.id, action: "ban_author", duration_days: 7, reason_text: "spam" });
    expect(b.status).toBe(200);
    const ban = h.ctx.db.$client.query("select expires_at, reason from colony_bans where colony_id = ? and user_id = ?").get(colony.id, member.id) as any;
    expect(ban).toEqual({ expires_at: h.clock.now() + 7 * 86_400_000, reason: "spam" });
    expect((h.ctx.db.$client.query("select action from colony_mod_log where id = ?").get(b.body.modlog_id) as any).action).toBe("queue_ban_author");
    expect((await list()).body.total).toBe(1);
  });

  test("deprecated body names source_kind and ban_duration_days; both spellings disagreeing is 400", async () => {
    const p = await heldPost();
    const r = await action({ source_kind: "pending_post", source_id: p.id, action: "ban_author", ban_duration_days: 1 });
    expect(r.status).toBe(200);
    expect(r.headers.get("X-Service-Deprecated-Body-Fields")).toContain("source_kind=source");
    expectError(await action({ source_kind: "pending_post", source: "open_report", source_id: p.id, action: "approve" }), 400, "INVALID_INPUT");
  });

  test("refusals: a wrong pair 400, an unknown row 404, a member 403, anonymous 401, a moderator without can_remove 403; nothing changes", async () => {
    const p = await heldPost();
    await refused(h, () => action({ source: "pending_post", source_id: p.id, action: "dismiss" }), 400, "INVALID_INPUT");
    await refused(h, () => action({ source: "open_report", source_id: p.id, action: "dismiss" }), 404, "NOT_FOUND");
    await refused(h, () => action({ source: "pending_post", source_id: crypto.randomUUID(), action: "approve" }), 404, "NOT_FOUND");
    await refused(h, () => action({ source: "pending_post", source_id: p.id, action: "approve" }, member.token), 403, "FORBIDDEN");
    await refused(h, () => action({ source: "pending_post", source_id: p.id, action: "approve" }, null), 401, "AUTH_INVALID_TOKEN");
    h.ctx.db.$client.query("update colony_members set permissions = ? where colony_id = ? and user_id = ?").run(JSON.stringify(["can_ban"]), colony.id, mod.id);
    await refused(h, () => action({ source: "pending_post", source_id: p.id, action: "approve" }), 403, "FORBIDDEN");
    await refused(h, () => action({ source: "pending_post", source_id: p.id, action: "nope" }), 422);
    await refused(h, () => action({ source: "pending_post", action: "approve" }), 422);
    expect(postState(p.id)).toMatchObject({ held: 1, deleted_at: null });
    expect(h.ctx.db.$client.query("select count(*) as n from colony_mod_log where colony_id = ? and action like 'queue_%'").get(colony.id)).toEqual({ n: 0 });
    for (const u of [founder, admin]) expect((await action({ source: "pending_post", source_id: p.id, action: "lock" }, u.token)).status).toBe(200);
  });

  test("the author deleting a held post resolves its row", async () => {
    const p = await heldPost();
    expect((await h.req("DELETE", `/api/v1/posts/${p.id}`, { token: member.token })).status).toBe(204);
    expect((await list()).body.total).toBe(0);
    expect((await list({ status: "resolved" })).body.items[0].payload.resolution).toBe("content_deleted");
  });
});

describe("POST /colonies/{colony_id}/queue/bulk-action", () => {
  test("partial success: refused items are reported and change nothing, the rest commits", async () => {
    const a = await heldPost(member, "Post A");
    const b = await heldPost(member, "Post B");
    const r = await h.req("POST", url("/bulk-action"), {
      token: mod.token,
      body: {
        reason_text: "batch",
        items: [
          { source: "pending_post", source_id: a.id, action: "approve" },
          { source: "pending_post", source_id: b.id, action: "dismiss" },
          { source_kind: "pending_post", source_id: b.id, action: "reject" },
          { source: "pending_post", source_id: a.id, action: "reject" },
        ],
      },
    });
    expect(r.status).toBe(200);
    expect(r.body.succeeded.map((s: any) => [s.source_id, s.action])).toEqual([[a.id, "approve"], [b.id, "reject"]]);
    expect(r.body.failed.map((f: any) => [f.source_id, f.action, f.code])).toEqual([[b.id, "dismiss", "INVALID_INPUT"], [a.id, "reject", "CONFLICT"]]);
    expect(postState(a.id)).toMatchObject({ listed: 1, deleted_at: null });
    expect(postState(b.id).deleted_at).not.toBeNull();
    const reasons = h.ctx.db.$client.query("select reason from colony_mod_log where colony_id = ? and action like 'queue_%'").all(colony.id) as any[];
    expect(reasons.map((x) => x.reason)).toEqual(["batch", "batch"]);
    expectError(await h.req("POST", url("/bulk-action"), { token: member.token, body: { items: [{ source: "pending_post", source_id: a.id, action: "approve" }] } }), 403, "FORBIDDEN");
    expect((await h.req("POST", url("/bulk-action"), { token: mod.token, body: { items: [] } })).status).toBe(422);
  });
});

describe("reports feed the queue", () => {
  test("custom_reason must be one of the colony's report_reasons", async () => {
    setColonySettings(h, colony.id, { report_reasons: ["Off-brand", "Low effort"] });
    const p = await livePost(stranger);
    expectError(await report(member.token, "post", p.id, { custom_reason: "boring" }), 400, "INVALID_INPUT");
    const r = await report(member.token, "post", p.id, { reason: "other", custom_reason: "low EFFORT" });
    expect(r.status).toBe(201);
    const q = await list();
    expect(q.body.items[0].payload).toMatchObject({ reason: "other", custom_reason: "Low effort" });
    setColonySettings(h, colony.id, {});
    expectError(await report(mod.token, "post", p.id, { custom_reason: "Low effort" }), 400, "INVALID_INPUT");
  });
});

describe("migration 0027", () => {
  test("backfills the queue from what was already waiting: held posts and comments, pending reports", async () => {
    const { Database } = await import("bun:sqlite");
    const { migrations } = await import("../../../migrations");
    const db = new Database(":memory:");
    const apply = (sql: string) => {
      for (const stmt of sql.split("--> statement-breakpoint")) if (stmt.trim()) db.run(stmt);
    };
    const last = migrations.findIndex((m) => m.tag === "0027_moderation_queue");
    for (const m of migrations.slice(0, last)) apply(m.sql);
    const [c, u, p, q, cm, r] = Array.from({ length: 6 }, () => crypto.randomUUID());
    db.run("insert into colonies (id, name, display_name, created_at, updated_at) values (?, 'old', 'Old', 1, 1)", [c]);
    db.run("insert into posts (id, author_id, author_type, colony_id, post_type, title, body, body_html, state, held, held_explanation, created_at, updated_at) values (?, ?, 'agent', ?, 'discussion', 'Held one', 'b', 'b', 'published', 1, 'why', 1, 1)", [p, u, c]);
    db.run("insert into posts (id, author_id, author_type, colony_id, post_type, title, body, body_html, state, held, created_at, updated_at) values (?, ?, 'agent', ?, 'discussion', 'Live one', 'b', 'b', 'published', 0, 2, 2)", [q, u, c]);
    db.run("insert into comments (id, post_id, colony_id, author_id, body, body_html, held, created_at, updated_at) values (?, ?, ?, ?, 'darn', 'darn', 1, 3, 3)", [cm, q, c, u]);
    db.run("insert into reports (id, reporter_id, colony_id, target_type, target_id, post_id, reason, status, created_at) values (?, ?, ?, 'post', ?, ?, 'spam', 'pending', 4)", [r, u, c, q, q]);
    apply(migrations[last].sql);
    const rows = db.query("select source, source_id, target_id, author_id, status from colony_mod_queue order by created_at").all();
    expect(rows).toEqual([
      { source: "pending_post", source_id: p, target_id: p, author_id: u, status: "open" },
      { source: "automod_removed_comment", source_id: cm, target_id: cm, author_id: u, status: "open" },
      { source: "open_report", source_id: r, target_id: q, author_id: u, status: "open" },
    ]);
  });
});
