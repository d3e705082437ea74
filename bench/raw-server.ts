// Baseline for bench/run.sh: the cheapest JSON endpoint Bun can serve, with no framework,
// no database and no auth. Colony's numbers are read against this one.
//   BENCH_RAW_PORT=18090 bun bench/raw-server.ts
const port = Number(process.env.BENCH_RAW_PORT ?? 18090);

const server = Bun.serve({
  hostname: "127.0.0.1",
  port,
  fetch() {
    return Response.json({ ok: true, service: "raw", version: "0.0.0" });
  },
});

console.log(`raw server listening on http://${server.hostname}:${server.port}`);

const stop = () => {
  server.stop(true);
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);

export {};
