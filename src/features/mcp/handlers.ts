// Time-driven work of the MCP endpoint: every minute the rows of sessions nobody came back to are
// deleted, and so are the sessions this process holds in memory (a request naming one refuses it
// anyway). With several processes the schedule runs in the supervisor, which serves no HTTP and
// holds no session: each serving process drops its own expired sessions as requests name them and
// as new ones start.
import type { Ctx } from "../../core/context";
import { purgeExpiredSessionRecords } from "./session-rows";
import { sessionsOf } from "./sessions";

export function register(ctx: Ctx): void {
  ctx.jobs.every("mcp-sessions-sweep", "0 * * * * *", () => {
    const sessions = sessionsOf(ctx);
    sessions.sweep();
    purgeExpiredSessionRecords(ctx, sessions.idleMs);
  });
}
