// /api/v1/webhooks (spec Part 2 §4.8; shapes from the reference service).
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { authPlugin } from "../../http/auth";
import { bareList, pagingQuery, resolvePage, type PagingSpec } from "../../http/paging";
import { rateLimitPlugin } from "../../http/rate-limit";
import { ErrorOut, Int, Nullable } from "../../http/schemas";
import catalog from "./catalog.json";
import { EVENT_NAMES } from "./mapping";
import * as service from "./service";
import { deliveryOut, webhookOut } from "./views";

const EventName = t.UnionEnum(EVENT_NAMES as unknown as [string, ...string[]], { default: undefined, description: "A webhook event name of GET /api/v1/webhooks/events" });
const Events = t.Array(EventName, { minItems: 1, maxItems: EVENT_NAMES.length });
const URL_LENGTH = { minLength: 1, maxLength: 2000 };
const SECRET_LENGTH = { minLength: 16, maxLength: 64 };

export const WebhookCreate = t.Object({
  url: t.String({ ...URL_LENGTH, description: "http or https; private, loopback and link-local targets are refused" }),
  secret: t.String({ ...SECRET_LENGTH, description: "HMAC-SHA256 key, write-only" }),
  events: Events,
});

const WebhookUpdate = t.Object({
  url: t.Optional(Nullable(t.String(URL_LENGTH))),
  secret: t.Optional(Nullable(t.String(SECRET_LENGTH))),
  events: t.Optional(Nullable(Events)),
  is_active: t.Optional(Nullable(t.Boolean({ description: "true on a disabled webhook re-enables it and resets failure_count" }))),
});

export const WebhookOut = t.Object({
  id: t.String({ format: "uuid" }),
  url: t.String(),
  events: t.Array(t.String()),
  is_active: t.Boolean(),
  failure_count: Int(),
  last_triggered_at: Nullable(t.String({ format: "date-time" })),
  created_at: t.String({ format: "date-time" }),
});

const AttemptOut = t.Object({
  id: t.String({ format: "uuid", description: "The X-Service-Delivery header of this attempt" }),
  attempt: Int(),
  success: t.Boolean(),
  response_status: Nullable(Int()),
  error: Nullable(t.String()),
  duration_ms: Int(),
  created_at: t.String({ format: "date-time" }),
});

const DeliveryOut = t.Object({
  id: t.String({ format: "uuid" }),
  webhook_id: t.String({ format: "uuid" }),
  event: t.String(),
  event_id: Nullable(t.String({ format: "uuid" })),
  payload: t.Record(t.String(), t.Unknown()),
  response_status: Nullable(Int()),
  response_body: Nullable(t.String()),
  success: t.Boolean(),
  attempt: Int({ description: "Attempts made so far (at most 5)" }),
  is_replay: t.Boolean(),
  created_at: t.String({ format: "date-time" }),
  status: t.String({ description: "pending (queued or waiting for a retry), succeeded or failed" }),
  is_test: t.Boolean(),
  replay_of: Nullable(t.String({ format: "uuid" })),
  error: Nullable(t.String()),
  next_attempt_at: Nullable(t.String({ format: "date-time" })),
  last_attempt_at: Nullable(t.String({ format: "date-time" })),
  completed_at: Nullable(t.String({ format: "date-time" })),
  attempts: t.Array(AttemptOut),
});

const ReplayOut = t.Object({
  status: t.String({ description: "Always \"queued\"" }),
  webhook_id: t.String({ format: "uuid" }),
  replayed_delivery_id: t.String({ format: "uuid" }),
  outbox_id: t.String({ format: "uuid", description: "The id of the new delivery" }),
});

const RotateOut = t.Object({ id: t.String({ format: "uuid" }), secret: t.String(), rotated_at: t.String({ format: "date-time" }) });

const CatalogOut = t.Object({
  events: t.Array(t.Object({ name: t.String(), description: t.String(), payload_schema_ref: t.String(), example_payload: t.Record(t.String(), t.Unknown()) })),
});

const PathId = t.String({ maxLength: 64 });
export const ById = t.Object({ webhook_id: PathId });
const ByDelivery = t.Object({ webhook_id: PathId, delivery_id: PathId });
const DELIVERY_PAGING: PagingSpec = { max: 100, default: 20 };

const HEADERS_DOC =
  "Every delivery is a POST of JSON (`{\"event\": name, ...}`) with User-Agent `Service-Webhooks/1.0` and the headers X-Service-Event, X-Service-Signature (`sha256=<hex HMAC-SHA256 of the raw body>`, legacy), X-Service-Signature-256 (`t=<unix>,v1=<hex HMAC-SHA256 of \"{t}.{body}\">`, preferred: reject timestamps more than 5 minutes from your clock), X-Service-Timestamp, X-Service-Delivery (new on every attempt), X-Service-Event-Id (stable across attempts and replays: deduplicate on it) and X-Service-Attempt, plus the X-Colony-… equivalents (X-Colony-Delivery is stable across the retries of one delivery). Any 2xx is success; redirects are not followed. Up to 5 attempts: retries after 5 s, 30 s, 2 min and 10 min. 10 consecutive failed deliveries (each after its last attempt) disable the webhook.";

// The subscribable events of the catalogue; member_joined is a colony join on this server.
const CATALOG = {
  events: catalog.events.map((e) =>
    e.name === "member_joined"
      ? { ...e, description: "`member_joined` — fires to every subscribed webhook whose owner can read the colony when a member joins it (an approved join, or the approval of a pending one). Carries `colony` and `colony_id` besides the reference fields." }
      : e,
  ),
};

/**
 * Typed as a plain Elysia instance: the app's plugin chain is long enough that carrying every
 * route type into it makes TypeScript give up (TS2589); nothing reads these route types.
 */
/** What GET /api/v1/webhooks does (its OpenAPI description, also the MCP tool's). */
export const LIST_WEBHOOKS_DESCRIPTION = "Your webhooks, newest first (a bare array). The secret is never returned.";

/** What POST /api/v1/webhooks does (its OpenAPI description, also the MCP tool's). */
export const CREATE_WEBHOOK_DESCRIPTION = `Register a webhook for the named events. 400 LIMIT_EXCEEDED past 10 webhooks; 400 INVALID_INPUT (with \`reason\`: invalid_url, scheme, credentials, unresolvable, private_address) when the URL is refused; 409 CONFLICT when you already have a webhook for that URL; 422 for an unknown event name or a secret under 16 characters. ${HEADERS_DOC}`;

/** What DELETE /api/v1/webhooks/{webhook_id} does (its OpenAPI description, also the MCP tool's). */
export const DELETE_WEBHOOK_DESCRIPTION = "Deletes the webhook and its whole delivery history. 204.";

export const webhooksRoutes = (ctx: Ctx): Elysia => {
  const plugin = new Elysia({ prefix: "/api/v1/webhooks", tags: ["webhooks"] })
    .use(authPlugin(ctx))
    .use(rateLimitPlugin(ctx))
    .get("/events", () => CATALOG, {
      response: CatalogOut,
      detail: { summary: "List Webhook Events", description: "Every subscribable webhook event with a one-line description, the payload schema name and an example payload. Public." },
    })
    .get("", ({ caller }) => service.listWebhooks(ctx, caller).map(webhookOut), {
      auth: "required",
      response: { 200: t.Array(WebhookOut) },
      detail: { summary: "List Webhooks", description: LIST_WEBHOOKS_DESCRIPTION },
    })
    .post(
      "",
      async ({ caller, body, set }) => {
        const row = await service.createWebhook(ctx, caller, body);
        set.status = 201;
        return webhookOut(row);
      },
      {
        auth: "required",
        rateLimit: "webhook",
        body: WebhookCreate,
        response: { 201: WebhookOut, 400: ErrorOut, 409: ErrorOut },
        detail: {
          summary: "Create Webhook",
          description: CREATE_WEBHOOK_DESCRIPTION,
        },
      },
    )
    .get("/:webhook_id", ({ caller, params }) => webhookOut(service.getWebhook(ctx, caller, params.webhook_id)), {
      auth: "required",
      params: ById,
      response: { 200: WebhookOut, 404: ErrorOut },
      detail: { summary: "Get Webhook", description: "One of your webhooks; 404 for anyone else's." },
    })
    .put("/:webhook_id", async ({ caller, params, body }) => webhookOut(await service.updateWebhook(ctx, caller, params.webhook_id, body)), {
      auth: "required",
      rateLimit: "webhook",
      params: ById,
      body: WebhookUpdate,
      response: { 200: WebhookOut, 400: ErrorOut, 404: ErrorOut, 409: ErrorOut },
      detail: {
        summary: "Update Webhook",
        description: "Change any of url, secret, events, is_active (omitted or null fields stay). `is_active: true` on a disabled webhook re-enables it and resets failure_count. A new URL is checked like on creation (400 INVALID_INPUT).",
      },
    })
    .delete(
      "/:webhook_id",
      ({ caller, params, set }) => {
        service.deleteWebhook(ctx, caller, params.webhook_id);
        set.status = 204;
      },
      {
        auth: "required",
        rateLimit: "webhook",
        params: ById,
        response: { 204: t.Void(), 404: ErrorOut },
        detail: { summary: "Delete Webhook", description: DELETE_WEBHOOK_DESCRIPTION },
      },
    )
    .post("/:webhook_id/rotate-secret", ({ caller, params }) => service.rotateSecret(ctx, caller, params.webhook_id), {
      auth: "required",
      rateLimit: "webhook",
      params: ById,
      response: { 200: RotateOut, 404: ErrorOut },
      detail: { summary: "Rotate Webhook Secret", description: "Replaces the signing secret with a fresh 32-byte URL-safe one, returned once." },
    })
    .get(
      "/:webhook_id/deliveries",
      ({ caller, params, query, set }) => {
        const page = resolvePage(query, DELIVERY_PAGING);
        const { items, attempts, total } = service.listDeliveries(ctx, caller, params.webhook_id, page);
        return bareList(set, items.map((d) => deliveryOut(d, attempts.get(d.id))), total, page);
      },
      {
        auth: "required",
        params: ById,
        query: t.Object(pagingQuery(DELIVERY_PAGING)),
        response: { 200: t.Array(DeliveryOut), 400: ErrorOut, 404: ErrorOut },
        detail: {
          summary: "List Deliveries",
          description: "The webhook's deliveries, newest first (a bare array; X-Total-Count and X-Has-More headers): event, payload, status, attempts made, the last response status and body (first 4 KiB), is_replay, and every attempt with its status code.",
        },
      },
    )
    .post(
      "/:webhook_id/test",
      async ({ caller, params }) => {
        const { delivery, attempt } = await service.testWebhook(ctx, caller, params.webhook_id);
        return deliveryOut(delivery, [attempt]);
      },
      {
        auth: "required",
        rateLimit: "webhook_test",
        params: ById,
        response: { 200: DeliveryOut, 404: ErrorOut },
        detail: {
          summary: "Test Webhook",
          description: "Sends a synthetic `test.ping` now, one attempt, and answers with the delivery record: response_status, response_body, success. Touches neither failure_count nor last_triggered_at. 20 per hour.",
        },
      },
    )
    .post(
      "/:webhook_id/deliveries/:delivery_id/replay",
      ({ caller, params, set }) => {
        const { original, replay } = service.replayDelivery(ctx, caller, params.webhook_id, params.delivery_id);
        set.status = 202;
        return { status: "queued", webhook_id: replay.webhookId, replayed_delivery_id: original.id, outbox_id: replay.id };
      },
      {
        auth: "required",
        rateLimit: "webhook_replay",
        params: ByDelivery,
        response: { 202: ReplayOut, 400: ErrorOut, 404: ErrorOut, 409: ErrorOut },
        detail: {
          summary: "Replay Delivery",
          description: "Queues a past delivery again as a new delivery flagged is_replay, with the same event id and payload, sent to the webhook's current URL with its current secret through the retrying path. 202; poll the deliveries list for the result. Send an Idempotency-Key to make retries safe. 400 for a test ping; 409 CONFLICT while the webhook is disabled; 404 for a webhook or delivery that is not yours.",
        },
      },
    );
  return plugin as unknown as Elysia;
};
