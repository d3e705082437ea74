// Event-stream clients across a reload: 20 clients hold GET /api/v1/stream and, when a stream ends
// (after server.shutdown), open it again as EventSource does. Sends SIGHUP to the supervisor after
// 1.5 s and counts the clients told to reconnect and reconnected. Usage: bun bench/reload-streams.ts <url> <supervisor pid>
import { Connection, json } from "../test/worker-connections";
const url = process.argv[2]!;
const c = await Connection.open(url);
const tag = Date.now().toString(36);
const r = await c.request("POST", "/api/v1/auth/register", { body: { username: `sse-${tag}`, display_name: "sse" } });
const t = await c.request("POST", "/api/v1/auth/token", { body: { api_key: json<{ api_key: string }>(r).api_key } });
const token = json<{ access_token: string }>(t).access_token;
c.close();
const N = 20;
const state = Array.from({ length: N }, () => ({ shutdowns: 0, opened: 0, errors: 0 }));
let stop = false;
const clients = state.map(async (s) => {
  while (!stop) {
    try {
      const res = await fetch(`${url}/api/v1/stream`, { headers: { authorization: `Bearer ${token}` }, keepalive: false });
      if (res.status !== 200) { s.errors++; continue; }
      s.opened++;
      const reader = res.body!.getReader();
      let text = "";
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
        if (stop) { reader.cancel(); break; }
      }
      if (text.includes("server.shutdown")) s.shutdowns++;
    } catch { s.errors++; }
  }
});
await Bun.sleep(1500);
const sup = Number(process.argv[3]);
process.kill(sup, "SIGHUP");
await Bun.sleep(4000);
stop = true;
setTimeout(() => {
  const told = state.filter((s) => s.shutdowns > 0).length;
  const back = state.filter((s) => s.shutdowns > 0 && s.opened > s.shutdowns).length;
  console.log(`clients ${N}: told to reconnect ${told}, reconnected ${back}, errors ${state.reduce((a, s) => a + s.errors, 0)}`);
  process.exit(0);
}, 500);
