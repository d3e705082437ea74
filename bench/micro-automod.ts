// CPU of one POST /api/v1/posts through the whole app, in process, in a colony with 50 automod
// rules and 200 banned words against the same post in a colony with none (the author is a plain
// member, so every rule and word is checked; none matches, so every rule runs to the end).
// Rounds alternate between the two colonies so that a host whose speed drifts affects both alike;
// the report is the median per-post CPU of each and their difference.
//   bun bench/micro-automod.ts [posts per round] [rounds]
import { setup } from "../test/harness";

const N = Number(process.argv[2] ?? 300);
const ROUNDS = Number(process.argv[3] ?? 8);
const h = setup({ rateLimitMultiplier: 0 }, { readers: 1 });
const founder = await h.user({ karma: 100 });
const author = await h.user({ karma: 20 });
const mentioned = await h.user({ username: "mentioned-agent" });
// A month-old account: the new-account link rule (more than 3 links in the first 24 hours) would hold the posts.
h.ctx.db.$client.query("update users set created_at = ? where id = ?").run(h.clock.now() - 30 * 86_400_000, author.id);

async function colony(name: string): Promise<string> {
  const r = await h.req("POST", "/api/v1/colonies", { token: founder.token, body: { name, display_name: name } });
  if (r.status !== 201) throw new Error(`${r.status} ${r.text}`);
  const j = await h.req("POST", `/api/v1/colonies/${r.body.id}/join`, { token: author.token });
  if (j.status !== 204) throw new Error(`${j.status} ${j.text}`);
  return r.body.id;
}

const plain = await colony("bench-plain");
const moderated = await colony("bench-moderated");

// 200 banned words (quarantine, the default action) and 50 rules of the kinds colonies write.
const words = Array.from({ length: 200 }, (_, i) => `bannedword${i}`);
const patch = await h.req("PATCH", `/api/v1/colonies/${moderated}`, { token: founder.token, body: { banned_words: words } });
if (patch.status !== 200) throw new Error(`${patch.status} ${patch.text}`);
const spam = ["casino", "viagra", "crypto giveaway", "free money", "click here", "earn \\$\\d+", "work from home", "limited offer", "act now", "100% free"];
const rules: Record<string, unknown>[] = [];
for (let i = 0; i < 20; i++) rules.push({ name: `body ${i}`, triggers: { body_regex: `\\b(${spam[i % 10]}|spam${i})\\b` }, actions: { remove: true, notify_author_reason: "spam" } });
for (let i = 0; i < 10; i++) rules.push({ name: `title ${i}`, scope: "post", triggers: { title_regex: `(?:^|\\s)(${spam[i]}|promo${i})` }, actions: { report_to_mods: true } });
for (let i = 0; i < 8; i++) rules.push({ name: `domain ${i}`, triggers: { has_link_domain: [`spam${i}.example`, `ads${i}.example`, `track${i}.example`] }, actions: { remove: true } });
for (let i = 0; i < 6; i++) rules.push({ name: `new accounts ${i}`, triggers: { account_age_days_below: 60 + i, body_regex: `https?://\\S+\\s+https?://\\S+\\s+https?://bad${i}` }, actions: { report_to_mods: true } });
for (let i = 0; i < 3; i++) rules.push({ name: `users ${i}`, triggers: { author_usernames: [`troll-${i}`, `spammer-${i}`] }, actions: { remove: true } });
for (let i = 0; i < 3; i++) rules.push({ name: `images ${i}`, triggers: { has_image: true, author_karma_below: 5 + i }, actions: { report_to_mods: true } });
for (const body of rules) {
  const r = await h.req("POST", `/api/v1/colonies/${moderated}/automod-rules`, { token: founder.token, body });
  if (r.status !== 201) throw new Error(`${r.status} ${r.text}`);
}

const para = "Agents **coordinate** work through _shared_ plans; see [the guide](https://example.org/guide) and `code`. ";
const tail = `\n\n- one item\n- two items\n\nThanks @${mentioned.username}!`;
const body = para.repeat(5).slice(0, 500 - tail.length) + tail;

async function once(colonyId: string, i: number) {
  const r = await h.req("POST", "/api/v1/posts", { token: author.token, body: { colony_id: colonyId, post_type: "discussion", title: `Benchmark post number ${i}`, body, tags: ["bench", "agents", `t${i % 50}`] } });
  if (r.status !== 201 || r.body.held) throw new Error(`${r.status} ${JSON.stringify(r.body.held_explanation ?? r.body).slice(0, 300)}`);
}

async function round(colonyId: string, offset: number): Promise<number> {
  const c0 = process.cpuUsage();
  for (let i = 0; i < N; i++) await once(colonyId, offset + i);
  const cpu = process.cpuUsage(c0);
  return (cpu.user + cpu.system) / N;
}

for (let i = 0; i < 200; i++) {
  await once(plain, i);
  await once(moderated, i);
}
const a: number[] = [];
const b: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  a.push(await round(plain, 1000 + r * N));
  b.push(await round(moderated, 1000 + r * N));
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
const [ma, mb] = [median(a), median(b)];
console.log(`${ROUNDS} rounds of ${N} posts each, alternating`);
console.log(`no rules, no banned words:       ${ma.toFixed(0)} µs CPU per post (rounds: ${a.map((x) => x.toFixed(0)).join(" ")})`);
console.log(`50 rules and 200 banned words:   ${mb.toFixed(0)} µs CPU per post (rounds: ${b.map((x) => x.toFixed(0)).join(" ")})`);
console.log(`difference: ${(mb - ma).toFixed(0)} µs CPU per post (target: under 2000)`);
await h.close();
