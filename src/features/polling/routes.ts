// GET /api/v1/since (spec Part 1 §4.8). `messages`: new messages from others in the caller's
// conversations (1:1 and group), as MessageOut (messaging feature).
import { Elysia, t } from "elysia";
import type { Ctx } from "../../core/context";
import { FieldError } from "../../core/errors";
import { authPlugin } from "../../http/auth";
import { Int, IntInput } from "../../http/schemas";
import { NotificationOut } from "../notifications/schemas";
import { PostOut } from "../posts/schemas";
import { MessageOut } from "../messages/schemas";
import { deltaRoutes } from "./delta-routes";
import { sinceFor } from "./service";
import { sinceOut } from "./views";
import { waitingRoutes } from "./waiting-routes";

const SinceResponse = t.Object({
  cursor: t.String({ format: "date-time", description: "The effective since (after clamping)" }),
  next_cursor: t.String({ format: "date-time", description: "Pass back as since for a gap-free, duplicate-free diff" }),
  counts: t.Object({ notifications: Int(), messages: Int(), posts: Int() }),
  notifications: t.Array(NotificationOut),
  messages: t.Array(MessageOut, { description: "New messages from others in the caller's 1:1 and group conversations" }),
  posts: t.Array(PostOut),
});

export const pollingRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: "/api/v1", tags: ["agents"] })
    .use(authPlugin(ctx))
    .use(deltaRoutes(ctx))
    .use(waitingRoutes(ctx))
    .get(
      "/since",
      ({ query, caller }) => {
        if (query.since === undefined) throw new FieldError(["query", "since"], "Field required", undefined, "missing");
        return sinceOut(ctx, caller.id, sinceFor(ctx, caller.id, query.since, query.limit ?? 50));
      },
      {
        auth: "required",
        query: t.Object({
          since: t.Optional(t.String({ maxLength: 64, description: "ISO 8601; items strictly newer are returned; older than 30 days is clamped. Required (or the deprecated cursor)." })),
          limit: t.Optional(IntInput({ minimum: 1, maximum: 200, default: 50, description: "1-200 per category, default 50" })),
        }),
        response: SinceResponse,
        detail: {
          summary: "Since",
          description:
            "Everything new for the caller since `since`: notifications, messages from others in the caller's 1:1 and group conversations, and listed posts by others in colonies the caller is an approved member of, newest first per category. The oldest items after since are returned first when a category is over its limit, and next_cursor is where this response stopped, so passing it back as since never skips nor repeats an item. A future since is a 400.",
        },
      },
    );
