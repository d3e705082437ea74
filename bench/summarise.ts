// Turns a results.tsv of bench/lib.sh's measure_targets into a markdown table (median per
// endpoint over rounds).
//   bun bench/summarise.ts <results.tsv>                run.sh: ratio to the raw baseline (first row)
//   bun bench/summarise.ts <results.tsv> --forum        forum.sh: p99 checked against FORUM_P99_MS (50)
//   bun bench/summarise.ts <results.tsv> --p99 100 --vs-bare
//       a p99 check column, and each row's throughput against the nearest "bare …" row above it
//       (search.sh); rows named "… for-you …" get no ratio
//   bun bench/summarise.ts <results.tsv> --plain       no baseline: throughput and latency only (memory.sh)
//   With an rss.tsv beside results.tsv (measure_targets writes one), a second table gives
//   Colony's resident memory per endpoint: before, peak during, at the end of and after each run.
//   With a cpu_us column (measure_targets writes one), each table also gives the server's CPU time
//   per request (every process of the instance: supervisor and workers).
//   bun bench/summarise.ts <pairs.tsv> --pairs
//       measure_pairs' alternating runs: each pair's ratio of the second target to the first, and
//       the median ratio (search.sh)
const file = process.argv[2];
const flag = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const forum = process.argv.includes("--forum");
const p99Limit = forum ? Number(process.env.FORUM_P99_MS ?? 50) : flag("--p99") !== undefined ? Number(flag("--p99")) : null;
const vsBare = process.argv.includes("--vs-bare");
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

/** The resident-memory table from rss.tsv beside the results (medians over rounds), if any. */
async function printRss(): Promise<void> {
  const path = file.replace(/[^/]*$/, "rss.tsv");
  if (path === file || !(await Bun.file(path).exists())) return;
  const [h, ...ls] = (await Bun.file(path).text()).trim().split("\n");
  if (!ls.length) return;
  const c = h.split("\t");
  const rs = ls.map((l) => Object.fromEntries(l.split("\t").map((v, i) => [c[i], v])));
  const mib = (name: string, k: string) => median(rs.filter((r) => r.name === name).map((r) => Number(r[k]))).toFixed(1);
  console.log();
  console.log(`Colony's resident memory (VmRSS, MiB; "after": ${process.env.RSS_SETTLE ?? 2} s after the run; VmHWM: the peak since start):`);
  console.log();
  console.log("| endpoint | before | peak during | at end | after | VmHWM |");
  console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
  for (const name of [...new Set(rs.map((r) => r.name))]) {
    console.log(`| ${name} | ${["rss_before_mib", "rss_peak_mib", "rss_end_mib", "rss_after_mib", "hwm_mib"].map((k) => mib(name, k)).join(" | ")} |`);
  }
}
const stats = names.map((name) => {
  const rs = rows.filter((r) => r.name === name);
  const col = (k: string) => median(rs.map((r) => Number(r[k])));
  const sum = (k: string) => rs.reduce((a, r) => a + Number(r[k]), 0);
  const cpus = rs.map((r) => r.cpu_us).filter((v) => v !== undefined && v !== "").map(Number);
  return { name, rps: col("rps"), p50: col("p50_us"), p99: col("p99_us"), non2xx: sum("non2xx"), errors: sum("errors"), cpu: cpus.length ? median(cpus) : null };
});
// The server's CPU per request, as a column of the tables below when results.tsv has one.
const hasCpu = stats.some((s) => s.cpu !== null);
const cpuHead = hasCpu ? " server CPU/request |" : "";
const cpuRule = hasCpu ? " ---: |" : "";
const cpuCell = (s: (typeof stats)[number]) => (hasCpu ? ` ${s.cpu === null ? "" : `${Math.round(s.cpu).toLocaleString("en-US")} µs`} |` : "");

if (process.argv.includes("--pairs")) {
  const [first, second] = names;
  const pairs = [...new Set(rows.map((r) => r.pair))];
  const ratios: number[] = [];
  // With a cpu_us column (access-log.sh): each server's CPU time per request, and its difference.
  const cpu = cols.includes("cpu_us");
  const diffs: number[] = [];
  const cell = (r: Record<string, string>) => `${Math.round(Number(r.rps))}, ${ms(Number(r.p99_us))}${cpu ? `, ${r.cpu_us} µs` : ""}`;
  const what = cpu ? "req/s, p99, CPU/request" : "req/s, p99";
  console.log(`| pair | ${first}: ${what} | ${second}: ${what} | ratio |${cpu ? " CPU/request difference |" : ""}`);
  console.log(`| ---: | ---: | ---: | ---: |${cpu ? " ---: |" : ""}`);
  for (const p of pairs) {
    const a = rows.find((r) => r.pair === p && r.name === first)!;
    const b = rows.find((r) => r.pair === p && r.name === second)!;
    const ratio = Number(b.rps) / Number(a.rps);
    ratios.push(ratio);
    const diff = Math.round((Number(b.cpu_us) - Number(a.cpu_us)) * 100) / 100;
    diffs.push(diff);
    console.log(`| ${p} | ${cell(a)} | ${cell(b)} | ${(100 * ratio).toFixed(1)}% |${cpu ? ` ${diff >= 0 ? "+" : ""}${diff} µs |` : ""}`);
  }
  const of = (name: string, k: string) => median(rows.filter((r) => r.name === name).map((r) => Number(r[k])));
  const med = (name: string) => `${Math.round(of(name, "rps"))}, ${ms(of(name, "p99_us"))}${cpu ? `, ${of(name, "cpu_us").toFixed(2)} µs` : ""}`;
  const d = Math.round(median(diffs) * 100) / 100;
  console.log(`| median | ${med(first)} | ${med(second)} | **${(100 * median(ratios)).toFixed(1)}%** (pairs ${(100 * Math.min(...ratios)).toFixed(1)}–${(100 * Math.max(...ratios)).toFixed(1)}%) |${cpu ? ` **${d >= 0 ? "+" : ""}${d} µs** |` : ""}`);
  process.exit(0);
}

if (process.argv.includes("--plain")) {
  console.log(`| endpoint | requests/s | p50 | p99 |${cpuHead} non-2xx / socket errors |`);
  console.log(`| --- | ---: | ---: | ---: |${cpuRule} ---: |`);
  for (const s of stats) console.log(`| ${s.name} | ${Math.round(s.rps).toLocaleString("en-US")} | ${ms(s.p50)} | ${ms(s.p99)} |${cpuCell(s)} ${s.non2xx} / ${s.errors} |`);
  await printRss();
  process.exit(0);
}

if (p99Limit !== null) {
  console.log(`| endpoint | requests/s | p50 | p99 | p99 < ${p99Limit} ms |${vsBare ? " vs bare |" : ""}${cpuHead} non-2xx / socket errors |`);
  console.log(`| --- | ---: | ---: | ---: | :---: |${vsBare ? " ---: |" : ""}${cpuRule} ---: |`);
  let bare: (typeof stats)[number] | null = null;
  for (const s of stats) {
    if (s.name.startsWith("bare")) bare = s;
    const ratio = bare && bare !== s && !s.name.includes("for-you") ? `${((100 * s.rps) / bare.rps).toFixed(1)}%` : "";
    console.log(`| ${s.name} | ${Math.round(s.rps).toLocaleString("en-US")} | ${ms(s.p50)} | ${ms(s.p99)} | ${s.p99 < p99Limit * 1000 ? "yes" : "**no**"} |${vsBare ? ` ${ratio} |` : ""}${cpuCell(s)} ${s.non2xx} / ${s.errors} |`);
  }
  const bad = stats.filter((s) => s.non2xx || s.errors);
  if (bad.length) console.log(`\nWarning: non-2xx responses or socket errors in: ${bad.map((s) => s.name).join(", ")}. Those numbers are not comparable.`);
  await printRss();
  process.exit(0);
}

const base = stats[0];
console.log(`| endpoint | requests/s | p50 | p99 | vs raw |${cpuHead} non-2xx / socket errors |`);
console.log(`| --- | ---: | ---: | ---: | ---: |${cpuRule} ---: |`);
for (const s of stats) {
  const pct = `${((100 * s.rps) / base.rps).toFixed(1)}%`;
  console.log(`| ${s.name} | ${Math.round(s.rps).toLocaleString("en-US")} | ${ms(s.p50)} | ${ms(s.p99)} | ${pct} |${cpuCell(s)} ${s.non2xx} / ${s.errors} |`);
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
await printRss();

export {};
