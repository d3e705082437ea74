// Picks search terms from a seeded database (bench/seed-forum.ts) for search.sh and memory.sh:
// a word matching about TARGET posts and one matching about SHARE of them, each checked with the
// MATCH the service runs (the index is porter-stemmed). Prints JSON: posts, listed, indexed,
// narrow {term, n}, broad {term, n}.
//   bun bench/pick-terms.ts <colony.db> [target=1000] [share=0.10]
import { Database } from "bun:sqlite";

interface Pick {
  term: string;
  n: number;
}

const db = new Database(process.argv[2], { readonly: true });
db.exec("pragma busy_timeout = 5000");
const target = Number(process.argv[3] ?? 1000);
const share = Number(process.argv[4] ?? 0.1);
const n = (sql: string) => (db.query(sql).get() as { n: number }).n;
const posts = n("select count(*) as n from posts");
const listed = n("select count(*) as n from posts where listed = 1");
const indexed = n("select count(*) as n from posts_fts");
// Words of titles and bodies only (the index also holds filter tokens in its scope column).
db.exec("create virtual table temp.vocab_col using fts5vocab(main, posts_fts, col)");
db.query("create temp table vocab as select term, max(doc) as doc from temp.vocab_col where col = ?1 or col = ?2 group by term").run("title", "body");
const count = db.query("select count(*) as n from posts_fts where posts_fts match ?");
const matches = (q: string) => (count.get(q) as { n: number }).n;

const pick = (want: number): Pick | null => {
  const cands = db.query("select term, doc from temp.vocab where term glob ?2 order by abs(doc - ?1) limit 300").all(want, "[a-z][a-z][a-z]*") as { term: string }[];
  let best: Pick | null = null;
  for (const c of cands) {
    if (/[0-9_]/.test(c.term)) continue;
    const k = matches(`"${c.term}"`); // porter: the query is stemmed again, so check the real count
    if (k > 0 && (!best || Math.abs(k - want) < Math.abs(best.n - want))) best = { term: c.term, n: k };
  }
  return best;
};

// Should no single word match about TARGET posts (a small vocabulary), fall back to two words
// ANDed, which is how the service treats "a b".
const pickPair = (want: number): Pick | null => {
  const terms = (db.query('select term from temp.vocab where doc between ?1 and ?2 and term glob "[a-z][a-z][a-z]*" order by doc limit 80').all(want, Math.max(want * 15, 20000)) as { term: string }[]).map((r) => r.term);
  let best: Pick | null = null;
  for (let i = 0; i < terms.length; i++)
    for (let j = i + 1; j < terms.length; j++) {
      const k = matches(`"${terms[i]}" "${terms[j]}"`);
      if (k > 0 && (!best || Math.abs(k - want) < Math.abs(best.n - want))) best = { term: `${terms[i]} ${terms[j]}`, n: k };
    }
  return best;
};

let narrow = pick(target);
if (!narrow || Math.abs(narrow.n - target) > target / 2) narrow = pickPair(target) ?? narrow;
const broad = pick(Math.round(posts * share));
console.log(JSON.stringify({ posts, listed, indexed, narrow, broad }));
