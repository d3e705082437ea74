// CPU time of the forum's uncached reads through the whole app, in process, on a copy of a seeded
// forum (bench/seed-forum.ts; the folder is migrated in place, so pass a copy): the hot list of
// 20 and of 100, the newest list, and the context pack of posts with comments, one request after
// the other, with the read cache off. Prints wall and CPU per request and the answer's size.
//   bun bench/micro-reads.ts <copy of the seed folder> [n]     (add --cpu-prof to profile)
import { loadConfig } from "../src/config";
import { createApp } from "../src/app";
import { createContext } from "../src/core/context";

const [dir, nArg] = process.argv.slice(2);
if (!dir) throw new Error("usage: bun bench/micro-reads.ts <copy of a seeded data folder> [n]");
const N = Number(nArg ?? 500);
const config = { ...loadConfig({ COLONY_LOG_LEVEL: "silent" }), dataDir: dir, readCacheBytes: 0, rateLimitMultiplier: 0 };
const ctx = createContext({ config });
const app = createApp(ctx);
const base = "http://127.0.0.1";
// Listed posts with 20 to 100 comments, as bench/forum.sh picks them.
const ids = (ctx.db.$client.query("select id from posts where listed = 1 and comment_count between 20 and 100 order by id limit 2000").all() as { id: string }[])
  .filter((_, i) => i % 10 === 0)
  .map((r) => r.id);

async function timed(label: string, path: (i: number) => string) {
  let bytes = 0;
  for (let i = 0; i < 50; i++) await (await app.handle(new Request(base + path(i)))).arrayBuffer();
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  for (let i = 0; i < N; i++) {
    const r = await app.handle(new Request(base + path(i)));
    bytes += (await r.arrayBuffer()).byteLength;
    if (r.status !== 200) throw new Error(`${path(i)}: ${r.status}`);
  }
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  console.log(`${label}: ${((ms * 1000) / N).toFixed(0)} µs wall, ${((cpu.user + cpu.system) / N).toFixed(0)} µs CPU, ${(bytes / N / 1024).toFixed(1)} KiB each`);
}
const only = process.env.ONLY;
const run = (label: string, path: (i: number) => string) => (!only || only === label ? timed(label, path) : undefined);
await run("hot", () => "/api/v1/posts?sort=hot");
await run("hot100", () => "/api/v1/posts?sort=hot&limit=100");
await run("newest", () => "/api/v1/posts?sort=newest");
await run("context", (i) => `/api/v1/posts/${ids[i % ids.length]}/context`);
process.exit(0);
