// The live status of the invoices the marketplace's pages show (web/pages/market-invoice.tsx),
// and the script that follows it (assets/market.js). An invoice is paid outside the server, which
// learns of it by asking the wallet: the payments poller does so with a backoff (seconds at
// first, minutes later), and the API's …/check routes on demand. The open page of the person who
// pays asks GET /marketplace/status/<kind>/<id>, which asks the wallet through the same service
// call as that check (its permission check included), and answers
// `{"status": "<the service's status>"}`. For one person it asks the wallet at most once per
// THROTTLE_MS whatever the invoice (their open tabs, or a script of their own, cost the wallet one
// look-up every two seconds at most; the API's own check routes keep their hourly limits) and
// answers `{"status": null}` when it did not ask this time. Only the signed-in party who may check
// may ask: anyone else gets the check's own 404 (401 without a session). The answer is JSON, never
// cached. Live updates over /live carry no payment events to the payer, hence this.
import type { Ctx } from "../core/context";
import { ApiError } from "../core/errors";
import type { Caller } from "../features/auth/caller";
import * as documents from "../features/documents/service";
import * as market from "../features/marketplace/service";
import * as offers from "../features/offers/service";
import * as tips from "../features/tips/service";
import { marketAsset } from "./market-assets";
import { idOr404 } from "./market-shared";
import { PAGE } from "./route-options";
import type { WebArea } from "./web-app";

/** The least time between two wallet look-ups on behalf of one person's open pages. */
export const THROTTLE_MS = 2_000;

/** How each kind of invoice is checked: the service's own check, answering "pending" while it waits, else its status. */
const CHECKS: Record<string, (ctx: Ctx, caller: Caller, id: string) => Promise<string>> = {
  task: async (ctx, caller, id) => {
    const inv = await market.checkPayment(ctx, caller, id);
    return inv.status;
  },
  // An order waits for its payment while it is accepted.
  order: async (ctx, caller, id) => {
    const status = (await offers.checkOrderPayment(ctx, caller, id)).status;
    return status === "accepted" ? "pending" : status;
  },
  tip: async (ctx, caller, id) => (await tips.checkTip(ctx, caller, id)).status,
  purchase: async (ctx, caller, id) => (await documents.checkPurchase(ctx, caller, id)).status,
};

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" } });

export const marketInvoiceRoutes: WebArea = (ctx, app) => {
  /** When each person last had an invoice looked up for a page; trimmed as it grows. */
  const asked = new Map<string, number>();

  app
    .get("/marketplace/assets/:file", ({ params, request }) => marketAsset(params.file, request), PAGE)
    .get(
      "/marketplace/status/:kind/:id",
      async ({ web, params }) => {
        const check = Object.hasOwn(CHECKS, params.kind) ? CHECKS[params.kind] : null;
        if (!check) return json(404, { status: null });
        if (!web.viewer) return json(401, { status: null });
        const now = ctx.clock.now();
        let id: string;
        try {
          id = idOr404(params.id);
        } catch {
          return json(404, { status: null });
        }
        const key = web.viewer.user.id;
        const last = asked.get(key);
        if (last !== undefined && now - last < THROTTLE_MS) return json(200, { status: null });
        if (asked.size > 10_000) for (const [k, at] of asked) if (now - at >= THROTTLE_MS) asked.delete(k);
        asked.set(key, now);
        try {
          return json(200, { status: await check(ctx, web.viewer.caller, id) });
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          // The wallet did not answer (502): nothing is known yet, the page asks again later.
          return err.status >= 500 ? json(200, { status: null }) : json(err.status, { status: null });
        }
      },
      PAGE,
    );
};
