// The batched full-text indexing of new posts (search-index.ts, migration 0026): a post waits in
// posts_fts_pending until a batch indexes it; edits, deletes and colony changes of a waiting post
// must leave the external-content index exactly equal to its content (FTS5's integrity-check
// with rank 1 compares the two).
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createApp } from "../../app";
import { createContext } from "../../core/context";
import { setup, type Harness, type TestUser } from "../../../test/harness";
import { makeColony, post } from "./fixtures";
import { indexPendingPosts } from "./search-index";

let h: Harness;
let author: TestUser;

const db = () => h.ctx.db.$client;
const pending = () => (db().query("select count(*) as n from posts_fts_pending").get() as { n: number }).n;
const indexed = (word: string) => (db().query("select count(*) as n from posts_fts where posts_fts match ?").get(`{title body} : ${word}`) as { n: number }).n;
// With rank 1 the check compares the index with its content, so it runs with an empty queue (a
// waiting post is content the index does not hold yet); a wrong delete would persist past the batch.
const integrityCheck = () => {
  indexPendingPosts(h.ctx.db);
  db().run("insert into posts_fts(posts_fts, rank) values ('integrity-check', 1)");
};
const search = async (q: string) => (await h.req("GET", "/api/v1/search", { query: { q } })).body.total as number;

beforeAll(async () => {
  h = setup({ rateLimitMultiplier: 0 });
  author = await h.user({ karma: 100 });
});
afterAll(() => h.close());
beforeEach(() => void indexPendingPosts(h.ctx.db));

describe("posts reach the search index in batches", () => {
  test("a new post waits in the queue; the next batch indexes it and empties the queue", async () => {
    await post(h, author, { title: "Narwhal migration", body: "tusked whales of the arctic" });
    expect(pending()).toBe(1);
    expect(indexed("narwhal")).toBe(0);
    expect(indexPendingPosts(h.ctx.db)).toBe(1);
    expect(pending()).toBe(0);
    expect(indexed("narwhal")).toBe(1);
    expect(indexPendingPosts(h.ctx.db)).toBe(0);
    expect(() => integrityCheck()).not.toThrow();
  });

  test("a search finds a post written just before it (the queue is indexed before the read)", async () => {
    await post(h, author, { title: "Pangolin scales", body: "keratin armour" });
    expect(pending()).toBe(1);
    expect(await search("pangolin")).toBe(1);
    expect(pending()).toBe(0);
  });

  test("the q filter of post lists indexes the queue first too", async () => {
    const p = await post(h, author, { title: "Axolotl regrowth", body: "limbs return" });
    const r = await h.req("GET", "/api/v1/posts", { query: { q: "axolotl" } });
    expect(r.status).toBe(200);
    expect(r.body.items.map((x: any) => x.id)).toEqual([p.id]);
  });

  test("the outbox batch indexes every post it delivered in one write", async () => {
    for (let i = 0; i < 30; i++) await post(h, author, { title: `Batch post ${i}`, body: "lemur troop" });
    expect(pending()).toBe(30);
    await h.ctx.events.drain();
    expect(pending()).toBe(0);
    expect(indexed("lemur")).toBe(30);
    expect(() => integrityCheck()).not.toThrow();
  });

  test("editing a post still waiting: the batch indexes its new words, never the old ones", async () => {
    const p = await post(h, author, { title: "Tapir snout", body: "prehensile nose" });
    expect(pending()).toBe(1);
    const e = await h.req("PUT", `/api/v1/posts/${p.id}`, { token: author.token, body: { title: "Capybara calm", body: "largest rodent" } });
    expect(e.status).toBe(200);
    expect(pending()).toBe(1);
    expect(() => integrityCheck()).not.toThrow();
    expect(await search("tapir")).toBe(0);
    expect(await search("capybara")).toBe(1);
    expect(() => integrityCheck()).not.toThrow();
  });

  test("deleting a post still waiting (soft and hard): never indexed, index intact", async () => {
    const soft = await post(h, author, { title: "Okapi stripes", body: "forest giraffe" });
    expect((await h.req("DELETE", `/api/v1/posts/${soft.id}`, { token: author.token })).status).toBe(204);
    expect(pending()).toBe(1); // soft-deleted: unlisted, so the batch will index nothing for it
    const hard = await post(h, author, { title: "Okapi tongue", body: "forest giraffe" });
    expect(pending()).toBe(2);
    db().query("delete from posts where id = ?").run(hard.id);
    expect(pending()).toBe(1);
    expect(() => integrityCheck()).not.toThrow();
    expect(await search("okapi")).toBe(0);
    expect(() => integrityCheck()).not.toThrow();
  });

  test("a colony made private, deleted and restored while its post waits: the index follows", async () => {
    const col = makeColony(h, author, "public", "quoll-colony");
    const p = await post(h, author, { colony_id: col.id, title: "Quoll spots", body: "marsupial carnivore" });
    expect(pending()).toBe(1);
    db().query("update colonies set community_type = 'private' where id = ?").run(col.id);
    db().query("update colonies set deleted_at = ? where id = ?").run(h.clock.now(), col.id);
    db().query("update colonies set deleted_at = null, community_type = 'public' where id = ?").run(col.id);
    expect(pending()).toBe(1);
    expect(() => integrityCheck()).not.toThrow();
    const q2 = await post(h, author, { colony_id: col.id, title: "Quoll den", body: "marsupial carnivore" });
    db().query("update colonies set community_type = 'private' where id = ?").run(col.id);
    expect(await search("quoll")).toBe(0);
    db().query("update colonies set community_type = 'public' where id = ?").run(col.id);
    const r = await h.req("GET", "/api/v1/search", { query: { q: "quoll", sort: "new" } });
    expect(r.body.items.map((x: any) => x.id)).toEqual([q2.id, p.id]);
    expect(() => integrityCheck()).not.toThrow();
  });

  test("a held post is not queued; releasing it indexes it at once", async () => {
    const col = makeColony(h, author, "public", "held-colony");
    db().query("update colonies set settings = json_set(settings, '$.requires_post_approval', json('true')) where id = ?").run(col.id);
    const writer = await h.user();
    const p = await post(h, writer, { colony_id: col.id, title: "Wombat burrow", body: "cube droppings" });
    expect(pending()).toBe(0);
    expect(indexed("wombat")).toBe(0);
    db().query("update posts set listed = 1, held = 0 where id = ?").run(p.id);
    expect(indexed("wombat")).toBe(1);
    expect(() => integrityCheck()).not.toThrow();
  });

  test("queued posts are indexed when the server starts (nothing is lost in a crash)", async () => {
    const h2 = setup({ rateLimitMultiplier: 0 }, { readers: 1 });
    const u = await h2.user({ karma: 100 });
    await post(h2, u, { title: "Dugong grazing", body: "seagrass meadows" });
    const waiting = (c: typeof h2.ctx) => (c.db.$client.query("select count(*) as n from posts_fts_pending").get() as { n: number }).n;
    expect(waiting(h2.ctx)).toBe(1);
    // A second process on the same database (the next start): registering the posts feature indexes the queue.
    const again = createContext({ config: h2.config, clock: h2.clock, mail: h2.mail });
    createApp(again);
    expect(waiting(again)).toBe(0);
    expect((again.db.$client.query("select count(*) as n from posts_fts where posts_fts match 'dugong'").get() as { n: number }).n).toBe(1);
    again.db.$client.close();
    await h2.close();
  });
});
