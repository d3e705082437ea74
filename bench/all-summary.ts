// The combined report of bench/all.sh: cold start, then one table of every benchmark's endpoints
// with a column per variant (executable or source, read cache on or off) and a row per number of
// workers (1: one process; 2: a supervisor and two workers), each figure against the raw baseline
// of its own run where the benchmark has one (run.sh: the raw Bun.serve row; search.sh: the
// nearest "bare …" row above), with the server's CPU per request (every process of the instance)
// and, on rows of more than one worker, the throughput against the 1-worker row of the same
// variant; then Colony's resident memory (summed over the instance's processes).
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
// <bench>-<variant>-cache-<on|off>-w<workers>; folders of runs before the workers dimension have no -w.
const runs = readdirSync(dir, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => /^(.+)-(binary|source)-cache-(on|off)(?:-w(\d+))?$/.exec(d.name))
  .filter((m): m is RegExpExecArray => m !== null)
  .map((m) => ({ dir: join(dir, m[0]), bench: m[1], variant: `${m[2]}-cache-${m[3]}`, workers: m[4] ?? "1" }));
const variants = VARIANT_ORDER.filter((v) => runs.some((r) => r.variant === v));
const benches = BENCH_ORDER.filter((b) => runs.some((r) => r.bench === b)).concat([...new Set(runs.map((r) => r.bench))].filter((b) => !BENCH_ORDER.includes(b)));

interface Stat {
  rps: number;
  p99: number;
  ratio: number | null;
  /** Server CPU per request in µs (every process of the instance), when the run recorded it. */
  cpu: number | null;
}
/** Median per endpoint, with its ratio to the baseline of the same run. */
function stats(bench: string, rows: Row[]): Map<string, Stat> {
  const names = [...new Set(rows.map((r) => r.name))];
  const out = new Map<string, Stat>();
  let base: Stat | null = null;
  for (const name of names) {
    const rs = rows.filter((r) => r.name === name);
    const cpus = rs.map((r) => r.cpu_us).filter((v) => v !== undefined && v !== "").map(Number);
    const s: Stat = { rps: median(rs.map((r) => Number(r.rps))), p99: median(rs.map((r) => Number(r.p99_us))), ratio: null, cpu: cpus.length ? median(cpus) : null };
    const isBase = (bench === "run" && name.startsWith("raw")) || (bench === "search" && name.startsWith("bare"));
    if (isBase) base = s;
    else if (base && !name.includes("for-you")) s.ratio = s.rps / base.rps;
    out.set(name, s);
  }
  return out;
}

const table = new Map<string, Map<string, Stat>>(); // "bench\tname\tworkers" -> variant -> stat
const rss = new Map<string, Map<string, { peak: number; after: number }>>();
for (const bench of benches) {
  for (const r of runs.filter((x) => x.bench === bench)) {
    const workers = r.workers;
    for (const [name, s] of stats(bench, await tsv(join(r.dir, "results.tsv")))) {
      const key = `${bench}\t${name}\t${workers}`;
      if (!table.has(key)) table.set(key, new Map());
      table.get(key)!.set(r.variant, s);
    }
    const rr = await tsv(join(r.dir, "rss.tsv"));
    for (const name of [...new Set(rr.map((x) => x.name))]) {
      const xs = rr.filter((x) => x.name === name);
      const key = `${bench}\t${name}\t${workers}`;
      if (!rss.has(key)) rss.set(key, new Map());
      rss.get(key)!.set(r.variant, { peak: median(xs.map((x) => Number(x.rss_peak_mib))), after: median(xs.map((x) => Number(x.rss_after_mib))) });
    }
  }
}
// Rows in the order bench, endpoint, workers.
const rowOrder = (m: Map<string, unknown>) => {
  const keys = [...m.keys()];
  const first = new Map<string, number>();
  keys.forEach((k, i) => {
    const head = k.split("\t").slice(0, 2).join("\t");
    if (!first.has(head)) first.set(head, i);
  });
  const at = (k: string) => first.get(k.split("\t").slice(0, 2).join("\t"))!;
  return keys.sort((a, b) => at(a) - at(b) || Number(a.split("\t")[2]) - Number(b.split("\t")[2]));
};

if (table.size) {
  console.log(
    "### Throughput, p99 and server CPU per request (median over rounds); the percentage is against the run's own raw baseline; ×: against the same endpoint and variant with 1 worker",
  );
  console.log();
  console.log(`| bench | endpoint | workers | ${variants.map((v) => VARIANT_LABEL[v]).join(" | ")} |`);
  console.log(`| --- | --- | ---: | ${variants.map(() => "---:").join(" | ")} |`);
  for (const key of rowOrder(table)) {
    const byVariant = table.get(key)!;
    const [bench, name, workers] = key.split("\t");
    const one = workers !== "1" ? table.get(`${bench}\t${name}\t1`) : undefined;
    const cells = variants.map((v) => {
      const s = byVariant.get(v);
      if (!s) return "";
      const head = s.ratio !== null ? `**${(100 * s.ratio).toFixed(1)}%**, ` : "";
      const base = one?.get(v);
      const vsOne = base ? ` (**×${(s.rps / base.rps).toFixed(2)}**)` : "";
      const cpu = s.cpu !== null ? `, ${Math.round(s.cpu).toLocaleString("en-US")} µs CPU` : "";
      return `${head}${rate(s.rps)}${vsOne}, p99 ${ms(s.p99)}${cpu}`;
    });
    console.log(`| ${bench} | ${name} | ${workers} | ${cells.join(" | ")} |`);
  }
  console.log();
}

if (rss.size) {
  console.log('### Colony\'s resident memory (VmRSS, MiB, summed over its processes): peak during / "after" (RSS_SETTLE s after the run)');
  console.log();
  console.log(`| bench | endpoint | workers | ${variants.map((v) => VARIANT_LABEL[v]).join(" | ")} |`);
  console.log(`| --- | --- | ---: | ${variants.map(() => "---:").join(" | ")} |`);
  for (const key of rowOrder(rss)) {
    const byVariant = rss.get(key)!;
    const [bench, name, workers] = key.split("\t");
    const cells = variants.map((v) => {
      const m = byVariant.get(v);
      return m ? `${m.peak.toFixed(1)} / ${m.after.toFixed(1)}` : "";
    });
    console.log(`| ${bench} | ${name} | ${workers} | ${cells.join(" | ")} |`);
  }
  // memory.sh's idle and final figures, from its report.
  const idle: string[] = [];
  for (const r of runs.filter((x) => x.bench === "memory")) {
    const report = existsSync(join(r.dir, "report.md")) ? await Bun.file(join(r.dir, "report.md")).text() : "";
    const m = /VmRSS idle \(2 s after start\): ([\d.]+) MiB; (\d+) s after the last run: ([\d.]+) MiB; VmHWM ([\d.]+) MiB/.exec(report);
    if (m) idle.push(`${VARIANT_LABEL[r.variant]}, ${r.workers} worker(s): idle ${m[1]}, ${m[2]} s after the last run ${m[3]}, VmHWM ${m[4]}`);
  }
  if (idle.length) {
    console.log();
    console.log(`memory.sh (MiB): ${idle.join("; ")}.`);
  }
}
