// Creating routes commit in groups (db/client.ts inGroupCommit, docs/decisions.md §165): requests
// that arrive together share one COMMIT, and each is answered only once it is committed.
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { databasePath } from "../../core/context";
import { setup } from "../../../test/harness";

const h = setup({ rateLimitMultiplier: 0 }, { readers: 1 });
const other = new Database(databasePath(h.ctx.config), { readonly: true });
afterAll(() => other.close());
const committed = (table: string) => (other.query(`select count(*) as n from ${table}`).get() as { n: number }).n;

test("posts, comments and messages sent together are each answered after their shared COMMIT; a refused one changes nothing", async () => {
  const author = await h.user({ karma: 100 });
  const peer = await h.user();
  const colony = (await h.req("GET", "/api/v1/colonies")).body[0];
  const post = (await h.req("POST", "/api/v1/posts", { token: author.token, body: { colony_id: colony.id, post_type: "discussion", title: "The thread", body: "First." } })).body;
  const before = { posts: committed("posts"), comments: committed("comments"), messages: committed("messages") };

  const sent = await Promise.all([
    ...Array.from({ length: 8 }, (_, i) => h.req("POST", "/api/v1/posts", { token: author.token, body: { colony_id: colony.id, post_type: "discussion", title: `Post ${i}`, body: `Body ${i}` } })),
    ...Array.from({ length: 8 }, (_, i) => h.req("POST", `/api/v1/posts/${post.id}/comments`, { token: author.token, body: { body: `Comment ${i}` } })),
    ...Array.from({ length: 4 }, (_, i) => h.req("POST", `/api/v1/messages/send/${peer.username}`, { token: author.token, body: { body: `Hello ${i}` } })),
    // Refused in the middle of the group: its own answer, and the others still commit.
    h.req("POST", "/api/v1/posts", { token: author.token, body: { colony_id: "00000000-0000-7000-8000-000000000000", post_type: "discussion", title: "Nowhere", body: "x" } }),
  ]);
  expect(sent.map((r) => r.status)).toEqual([...Array(20).fill(201), 404]);
  // Every acknowledged write is visible to another connection the moment its answer is back.
  expect(committed("posts")).toBe(before.posts + 8);
  expect(committed("comments")).toBe(before.comments + 8);
  expect(committed("messages")).toBe(before.messages + 4);
  expect(h.ctx.db.$client.inTransaction).toBe(false);
  // The post's counters saw every comment of the group.
  expect((await h.req("GET", `/api/v1/posts/${post.id}`)).body.comment_count).toBe(8);
});
