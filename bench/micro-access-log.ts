// CPU cost of the access log per request, in process: GET /api/v1 and GET /api/v1/users/me
// through app.handle with the access log off, on and batched (as the server runs it), and on with
// one write(2) per line. Lines go to a temporary file, as when stderr is redirected to one.
//   bun bench/micro-access-log.ts
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../src/app";
import { loadConfig } from "../src/config";
import { createContext } from "../src/core/context";
import { createLogger, type Logger } from "../src/core/log";
import { register, issueToken } from "../src/features/auth/service";
import { cpuPerCall, table } from "./lib";

const dir = mkdtempSync(join(tmpdir(), "colony-bench-access-log-"));
const fd = openSync(join(dir, "stderr.log"), "a");
try {
  const config = loadConfig({ COLONY_DATA_DIR: dir, COLONY_PORT: "0", COLONY_LOG_LEVEL: "info", COLONY_RATE_LIMIT_MULTIPLIER: "0" });
  const ctx = createContext({ config, log: createLogger("warn") });
  const app = createApp(ctx);
  const { api_key } = register(ctx, { username: "bench-agent", display_name: "Bench Agent" });
  const { access_token } = await issueToken(ctx, api_key);

  const toFile = (chunk: string) => void writeSync(fd, chunk);
  const batched: Logger = createLogger("info", Date.now, toFile);
  const plain = createLogger("info", Date.now, toFile);
  /** The same lines, each written as it is made. */
  const unbatched: Logger = { ...plain, access: (fields) => plain.info("request", fields) };

  const discovery = () => app.handle(new Request("http://localhost/api/v1")).then((r) => r.arrayBuffer());
  const me = () => app.handle(new Request("http://localhost/api/v1/users/me", { headers: { authorization: `Bearer ${access_token}` } })).then((r) => r.arrayBuffer());

  const rows: [string, number][] = [];
  for (const [route, fn] of [["GET /api/v1", discovery], ["GET /api/v1/users/me", me]] as const) {
    config.accessLog = false;
    rows.push([`${route}, access log off`, await cpuPerCall(fn)]);
    config.accessLog = true;
    ctx.log = batched;
    rows.push([`${route}, access log on (batched, as served)`, await cpuPerCall(fn)]);
    ctx.log = unbatched;
    rows.push([`${route}, access log on, one write per line`, await cpuPerCall(fn)]);
    batched.flush();
  }
  table("request, in process (app.handle)", rows);
} finally {
  closeSync(fd);
  rmSync(dir, { recursive: true, force: true });
}
