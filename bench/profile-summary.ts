// Summarises a Bun/V8 .cpuprofile (from `PROFILE=1 bash bench/run.sh`) by where the time goes:
// the inclusive share of samples per package (node_modules/<pkg>) and per source file (src/…),
// and the functions with the most self time. Shares count samples, not time deltas: Bun records no
// idle samples, so the first sample after an idle gap (e.g. while the baseline is measured) carries
// the whole gap as its delta.
//   bun bench/profile-summary.ts /tmp/colony-bench.XXXX/profile/CPU.*.cpuprofile [top=25]
const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error("usage: bun bench/profile-summary.ts <file.cpuprofile> [top]");
  process.exit(2);
}
const top = Number(topArg ?? 25);

interface Frame { functionName: string; url: string; lineNumber: number }
interface Node { id: number; callFrame: Frame; children?: number[] }
const prof = JSON.parse(await Bun.file(file).text()) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const nodes = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

function origin(url: string): string | null {
  if (!url) return null;
  // A compiled executable's source map names files relative to the build root (src/…, node_modules/…).
  if (!url.startsWith("/") && !url.includes(":")) url = `/${url}`;
  const nm = url.lastIndexOf("/node_modules/");
  if (nm >= 0) {
    const rest = url.slice(nm + "/node_modules/".length).split("/");
    return rest[0].startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const src = url.indexOf("/src/");
  return src >= 0 ? url.slice(src + 1) : null;
}

const inclusive = new Map<string, number>();
const self = new Map<string, number>();
let total = 0;
for (let i = 0; i < prof.samples.length; i++) {
  const w = 1;
  const leaf = nodes.get(prof.samples[i])!.callFrame;
  if (leaf.functionName === "(idle)") continue;
  total += w;
  const key = `${leaf.functionName || "(anonymous)"} ${origin(leaf.url) ?? (leaf.url ? leaf.url.split("/").pop() : "[native]")}:${leaf.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + w);
  const seen = new Set<string>();
  for (let id: number | undefined = prof.samples[i]; id !== undefined; id = parent.get(id)) {
    const o = origin(nodes.get(id)!.callFrame.url);
    if (o) seen.add(o);
  }
  for (const o of seen) inclusive.set(o, (inclusive.get(o) ?? 0) + w);
}

const pct = (v: number) => `${((100 * v) / total).toFixed(1)}%`;
const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, top);
console.log(`${total} samples\n`);
console.log("| inclusive | package or source file |\n| ---: | --- |");
for (const [k, v] of sorted(inclusive)) console.log(`| ${pct(v)} | ${k} |`);
console.log("\n| self | function |\n| ---: | --- |");
for (const [k, v] of sorted(self)) console.log(`| ${pct(v)} | ${k} |`);

export {};
