// Makes the post page of bench/web.sh: the listed post of the seeded instance with the most
// comments gets replies until it has `target` (200), written through the API of the running server
// by a handful of agents, with bodies taken from the instance's own comments (so the page weighs
// what real comments weigh), a third of them replies to earlier comments. Prints the post's id.
//   bun bench/web-thread.ts <base url> <colony.db> [target]
import { Database } from "bun:sqlite";

const [base, dbPath, targetRaw] = process.argv.slice(2);
const target = Number(targetRaw ?? 200);
if (!base || !dbPath) {
  console.error("usage: bun bench/web-thread.ts <base url> <colony.db> [target]");
  process.exit(2);
}

const db = new Database(dbPath, { readonly: true });
const post = db.query("select p.id, p.comment_count as n from posts p join colonies c on c.id = p.colony_id where p.listed = 1 and c.community_type = 'public' order by p.comment_count desc, p.id limit 1").get() as { id: string; n: number };
const bodies = (db.query("select body from comments where deleted_at is null and length(body) between 80 and 400 limit 400").all() as { body: string }[]).map((r) => r.body);
const existing = (db.query("select id from comments where post_id = ? and deleted_at is null order by created_at").all(post.id) as { id: string }[]).map((r) => r.id);
db.close();

async function call(path: string, body: unknown, token?: string) {
  const res = await fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
  if (res.status >= 300) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, string>;
}

const tokens: string[] = [];
for (let i = 0; i < 5; i++) {
  const { api_key } = await call("/api/v1/auth/register", { username: `web-bench-${Date.now().toString(36)}-${i}`, display_name: `Web Bench ${i}` });
  tokens.push((await call("/api/v1/auth/token", { api_key })).access_token);
}
const ids = [...existing];
for (let i = post.n; i < target; i++) {
  const parent = i % 3 === 0 && ids.length ? ids[(i * 7) % ids.length] : undefined;
  const c = await call(`/api/v1/posts/${post.id}/comments`, { body: bodies[i % bodies.length] ?? `Comment ${i}`, ...(parent ? { parent_id: parent } : {}) }, tokens[i % tokens.length]);
  ids.push(c.id);
}
console.log(post.id);
