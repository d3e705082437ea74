// One error shape for the whole API: {"detail": {"code", "message", ...extra}} for handled
// errors, the HTTPValidationError body for validation failures (422), and no stack traces.
import { Elysia } from "elysia";
import { ApiError, FieldError } from "../core/errors";
import type { Ctx } from "../core/context";
import { requestIdOf } from "./trace";

interface ValidationItem {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

const JSON_HEADERS = { "content-type": "application/json" };

export function errorResponse(status: number, code: string, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ detail: { code, message, ...extra } }), { status, headers: { ...JSON_HEADERS, ...headers } });
}

export function validationResponse(items: ValidationItem[]): Response {
  return new Response(JSON.stringify({ detail: items }), { status: 422, headers: JSON_HEADERS });
}

export function apiErrorResponse(err: ApiError): Response {
  return errorResponse(err.status, err.code, err.message, err.extra, err.headers);
}

type Loc = (string | number)[];
type Described = Pick<ValidationItem, "msg" | "type" | "ctx">;

const LOCATION: Record<string, string> = { params: "path", headers: "header", query: "query", body: "body", cookie: "cookie" };

/**
 * Elysia's (TypeBox) validation error to FastAPI-style items: loc = [where, ...path], with the
 * pydantic `type` and message of the rule that failed (`missing`, `greater_than_equal`,
 * `int_parsing`, `enum` …) and only that rule's bound in `ctx`.
 */
function validationItems(error: any, context: Record<string, unknown>): ValidationItem[] {
  // Numbers and booleans in the query string, path and headers are decoded one property at a
  // time; a bound that fails there arrives as an error of type "property" without the field's
  // name, which is recovered from the request values.
  if (error.type === "property") return [propertyItem(error, context)];
  const where = LOCATION[error.type] ?? "body";
  let all: any[] = [];
  try {
    all = error.all ?? [];
  } catch {
    all = [];
  }
  if (!all.length) return [{ loc: [where], msg: String(error.message ?? "Invalid input").slice(0, 500), type: "value_error" }];
  const seen = new Set<string>();
  const items: ValidationItem[] = [];
  for (const e of all) {
    const loc: Loc = [where, ...pointer(e.path)];
    const key = JSON.stringify(loc);
    if (seen.has(key)) continue;
    seen.add(key);
    if (e.value === undefined) {
      items.push({ loc, msg: "Field required", type: "missing" });
      continue;
    }
    const d = describe(e.schema, e.value) ?? { msg: String(e.summary ?? e.message ?? "Invalid value").slice(0, 500), type: "value_error" };
    items.push({ loc, ...d, input: e.value });
  }
  return items;
}

const pointer = (path: unknown): (string | number)[] =>
  String(path ?? "")
    .split("/")
    .filter(Boolean)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));

function propertyItem(error: any, context: Record<string, unknown>): ValidationItem {
  const schema = error.validator?.schema ?? error.validator ?? {};
  const value = error.value;
  const found = locate(schema, value, context);
  if (found) {
    // Described from what the client sent: an empty or non-numeric string is a parsing error.
    const d = describe(schema, found.raw) ?? describe(schema, value);
    if (d) return { loc: found.loc, ...d, input: found.raw };
  }
  const d = describe(schema, value) ?? { msg: String(error.valueError?.message ?? "Invalid value").slice(0, 500), type: "value_error" };
  return { loc: found?.loc ?? ["query"], ...d, input: found?.raw ?? value };
}

/**
 * Finds the request value (path, then query, then body: Elysia's validation order) that Elysia
 * decoded to `value` and that fails `schema`.
 */
function locate(schema: any, value: unknown, context: Record<string, unknown>): { loc: Loc; raw: unknown } | null {
  const fails = (raw: unknown) => {
    const v = typeof raw === "string" && (schema?.type === "integer" || schema?.type === "number") ? +raw : raw;
    return (Object.is(v, value) || String(raw) === String(value)) && describe(schema, v) !== null;
  };
  const search = (obj: unknown, base: Loc, depth: number): { loc: Loc; raw: unknown } | null => {
    if (!obj || typeof obj !== "object" || depth > 8) return null;
    for (const [k, v] of Object.entries(obj as Record<string, unknown>)) {
      const loc = [...base, Array.isArray(obj) ? Number(k) : k];
      if (v !== null && typeof v === "object") {
        const inner = search(v, loc, depth + 1);
        if (inner) return inner;
      } else if (fails(v)) return { loc, raw: v };
    }
    return null;
  };
  return search(context.params, ["path"], 1) ?? search(context.query, ["query"], 1) ?? search(context.body, ["body"], 0);
}

const quote = (v: unknown) => (typeof v === "string" ? `'${v}'` : String(v));
const oneOf = (values: unknown[]) =>
  values.length <= 1 ? values.map(quote).join("") : `${values.slice(0, -1).map(quote).join(", ")} or ${quote(values[values.length - 1])}`;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * Why `value` fails `schema`, in pydantic's words, or null when it does not fail any rule this
 * function knows (the caller then keeps the validator's own message).
 */
function describe(schema: any, value: unknown): Described | null {
  if (!schema || typeof schema !== "object") return null;
  if (Array.isArray(schema.anyOf)) return describeUnion(schema, value);
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return { msg: `Input should be ${oneOf(schema.enum)}`, type: "enum", ctx: { expected: oneOf(schema.enum) } };
  if (schema.const !== undefined && value !== schema.const) return { msg: `Input should be ${quote(schema.const)}`, type: "literal_error", ctx: { expected: quote(schema.const) } };
  switch (schema.type) {
    case "integer":
    case "number": {
      const int = schema.type === "integer";
      if (typeof value === "string") {
        const n = value.trim() === "" ? Number.NaN : Number(value);
        if (Number.isNaN(n)) {
          return int
            ? { msg: "Input should be a valid integer, unable to parse string as an integer", type: "int_parsing" }
            : { msg: "Input should be a valid number, unable to parse string as a number", type: "float_parsing" };
        }
        return describe(schema, n);
      }
      if (typeof value !== "number" || Number.isNaN(value)) return int ? { msg: "Input should be a valid integer", type: "int_type" } : { msg: "Input should be a valid number", type: "float_type" };
      if (int && !Number.isInteger(value)) return { msg: "Input should be a valid integer, got a number with a fractional part", type: "int_from_float" };
      if (!Number.isFinite(value)) return { msg: "Input should be a finite number", type: "finite_number" };
      if (schema.minimum !== undefined && value < schema.minimum) return { msg: `Input should be greater than or equal to ${schema.minimum}`, type: "greater_than_equal", ctx: { ge: schema.minimum } };
      if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) return { msg: `Input should be greater than ${schema.exclusiveMinimum}`, type: "greater_than", ctx: { gt: schema.exclusiveMinimum } };
      if (schema.maximum !== undefined && value > schema.maximum) return { msg: `Input should be less than or equal to ${schema.maximum}`, type: "less_than_equal", ctx: { le: schema.maximum } };
      if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum) return { msg: `Input should be less than ${schema.exclusiveMaximum}`, type: "less_than", ctx: { lt: schema.exclusiveMaximum } };
      if (schema.multipleOf !== undefined && value % schema.multipleOf !== 0) return { msg: `Input should be a multiple of ${schema.multipleOf}`, type: "multiple_of", ctx: { multiple_of: schema.multipleOf } };
      return null;
    }
    case "string": {
      if (typeof value !== "string") return { msg: "Input should be a valid string", type: "string_type" };
      const length = value.length;
      if (schema.minLength !== undefined && length < schema.minLength) return { msg: `String should have at least ${plural(schema.minLength, "character")}`, type: "string_too_short", ctx: { min_length: schema.minLength } };
      if (schema.maxLength !== undefined && length > schema.maxLength) return { msg: `String should have at most ${plural(schema.maxLength, "character")}`, type: "string_too_long", ctx: { max_length: schema.maxLength } };
      if (schema.pattern !== undefined && !safeTest(schema.pattern, value)) return { msg: `String should match pattern '${schema.pattern}'`, type: "string_pattern_mismatch", ctx: { pattern: schema.pattern } };
      return null;
    }
    case "boolean":
      if (typeof value === "boolean" || value === "true" || value === "false") return null;
      return typeof value === "string" ? { msg: "Input should be a valid boolean, unable to interpret input", type: "bool_parsing" } : { msg: "Input should be a valid boolean", type: "bool_type" };
    case "null":
      return value === null ? null : { msg: "Input should be None", type: "none_required" };
    case "array": {
      if (!Array.isArray(value)) return { msg: "Input should be a valid list", type: "list_type" };
      if (schema.minItems !== undefined && value.length < schema.minItems) return { msg: `List should have at least ${plural(schema.minItems, "item")} after validation, not ${value.length}`, type: "too_short", ctx: { field_type: "List", min_length: schema.minItems, actual_length: value.length } };
      if (schema.maxItems !== undefined && value.length > schema.maxItems) return { msg: `List should have at most ${plural(schema.maxItems, "item")} after validation, not ${value.length}`, type: "too_long", ctx: { field_type: "List", max_length: schema.maxItems, actual_length: value.length } };
      return null;
    }
    case "object":
      return value !== null && typeof value === "object" && !Array.isArray(value) ? null : { msg: "Input should be a valid dictionary or object to extract fields from", type: "model_attributes_type" };
  }
  return null;
}

/** Unions: Elysia's numeric and boolean string coercions, nullable fields and literal unions. */
function describeUnion(schema: any, value: unknown): Described | null {
  const branches: any[] = schema.anyOf;
  const numeric = branches.find((b) => b?.type === "integer" || b?.type === "number");
  const numericString = branches.some((b) => b?.type === "string" && (b.format === "integer" || b.format === "numeric"));
  // describe() parses a string the way Elysia decodes it.
  if (numeric && numericString) return describe(numeric, value);
  const boolean = branches.find((b) => b?.type === "boolean");
  if (boolean && branches.some((b) => b?.type === "string" && b.format === "boolean")) {
    return typeof value === "boolean" ? null : { msg: "Input should be a valid boolean, unable to interpret input", type: "bool_parsing" };
  }
  const literals = branches.filter((b) => b?.const !== undefined).map((b) => b.const);
  if (literals.length && literals.length === branches.length) {
    return literals.includes(value) ? null : { msg: `Input should be ${oneOf(literals)}`, type: "enum", ctx: { expected: oneOf(literals) } };
  }
  const rest = branches.filter((b) => b?.type !== "null");
  if (value !== null && rest.length === 1 && rest.length < branches.length) return describe(rest[0], value);
  if (value === null && rest.length === branches.length) return { msg: "Input should not be None", type: "value_error" };
  // Otherwise the failure of the branch of the same JSON type, if only one has it.
  const jsonType = value === null ? "null" : Array.isArray(value) ? "array" : typeof value === "number" ? (Number.isInteger(value) ? "integer" : "number") : typeof value;
  const same = branches.filter((b) => b?.type === jsonType || (jsonType === "integer" && b?.type === "number"));
  return same.length === 1 ? describe(same[0], value) : null;
}

function safeTest(pattern: string, value: string): boolean {
  try {
    return new RegExp(pattern).test(value);
  } catch {
    return true;
  }
}

interface ErrorPages {
  /** The answer to a path nothing serves, when the client is a browser asking for a page. */
  notFound?: (request: Request) => Response | Promise<Response>;
}

/** Paths of machine interfaces: a miss there is always the JSON 404. */
const API_PATHS = /^\/(api|oauth|\.well-known|mcp)(\/|$)/;

/** A browser navigating: GET or HEAD asking for HTML, outside the machine interfaces. */
function wantsPage(request: Request): boolean {
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  if (!(request.headers.get("accept") ?? "").includes("text/html")) return false;
  return !API_PATHS.test(new URL(request.url).pathname);
}

/** The one error mapper, applied globally; `pages` renders what a browser is shown instead of JSON. */
export const errorHandling = (ctx: Ctx, pages: ErrorPages = {}) =>
  new Elysia({ name: "colony.errors" })
    .error({ ApiError, FieldError })
    // Destructured on purpose: Elysia reads a hook's parameter list to decide what every route
    // must prepare, and taking the whole context would make each route parse headers and cookies.
    .onError({ as: "global" }, ({ code, error, request, params, query, body }) => {
      if (error instanceof ApiError) return apiErrorResponse(error);
      if (error instanceof FieldError) return validationResponse([{ loc: error.loc, msg: error.message, type: error.type, input: error.input }]);
      switch (code) {
        case "VALIDATION":
          return validationResponse(validationItems(error, { params, query, body }));
        case "NOT_FOUND":
          if (pages.notFound && wantsPage(request)) return pages.notFound(request);
          return errorResponse(404, "NOT_FOUND", "Not found");
        case "PARSE":
          return validationResponse([{ loc: ["body", 0], msg: "JSON decode error: the body is not valid JSON", type: "json_invalid" }]);
        case "INVALID_COOKIE_SIGNATURE":
        case "INVALID_FILE_TYPE":
          return errorResponse(400, "INVALID_INPUT", String((error as Error).message ?? "Invalid input"));
      }
      const status = (error as any)?.status;
      if (typeof status === "number" && status >= 400 && status < 500) {
        return errorResponse(status, status === 413 ? "PAYLOAD_TOO_LARGE" : "INVALID_INPUT", String((error as Error).message ?? "Bad request"));
      }
      ctx.log.error("unhandled error", { method: request.method, url: request.url, request_id: requestIdOf(request), error: String((error as any)?.stack ?? error) });
      return errorResponse(500, "INTERNAL_ERROR", "Internal server error");
    });
