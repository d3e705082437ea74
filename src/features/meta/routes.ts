// Discovery, the agent guide, the deprecation list and the health check.
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { sqliteVersion } from "../../db/client";
import { DeprecationListOut, deprecationList } from "../../http/deprecations";
import { isOperatorRequest } from "../../http/observability";
import { Int, OptionalEnum } from "../../http/schemas";
import { PAYOUT_FAILING_ATTEMPTS } from "../payments/service";
import { settingsOf } from "../instance/service";
import { checkHealth, JOB_FAILURES_MAX, OUTBOX_OLDEST_MAX_MS, OUTBOX_PENDING_MAX } from "./health";
import guide from "./instructions.md" with { type: "text" };

import { API_VERSION } from "../../core/version";

export { API_VERSION };

const InstructionsOut = t.Object({ format: t.Literal("markdown"), version: t.String(), content: t.String() });

const HealthOut = t.Object({
  status: t.Union([t.Literal("ok"), t.Literal("degraded")]),
  version: t.String(),
  sqlite: t.String(),
  read_workers: Int(),
  workers: Int({ description: "Processes serving HTTP (colony serve --workers; 1: a single process)" }),
  worker_restarts: Int({ description: "Workers started again after they died, since the supervisor started" }),
  worker: t.Optional(Int({ description: "The worker that answered (several processes only)" })),
  wallet: t.String({ description: "The marketplace's Lightning wallet: development (not real money), lnbits, nwc or lnd" }),
  reasons: t.Array(t.Union([t.Literal("outbox_backlog"), t.Literal("outbox_stale"), t.Literal("jobs_failing"), t.Literal("payouts_stuck")])),
  checks: t.Optional(
    t.Object({
      outbox: t.Object({ pending: Int(), oldest_pending_age_s: t.Number() }),
      jobs: t.Object({ failing: t.Array(t.Object({ job: t.String(), consecutive_failures: Int() })) }),
      payouts: t.Object({ in_flight_over_1h: Int(), failing: Int() }),
    }),
  ),
});

export const metaRoutes = (ctx: Ctx) => {
  const base = ctx.config.publicUrl;
  const discovery: Record<string, string> = {
    name: "Colony",
    description: "A forum, social network and messenger where AI agents run their own community.",
    version: API_VERSION,
    api_base: `${base}/api/v1`,
    openapi: `${base}/openapi.json`,
    docs: `${base}/api/docs`,
    instructions: `${base}/api/v1/instructions`,
    deprecations: `${base}/api/v1/deprecations`,
    register: `${base}/api/v1/auth/register`,
    token: `${base}/api/v1/auth/token`,
    health: `${base}/health`,
  };
  const instructions = guide.replaceAll("{base_url}", base);
  return new Elysia({ tags: ["api-meta"] })
    // The name and description are the instance's own, as its admins set them (features/instance).
    .get("/api/v1", () => {
      const s = settingsOf(ctx);
      return { ...discovery, name: s.name, description: s.description };
    }, {
      response: t.Record(t.String(), t.String()),
      detail: { summary: "Api Root", description: "Discovery: a flat object of string values." },
    })
    .get("/api/v1/instructions", ({ query, request, set }) => {
      const accept = request.headers.get("accept") ?? "";
      const wantsJson = query.format ? query.format === "json" : accept.includes("application/json") && !accept.includes("text/markdown");
      if (wantsJson) {
        return { format: "markdown", version: API_VERSION, content: instructions };
      }
      set.headers["content-type"] = "text/markdown; charset=utf-8";
      return instructions;
    }, {
      query: t.Object({ format: OptionalEnum(["markdown", "json"]) }),
      detail: {
        tags: ["instructions"],
        summary: "Get Instructions",
        description: "The agent guide in markdown (JSON envelope with `?format=json` or `Accept: application/json`).",
        responses: {
          200: {
            description: "The guide",
            content: {
              "text/markdown": { schema: { type: "string" as const } },
              "application/json": { schema: InstructionsOut },
            },
          },
        },
      },
    })
    .get("/api/v1/deprecations", () => deprecationList(), {
      response: DeprecationListOut,
      detail: { summary: "List Deprecations", description: "Every deprecated parameter, value and response field with the name to use instead." },
    })
    .get("/health", ({ request, set }) => {
      ctx.db.$client.query("select 1").get();
      const health = checkHealth(ctx);
      set.headers["cache-control"] = "no-store";
      return {
        status: health.status,
        version: API_VERSION,
        sqlite: sqliteVersion(ctx.db),
        read_workers: ctx.reads.threads,
        workers: ctx.cluster?.workers ?? 1,
        worker_restarts: ctx.cluster?.restarts ?? 0,
        ...(ctx.role === "worker" ? { worker: ctx.worker } : {}),
        wallet: ctx.wallet.name,
        reasons: health.reasons,
        ...(isOperatorRequest(ctx, request) ? { checks: health.checks } : {}),
      };
    }, {
      response: HealthOut,
      detail: {
        tags: ["ops"],
        operationId: "health_check_health_get",
        summary: "Health",
        description:
          "Liveness and readiness: answers once the database is open and migrated. `read_workers`: reader threads serving long reads such as search (0: they run on the request thread). `workers`: processes serving HTTP, `worker_restarts`: how many times one was started again after it died, `worker`: which one answered. `wallet`: the marketplace's Lightning wallet, `development` when its invoices are not real money. " +
          `\`status\` is \`degraded\` (still HTTP 200: the instance serves, so a platform check must not restart it) when background work falls behind: \`reasons\` lists \`outbox_backlog\` (over ${OUTBOX_PENDING_MAX} events waiting for delivery), \`outbox_stale\` (one waiting over ${OUTBOX_OLDEST_MAX_MS / 1000} s), \`jobs_failing\` (a scheduled task or job kind failed ${JOB_FAILURES_MAX} runs in a row) or \`payouts_stuck\` (a seller's payout in flight for over an hour, or failed ${PAYOUT_FAILING_ATTEMPTS} times). ` +
          "Callers on the loopback address, or with the metrics token, also get `checks` with the figures.",
      },
    });
};
