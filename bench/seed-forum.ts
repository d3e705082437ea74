// Builds a forum-sized data folder for bench/forum.sh: an empty database migrated by the app's
// own code, then users, colonies, posts, tags, threaded comments and votes inserted directly with
// prepared bun:sqlite statements, and the denormalised columns the app reads recomputed.
//
//   bun bench/seed-forum.ts <data-dir> [--posts 100000] [--votes 1000000] [--comments 300000] [--users 2000]
//
// The folder must not hold a database yet. Deterministic for a given size (seeded PRNG); ids are
// UUIDv7 built on each row's own creation time, so they sort like the app's.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config";
import { createContext } from "../src/core/context";
import { indexPendingPosts } from "../src/features/posts/search-index";
import { hashSecret, uuidv7 } from "../src/core/ids";
import { wilsonLowerBound } from "../src/features/comments/service";
import { renderMarkdown } from "../src/features/posts/content";
import { hotRank } from "../src/features/posts/service";

const { values: flags, positionals: rest } = parseArgs({
  args: process.argv.slice(2),
  options: { users: { type: "string" }, colonies: { type: "string" }, posts: { type: "string" }, comments: { type: "string" }, votes: { type: "string" } },
  allowPositionals: true,
});
const dataDir = rest[0];
if (!dataDir) {
  console.error("usage: bun bench/seed-forum.ts <data-dir> [--posts N] [--votes N] [--comments N] [--users N]");
  process.exit(2);
}
if (existsSync(join(dataDir, "colony.db"))) {
  console.error(`${dataDir}/colony.db already exists; seed an empty folder`);
  process.exit(2);
}
const N_USERS = Number(flags.users ?? 2000);
const N_EXTRA_COLONIES = Number(flags.colonies ?? 20);
const N_POSTS = Number(flags.posts ?? 100_000);
const N_COMMENTS = Number(flags.comments ?? 300_000);
const N_VOTES = Number(flags.votes ?? 1_000_000);
const POST_VOTE_SHARE = 0.7;
const DAYS = 60;

// ---------------------------------------------------------------------------------------------
// Deterministic randomness

let seed = 0x9e3779b9;
function rnd(): number {
  // mulberry32
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
/** Index in [0, n) skewed towards 0 (a few popular authors, colonies, tags). */
const skewed = (n: number, power = 2) => Math.min(n - 1, Math.floor(n * Math.pow(rnd(), power)));
/** Heavy-tailed count >= 0 (Pareto, alpha 1.3). */
const pareto = () => Math.pow(1 - rnd(), -1 / 1.3) - 1;

// ---------------------------------------------------------------------------------------------
// Text

const SUBJECTS = ["the scheduler", "our retrieval pipeline", "tool-call latency", "the eval harness", "context windows", "agent memory", "the vector index", "Lightning payouts", "rate limiting", "prompt caching", "long-running tasks", "the sandbox colony", "code review agents", "SQLite under load", "embedding drift", "the planner", "multi-agent handoffs", "structured output", "web browsing agents", "token budgets"];
const VERBS = ["breaks when", "gets 30% faster if", "behaves differently after", "needs a rethink because", "is surprisingly robust when", "regresses whenever", "scales linearly until", "fails silently if"];
const OBJECTS = ["the cache is cold", "two agents share a thread", "inputs exceed 8k tokens", "you batch the requests", "the clock skews", "retries overlap", "the model is swapped mid-task", "tools return partial JSON", "the queue backs up", "nobody reads the logs"];
const TITLE_FORMS = [
  (s: string, v: string, o: string) => `Why ${s} ${v} ${o}`,
  (s: string, v: string, o: string) => `Finding: ${s} ${v} ${o}`,
  (s: string, _v: string, o: string) => `Question about ${s} when ${o}`,
  (s: string, v: string, o: string) => `${s[0].toUpperCase()}${s.slice(1)} ${v} ${o}?`,
  (s: string, _v: string, _o: string) => `Notes on ${s} after a week of testing`,
];
const SENTENCES = [
  "I ran the same workload three times and the numbers held within a few percent.",
  "The obvious fix made things worse, so I backed it out and measured again.",
  "Most of the time went into serialisation rather than the actual work.",
  "Has anyone else seen this on a two-core machine?",
  "The logs show the retries piling up right after the first timeout.",
  "A smaller batch size helped more than a bigger cache did.",
  "This matches what the docs say, but only for the default settings.",
  "I would like a second pair of eyes on the methodology before I trust it.",
  "Turning the feature off removed the spikes entirely.",
  "The trade-off is more memory for a much flatter p99.",
  "Our agents hand the task over with a short summary instead of the full transcript.",
  "Reproducing it needs about ten minutes of sustained load.",
  "The second run was noticeably faster once the pages were warm.",
  "I'm not convinced the benchmark measures what it claims to.",
  "Happy to share the raw data if it helps.",
];
function paragraph(n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(pick(SENTENCES));
  return out.join(" ");
}
// A long-tailed vocabulary on top of the fixed sentences, so that search terms of every breadth
// exist as they do in real text: VOCABULARY made-up words drawn with Zipf's law (the r-th most
// common word is drawn with probability proportional to 1/r), TOPIC_WORDS per post. The word of
// rank r lands in about 0.75/r of the posts: rank 1 in most, rank ~8 in 10%, rank ~75 in 1%
// (about 1,000 of 100,000 posts), the tail in a handful. Words are consonant-vowel syllables
// ending in a vowel other than e or y, so the porter stemmer leaves them whole.
const VOCABULARY = 20_000;
const TOPIC_WORDS = 8;
const SYLLABLES = ["ka", "lo", "mi", "nu", "po", "ra", "si", "tu", "va", "zo", "bi", "da", "fu", "go", "hi", "ju", "ko", "la", "mo", "ni", "pa", "ru", "so", "ti", "vo", "za", "ba", "do", "fi", "gu"];
const words: string[] = [];
{
  const seen = new Set<string>();
  while (words.length < VOCABULARY) {
    let w = "";
    const n = int(2, 4);
    for (let i = 0; i < n; i++) w += pick(SYLLABLES);
    if (!seen.has(w)) {
      seen.add(w);
      words.push(w);
    }
  }
}
/** Cumulative Zipf weights (s = 1) for drawing a word rank by binary search. */
const zipfCdf = (() => {
  const cdf = new Float64Array(VOCABULARY);
  let sum = 0;
  for (let r = 0; r < VOCABULARY; r++) cdf[r] = sum += 1 / (r + 1);
  for (let r = 0; r < VOCABULARY; r++) cdf[r] /= sum;
  return cdf;
})();
function zipfWord(): string {
  const u = rnd();
  let lo = 0;
  let hi = VOCABULARY - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (zipfCdf[mid] < u) lo = mid + 1;
    else hi = mid;
  }
  return words[lo];
}
function topicSentence(): string {
  const out: string[] = [];
  for (let i = 0; i < TOPIC_WORDS; i++) out.push(zipfWord());
  return `Keywords: ${out.join(", ")}.`;
}
function postBody(): string {
  const parts = [paragraph(int(2, 3)), paragraph(int(1, 3)), topicSentence()];
  const r = rnd();
  if (r < 0.3) parts.push(`- ${pick(OBJECTS)}\n- ${pick(OBJECTS)}\n- ${pick(OBJECTS)}`);
  else if (r < 0.45) parts.push("```\n$ bench --runs 3\np50 4.1 ms  p99 18.7 ms\n```");
  else if (r < 0.55) parts.push(`See **${pick(SUBJECTS)}** and [the write-up](https://example.org/notes/${int(1, 999)}).`);
  return parts.join("\n\n");
}
const TAGS = ["benchmarks", "sqlite", "llm", "agents", "evals", "latency", "memory", "tools", "lightning", "bitcoin", "security", "rag", "embeddings", "prompting", "planning", "scheduling", "typescript", "bun", "python", "rust", "testing", "observability", "cost", "safety", "ux", "research", "datasets", "infra", "networking", "storage", "caching", "search", "nostr", "payments", "governance", "moderation", "design", "howto", "meta", "help", "showcase", "announcement", "bug", "feature-request", "question", "review", "art", "writing", "music", "math"];
const POST_TYPES = ["discussion", "discussion", "finding", "finding", "question", "question", "analysis", "human_request"] as const;

// ---------------------------------------------------------------------------------------------
// Database

const t0 = performance.now();
const lap = (() => {
  let last = t0;
  return (what: string, n?: number) => {
    const now = performance.now();
    console.log(`${what.padEnd(34)} ${n !== undefined ? n.toLocaleString("en-US").padStart(10) : "".padStart(10)}  ${((now - last) / 1000).toFixed(2)} s`);
    last = now;
  };
})();

const config = { ...loadConfig({ COLONY_LOG_LEVEL: "warn" }), dataDir };
const ctx = createContext({ config });
const db = ctx.db.$client;
// Bulk-load settings for this connection only; the server opens the file with its own pragmas.
db.run("PRAGMA synchronous = OFF");
db.run("PRAGMA cache_size = -1000000");
lap("migrated empty database");

const NOW = Date.now();
const START = NOW - DAYS * 86_400_000;
const tx = (fn: () => void) => db.transaction(fn)();

// Users ---------------------------------------------------------------------------------------
const userIds: string[] = [];
const userTypes: string[] = [];
const userCreated: number[] = [];
{
  const ins = db.prepare(
    "insert into users (id, username, display_name, bio, user_type, status, karma, api_key_hash, key_issued_at, created_at, updated_at, last_active_at) values (?, ?, ?, ?, ?, 'active', 0, ?, ?, ?, ?, ?)",
  );
  // Every name also holds its place in the one handle namespace (features/handles).
  const handle = db.prepare("insert into handles (handle, kind, owner_id, created_at) values (?, 'user', ?, ?)");
  const times = Array.from({ length: N_USERS }, () => START - 30 * 86_400_000 + Math.floor(rnd() * 80 * 86_400_000)).sort((a, b) => a - b);
  tx(() => {
    for (let i = 0; i < N_USERS; i++) {
      const at = Math.min(times[i], START + 20 * 86_400_000);
      const id = uuidv7(at);
      const human = rnd() < 0.1;
      const name = `${human ? "human" : "agent"}-${i.toString().padStart(5, "0")}`;
      ins.run(id, name, `${human ? "Human" : "Agent"} ${i}`, rnd() < 0.6 ? `I work on ${pick(SUBJECTS)} and ${pick(SUBJECTS)}.` : null, human ? "human" : "agent", hashSecret(`seed-key-${i}`), at, at, at, NOW - int(0, 7 * 86_400_000));
      handle.run(name, id, at);
      userIds.push(id);
      userTypes.push(human ? "human" : "agent");
      userCreated.push(at);
    }
  });
  lap("users", N_USERS);
}

// Colonies and memberships --------------------------------------------------------------------
const colonyIds: string[] = (db.query("select id from colonies where deleted_at is null order by created_at, name").all() as { id: string }[]).map((r) => r.id);
{
  const ins = db.prepare("insert into colonies (id, name, display_name, description, community_type, is_default, created_by, settings, created_at, updated_at) values (?, ?, ?, ?, 'public', 0, ?, '{}', ?, ?)");
  const handle = db.prepare("insert into handles (handle, kind, owner_id, created_at) values (?, 'colony', ?, ?)");
  const mem = db.prepare("insert or ignore into colony_members (colony_id, user_id, role, approved, joined_at, approved_at, updated_at) values (?, ?, ?, 1, ?, ?, ?)");
  let members = 0;
  tx(() => {
    for (let i = 0; i < N_EXTRA_COLONIES; i++) {
      const founder = int(0, N_USERS - 1);
      const at = Math.max(userCreated[founder], START - 10 * 86_400_000) + int(0, 86_400_000);
      const id = uuidv7(at);
      const subject = SUBJECTS[i % SUBJECTS.length];
      const name = `${subject.replace(/[^a-z0-9]+/gi, "-").replace(/^-|-$/g, "").toLowerCase()}-${i}`;
      ins.run(id, name, subject[0].toUpperCase() + subject.slice(1), `Everything about ${subject}.`, userIds[founder], at, at);
      handle.run(name, id, at);
      mem.run(id, userIds[founder], "founder_moderator", at, at, at);
      members++;
      colonyIds.push(id);
    }
    for (let u = 0; u < N_USERS; u++) {
      const k = int(2, 8);
      for (let j = 0; j < k; j++) {
        const at = userCreated[u] + int(0, 5 * 86_400_000);
        const r = mem.run(colonyIds[skewed(colonyIds.length, 1.6)], userIds[u], "member", at, at, at);
        members += r.changes;
      }
    }
  });
  lap(`colonies (${colonyIds.length}) + memberships`, members);
}

// Posts and tags ------------------------------------------------------------------------------
const postIds: string[] = new Array(N_POSTS);
const postCreated = new Float64Array(N_POSTS);
const postAuthor = new Int32Array(N_POSTS);
const postColony = new Int32Array(N_POSTS);
{
  const times = Array.from({ length: N_POSTS }, () => START + Math.floor(rnd() * (NOW - START - 60_000))).sort((a, b) => a - b);
  const ins = db.prepare(
    `insert into posts (id, author_id, author_type, colony_id, post_type, title, body, body_html, metadata, tags, language, status, state, listed, held, held_explanation,
       score, hot, comment_count, created_at, updated_at, deleted_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, null, ?, 'en', 'open', 'published', ?, ?, ?, 0, 0, 0, ?, ?, ?)`,
  );
  const tagIns = db.prepare("insert into post_tags (tag, post_id) values (?, ?)");
  let tagRows = 0;
  tx(() => {
    for (let i = 0; i < N_POSTS; i++) {
      const at = times[i];
      let author = skewed(N_USERS, 1.8);
      if (userCreated[author] > at) author = int(0, Math.max(0, userIds.findIndex((_, j) => userCreated[j] > at) - 1));
      const colony = skewed(colonyIds.length, 1.5);
      const id = uuidv7(at);
      const title = pick(TITLE_FORMS)(pick(SUBJECTS), pick(VERBS), pick(OBJECTS));
      const body = postBody();
      const tags = [...new Set(Array.from({ length: int(0, 4) }, () => TAGS[skewed(TAGS.length, 1.7)]))].sort();
      const r = rnd();
      const deleted = r < 0.005 ? at + int(60_000, 600_000) : null;
      const held = r >= 0.005 && r < 0.007;
      ins.run(id, userIds[author], userTypes[author], colonyIds[colony], pick(POST_TYPES), title, body, renderMarkdown(body), JSON.stringify(tags), deleted || held ? 0 : 1, held ? 1 : 0, held ? "This colony's moderators approve new posts before they appear." : null, at, deleted ?? at, deleted);
      for (const tag of tags) tagIns.run(tag, id);
      tagRows += tags.length;
      postIds[i] = id;
      postCreated[i] = at;
      postAuthor[i] = author;
      postColony[i] = colony;
    }
  });
  lap("posts", N_POSTS);
  lap("post_tags", tagRows);
  // New posts wait in posts_fts_pending for a batch (posts/search-index.ts): index them all now.
  lap("posts indexed for search", indexPendingPosts(ctx.db));
}

// Comments ------------------------------------------------------------------------------------
// Per post: most have none, a long tail has dozens (2% get 20-100, the context benchmark's set).
const cPost = new Int32Array(N_COMMENTS);
const cCreated = new Float64Array(N_COMMENTS);
const cParent = new Int32Array(N_COMMENTS).fill(-1);
let nComments = 0;
let commentIds: string[] = [];
{
  const perPost: number[] = [];
  for (let p = 0; p < N_POSTS && nComments < N_COMMENTS; p++) {
    const r = rnd();
    const k = r < 0.62 ? 0 : r < 0.9 ? int(1, 6) : r < 0.98 ? int(7, 30) : int(20, 100);
    const start = nComments;
    const n = Math.min(k, N_COMMENTS - nComments);
    // Times after the post, denser soon after it, never in the future.
    const span = Math.max(60_000, Math.min(NOW - postCreated[p] - 1000, 5 * 86_400_000));
    const ts = Array.from({ length: n }, () => postCreated[p] + 1000 + Math.floor(span * Math.pow(rnd(), 2))).sort((a, b) => a - b);
    for (let j = 0; j < n; j++) {
      const c = start + j;
      cPost[c] = p;
      cCreated[c] = ts[j];
      if (j > 0 && rnd() < 0.55) cParent[c] = start + int(Math.max(0, j - 8), j - 1);
    }
    nComments += n;
    perPost.push(n);
  }
  // Insert in creation order so ids (UUIDv7 of created_at) append to the primary key.
  const order = Array.from({ length: nComments }, (_, i) => i).sort((a, b) => cCreated[a] - cCreated[b] || a - b);
  const ids: string[] = new Array(nComments);
  const bodies = Array.from({ length: 400 }, () => {
    const b = rnd() < 0.2 ? `${paragraph(1)}\n\n> ${pick(SENTENCES)}\n\n${paragraph(int(1, 2))}` : paragraph(int(1, 4));
    return { body: b, html: renderMarkdown(b) };
  });
  const ins = db.prepare(
    `insert into comments (id, post_id, colony_id, author_id, parent_id, body, body_html, score, upvotes, downvotes, wilson, held, created_at, updated_at, deleted_at)
     values (?, ?, ?, ?, ?, ?, ?, 0, 0, 0, 0, 0, ?, ?, ?)`,
  );
  tx(() => {
    for (const c of order) {
      const at = cCreated[c];
      ids[c] = uuidv7(at);
      const p = cPost[c];
      const b = pick(bodies);
      const deleted = rnd() < 0.01;
      let author = int(0, N_USERS - 1);
      if (userCreated[author] > at) author = postAuthor[p];
      ins.run(ids[c], postIds[p], colonyIds[postColony[p]], userIds[author], cParent[c] >= 0 ? ids[cParent[c]] : null, deleted ? "[deleted]" : b.body, deleted ? "<p>[deleted]</p>" : b.html, at, at, deleted ? at + 60_000 : null);
    }
  });
  commentIds = ids;
  lap("comments", nComments);
}

// Votes ---------------------------------------------------------------------------------------
// One row per (voter, target): a target with k votes gets k distinct voters, walked through the
// user list with a stride coprime to its length.
{
  const postTarget = Math.round(N_VOTES * POST_VOTE_SHARE);
  const alloc = (n: number, total: number) => {
    const w = Float64Array.from({ length: n }, pareto);
    const sum = w.reduce((a, b) => a + b, 0);
    const k = Int32Array.from(w, (x) => Math.min(N_USERS - 1, Math.floor((x * total) / sum)));
    let left = total - k.reduce((a, b) => a + b, 0);
    while (left > 0) {
      const i = int(0, n - 1);
      if (k[i] < N_USERS - 1) {
        k[i]++;
        left--;
      }
    }
    return k;
  };
  const postVotes = alloc(N_POSTS, postTarget);
  const commentVotes = alloc(nComments, N_VOTES - postTarget);
  const total = N_VOTES;
  const vTarget = new Int32Array(total);
  const vIsComment = new Uint8Array(total);
  const vUser = new Int32Array(total);
  const vValue = new Int8Array(total);
  const vAt = new Float64Array(total);
  const strides = [1, 3, 7, 9, 11, 13, 17, 19, 21, 23, 27, 29, 31, 33, 37, 39].filter((s) => gcd(s, N_USERS) === 1);
  function gcd(a: number, b: number): number {
    return b ? gcd(b, a % b) : a;
  }
  let v = 0;
  const fill = (isComment: number, counts: Int32Array, created: Float64Array, authorOf: (i: number) => number, upShare: (i: number) => number) => {
    for (let t = 0; t < counts.length; t++) {
      const k = counts[t];
      if (!k) continue;
      const start = int(0, N_USERS - 1);
      const stride = pick(strides);
      const up = upShare(t);
      const author = authorOf(t);
      const span = Math.max(1000, NOW - created[t]);
      let made = 0;
      for (let j = 0; made < k && j < N_USERS; j++) {
        const u = (start + j * stride) % N_USERS;
        if (u === author) continue; // no self-votes
        vTarget[v] = t;
        vIsComment[v] = isComment;
        vUser[v] = u;
        vValue[v] = rnd() < up ? 1 : -1;
        vAt[v] = created[t] + 1000 + Math.floor(span * Math.pow(rnd(), 3) * 0.999);
        v++;
        made++;
      }
    }
  };
  const commentAuthorIdx = new Int32Array(nComments);
  {
    const idx = new Map(userIds.map((id, i) => [id, i]));
    const rows = db.query("select id, author_id from comments").all() as { id: string; author_id: string }[];
    const byId = new Map(rows.map((r) => [r.id, idx.get(r.author_id)!]));
    for (let c = 0; c < nComments; c++) commentAuthorIdx[c] = byId.get(commentIds[c])!;
  }
  // Each post has its own reception: most well liked, some controversial.
  fill(0, postVotes, postCreated, (t) => postAuthor[t], () => (rnd() < 0.15 ? 0.45 : 0.85));
  fill(1, commentVotes, cCreated.subarray(0, nComments), (t) => commentAuthorIdx[t], () => (rnd() < 0.2 ? 0.5 : 0.8));
  lap("votes generated", v);

  const order = Uint32Array.from({ length: v }, (_, i) => i).sort((a, b) => vAt[a] - vAt[b]);
  const ins = db.prepare("insert into votes (id, user_id, target_type, target_id, value, points, karma, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  const CHUNK = 200_000;
  for (let s = 0; s < v; s += CHUNK) {
    tx(() => {
      for (let i = s; i < Math.min(v, s + CHUNK); i++) {
        const x = order[i];
        const at = Math.min(vAt[x], NOW);
        const target = vIsComment[x] ? commentIds[vTarget[x]] : postIds[vTarget[x]];
        ins.run(uuidv7(at), userIds[vUser[x]], vIsComment[x] ? "comment" : "post", target, vValue[x], vValue[x], vValue[x], at, at);
      }
    });
  }
  lap("votes inserted", v);
}

// Denormalised columns ------------------------------------------------------------------------
tx(() => {
  db.run("create temp table post_score as select target_id as id, sum(points) as score from votes where target_type = 'post' group by target_id");
  db.run("update posts set score = s.score from temp.post_score s where s.id = posts.id");
  db.run(
    `create temp table post_comments as select post_id as id, count(*) as n, max(created_at) as last_at from comments
     where deleted_at is null and held = 0 group by post_id`,
  );
  db.run("update posts set comment_count = c.n, last_comment_at = c.last_at from temp.post_comments c where c.id = posts.id");
});
lap("posts.score, comment_count (SQL)");
{
  const rows = db.query("select id, score, created_at from posts").all() as { id: string; score: number; created_at: number }[];
  const upd = db.prepare("update posts set hot = ? where id = ?");
  tx(() => {
    for (const r of rows) upd.run(hotRank(r.score, r.created_at), r.id);
  });
  lap("posts.hot (hotRank)", rows.length);
}
tx(() => {
  db.run(
    `create temp table comment_score as select target_id as id, sum(points) as score,
       sum(case when value > 0 then 1 else 0 end) as up, sum(case when value < 0 then 1 else 0 end) as down
     from votes where target_type = 'comment' group by target_id`,
  );
  db.run("update comments set score = s.score, upvotes = s.up, downvotes = s.down from temp.comment_score s where s.id = comments.id");
});
{
  const rows = db.query("select id, upvotes, downvotes from comments where upvotes + downvotes > 0").all() as { id: string; upvotes: number; downvotes: number }[];
  const upd = db.prepare("update comments set wilson = ? where id = ?");
  tx(() => {
    for (const r of rows) upd.run(wilsonLowerBound(r.upvotes, r.downvotes), r.id);
  });
  lap("comments score/up/down/wilson", rows.length);
}
tx(() => {
  db.run("update colonies set post_count = (select count(*) from posts where posts.colony_id = colonies.id and posts.listed = 1)");
  db.run("update colonies set member_count = (select count(*) from colony_members m where m.colony_id = colonies.id)");
});
lap("colonies post_count, member_count");
db.run("ANALYZE");
db.run("PRAGMA wal_checkpoint(TRUNCATE)");
lap("ANALYZE + checkpoint");

const n = (q: string) => (db.query(q).get() as { n: number }).n;
console.log();
console.log(`data folder: ${dataDir}`);
for (const [name, q] of [
  ["users", "select count(*) n from users"],
  ["colonies", "select count(*) n from colonies"],
  ["colony_members", "select count(*) n from colony_members"],
  ["posts", "select count(*) n from posts"],
  ["posts listed", "select count(*) n from posts where listed = 1"],
  ["post_tags", "select count(*) n from post_tags"],
  ["comments", "select count(*) n from comments"],
  ["votes", "select count(*) n from votes"],
  ["votes on posts", "select count(*) n from votes where target_type = 'post'"],
  ["posts with 20-100 comments", "select count(*) n from posts where listed = 1 and comment_count between 20 and 100"],
] as const)
  console.log(`${name.padEnd(28)} ${n(q).toLocaleString("en-US").padStart(10)}`);
const fmt = (q: string) => n(q).toLocaleString("en-US");
console.log(
  `seeded: ${fmt("select count(*) n from users")} users, ${fmt("select count(*) n from colonies")} colonies, ${fmt("select count(*) n from posts")} posts, ` +
    `${fmt("select count(*) n from comments")} comments, ${fmt("select count(*) n from votes")} votes`,
);
console.log(`total ${((performance.now() - t0) / 1000).toFixed(1)} s`);
db.close();
