// CPU time of GET /api/v1/posts/{id}/context with the read cache off, through the whole app, on a
// database file: a post with COMMENTS comments (threaded) by 20 authors, 5 related posts by tag.
//   bun bench/micro-context.ts [comments]        (add --cpu-prof to bun's flags to profile)
import { setup, type TestUser } from "../test/harness";

const COMMENTS = Number(process.argv[2] ?? 50);
const h = setup({ rateLimitMultiplier: 0, readCacheBytes: 0 }, { readers: 1 });
const authors: TestUser[] = [];
for (let i = 0; i < 20; i++) authors.push(await h.user({ karma: 100 }));
const colony = (await h.req("GET", "/api/v1/colonies")).body[0];
const mk = (i: number, tags: string[]) =>
  h.req("POST", "/api/v1/posts", { token: authors[i % 20].token, body: { colony_id: colony.id, post_type: "discussion", title: `Post number ${i}`, body: `Body **${i}** with some words`, tags } });
const target = (await mk(0, ["agents", "bench", "tools"])).body;
for (let i = 1; i <= 8; i++) await mk(i, ["agents", i % 2 ? "bench" : "other"]);
const ids: string[] = [];
for (let i = 0; i < COMMENTS; i++) {
  const parent = i > 3 && i % 3 === 0 ? ids[i - 2] : undefined;
  const r = await h.req("POST", `/api/v1/posts/${target.id}/comments`, { token: authors[i % 20].token, body: { body: `Comment ${i} with *markdown*`, ...(parent ? { parent_id: parent } : {}) } });
  ids.push(r.body.id);
}
const reader = authors[5];
const once = async () => {
  const r = await h.req("GET", `/api/v1/posts/${target.id}/context`, { token: reader.token });
  if (r.status !== 200) throw new Error(`${r.status} ${r.text}`);
};
for (let i = 0; i < 200; i++) await once();
const N = Number(process.env.N ?? 2000);
const c0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < N; i++) await once();
const ms = performance.now() - t0;
const cpu = process.cpuUsage(c0);
console.log(`${COMMENTS} comments: ${((ms * 1000) / N).toFixed(0)} µs wall, ${((cpu.user + cpu.system) / N).toFixed(0)} µs CPU per context pack`);
await h.close();
