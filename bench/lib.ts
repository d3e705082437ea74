// Shared helpers for the in-process micro-benchmarks in bench/.
/**
 * CPU time per call in µs: the best of `rounds` runs of `n` calls, measured with
 * process.cpuUsage() so other processes on the machine disturb it less than wall time.
 */
export async function cpuPerCall(fn: () => unknown, n = 20_000, rounds = 5): Promise<number> {
  for (let i = 0; i < Math.min(n, 2000); i++) await fn();
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const c0 = process.cpuUsage();
    for (let i = 0; i < n; i++) await fn();
    const c = process.cpuUsage(c0);
    best = Math.min(best, (c.user + c.system) / n);
  }
  return best;
}

export function table(title: string, rows: [string, number][]): void {
  console.log(`\n| ${title} | CPU per call |\n| --- | ---: |`);
  for (const [name, us] of rows) console.log(`| ${name} | ${us.toFixed(2)} µs |`);
}
