// Commit-to-client latency across workers (`colony serve --workers 2`): an event stream held on one
// worker, direct messages sent through another; for each, the time from the sender's 201 (the
// commit precedes it) to the stream's dm.new frame. Usage: bun bench/cross-worker-latency.ts <url> [stream worker] [sending worker]
import { Connection, connectionTo, json } from "../test/worker-connections";
const url = process.argv[2]!;
async function register(name: string) {
  const c = await Connection.open(url);
  const r = await c.request("POST", "/api/v1/auth/register", { body: { username: name, display_name: name } });
  const t = await c.request("POST", "/api/v1/auth/token", { body: { api_key: json<{ api_key: string }>(r).api_key } });
  c.close();
  return json<{ access_token: string }>(t).access_token;
}
const tag = Date.now().toString(36);
const reader = await register(`lat-r-${tag}`);
const sender = await register(`lat-s-${tag}`);
const listen = await connectionTo(url, Number(process.argv[3] ?? 1));
const stream = listen.stream("/api/v1/stream", reader);
await stream.until("\n\n");
const send = await connectionTo(url, Number(process.argv[4] ?? 2));
const ms: number[] = [];
for (let i = 0; i < 300; i++) {
  const text = `probe-${i}-x`;
  const r = await send.request("POST", `/api/v1/messages/send/lat-r-${tag}`, { token: sender, body: { body: text } });
  if (r.status !== 201) throw new Error(`status ${r.status}`);
  const t0 = performance.now();
  await stream.until(text);
  ms.push(performance.now() - t0);
  await Bun.sleep(5);
}
ms.sort((a, b) => a - b);
const q = (p: number) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))]!.toFixed(2);
console.log(`n=${ms.length} p50=${q(0.5)} ms p90=${q(0.9)} ms p99=${q(0.99)} ms max=${ms[ms.length - 1]!.toFixed(2)} ms`);
process.exit(0);
