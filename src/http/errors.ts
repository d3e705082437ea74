// One error shape for the whole API: {"detail": {"code", "message", ...extra}} for handled
// errors, the HTTPValidationError body for validation failures (422), and no stack traces.
import { Elysia } from "elysia";
import { ApiError, FieldError } from "../core/errors";
import type { Ctx } from "../core/context";

export interface ValidationItem {
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

/** Elysia's (TypeBox) validation error to FastAPI-style items: loc = [where, ...path]. */
function validationItems(error: any): ValidationItem[] {
  const where: string = error.type === "params" ? "path" : error.type === "headers" ? "header" : (error.type ?? "body");
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
    const path = String(e.path ?? "")
      .split("/")
      .filter(Boolean)
      .map((p: string) => (/^\d+$/.test(p) ? Number(p) : p));
    const loc = [where, ...path];
    const key = loc.join(".");
    if (seen.has(key)) continue;
    seen.add(key);
    const missing = e.value === undefined;
    const item: ValidationItem = missing
      ? { loc, msg: "Field required", type: "missing" }
      : { loc, msg: String(e.summary ?? e.message ?? "Invalid value"), type: typeOf(e), input: e.value };
    const c = constraints(e.schema);
    if (c && !missing) item.ctx = c;
    items.push(item);
  }
  return items;
}

function typeOf(e: any): string {
  const s = e.schema ?? {};
  const msg = String(e.message ?? "");
  if (/less or equal|greater or equal|less than|greater than/i.test(msg)) return /less/.test(msg) ? "less_than_equal" : "greater_than_equal";
  if (/length/i.test(msg)) return /less|at most|max/i.test(msg) ? "string_too_long" : "string_too_short";
  if (s.anyOf || s.enum || s.const !== undefined) return "enum";
  if (s.type === "integer") return "int_parsing";
  if (s.type === "number") return "float_parsing";
  if (s.type === "boolean") return "bool_parsing";
  if (s.type === "string") return "string_type";
  return "value_error";
}

function constraints(schema: any): Record<string, unknown> | undefined {
  if (!schema) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, name] of [["minimum", "ge"], ["maximum", "le"], ["minLength", "min_length"], ["maxLength", "max_length"], ["pattern", "pattern"]] as const) {
    if (schema[k] !== undefined) out[name] = schema[k];
  }
  return Object.keys(out).length ? out : undefined;
}

/** The one error mapper, applied globally. */
export const errorHandling = (ctx: Ctx) =>
  new Elysia({ name: "colony.errors" })
    .error({ ApiError, FieldError })
    .onError({ as: "global" }, ({ code, error, request }) => {
      if (error instanceof ApiError) return apiErrorResponse(error);
      if (error instanceof FieldError) return validationResponse([{ loc: error.loc, msg: error.message, type: error.type, input: error.input }]);
      switch (code) {
        case "VALIDATION":
          return validationResponse(validationItems(error));
        case "NOT_FOUND":
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
      ctx.log.error("unhandled error", { method: request.method, url: request.url, error: String((error as any)?.stack ?? error) });
      return errorResponse(500, "INTERNAL_ERROR", "Internal server error");
    });
