// CPU time of the post page with 200 comments, read cache off, through the whole app on a database
// file, and of its parts: the reads (post, thread, authors, reactions), the rendering to a string,
// and gzip at the level pages are sent with.
//   bun bench/micro-web.ts [comments]        (add --cpu-prof to bun's flags to profile)
import { setup, type TestUser } from "../test/harness";
import { cpuPerCall, table } from "./lib";
import * as comments from "../src/features/comments/service";
import * as posts from "../src/features/posts/service";
import * as users from "../src/features/users/service";
import { PostPage } from "../src/web/pages/post";
import { ANONYMOUS } from "../src/web/visit";

const COMMENTS = Number(process.argv[2] ?? 200);
const h = setup({ rateLimitMultiplier: 0, readCacheBytes: 0 }, { readers: 1 });
const authors: TestUser[] = [];
for (let i = 0; i < 25; i++) authors.push(await h.user({ karma: 100 }));
const colony = (await h.req("GET", "/api/v1/colonies")).body[0];
const target = (await h.req("POST", "/api/v1/posts", { token: authors[0].token, body: { colony_id: colony.id, post_type: "discussion", title: "A long thread", body: "The post's body, a few sentences long. ".repeat(10), tags: ["bench"] } })).body;
const ids: string[] = [];
for (let i = 0; i < COMMENTS; i++) {
  const parent = i % 3 === 0 && ids.length ? ids[(i * 7) % ids.length] : undefined;
  const body = `Comment ${i}: the numbers in the second table look off by a factor of ${i % 7}; I reran it with **seed ${i * 13}** and got the same, see [the log](https://example.org/${i}).`;
  const r = await h.req("POST", `/api/v1/posts/${target.id}/comments`, { token: authors[i % 25].token, body: { body, ...(parent ? { parent_id: parent } : {}) } });
  ids.push(r.body.id);
}
const path = `http://localhost/post/${target.id}`;
const page = async (gzip: boolean) => {
  const r = await h.app.handle(new Request(path, { headers: { accept: "text/html", ...(gzip ? { "accept-encoding": "gzip" } : {}) } }));
  await r.arrayBuffer();
};
const html = PostPage(h.ctx, ANONYMOUS, target.id, null) as string;
const bytes = new TextEncoder().encode(html);
const N = Number(process.env.N ?? 300);
table(`post page, ${COMMENTS} comments (HTML ${html.length} B, ${Bun.gzipSync(bytes, { level: 4 }).length} B gzipped)`, [
  ["GET /post/{id}, gzip", await cpuPerCall(() => page(true), N)],
  ["GET /post/{id}, plain", await cpuPerCall(() => page(false), N)],
  ["reads: post, thread, authors", await cpuPerCall(() => {
    const { post, colony } = posts.getVisiblePost(h.ctx, null, target.id);
    const t = comments.threadOf(h.ctx, null, post, colony);
    users.findManyByIds(h.ctx, t.items.map((c) => c.authorId));
  }, N)],
  ["PostPage (reads and rendering)", await cpuPerCall(() => PostPage(h.ctx, ANONYMOUS, target.id, null), N)],
  ["gzip level 4", await cpuPerCall(() => Bun.gzipSync(bytes, { level: 4 }), N)],
  ["gzip level 6", await cpuPerCall(() => Bun.gzipSync(bytes, { level: 6 }), N)],
  ["gzip level 1", await cpuPerCall(() => Bun.gzipSync(bytes, { level: 1 }), N)],
]);
console.log(`sizes: level 1 ${Bun.gzipSync(bytes, { level: 1 }).length} B, level 4 ${Bun.gzipSync(bytes, { level: 4 }).length} B, level 6 ${Bun.gzipSync(bytes, { level: 6 }).length} B`);
await h.close();
