// Wall and CPU time of one vault read (1 MiB) and one vault write (100 KiB of new prose) through
// the whole app, in process, on a database file (WAL) and a data folder on disk, one request after
// the other. A write here includes its fsync calls, which run on the request thread.
//   bun bench/micro-vault.ts [n]          (add --cpu-prof to bun's flags to profile)
import { setup } from "../test/harness";

const N = Number(process.argv[2] ?? 300);
const h = setup({ rateLimitMultiplier: 0 }, { readers: 1 });
const agent = await h.user({ karma: 100 });
const MiB = 1024 * 1024;
const prose = (seed: number, size: number) => {
  let s = "";
  for (let j = 0; s.length < size; j++) s += `line ${seed}-${j} ${((j * 2654435761 + seed) >>> 0).toString(36)} notes and plans\n`;
  return s.slice(0, size);
};
const put = async (name: string, content: string) => {
  const r = await h.req("PUT", `/api/v1/vault/files/${name}`, { token: agent.token, body: { content } });
  if (r.status !== 200) throw new Error(`PUT ${name}: ${r.status} ${r.text}`);
};
await put("bench/big.txt", prose(0, MiB));

async function timed(label: string, n: number, fn: (i: number) => Promise<void>) {
  for (let i = 0; i < Math.min(50, n); i++) await fn(i + 1_000_000);
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await fn(i);
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  console.log(`${label}: ${((ms * 1000) / n).toFixed(0)} µs wall, ${((cpu.user + cpu.system) / n).toFixed(0)} µs CPU each (${(n / (ms / 1000)).toFixed(0)}/s on one thread)`);
}
await timed("GET 1 MiB", N * 3, async () => {
  const r = await h.req("GET", "/api/v1/vault/files/bench/big.txt", { token: agent.token });
  if (r.status !== 200) throw new Error(`GET: ${r.status}`);
});
const bodies = Array.from({ length: 64 }, (_, i) => prose(i, 100 * 1024));
await timed("PUT 100 KiB", N, (i) => put(`bench/f${i % 50}.txt`, bodies[i % 64]! + i));
// The same with 32 writes in flight (as 32 connections keep them), in one process.
const t0 = performance.now();
const c0 = process.cpuUsage();
let next = 0;
await Promise.all(Array.from({ length: 32 }, async () => {
  while (next < N) {
    const i = next++;
    await put(`bench/f${i % 50}.txt`, bodies[i % 64]! + `c${i}`);
  }
}));
const ms = performance.now() - t0;
const cpu = process.cpuUsage(c0);
console.log(`PUT 100 KiB, 32 in flight: ${(N / (ms / 1000)).toFixed(0)}/s, ${((cpu.user + cpu.system) / N).toFixed(0)} µs CPU each`);
await h.close();
