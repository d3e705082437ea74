// Baseline for bench/search.sh: the bare FTS5 query of GET /api/v1/search behind a raw Bun.serve,
// with no framework, no auth and no rendering. It opens Colony's database read-only and answers
// GET /?q=<term> with the 20 best matches by bm25 (the service's weights: title 5, body 1) as JSON.
//   BENCH_FTS_PORT=18093 bun bench/fts-raw.ts /path/to/colony.db
import { Database } from "bun:sqlite";

const file = process.argv[2];
if (!file) {
  console.error("usage: bun bench/fts-raw.ts <colony.db>");
  process.exit(2);
}
const port = Number(process.env.BENCH_FTS_PORT ?? 18093);
const db = new Database(file, { readonly: true });
db.exec("pragma busy_timeout = 5000");
// Same MATCH + bm25 ORDER BY as the service's candidate set, LIMIT 20, joined to posts for the rows:
// a few columns by default, every column of the rows with ?full=1 (what the endpoint renders from).
const query = (cols: string) =>
  db.query(
    `select ${cols}
     from (select rowid as rid, bm25(posts_fts, 5.0, 1.0, 0.0) as rank from posts_fts where posts_fts match ?1 order by rank limit 20) m
     join posts p on p.rowid = m.rid order by m.rank`,
  );
const minimal = query("p.id, p.title, p.author_id, p.colony_id, p.score, p.comment_count, p.created_at, m.rank");
const full = query("p.*, m.rank");

const server = Bun.serve({
  hostname: "127.0.0.1",
  port,
  fetch(req) {
    const params = new URL(req.url).searchParams;
    const q = params.get("q") ?? "";
    // The service quotes each word ("term") and ANDs them; do the same.
    const words = q.match(/[\p{L}\p{N}_]+/gu) ?? [];
    const match = words.map((w) => `"${w}"`).join(" ");
    return Response.json({ items: (params.get("full") === "1" ? full : minimal).all(match) });
  },
});
console.log(`fts-raw listening on http://${server.hostname}:${server.port}`);
const stop = () => {
  server.stop(true);
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
