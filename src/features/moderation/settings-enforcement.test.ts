// Colony settings that act (spec Part 2 §2.4; docs/decisions.md §44): the karma floors on create
// and edit, banned words on create and edit (posts and comments), held content reaching the
// queue, and default_sort ordering the colony's post list.
import { beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { expectError } from "../../../test/expect";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { crew } from "../colonies/mod-fixtures";
import type { ColonyRow } from "../colonies/service";
import { createPost, post, setColonySettings } from "../posts/fixtures";

let h: Harness;
let founder: TestUser;
let mod: TestUser;
let member: TestUser;
let colony: ColonyRow;

beforeAll(() => {
  h = setup();
});

// Each test acts in a colony of its own, with a crew of its own.
beforeEach(async () => {
  ({ founder, mod, member, colony } = await crew(h));
});

const setKarma = (u: TestUser, karma: number) => h.ctx.db.$client.query("update users set karma = ? where id = ?").run(karma, u.id);
const comment = (postId: string, u: TestUser, body: string) => h.req("POST", `/api/v1/posts/${postId}/comments`, { token: u.token, body: { body } });
const queueSources = async () => ((await h.req("GET", `/api/v1/colonies/${colony.id}/queue`, { token: mod.token })).body.items as any[]).map((i) => i.source_kind);

describe("karma floors", () => {
  test("min_karma_to_post applies to edits as well as creates; moderators are exempt", async () => {
    const p = await post(h, member, { colony_id: colony.id });
    setColonySettings(h, colony.id, { min_karma_to_post: 5 });
    expectError(await h.req("PUT", `/api/v1/posts/${p.id}`, { token: member.token, body: { body: "changed" } }), 403, "KARMA_TOO_LOW");
    expect((await h.req("GET", `/api/v1/posts/${p.id}`)).body.body).toBe("Some body text");
    // Changing only the tags touches no content.
    expect((await h.req("PUT", `/api/v1/posts/${p.id}`, { token: member.token, body: { tags: ["x"] } })).status).toBe(200);
    expectError(await createPost(h, member, { colony_id: colony.id }), 403, "KARMA_TOO_LOW");
    expect((await createPost(h, mod, { colony_id: colony.id })).status).toBe(201);
    setKarma(member, 5);
    expect((await h.req("PUT", `/api/v1/posts/${p.id}`, { token: member.token, body: { body: "changed" } })).status).toBe(200);
  });

  test("min_karma_to_comment applies to comment creates and edits; moderators are exempt", async () => {
    const p = await post(h, mod, { colony_id: colony.id });
    const c = (await comment(p.id, member, "first")).body;
    setColonySettings(h, colony.id, { min_karma_to_comment: 3 });
    expectError(await comment(p.id, member, "second"), 403, "KARMA_TOO_LOW");
    expectError(await h.req("PUT", `/api/v1/comments/${c.id}`, { token: member.token, body: { body: "edited" } }), 403, "KARMA_TOO_LOW");
    expect((await comment(p.id, mod, "mods may")).status).toBe(201);
    setKarma(member, 3);
    expect((await comment(p.id, member, "second")).status).toBe(201);
    expect(h.ctx.db.$client.query("select count(*) as n from comments where post_id = ?").get(p.id)).toEqual({ n: 3 });
  });

  test("min_karma_to_vote refuses votes below the floor", async () => {
    const p = await post(h, mod, { colony_id: colony.id });
    setColonySettings(h, colony.id, { min_karma_to_vote: 2 });
    expectError(await h.req("POST", `/api/v1/posts/${p.id}/vote`, { token: member.token, body: { value: 1 } }), 403, "KARMA_TOO_LOW");
  });
});

describe("banned words", () => {
  const WORDS = Array.from({ length: 200 }, (_, i) => `word${i}`).concat(["two words", "c++"]);

  test("reject refuses posts and comments on create and edit (400 CONTENT_BLOCKED_PHRASE), whole words only, naming the word", async () => {
    const p = await post(h, member, { colony_id: colony.id });
    const c = (await comment(p.id, member, "fine")).body;
    setColonySettings(h, colony.id, { banned_words: WORDS, banned_words_action: "reject" });
    const r = await createPost(h, member, { colony_id: colony.id, body: "this has Two   words? no: TWO WORDS and word150" });
    expectError(r, 400, "CONTENT_BLOCKED_PHRASE");
    expect(r.body.detail.message).toContain('"two words"');
    expect((await createPost(h, member, { colony_id: colony.id, body: "sword1500 and words" })).status).toBe(201);
    expectError(await createPost(h, member, { colony_id: colony.id, body: "I like c++ a lot" }), 400, "CONTENT_BLOCKED_PHRASE");
    expectError(await h.req("PUT", `/api/v1/posts/${p.id}`, { token: member.token, body: { title: "now with word7" } }), 400, "CONTENT_BLOCKED_PHRASE");
    expectError(await comment(p.id, member, "two words"), 400, "CONTENT_BLOCKED_PHRASE");
    expectError(await h.req("PUT", `/api/v1/comments/${c.id}`, { token: member.token, body: { body: "word199" } }), 400, "CONTENT_BLOCKED_PHRASE");
    // Moderators too: reject applies to everyone.
    expectError(await createPost(h, mod, { colony_id: colony.id, body: "word3" }), 400, "CONTENT_BLOCKED_PHRASE");
  });

  test("quarantine holds posts (pending_post) and comments (automod_removed_comment) for the queue, on create and edit", async () => {
    setColonySettings(h, colony.id, { banned_words: WORDS });
    const p = await createPost(h, member, { colony_id: colony.id, body: "word42" });
    expect(p.body.held).toBe(true);
    const host = await post(h, mod, { colony_id: colony.id });
    const c = (await comment(host.id, member, "clean")).body;
    const e = await h.req("PUT", `/api/v1/comments/${c.id}`, { token: member.token, body: { body: "word43" } });
    expect(e.body.held).toBe(true);
    expect((await queueSources()).sort()).toEqual(["automod_removed_comment", "pending_post"]);
  });
});

describe("default_sort", () => {
  test("orders the colony's post list when the caller names no sort", async () => {
    const older = await post(h, member, { colony_id: colony.id, title: "Older but loved" });
    h.clock.advance(60_000);
    const newer = await post(h, member, { colony_id: colony.id, title: "Newer" });
    h.ctx.db.$client.query("update posts set score = 10 where id = ?").run(older.id);
    const ids = async (query: Record<string, string>) => ((await h.req("GET", "/api/v1/posts", { query: { colony_id: colony.id, ...query } })).body.items as any[]).map((p) => p.id);
    expect(await ids({})).toEqual([newer.id, older.id]);
    await h.req("PATCH", `/api/v1/colonies/${colony.id}`, { token: founder.token, body: { default_sort: "top" } });
    expect(await ids({})).toEqual([older.id, newer.id]);
    expect(await ids({ sort: "newest" })).toEqual([newer.id, older.id]);
    // Unscoped lists keep newest first (every post of the earlier tests is older than these two).
    const all = ((await h.req("GET", "/api/v1/posts", { query: {} })).body.items as any[]).map((p) => p.id);
    expect(all.slice(0, 2)).toEqual([newer.id, older.id]);
  });
});
