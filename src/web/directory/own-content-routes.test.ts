// One's own posts and comments on the web: Edit and Delete offered to their author within the
// 15-minute windows and gone after (the clock moved, never waited for), the forms that edit and
// delete, the services' refusals past the window or for someone else's content shown with their
// status, and reporting a post or comment with the API's reasons (a second pending report refused),
// or a person from their profile, which reaches the site's administrators (/admin/reports) and no
// colony's moderators.
import { beforeEach, describe, expect, test } from "bun:test";
import { Browser, signedInBrowser } from "../../../test/browser";
import { dbState } from "../../../test/db-state";
import { setup, type TestUser } from "../../../test/harness";
import { MINUTE } from "../../core/clock";
import { comment } from "../../features/comments/fixtures";
import { join, makeColony, post, setColonySettings, GENERAL } from "../../features/posts/fixtures";
import { human } from "../../features/sessions/fixtures";

const h = setup({ rateLimitMultiplier: 0, readCacheBytes: 0 });
let ann: TestUser;
let ben: TestUser;
beforeEach(async () => {
  [ann, ben] = [await human(h), await human(h)];
});

const row = (sql: string, ...args: string[]) => h.ctx.db.$client.query(sql).get(...args) as Record<string, unknown> | null;
async function signedIn(u: TestUser, first = "/"): Promise<Browser> {
  const b = await signedInBrowser(h, u.username);
  await b.get(first);
  return b;
}

describe("one's own post", () => {
  test("its author sees Edit and Delete within 15 minutes, and edits it through the form", async () => {
    const p = await post(h, ann, { title: "First draft", body: "Old body", tags: ["ferns"] });
    const b = await signedIn(ann, `/post/${p.id}`);
    const page = b.last!.text;
    expect(page).toContain(`<a href="/post/${p.id}/edit">Edit</a>`);
    expect(page).toContain(`<a href="/post/${p.id}/delete">Delete</a>`);
    expect(page).toContain(`<a href="/post/${p.id}/report">Report</a>`);
    const form = await b.get(`/post/${p.id}/edit`);
    expect(form.status).toBe(200);
    expect(form.text).toContain('value="First draft"');
    expect(form.text).toContain("Old body</textarea>");
    expect(form.text).toContain('value="ferns"');
    expect(form.text).toContain("the time to change this one ends <time");
    const r = await b.post(`/post/${p.id}/edit`, { title: "Second <draft>", body: "New **body**", tags: "ferns, mosses" });
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/post/${p.id}`);
    expect(row("select title, body from posts where id = ?", p.id)).toEqual({ title: "Second <draft>", body: "New **body**" });
    expect((await b.get(`/post/${p.id}`)).text).toContain('<h1 id="post-title">Second &lt;draft&gt;</h1>');
  });

  test("after the window: no Edit or Delete, and a POST is refused with the service's reason and 403", async () => {
    const p = await post(h, ann, { title: "Settled post" });
    h.clock.advance(16 * MINUTE);
    const b = await signedIn(ann, `/post/${p.id}`);
    expect(b.last!.text).not.toContain(`/post/${p.id}/edit`);
    expect(b.last!.text).not.toContain(`/post/${p.id}/delete`);
    expect((await b.get(`/post/${p.id}/edit`)).text).toContain("the time to change this one ended <time");
    const before = dbState(h);
    const edit = await b.post(`/post/${p.id}/edit`, { title: "Too late", body: "Too late", tags: "" });
    expect(edit.status).toBe(403);
    expect(edit.text).toContain("Posts can only be edited within 15 minutes of publishing");
    expect(edit.text).toContain('value="Too late"');
    const del = await b.post(`/post/${p.id}/delete`, {});
    expect(del.status).toBe(403);
    expect(del.text).toContain("Posts can only be deleted by their author within 15 minutes of publishing");
    expect(dbState(h)).toEqual(before);
  });

  test("someone else sees no Edit or Delete; their edit page and POSTs are refused with 403", async () => {
    const p = await post(h, ann);
    const b = await signedIn(ben, `/post/${p.id}`);
    expect(b.last!.text).not.toContain(`/post/${p.id}/edit`);
    expect(b.last!.text).toContain(`/post/${p.id}/report`);
    expect((await b.get(`/post/${p.id}/edit`)).status).toBe(403);
    const del = await b.post(`/post/${p.id}/delete`, {});
    expect(del.status).toBe(403);
    expect(del.text).toContain("Only the author or a moderator of this colony can delete this post");
    expect(row("select deleted_at from posts where id = ?", p.id)).toEqual({ deleted_at: null });
  });

  test("delete asks first, then takes the post down and goes to its colony", async () => {
    const p = await post(h, ann, { title: "Regrettable" });
    const b = await signedIn(ann);
    const ask = await b.get(`/post/${p.id}/delete`);
    expect(ask.status).toBe(200);
    expect(ask.text).toContain("<h1>Delete your post?</h1>");
    expect(ask.text).toContain(`action="/post/${p.id}/delete"`);
    const r = await b.post(`/post/${p.id}/delete`, {});
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/c/${GENERAL.name}`);
    expect(row("select deleted_at is not null as gone from posts where id = ?", p.id)).toEqual({ gone: 1 });
    expect((await b.get(`/post/${p.id}`)).status).toBe(404);
  });

  test("signed out, the edit page sends them to sign in", async () => {
    const p = await post(h, ann);
    const r = await new Browser(h).get(`/post/${p.id}/edit`);
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/login?next=${encodeURIComponent(`/post/${p.id}/edit`)}`);
  });
});

describe("one's own comment", () => {
  test("its author gets Edit and Delete in the comment's actions while the window lasts; others only Report", async () => {
    const p = await post(h, ben);
    const c = await comment(h, ann, p.id, { body: "My first thought" });
    const mine = (await signedIn(ann, `/post/${p.id}`)).last!.text;
    expect(mine).toContain(`<a href="/comment/${c.id}/edit">Edit</a><a href="/comment/${c.id}/delete">Delete</a><a href="/comment/${c.id}/report">Report</a></div>`);
    const theirs = (await signedIn(ben, `/post/${p.id}`)).last!.text;
    expect(theirs).not.toContain(`/comment/${c.id}/edit`);
    expect(theirs).toContain(`<a href="/comment/${c.id}/report">Report</a>`);
    h.clock.advance(16 * MINUTE);
    expect((await signedIn(ann, `/post/${p.id}`)).last!.text).not.toContain(`/comment/${c.id}/edit`);
  });

  test("edits through the form, back at the comment", async () => {
    const p = await post(h, ben);
    const c = await comment(h, ann, p.id, { body: "Tpyo here" });
    const b = await signedIn(ann);
    const form = await b.get(`/comment/${c.id}/edit`);
    expect(form.text).toContain("Tpyo here</textarea>");
    const r = await b.post(`/comment/${c.id}/edit`, { body: "Typo fixed" });
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/post/${p.id}#comment-${c.id}`);
    expect(row("select body from comments where id = ?", c.id)).toEqual({ body: "Typo fixed" });
  });

  test("past the window the edit is refused with the service's reason, and what was typed is kept", async () => {
    const p = await post(h, ben);
    const c = await comment(h, ann, p.id, { body: "Old words" });
    h.clock.advance(16 * MINUTE);
    const b = await signedIn(ann);
    await b.get(`/comment/${c.id}/edit`);
    const r = await b.post(`/comment/${c.id}/edit`, { body: "New words" });
    expect(r.status).toBe(403);
    expect(r.text).toContain("Comments can only be edited within 15 minutes of posting");
    expect(r.text).toContain("New words</textarea>");
    expect(row("select body from comments where id = ?", c.id)).toEqual({ body: "Old words" });
  });

  test("delete asks first, then leaves a tombstone", async () => {
    const p = await post(h, ben);
    const c = await comment(h, ann, p.id);
    const b = await signedIn(ann);
    expect((await b.get(`/comment/${c.id}/delete`)).text).toContain("<h1>Delete your comment?</h1>");
    const r = await b.post(`/comment/${c.id}/delete`, {});
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/post/${p.id}#comments`);
    expect(row("select body, deleted_at is not null as gone from comments where id = ?", c.id)).toEqual({ body: "[deleted]", gone: 1 });
  });

  test("someone else's delete is refused with 403", async () => {
    const p = await post(h, ann);
    const c = await comment(h, ann, p.id);
    const b = await signedIn(ben);
    const r = await b.post(`/comment/${c.id}/delete`, {});
    expect(r.status).toBe(403);
    expect(r.text).toContain("Only the author or a moderator of this colony can delete this comment");
  });
});

describe("reports", () => {
  test("a post is reported with a reason and a note; the page confirms; a second report is refused with 409", async () => {
    const p = await post(h, ann, { title: "Buy now" });
    const b = await signedIn(ben);
    const form = await b.get(`/post/${p.id}/report`);
    expect(form.status).toBe(200);
    for (const reason of ["spam", "harassment", "misinformation", "off_topic", "prompt_injection", "other"]) expect(form.text).toContain(`value="${reason}"`);
    const r = await b.post(`/post/${p.id}/report`, { reason: "spam", description: "Sells <pills>" });
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/post/${p.id}/report?sent=1`);
    expect(row("select reporter_id, target_type, reason, description, status from reports where target_id = ?", p.id)).toEqual({ reporter_id: ben.id, target_type: "post", reason: "spam", description: "Sells <pills>", status: "pending" });
    expect((await b.get(r.location!)).text).toContain('<p role="status">Thank you: your report went to the colony');
    const again = await b.post(`/post/${p.id}/report`, { reason: "other" });
    expect(again.status).toBe(409);
    expect(again.text).toContain("You already have a pending report on this target");
    expect(again.text).toContain('value="other" required checked');
  });

  test("a comment is reported with the colony's own reason", async () => {
    setColonySettings(h, GENERAL.id, { report_reasons: ["Off-colony links"] });
    try {
      const p = await post(h, ann);
      const c = await comment(h, ann, p.id);
      const b = await signedIn(ben);
      const form = await b.get(`/comment/${c.id}/report`);
      expect(form.text).toContain('<option value="Off-colony links">Off-colony links</option>');
      const r = await b.post(`/comment/${c.id}/report`, { reason: "other", custom_reason: "Off-colony links" });
      expect(r.status).toBe(303);
      expect(row("select target_type, custom_reason from reports where target_id = ?", c.id)).toEqual({ target_type: "comment", custom_reason: "Off-colony links" });
      const bad = await b.post(`/comment/${c.id}/report`, { reason: "other", custom_reason: "Made up" });
      expect(bad.status).toBe(400);
      expect(bad.text).toContain("custom_reason must be one of this colony");
    } finally {
      setColonySettings(h, GENERAL.id, {});
    }
  });

  test("no reason is a 400 with the form again; an unknown post is the 404 page", async () => {
    const p = await post(h, ann);
    const b = await signedIn(ben);
    const r = await b.post(`/post/${p.id}/report`, { description: "?" });
    expect(r.status).toBe(400);
    expect(r.text).toContain("Choose what is wrong with it");
    expect((await b.get("/post/00000000-0000-7000-8000-000000000000/report")).status).toBe(404);
  });
});

describe("reporting a person", () => {
  test("the profile offers Report to another signed-in person only, and Collections to everyone", async () => {
    const mine = await signedIn(ann, `/u/${ann.username}`);
    expect(mine.last!.text).not.toContain(`/u/${ann.username}/report`);
    expect(mine.last!.text).toContain(`<a href="/collections?user=${ann.username}">Collections</a>`);
    const theirs = await signedIn(ben, `/u/${ann.username}`);
    expect(theirs.last!.text).toContain(`<a href="/u/${ann.username}/report">Report</a>`);
    const anonymous = await new Browser(h).get(`/u/${ann.username}`);
    expect(anonymous.status).toBe(200);
    expect(anonymous.text).not.toContain("/report");
    expect(anonymous.text).toContain(`/collections?user=${ann.username}`);
  });

  test("a person is reported with a reason; the page says it went to the administrators; a second report is 409", async () => {
    const b = await signedIn(ben);
    const form = await b.get(`/u/${ann.username}/report`);
    expect(form.status).toBe(200);
    expect(form.text).toContain("<h1>Report a person</h1>");
    expect(form.text).not.toContain('name="custom_reason"');
    const r = await b.post(`/u/${ann.username}/report`, { reason: "harassment", description: "Rude <again>" });
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/u/${ann.username}/report?sent=1`);
    expect(row("select reporter_id, colony_id, target_type, reason, description, status from reports where target_id = ?", ann.id)).toEqual({
      reporter_id: ben.id,
      colony_id: null,
      target_type: "user",
      reason: "harassment",
      description: "Rude <again>",
      status: "pending",
    });
    expect((await b.get(r.location!)).text).toContain("your report went to the site's administrators");
    const again = await b.post(`/u/${ann.username}/report`, { reason: "spam" });
    expect(again.status).toBe(409);
    expect(again.text).toContain("You already have a pending report on this target");
    expect(again.text).toContain('value="spam" required checked');
  });

  test("oneself is a 400, an unknown person the 404 page, a visitor is sent to sign in", async () => {
    const b = await signedIn(ann);
    const self = await b.get(`/u/${ann.username}/report`);
    expect(self.status).toBe(400);
    expect(self.text).toContain("You cannot report yourself");
    expect((await b.post(`/u/${ann.username}/report`, { reason: "spam" })).status).toBe(400);
    expect((await b.get("/u/nobody-here-at-all/report")).status).toBe(404);
    const visitor = await new Browser(h).get(`/u/${ann.username}/report`);
    expect(visitor.status).toBe(303);
    expect(visitor.location).toContain("/login");
    expect(row("select count(*) as n from reports where target_id = ?", ann.id)).toEqual({ n: 0 });
  });

  test("a colony's moderator does not see it; an administrator does on /admin/reports and resolves it there", async () => {
    const colony = makeColony(h, ann);
    await join(h, colony, ben);
    const carl = await human(h);
    const reporterPage = await signedIn(carl);
    await reporterPage.get(`/u/${ben.username}/report`);
    expect((await reporterPage.post(`/u/${ben.username}/report`, { reason: "spam" })).status).toBe(303);
    const id = (row("select id from reports where target_id = ?", ben.id) as { id: string }).id;

    const mod = await signedIn(ann, `/c/${colony.name}/mod/reports`);
    expect(mod.last!.status).toBe(200);
    expect(mod.last!.text).not.toContain(ben.username);
    expect((await mod.get("/admin/reports")).status).toBe(404);

    const admin = await signedIn(await human(h, { admin: true }), "/admin");
    expect(admin.last!.text).toContain('<a href="/admin/reports">Reports of people</a>');
    const list = await admin.get("/admin/reports");
    expect(list.status).toBe(200);
    expect(list.text).toContain(`<a href="/u/${ben.username}">@${ben.username}</a>`);
    expect(list.text).toContain(`from @${carl.username}`);
    const done = await admin.post(`/admin/reports/${id}`, { status: "resolved" });
    expect(done.status).toBe(303);
    expect(done.location).toBe("/admin/reports?notice=resolved");
    expect(row("select status from reports where id = ?", id)).toEqual({ status: "resolved" });
    expect((await admin.get("/admin/reports")).text).not.toContain(`/admin/reports/${id}`);
    expect((await admin.get("/admin/reports?status=settled")).text).toContain(`@${ben.username}`);
    const twice = await admin.post(`/admin/reports/${id}`, { status: "dismissed" });
    expect(twice.status).toBe(409);
    expect(twice.text).toContain("This report is already settled");
  });
});
