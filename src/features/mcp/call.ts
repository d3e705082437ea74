// One tool call, from raw arguments to a CallToolResult, through the same conventions as a REST
// request: deprecated argument names (the one registry, http/deprecations.ts), validation
// against the tool's TypeBox schema, the bearer token (http/auth.ts), the declarative rate
// limits (core/limits.ts, refunded when the call fails), then the feature services.
//
// A refused call is a tool result with isError: true whose text is the REST error body with
// the HTTP status it would carry (docs/decisions.md §48):
//   {"detail": {"code", "message", "status", ...extra, "deprecated_code"?}}
// Validation failures are {"detail": {"code": "VALIDATION_ERROR", "message", "status": 422, "errors": [{loc, msg, type}]}}.
import { Value } from "@sinclair/typebox/value";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { Type, type TObject, type TSchema } from "@sinclair/typebox";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Ctx } from "../../core/context";
import { ApiError, FieldError } from "../../core/errors";
import { authenticate } from "../auth/service";
import { callerOf, type Caller } from "../../http/auth";
import { applyArgumentDeprecations, deprecationsOf } from "../../http/deprecations";
import { subjectOf } from "../../http/rate-limit";
import { claimKey, IDEMPOTENCY_IN_PROGRESS, IDEMPOTENCY_MISMATCH, IDEMPOTENCY_UNREADABLE, releaseKey, saveKey } from "../../http/idempotency";
import { sha256Hex } from "../../core/ids";
import { mcpErrorCode } from "./errors";
import { scopeOfCall } from "./scopes";
import type { McpScope } from "../oauth/scopes";
import { publish, publishAnswer } from "./schema";

/** What a tool call knows of the HTTP request that carried it (set by routes.ts). */
export interface RequestAuth {
  request: Request;
  /** The client's address, for IP allowlists (docs/decisions.md §53). */
  ip: string;
  /** The scopes of an OAuth client's token; null for a token of the API, which may do everything. */
  scopes: readonly McpScope[] | null;
}

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: false;
}

export interface ToolContext {
  ctx: Ctx;
  caller: Caller | null;
  auth: RequestAuth;
}

export interface ToolDef<A = any> {
  name: string;
  title: string;
  /** The REST route it mirrors, "METHOD /api/v1/…": the services it calls, its limits, its answer. */
  rest: string;
  /** What that route does: its OpenAPI description, exported beside the route (the tool's says it first). */
  does: string;
  /** What the tool does otherwise than the route: argument names, the answer's form, a second route. */
  differs?: string;
  auth: "required" | "optional";
  /** Rate-limit actions charged before it runs, as the REST route declares them. */
  limits?: readonly string[];
  /** Takes `idempotency_key`, the tool's Idempotency-Key (http/idempotency.ts, the same store). */
  idempotent?: boolean;
  args: TObject;
  /**
   * The schema of its answer, published as `outputSchema` (an object: schema.ts `publishAnswer`):
   * the route's response schema, or one built from it where the tool answers otherwise.
   */
  answer?: TSchema;
  annotations: ToolAnnotations;
  /** The REST answer for the same input; throws ApiError as the services do. */
  run(t: ToolContext & { caller: Caller }, args: A): unknown | Promise<unknown>;
}

/** A tool compiled once: its validator, and its description and JSON Schema published in tools/list. */
export interface CompiledTool {
  def: ToolDef;
  check: TypeCheck<TObject>;
  description: string;
  inputSchema: Record<string, unknown>;
  /** Set for a tool that declares its answer: each successful result then carries structuredContent. */
  outputSchema?: Record<string, unknown>;
}

/** The description of `tools/list`: the route's, then what the tool does otherwise, then who may call it. */
export function describe(def: Pick<ToolDef, "rest" | "does" | "differs" | "auth">): string {
  const who = def.auth === "required" ? "Requires authentication." : "No authentication needed.";
  return `${def.does}\n\nMCP tool over ${def.rest}${def.differs ? `: ${def.differs}` : ""}. ${who}`;
}

const IdempotencyKey = Type.String({
  minLength: 1,
  maxLength: 255,
  description: "Optional: any unique string. Repeating the call with the same key (and the same arguments) within 24 hours answers the first result instead of doing it again; the Idempotency-Key header of the API, for the same account.",
});

export function compileTool(def: ToolDef): CompiledTool {
  if (def.idempotent) def = { ...def, args: Type.Object({ ...def.args.properties, idempotency_key: Type.Optional(IdempotencyKey) }) };
  const schema = publish(def.args) as { properties: Record<string, Record<string, unknown>>; required?: string[] };
  // Deprecated spellings are published next to their replacement, which is then not required
  // (either may be sent).
  for (const d of deprecationsOf("mcp_argument", def.name)) {
    const current = schema.properties[d.new];
    if (!current) throw new Error(`${def.name}: deprecated argument ${d.old} names no argument ${d.new}`);
    schema.properties[d.old] = { ...current, deprecated: true, description: `Deprecated: use \`${d.new}\`, which means the same thing.`, "x-deprecated-alias-of": d.new };
    if (schema.required) schema.required = schema.required.filter((k) => k !== d.new);
  }
  if (schema.required && !schema.required.length) delete schema.required;
  const compiled: CompiledTool = { def, check: TypeCompiler.Compile(def.args), description: describe(def), inputSchema: schema };
  if (def.answer) {
    compiled.outputSchema = publishAnswer(def.answer);
    if (compiled.outputSchema.type !== "object") throw new Error(`${def.name}: an outputSchema must be an object`);
  }
  return compiled;
}

const text = (body: unknown) => (body === undefined ? "" : JSON.stringify(body));

/**
 * The result of a successful call from its answer's JSON text; a tool with an outputSchema also
 * gets the answer as structuredContent (MCP 2025-06-18), the text staying for older clients.
 */
function answered(tool: CompiledTool, json: string): CallToolResult {
  const result: CallToolResult = { content: [{ type: "text", text: json }] };
  if (tool.outputSchema) result.structuredContent = JSON.parse(json);
  return result;
}

/** The tool-error result of a refused call (an unexpected error is a 500, as on REST). */
export function errorResult(tool: string, err: unknown, ctx?: Ctx): CallToolResult {
  if (err instanceof FieldError) return validationResult([{ loc: ["arguments", ...err.loc.slice(1)], msg: err.message, type: err.type }]);
  let e: ApiError;
  if (err instanceof ApiError) e = err;
  else {
    ctx?.log.error("unhandled error", { mcp_tool: tool, error: String((err as Error)?.stack ?? err) });
    e = new ApiError(500, "INTERNAL_ERROR", "Internal server error");
  }
  const { code, deprecated } = mcpErrorCode(tool, e);
  const detail: Record<string, unknown> = { code, message: e.message, status: e.status, ...e.extra };
  if (deprecated) detail.deprecated_code = deprecated;
  return { content: [{ type: "text", text: text({ detail }) }], isError: true };
}

function validationResult(errors: { loc: (string | number)[]; msg: string; type: string }[]): CallToolResult {
  const first = errors[0];
  const message = first ? `${first.loc.slice(1).join(".") || "arguments"}: ${first.msg}` : "Invalid arguments";
  return { content: [{ type: "text", text: text({ detail: { code: "VALIDATION_ERROR", message, status: 422, errors } }) }], isError: true };
}

/** Resolves the caller of the HTTP request as the REST auth macro does (a bad token is a 401 either way). */
async function callerFor(ctx: Ctx, auth: RequestAuth): Promise<Caller | null> {
  return callerOf(ctx, auth.request);
}

/** Runs `tool` with `raw` arguments for the request `auth`; every refusal is a tool-error result. */
export async function callTool(ctx: Ctx, tool: CompiledTool, raw: Record<string, unknown> | undefined, auth: RequestAuth): Promise<CallToolResult> {
  const { def } = tool;
  let args: Record<string, unknown>;
  let renamed: string[];
  try {
    ({ args, renamed } = applyArgumentDeprecations(def.name, { ...(raw ?? {}) }));
  } catch (err) {
    return errorResult(def.name, err);
  }
  // As Elysia's normaliser: unknown arguments are dropped, defaults filled in, JSON numbers and
  // booleans sent as text converted; then the schema decides.
  args = Value.Default(def.args, Value.Convert(def.args, Value.Clean(def.args, args))) as Record<string, unknown>;
  if (!tool.check.Check(args)) {
    const errors = [...tool.check.Errors(args)].slice(0, 10).map((e) => ({
      loc: ["arguments", ...e.path.split("/").filter(Boolean)],
      msg: e.value === undefined ? "Field required" : e.message,
      type: e.value === undefined ? "missing" : "value_error",
    }));
    return validationResult(errors);
  }
  let charges: ReturnType<Ctx["limits"]["consume"]> = [];
  const key = typeof args.idempotency_key === "string" ? args.idempotency_key : undefined;
  delete args.idempotency_key;
  let claimed: { userId: string; key: string } | undefined;
  try {
    const caller = await callerFor(ctx, auth);
    if (def.auth === "required" && !caller) authenticate(ctx, null, () => auth.ip); // throws the 401
    if (key !== undefined && caller) {
      // The same store as the Idempotency-Key header; a tool call's fingerprint is its name and arguments.
      const c = claimKey(ctx, caller.id, key, sha256Hex(`MCP ${def.name}\n${canonical(args)}`));
      if (c.kind === "replay") return { ...answered(tool, c.body), _meta: { "colony/idempotent_replay": true } };
      if (c.kind !== "run") {
        const e = c.kind === "mismatch" ? IDEMPOTENCY_MISMATCH : c.kind === "in_progress" ? IDEMPOTENCY_IN_PROGRESS : IDEMPOTENCY_UNREADABLE;
        throw new ApiError(e.status, e.code, e.message);
      }
      claimed = { userId: caller.id, key };
    }
    const scope = scopeOfCall(def, args);
    if (auth.scopes && !auth.scopes.includes(scope)) {
      throw new ApiError(403, "AUTH_INSUFFICIENT_SCOPE", `This client was not granted the "${scope}" scope, which ${def.name} needs: sign in again and allow it on the consent page`, { required_scope: scope });
    }
    if (def.limits?.length) charges = ctx.limits.consume(def.limits, subjectOf(caller, auth.ip));
    const body = await def.run({ ctx, caller: caller as Caller, auth }, args);
    const json = text(body);
    const result = answered(tool, json);
    if (renamed.length) result._meta = { "colony/deprecated_arguments": renamed };
    if (claimed) saveKey(ctx, claimed.userId, claimed.key, { status: 200, contentType: "application/json", body: json });
    return result;
  } catch (err) {
    if (charges.length) ctx.limits.refund(charges);
    if (claimed) releaseKey(ctx, claimed.userId, claimed.key);
    return errorResult(def.name, err, ctx);
  }
}

/** JSON with object keys sorted, so that the same arguments in another order match. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v);
}
