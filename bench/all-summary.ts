// The combined report of bench/all.sh: cold start, then one table of every benchmark's endpoints
// with a column per variant (executable or source, read cache on or off), each figure against the
// raw baseline of its own run where the benchmark has one (run.sh: the raw Bun.serve row; search.sh:
// the nearest "bare …" row above), then Colony's resident memory.
//   bun bench/all-summary.ts <OUT_DIR of all.sh>
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: bun bench/all-summary.ts <all.sh OUT_DIR>");
  process.exit(2);
}

type Row = Record<string, string>;
async function tsv(path: string): Promise<Row[]> {
  if (!existsSync(path)) return [];
  const [header, ...lines] = (await Bun.file(path).text()).trim().split("\n");
  if (!header) return [];
  const cols = header.split("\t");
  return lines.filter(Boolean).map((l) => Object.fromEntries(l.split("\t").map((v, i) => [cols[i], v])));
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ms = (us: number) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${Math.round(us)} µs`);
const rate = (rps: number) => (rps >= 10_000 ? `${(rps / 1000).toFixed(1)}k/s` : `${Math.round(rps).toLocaleString("en-US")}/s`);

// Cold start ------------------------------------------------------------------------------------
// cold-start.ts appends one line per executable and case: target, case, runs, median, p90, min, max.
const coldLines = existsSync(join(dir, "cold-start.tsv")) ? (await Bun.file(join(dir, "cold-start.tsv")).text()).trim().split("\n").filter(Boolean) : [];
if (coldLines.length) {
  console.log("### Cold start (spawn until GET /health answers 200; `version`: spawn to exit)");
  console.log();
  console.log("| run as | case | runs | median | p90 | min | max |");
  console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: |");
  for (const l of coldLines) {
    const [target, kase, runs, med, p90, min, max] = l.split("\t");
    console.log(`| ${target} | ${kase} | ${runs} | ${med} ms | ${p90} ms | ${min} ms | ${max} ms |`);
  }
  console.log();
}

// Throughput and latency ----------------------------------------------------------------------------
const BENCH_ORDER = ["memory", "run", "forum", "search", "messages", "search-health", "create", "queue", "vault"];
const VARIANT_ORDER = ["binary-cache-on", "binary-cache-off", "source-cache-on", "source-cache-off"];
const VARIANT_LABEL: Record<string, string> = {
  "binary-cache-on": "executable, cache on",
  "binary-cache-off": "executable, cache off",
  "source-cache-on": "source, cache on",
  "source-cache-off": "source, cache off",
};
const runs = readdirSync(dir, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => /^(.+)-(binary|source)-cache-(on|off)$/.exec(d.name))
  .filter((m): m is RegExpExecArray => m !== null)
  .map((m) => ({ dir: join(dir, m[0]), bench: m[1], variant: `${m[2]}-cache-${m[3]}` }));
const variants = VARIANT_ORDER.filter((v) => runs.some((r) => r.variant === v));
const benches = BENCH_ORDER.filter((b) => runs.some((r) => r.bench === b)).concat([...new Set(runs.map((r) => r.bench))].filter((b) => !BENCH_ORDER.includes(b)));

interface Stat {
  rps: number;
  p99: number;
  ratio: number | null;
}
/** Median per endpoint, with its ratio to the baseline of the same run. */
function stats(bench: string, rows: Row[]): Map<string, Stat> {
  const names = [...new Set(rows.map((r) => r.name))];
  const out = new Map<string, Stat>();
  let base: Stat | null = null;
  for (const name of names) {
    const rs = rows.filter((r) => r.name === name);
    const s: Stat = { rps: median(rs.map((r) => Number(r.rps))), p99: median(rs.map((r) => Number(r.p99_us))), ratio: null };
    const isBase = (bench === "run" && name.startsWith("raw")) || (bench === "search" && name.startsWith("bare"));
    if (isBase) base = s;
    else if (base && !name.includes("for-you")) s.ratio = s.rps / base.rps;
    out.set(name, s);
  }
  return out;
}

const table = new Map<string, Map<string, Stat>>(); // "bench\tname" -> variant -> stat
const rss = new Map<string, Map<string, { peak: number; after: number }>>();
for (const bench of benches) {
  for (const r of runs.filter((x) => x.bench === bench)) {
    for (const [name, s] of stats(bench, await tsv(join(r.dir, "results.tsv")))) {
      const key = `${bench}\t${name}`;
      if (!table.has(key)) table.set(key, new Map());
      table.get(key)!.set(r.variant, s);
    }
    const rr = await tsv(join(r.dir, "rss.tsv"));
    for (const name of [...new Set(rr.map((x) => x.name))]) {
      const xs = rr.filter((x) => x.name === name);
      const key = `${bench}\t${name}`;
      if (!rss.has(key)) rss.set(key, new Map());
      rss.get(key)!.set(r.variant, { peak: median(xs.map((x) => Number(x.rss_peak_mib))), after: median(xs.map((x) => Number(x.rss_after_mib))) });
    }
  }
}

if (table.size) {
  console.log("### Throughput and p99 (median over rounds); the percentage is against the run's own raw baseline");
  console.log();
  console.log(`| bench | endpoint | ${variants.map((v) => VARIANT_LABEL[v]).join(" | ")} |`);
  console.log(`| --- | --- | ${variants.map(() => "---:").join(" | ")} |`);
  for (const [key, byVariant] of table) {
    const [bench, name] = key.split("\t");
    const cells = variants.map((v) => {
      const s = byVariant.get(v);
      if (!s) return "";
      const head = s.ratio !== null ? `**${(100 * s.ratio).toFixed(1)}%**, ` : "";
      return `${head}${rate(s.rps)}, p99 ${ms(s.p99)}`;
    });
    console.log(`| ${bench} | ${name} | ${cells.join(" | ")} |`);
  }
  console.log();
}

if (rss.size) {
  console.log('### Colony\'s resident memory (VmRSS, MiB): peak during / "after" (RSS_SETTLE s after the run)');
  console.log();
  console.log(`| bench | endpoint | ${variants.map((v) => VARIANT_LABEL[v]).join(" | ")} |`);
  console.log(`| --- | --- | ${variants.map(() => "---:").join(" | ")} |`);
  for (const [key, byVariant] of rss) {
    const [bench, name] = key.split("\t");
    const cells = variants.map((v) => {
      const m = byVariant.get(v);
      return m ? `${m.peak.toFixed(1)} / ${m.after.toFixed(1)}` : "";
    });
    console.log(`| ${bench} | ${name} | ${cells.join(" | ")} |`);
  }
  // memory.sh's idle and final figures, from its report.
  const idle: string[] = [];
  for (const r of runs.filter((x) => x.bench === "memory")) {
    const report = existsSync(join(r.dir, "report.md")) ? await Bun.file(join(r.dir, "report.md")).text() : "";
    const m = /VmRSS idle \(2 s after start\): ([\d.]+) MiB; (\d+) s after the last run: ([\d.]+) MiB; VmHWM ([\d.]+) MiB/.exec(report);
    if (m) idle.push(`${VARIANT_LABEL[r.variant]}: idle ${m[1]}, ${m[2]} s after the last run ${m[3]}, VmHWM ${m[4]}`);
  }
  if (idle.length) {
    console.log();
    console.log(`memory.sh (MiB): ${idle.join("; ")}.`);
  }
}
