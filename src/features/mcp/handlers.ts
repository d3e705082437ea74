// Time-driven work of the MCP endpoint: sessions nobody came back to are closed every minute
// (a request naming one closes it too), so an idle server does not hold them.
import type { Ctx } from "../../core/context";
import { sessionsOf } from "./sessions";

export function register(ctx: Ctx): void {
  ctx.jobs.every("mcp-sessions-sweep", "0 * * * * *", () => void sessionsOf(ctx).sweep());
}
