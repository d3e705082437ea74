// Turns bench/run.sh's results.tsv into a markdown table (median per endpoint over rounds)
// and the throughput ratio of the authenticated read to the raw baseline. With --forum (the
// results of bench/forum.sh, no baseline) the table checks each p99 against FORUM_P99_MS (50).
//   bun bench/summarise.ts /tmp/colony-bench.XXXX/results.tsv
//   bun bench/summarise.ts /tmp/colony-forum.XXXX/results.tsv --forum
const file = process.argv[2];
const forum = process.argv.includes("--forum");
if (!file) {
  console.error("usage: bun bench/summarise.ts <results.tsv>");
  process.exit(2);
}

const [header, ...lines] = (await Bun.file(file).text()).trim().split("\n");
const cols = header.split("\t");
const rows = lines.map((l) => Object.fromEntries(l.split("\t").map((v, i) => [cols[i], v])));

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ms = (us: number) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${Math.round(us)} µs`);

const names = [...new Set(rows.map((r) => r.name))];
const stats = names.map((name) => {
  const rs = rows.filter((r) => r.name === name);
  const col = (k: string) => median(rs.map((r) => Number(r[k])));
  const sum = (k: string) => rs.reduce((a, r) => a + Number(r[k]), 0);
  return { name, rps: col("rps"), p50: col("p50_us"), p99: col("p99_us"), non2xx: sum("non2xx"), errors: sum("errors") };
});

if (forum) {
  const limitMs = Number(process.env.FORUM_P99_MS ?? 50);
  console.log(`| endpoint | requests/s | p50 | p99 | p99 < ${limitMs} ms | non-2xx / socket errors |`);
  console.log("| --- | ---: | ---: | ---: | :---: | ---: |");
  for (const s of stats) {
    console.log(`| ${s.name} | ${Math.round(s.rps).toLocaleString("en-US")} | ${ms(s.p50)} | ${ms(s.p99)} | ${s.p99 < limitMs * 1000 ? "yes" : "**no**"} | ${s.non2xx} / ${s.errors} |`);
  }
  const bad = stats.filter((s) => s.non2xx || s.errors);
  if (bad.length) console.log(`\nWarning: non-2xx responses or socket errors in: ${bad.map((s) => s.name).join(", ")}. Those numbers are not comparable.`);
  process.exit(0);
}

const base = stats[0];
console.log("| endpoint | requests/s | p50 | p99 | vs raw | non-2xx / socket errors |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
for (const s of stats) {
  const pct = `${((100 * s.rps) / base.rps).toFixed(1)}%`;
  console.log(`| ${s.name} | ${Math.round(s.rps).toLocaleString("en-US")} | ${ms(s.p50)} | ${ms(s.p99)} | ${pct} | ${s.non2xx} / ${s.errors} |`);
}

const me = stats.find((s) => s.name.includes("/users/me"));
if (me) {
  const ratio = me.rps / base.rps;
  console.log();
  console.log(`Authenticated read (GET /api/v1/users/me) / raw Bun: **${(100 * ratio).toFixed(1)}%** (target >= 30%).`);
}
const bad = stats.filter((s) => s.non2xx || s.errors);
if (bad.length) {
  console.log();
  console.log(`Warning: non-2xx responses or socket errors in: ${bad.map((s) => s.name).join(", ")}. Those numbers are not comparable.`);
}

export {};
