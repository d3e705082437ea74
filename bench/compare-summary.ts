// Summary of bench/compare.sh's slices: per checkout the median and quartiles of its figure, and
// the median of the paired ratios B/A (each pair of slices ran back to back, so the host's slow
// minutes hit both sides of a pair).
//   bun bench/compare-summary.ts cpu|share <slices.tsv>
const [mode, file] = process.argv.slice(2);
if ((mode !== "cpu" && mode !== "share") || !file) throw new Error("usage: bun bench/compare-summary.ts cpu|share <slices.tsv>");

const rows = (await Bun.file(file).text())
  .trim()
  .split("\n")
  .slice(1)
  .map((line) => line.split("\t").map(Number));
if (rows.length === 0) throw new Error(`${file}: no slices`);

/** The value at quantile q of an ascending list (nearest rank). */
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
const stats = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  return { median: quantile(s, 0.5), q1: quantile(s, 0.25), q3: quantile(s, 0.75) };
};
const fmt = (n: number, digits: number) => n.toFixed(digits);

// cpu: slice, A req/s, A µs, B req/s, B µs (lower is better); share: slice, raw, A, B (higher is better).
const a = rows.map((r) => (mode === "cpu" ? r[2] : (100 * r[2]) / r[1]));
const b = rows.map((r) => (mode === "cpu" ? r[4] : (100 * r[3]) / r[1]));
const ratios = stats(a.map((x, i) => b[i] / x));
const [sa, sb] = [stats(a), stats(b)];
const what = mode === "cpu" ? "server CPU per request (µs)" : "share of raw Bun.serve (%)";
const digits = mode === "cpu" ? 2 : 1;

console.log(`\n${rows.length} pairs; ${what}: median (lower quartile, upper quartile)\n`);
console.log("| | A | B |\n| --- | ---: | ---: |");
console.log(`| ${what} | ${fmt(sa.median, digits)} (${fmt(sa.q1, digits)}, ${fmt(sa.q3, digits)}) | ${fmt(sb.median, digits)} (${fmt(sb.q1, digits)}, ${fmt(sb.q3, digits)}) |`);
console.log(`\nPaired ratio B/A: median **${fmt(ratios.median, 3)}** (quartiles ${fmt(ratios.q1, 3)}–${fmt(ratios.q3, 3)})${mode === "cpu" ? "; below 1: B spends less CPU per request" : "; above 1: B answers more"}.`);

export {};
