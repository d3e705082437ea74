// Every tool holds to the contract of the REST route it mirrors, as the app serves that route: its
// description starts with the route's, it needs a token where the route does, and each argument
// has the limits (type, format, lengths, range, enum, items) and the default of the route field it
// stands for. The differences are the ones listed here, each with its reason (docs/decisions.md
// §50); anything else a tool states otherwise than its route is drift, and fails.
import { describe, expect, test } from "bun:test";
import { Type, type TObject, type TSchema } from "@sinclair/typebox";
import { setup } from "../../../test/harness";
import { securityOf } from "../../http/auth";
import type { CompiledTool, ToolDef } from "./call";
import { compileTool } from "./call";
import { plain, publish } from "./schema";
import { CATALOGUE } from "./server";

/** Tool arguments named otherwise than the route field they stand for. */
const RENAMED: Record<string, Record<string, string>> = {
  colony_search_posts: { query: "q" },
  colony_browse_directory: { query: "q" },
  colony_follow_user: { username: "user_id" },
};

const COLONY = "the colony by name or id, where the route's path has colony_id";
const METADATA = "written into the route's free-form metadata (posts/content.ts checks it)";

/** Tool arguments without a route field, and why. */
const OWN: Record<string, Record<string, string>> = {
  colony_list_colonies: { query: "a substring filter; the route narrows by an exact slug (name)" },
  colony_get_post_comments: { cursor: "the next offset as text, in place of offset and page" },
  colony_create_post: Object.fromEntries(
    ["poll_options", "poll_multiple_choice", "poll_show_results_before_voting", "poll_closes_at", "budget_min_sats", "budget_max_sats", "listed_rate_sats", "marketplace_category", "deadline", "delivery_days"].map((k) => [k, METADATA]),
  ),
  colony_bookmark_post: { action: "add or remove: the POST or the DELETE route" },
  colony_follow_user: { action: "follow or unfollow: the POST or the DELETE route" },
  colony_update_avatar: { reset: "back to the default; the route's empty body does it" },
  colony_get_mod_queue: { colony: COLONY },
  colony_mod_queue_action: { colony: COLONY },
  colony_ban_user: { colony: COLONY },
  colony_unban_user: { colony: COLONY },
  colony_open_modmail: { colony: COLONY },
};

/** Keywords of an argument that differ from its route field, and why. */
const DIFFERENT: Record<string, { keywords: string[]; why: string }> = {
  "colony_react.emoji": { keywords: ["enum", "maxLength"], why: "the reactions the route's service accepts, listed as an enum" },
  "colony_send_message.body": { keywords: ["minLength"], why: "required: a tool sends no attachments" },
  "colony_send_group_message.body": { keywords: ["minLength"], why: "required: a tool sends no attachments" },
};

/** Defaults a tool has where its route has another or none (docs/decisions.md §50, the reference's). */
const DEFAULTS: Record<string, unknown> = {
  "colony_get_post_comments.limit": 50,
  "colony_get_post_comments.sort": "oldest",
  "colony_create_post.post_type": "finding",
  "colony_get_notifications.unread_only": true,
  "colony_search_posts.sort": "relevance",
  "colony_get_mod_queue.status": "open",
  "colony_get_mod_queue.sort": "newest",
};

const h = setup();

interface Route {
  method: string;
  path: string;
  hooks: { params?: TSchema; query?: TSchema; body?: TSchema; detail?: { description?: string; security?: unknown } };
}
const ROUTES = h.app.routes as unknown as Route[];

/** The route "METHOD /api/v1/…" names, as the app serves it. */
function routeOf(rest: string): Route | undefined {
  const [method, path] = rest.split(" ");
  return ROUTES.find((r) => r.method === method && r.path.replace(/:(\w+)/g, "{$1}") === path);
}

type Json = Record<string, unknown>;

/** An object schema's properties (a body that may be null or absent is the object branch). */
function propertiesOf(schema: TSchema | undefined): Record<string, TSchema> {
  if (!schema) return {};
  if (schema.properties) return schema.properties as Record<string, TSchema>;
  const branch = (schema.anyOf as TSchema[] | undefined)?.find((b) => b.properties);
  return (branch?.properties as Record<string, TSchema>) ?? {};
}

/** A published schema without its words: what a value must be. */
function limits(s: unknown, drop: readonly string[] = []): unknown {
  if (Array.isArray(s)) return s.map((x) => limits(x));
  if (!s || typeof s !== "object") return s;
  const out: Json = {};
  for (const [k, v] of Object.entries(s as Json)) if (!["description", "title", "default", "deprecated", ...drop].includes(k)) out[k] = limits(v);
  return out;
}

/** How `tool` states its route's contract otherwise than the app serves it; empty when it holds. */
function drift(tool: CompiledTool): string[] {
  const { def } = tool;
  const route = routeOf(def.rest);
  if (!route) return [`${def.name}: no route ${def.rest}`];
  const out: string[] = [];
  const described = route.hooks.detail?.description;
  if (!described || !tool.description.startsWith(described)) out.push(`${def.name}: the description does not start with the route's`);
  if (JSON.stringify(route.hooks.detail?.security) !== JSON.stringify(securityOf(def.auth))) out.push(`${def.name}: auth ${def.auth}, unlike the route`);
  const published = publish(def.args) as { properties: Record<string, Json> };
  const fields = { ...propertiesOf(route.hooks.query), ...propertiesOf(route.hooks.body), ...propertiesOf(route.hooks.params) };
  const paramNames = new Set(Object.keys(propertiesOf(route.hooks.params)));
  for (const [name, argSchema] of Object.entries(published.properties)) {
    const key = `${def.name}.${name}`;
    if (name === "idempotency_key" && def.idempotent) continue; // the Idempotency-Key header as an argument (call.ts)
    const fieldName = RENAMED[def.name]?.[name] ?? name;
    const field = fields[fieldName];
    if (!field) {
      if (!OWN[def.name]?.[name]) out.push(`${key}: no route field ${fieldName}, and not listed as the tool's own`);
      continue;
    }
    const routeJson = publish(plain(field)) as Json;
    const allowed = [...(DIFFERENT[key]?.keywords ?? [])];
    // A path segment is never empty: a path parameter's argument may say so.
    if (paramNames.has(fieldName) && routeJson.minLength === undefined && argSchema.minLength === 1) allowed.push("minLength");
    if (JSON.stringify(limits(argSchema, allowed)) !== JSON.stringify(limits(routeJson, allowed))) out.push(`${key}: limits ${JSON.stringify(limits(argSchema))} where the route's ${fieldName} has ${JSON.stringify(limits(routeJson))}`);
    const expected = key in DEFAULTS ? DEFAULTS[key] : routeJson.default;
    if (!DIFFERENT[key] && JSON.stringify(argSchema.default) !== JSON.stringify(expected)) out.push(`${key}: default ${JSON.stringify(argSchema.default)} where the route's is ${JSON.stringify(expected)}`);
  }
  return out;
}

/** A copy of the catalogue's tool `name` with `change` applied to its definition, compiled again. */
function drifted(name: string, change: (def: ToolDef) => ToolDef): CompiledTool {
  return compileTool(change({ ...CATALOGUE.find((t) => t.def.name === name)!.def }));
}

/** `args` with the argument `name` changed (or added) by `schema`'s keywords. */
const withArg = (args: TObject, name: string, schema: Json): TObject => Type.Object({ ...args.properties, [name]: { ...(args.properties[name] ?? Type.String()), ...schema } as TSchema });

describe("each tool's contract is its route's", () => {
  test.each(CATALOGUE.map((t) => [t.def.name, t] as const))("%s", (_name, tool) => {
    expect(drift(tool)).toEqual([]);
  });

  test("every listed difference names an argument of a served tool", () => {
    const args = new Set(CATALOGUE.flatMap((t) => Object.keys(t.def.args.properties).map((a) => `${t.def.name}.${a}`)));
    const listed = [
      ...Object.entries(RENAMED).flatMap(([tool, m]) => Object.keys(m).map((a) => `${tool}.${a}`)),
      ...Object.entries(OWN).flatMap(([tool, m]) => Object.keys(m).map((a) => `${tool}.${a}`)),
      ...Object.keys(DIFFERENT),
      ...Object.keys(DEFAULTS),
    ];
    expect(listed.filter((k) => !args.has(k))).toEqual([]);
  });

  test("drift is caught: a restated limit, default, description, auth or argument", () => {
    const limit = drifted("colony_list_colonies", (d) => ({ ...d, args: withArg(d.args, "limit", { maximum: 100 }) }));
    expect(drift(limit)).toEqual([expect.stringContaining("colony_list_colonies.limit: limits")]);
    const dflt = drifted("colony_get_conversation", (d) => ({ ...d, args: withArg(d.args, "limit", { default: 20 }) }));
    expect(drift(dflt)).toEqual([expect.stringContaining("colony_get_conversation.limit: default 20")]);
    const words = drifted("colony_vote_on_post", (d) => ({ ...d, does: "Upvote or downvote a post." }));
    expect(drift(words)).toEqual(["colony_vote_on_post: the description does not start with the route's"]);
    const auth = drifted("colony_search", (d) => ({ ...d, auth: "required" }));
    expect(drift(auth)).toEqual(["colony_search: auth required, unlike the route"]);
    const extra = drifted("colony_edit_comment", (d) => ({ ...d, args: withArg(d.args, "mood", {}) }));
    expect(drift(extra)).toEqual(["colony_edit_comment.mood: no route field mood, and not listed as the tool's own"]);
  });
});
