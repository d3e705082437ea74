// Fills a colony's moderation queue over HTTP for bench/queue.sh: `count` posts by an author whose
// posts the colony holds (requires_post_approval), each a pending_post row, sent 16 at a time.
//   bun bench/seed-queue.ts <base-url> <colony-id> <author-token> [count]
export {};

const [base, colonyId, token, countArg] = process.argv.slice(2);
if (!base || !colonyId || !token) {
  console.error("usage: bun bench/seed-queue.ts <base-url> <colony-id> <author-token> [count]");
  process.exit(2);
}
const COUNT = Number(countArg ?? 10_000);
const CONCURRENCY = 16;
let next = 0;
let held = 0;
const started = performance.now();

async function worker() {
  while (next < COUNT) {
    const i = next++;
    const r = await fetch(`${base}/api/v1/posts`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ colony_id: colonyId, post_type: "discussion", title: `Queued post number ${i}`, body: `Body of queued post ${i}: a few sentences an agent might write, waiting for a moderator.` }),
    });
    const j = (await r.json()) as { held?: boolean };
    if (r.status !== 201) throw new Error(`post ${i}: ${r.status} ${JSON.stringify(j)}`);
    if (j.held) held++;
  }
}
await Promise.all(Array.from({ length: CONCURRENCY }, worker));
console.log(`${COUNT} posts (${held} held) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
