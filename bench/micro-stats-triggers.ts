// What the statistics counters cost the writes that keep them (docs/decisions.md §102): CPU per
// POST /api/v1/posts, per comment and per vote through the whole app, in process, on a database
// file (WAL, as the server runs it), in alternating rounds with the counter triggers in place and
// dropped (ABBA), so both sides see the same machine.
//   bun bench/micro-stats-triggers.ts [writes per round] [rounds]
import { setup } from "../test/harness";

const N = Number(process.argv[2] ?? 400);
const ROUNDS = Number(process.argv[3] ?? 6);
const h = setup({ rateLimitMultiplier: 0 }, { readers: 1 });
const sqlite = h.ctx.db.$client;
const triggers = sqlite.query("select name, sql from sqlite_master where type = 'trigger' and name like 'stats_%'").all() as { name: string; sql: string }[];
if (!triggers.length) throw new Error("no stats_ triggers: is the stats_counters migration applied?");
const setTriggers = (on: boolean) => {
  for (const t of triggers) sqlite.run(on ? t.sql.replace(/^CREATE TRIGGER/, "CREATE TRIGGER IF NOT EXISTS") : `DROP TRIGGER IF EXISTS ${t.name}`);
};

const author = await h.user({ karma: 100 });
const voters = await Promise.all(Array.from({ length: 8 }, () => h.user({ karma: 100 })));
h.clock.advance(2 * 3600_000); // past the voters' first hour, when votes move no karma
const colony = (await h.req("GET", "/api/v1/colonies")).body[0];
let seq = 0;

async function write(kind: "post" | "comment" | "vote", target: string): Promise<string> {
  const i = ++seq;
  const r =
    kind === "post"
      ? await h.req("POST", "/api/v1/posts", { token: author.token, body: { colony_id: colony.id, post_type: "discussion", title: `Benchmark post ${i}`, body: `Body of post ${i}, long enough to be a post.` } })
      : kind === "comment"
        ? await h.req("POST", `/api/v1/posts/${target}/comments`, { token: author.token, body: { body: `Comment ${i} on the post` } })
        : await h.req("POST", `/api/v1/posts/${target}/vote`, { token: voters[i % voters.length]!.token, body: { value: i % 3 ? 1 : -1 } });
  if (r.status >= 300) throw new Error(`${kind}: ${r.status} ${r.text}`);
  return r.body.id;
}

async function round(kind: "post" | "comment" | "vote"): Promise<number> {
  const targets = kind === "vote" ? await Promise.all(Array.from({ length: Math.ceil(N / voters.length) }, () => write("post", ""))) : [await write("post", "")];
  const c0 = process.cpuUsage();
  for (let i = 0; i < N; i++) await write(kind, targets[kind === "vote" ? Math.floor(i / voters.length) : 0]!);
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / N;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

// The triggers alone: CPU per row inserted straight into `reactions` (one autocommit statement
// per row, as a request writes), without and with them; rows of one round spread over 30 days.
{
  const insert = sqlite.prepare("insert into reactions (id, user_id, target_type, target_id, emoji, created_at) values (?, ?, 'post', ?, 'fire', ?)");
  let n = 0;
  const rawRound = () => {
    const c0 = process.cpuUsage();
    for (let i = 0; i < N * 5; i++, n++) insert.run(`raw-${n}`, author.id, `target-${n}`, h.clock.now() - (n % 720) * 3600_000);
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / (N * 5);
  };
  rawRound();
  const off: number[] = [];
  const on: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    for (const on_ of r % 2 ? [true, false] : [false, true]) {
      setTriggers(on_);
      (on_ ? on : off).push(rawRound());
    }
  }
  console.log(`| statement | without triggers | with triggers | difference |\n| --- | ---: | ---: | ---: |`);
  console.log(`| insert into reactions (${N * 5} a round, median of ${ROUNDS}) | ${median(off).toFixed(1)} µs | ${median(on).toFixed(1)} µs | ${(median(on) - median(off)).toFixed(1)} µs |\n`);
}
console.log(`| write | CPU without triggers | with triggers | difference | rounds (without / with, µs) |\n| --- | ---: | ---: | ---: | --- |`);
for (const kind of ["post", "comment", "vote"] as const) {
  const off: number[] = [];
  const on: number[] = [];
  await round(kind); // warm-up
  // ABBA order, so that neither side always runs on the larger database.
  for (let r = 0; r < ROUNDS; r++) {
    for (const on_ of r % 2 ? [true, false] : [false, true]) {
      setTriggers(on_);
      (on_ ? on : off).push(await round(kind));
    }
  }
  const f = (x: number) => `${Math.round(x)} µs`;
  console.log(`| ${kind} | ${f(median(off))} | ${f(median(on))} | ${f(median(on) - median(off))} | ${off.map(Math.round).join(" ")} / ${on.map(Math.round).join(" ")} |`);
}
setTriggers(true);
await h.close();
