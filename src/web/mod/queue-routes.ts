// A colony's moderation queue (/c/<colony>/mod) and its reports-only view (/mod/reports): a page
// of items filtered by status and source, with the counts by source, and the form that acts on an
// item, answered with a 303 back to the page it was sent from.
import { FieldError } from "../../core/errors";
import type { ColonyRow } from "../../features/colonies/service";
import { act, listQueue, QUEUE_ACTIONS, QUEUE_FILTER_SOURCES, type QueueAction } from "../../features/moderation/queue-service";
import { modBase, queuePage, type ModTab, type QueueFilters } from "../pages/mod-pages";
import { FORM, PAGE } from "../route-options";
import { field, page, safeNext, type SignedInWeb } from "../session";
import { attempt, noticeOf, section, str, type Flash } from "./section";
import type { WebArea } from "../web-app";

const PER_PAGE = 25;

export const modQueueRoutes: WebArea = (ctx, app) => {
  function queue(web: SignedInWeb, colony: ColonyRow, tab: ModTab, query: Record<string, unknown>, status = 200, flash: Flash = {}): Response {
    const rawStatus = str(query.status);
    const rawSource = tab === "/reports" ? "open_report" : str(query.source);
    const f: QueueFilters = {
      status: rawStatus === "resolved" ? "resolved" : "open",
      source: (QUEUE_FILTER_SOURCES as readonly string[]).includes(rawSource ?? "") ? (rawSource as QueueFilters["source"]) : null,
      page: Math.min(Math.max(1, Math.floor(Number(str(query.page) ?? 1)) || 1), 4000),
    };
    const r = listQueue(ctx, web.viewer.caller, colony.id, { status: f.status, source: f.source ?? undefined }, { limit: PER_PAGE, offset: (f.page - 1) * PER_PAGE, page: f.page });
    return page(web, queuePage(ctx, web, r, f, { tab, perPage: PER_PAGE, notice: flash.notice ?? noticeOf(query.notice), error: flash.error }), status);
  }

  app
    .get("/c/:name/mod", section(ctx, "", (web, colony, _p, query) => queue(web, colony, "", query)), PAGE)
    .get("/c/:name/mod/reports", section(ctx, "/reports", (web, colony, _p, query) => queue(web, colony, "/reports", query)), PAGE)
    .post(
      "/c/:name/mod/queue/action",
      section(ctx, "", (web, colony) => {
        const backTo = safeNext(web.form.get("back"));
        const base = modBase(colony);
        const returnTo = backTo.startsWith(base) ? backTo : base;
        const tab: ModTab = returnTo.startsWith(`${base}/reports`) ? "/reports" : "";
        const query = Object.fromEntries(new URL(returnTo, "http://x").searchParams);
        return attempt(
          web,
          (status, flash) => queue(web, colony, tab, query, status, flash),
          [],
          () => {
            const action = field(web, "action", 32);
            if (!(QUEUE_ACTIONS as readonly string[]).includes(action)) throw new FieldError(["body", "action"], "Choose one of the actions offered");
            const days = field(web, "duration_days", 4);
            act(ctx, web.viewer.caller, colony.id, {
              source: field(web, "source", 64) as never,
              source_id: field(web, "source_id", 64),
              action: action as QueueAction,
              reason_text: field(web, "reason_text", 500) || null,
              duration_days: action === "ban_author" ? Number(days) : null,
            });
            return `${returnTo}${returnTo.includes("?") ? "&" : "?"}notice=acted`;
          },
        );
      }),
      FORM,
    );
};
