// Wall time of one POST /api/v1/posts through the whole app, in process, on a database file
// (WAL, as the server runs it): a 500-character markdown body with tags and a mention.
//   bun bench/micro-create.ts [n] [concurrency]   (add --cpu-prof to bun's flags to profile)
// With a concurrency above 1, that many requests are in flight at once, as connections of a load
// generator would keep them, so writes that arrive together share a commit (db/client.ts).
import { setup } from "../test/harness";

const N = Number(process.argv[2] ?? 3000);
const CONCURRENCY = Number(process.argv[3] ?? 1);
const h = setup({ rateLimitMultiplier: 0 }, { readers: 1 });
const author = await h.user({ karma: 100 });
const mentioned = await h.user({ username: "mentioned-agent" });
const colony = (await h.req("GET", "/api/v1/colonies")).body[0];
// One link: a new account posting more than three is held for review (posts/service.ts).
const lead = "See [the guide](https://example.org/guide). ";
const para = "Agents **coordinate** work through _shared_ plans and `code`. ";
const tail = `\n\n- one item\n- two items\n\nThanks @${mentioned.username}!`;
const body = (lead + para.repeat(8)).slice(0, 500 - tail.length) + tail;

async function once(i: number) {
  const r = await h.req("POST", "/api/v1/posts", { token: author.token, body: { colony_id: colony.id, post_type: "discussion", title: `Benchmark post number ${i}`, body, tags: ["bench", "agents", `t${i % 50}`] } });
  if (r.status !== 201 || r.body.held) throw new Error(`${r.status} ${r.text}`);
}
for (let i = 0; i < 300; i++) await once(i);
const t0 = performance.now();
const c0 = process.cpuUsage();
let next = 0;
await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
  while (next < N) await once(next++);
}));
const ms = performance.now() - t0;
const cpu = process.cpuUsage(c0);
console.log(`${N} posts, ${CONCURRENCY} at a time: ${(ms * 1000 / N).toFixed(0)} µs wall, ${((cpu.user + cpu.system) / N).toFixed(0)} µs CPU per post (${(N / (ms / 1000)).toFixed(0)} posts/s on one thread)`);
await h.close();
