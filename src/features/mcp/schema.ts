// Tool argument schemas from the REST routes' TypeBox schemas, so that a tool's limits (lengths,
// ranges, enums, page sizes) are its route's. Elysia's `t.Integer`, `t.Numeric` and
// `t.BooleanString` accept text (query strings arrive as text) through a string branch and a
// decode transform; tool arguments arrive as JSON, so `plain` keeps the JSON branch only, `arg`
// and its kin take a route's field as an argument, and `publish` turns a schema into the JSON
// Schema of `tools/list`.
import { Kind, OptionalKind, Type, type TObject, type TProperties, type TSchema } from "@sinclair/typebox";

const TEXT_FORMATS = new Set(["integer", "numeric", "boolean"]);
const isTextBranch = (s: TSchema) => s.type === "string" && TEXT_FORMATS.has(String(s.format));

/** `schema` with Elysia's text-accepting branches removed (recursively), optionality kept. */
export function plain<T extends TSchema>(schema: T): T {
  const optional = (schema as { [OptionalKind]?: string })[OptionalKind] === "Optional";
  let out: TSchema = schema;
  const kind = (schema as { [Kind]?: string })[Kind];
  if (kind === "Union" && Array.isArray(schema.anyOf)) {
    const branches = (schema.anyOf as TSchema[]).filter((b) => !isTextBranch(b));
    if (branches.length === 1) out = plain({ ...branches[0], ...(schema.description ? { description: schema.description } : {}) } as TSchema);
    else if (branches.length !== schema.anyOf.length || branches.some((b) => plain(b) !== b)) out = Type.Union(branches.map((b) => plain(b)), options(schema));
  } else if (kind === "Object" && schema.properties) {
    out = Type.Object(mapProps(schema.properties as TProperties, plain), options(schema));
  } else if (kind === "Array" && schema.items) {
    const items = plain(schema.items as TSchema);
    if (items !== schema.items) out = Type.Array(items, options(schema));
  }
  if (out === schema) return schema;
  return (optional ? Type.Optional(out) : out) as unknown as T;
}

/** The keywords of a schema other than its structure. */
function options(schema: TSchema): Record<string, unknown> {
  const { type: _t, properties: _p, required: _r, anyOf: _a, items: _i, ...rest } = schema as Record<string, unknown>;
  return rest;
}

function mapProps(props: TProperties, f: (s: TSchema) => TSchema): TProperties {
  const out: TProperties = {};
  for (const [k, v] of Object.entries(props)) out[k] = f(v);
  return out;
}

/** Some properties of an object schema, optionally with others added or replaced. */
export function pick<P extends TProperties, const K extends keyof P & string>(schema: TObject<P>, keys: readonly K[]): { [k in K]: P[k] } {
  const out = {} as { [k in K]: P[k] };
  for (const k of keys) out[k] = plain(schema.properties[k]);
  return out;
}

/** A property made optional (an alias can stand in for it), keeping its schema. */
export const optional = <T extends TSchema>(s: T) => ((s as { [OptionalKind]?: string })[OptionalKind] === "Optional" ? s : Type.Optional(s));

/** A property made required: the tool needs what its route can do without. */
function required<T extends TSchema>(s: T): T {
  const { [OptionalKind]: _, ...rest } = s as T & { [OptionalKind]?: string };
  return rest as T;
}

/** What a tool says of an argument beyond its route's field: its own wording, the default it documents. */
interface ArgOptions {
  description?: string;
  default?: unknown;
}

/**
 * A route's field as a tool argument: its JSON branch with every limit of the route, optional as
 * it is there; `options` replace the description (worded for the tool) or the default (where the
 * tool's differs, docs/decisions.md §50).
 */
export function arg<T extends TSchema>(field: T, options: ArgOptions = {}): T {
  const out = { ...plain(field) } as Record<string | symbol, unknown>;
  for (const [k, v] of Object.entries(options)) if (v !== undefined) out[k] = v;
  return out as T;
}

/**
 * A path parameter as a tool argument: a path segment is never empty, so an argument without a
 * format or a minimum length gets minLength 1.
 */
export function pathArg<T extends TSchema>(field: T, options: ArgOptions = {}): T {
  const bounded = field.format !== undefined || field.minLength !== undefined ? field : ({ ...field, minLength: 1 } as unknown as T);
  return arg(bounded, options);
}

/** A text field the tool always needs (at least one character, no default), where its route may leave it out. */
export function requiredText<T extends TSchema>(field: T, options: ArgOptions = {}): T {
  const { default: _, ...rest } = arg(field, options) as TSchema;
  return required({ ...rest, minLength: Math.max(1, field.minLength ?? 0) } as unknown as T);
}

/** "min-max" of a field: its range, or its lengths for text. */
export const range = (s: TSchema): string => (s.minimum !== undefined ? `${s.minimum}-${s.maximum}` : `${s.minLength ?? 0}-${s.maxLength}`);

/** A route's `limit` (http/paging.ts) as an argument, its range and default stated in its description. */
export function limitArg<T extends TSchema>(field: T, dflt?: number): T {
  const d = dflt ?? (field.default as number);
  return arg(field, { default: d, description: `Maximum results to return (${range(field)}, default ${d})` });
}

/** The page sizes a `limit` argument allows, for resolvePage. */
export const pagingOf = (limit: TSchema): { max: number; default: number } => ({ max: limit.maximum as number, default: limit.default as number });

/**
 * The JSON Schema sent in `tools/list`: the schema's JSON keywords (symbols dropped), a union of
 * literals written as an `enum`, and properties with a default left out of `required`.
 */
export function publish(schema: TSchema): Record<string, unknown> {
  return tidy(JSON.parse(JSON.stringify(schema)));
}

type Json = Record<string, unknown>;

function tidy(s: Json): Json {
  if (Array.isArray(s.anyOf) && s.anyOf.length && (s.anyOf as Json[]).every((b) => "const" in b && typeof b.const === typeof (s.anyOf as Json[])[0].const)) {
    const { anyOf, ...rest } = s;
    const values = (anyOf as Json[]).map((b) => b.const);
    return { type: typeof values[0] === "number" ? (values.every(Number.isInteger) ? "integer" : "number") : "string", enum: values, ...rest };
  }
  const out: Json = { ...s };
  if (out.properties) out.properties = Object.fromEntries(Object.entries(out.properties as Record<string, Json>).map(([k, v]) => [k, tidy(v)]));
  if (out.items && typeof out.items === "object") out.items = tidy(out.items as Json);
  if (Array.isArray(out.anyOf)) out.anyOf = (out.anyOf as Json[]).map(tidy);
  if (Array.isArray(out.required)) {
    const props = (out.properties ?? {}) as Record<string, Json>;
    out.required = (out.required as string[]).filter((k) => props[k]?.default === undefined);
    if (!(out.required as string[]).length) delete out.required;
  }
  return out;
}

/**
 * The JSON Schema of a tool's answer, its `outputSchema` in `tools/list`: as `publish`, with every
 * object left open to fields it does not declare (Elysia marks a route's response schemas
 * additionalProperties: false once it compiles them, and cleans the REST answer to them; nothing
 * cleans a tool's answer), and a union of objects published as an object.
 */
export function publishAnswer(schema: TSchema): Record<string, unknown> {
  const out = open(publish(schema)) as Json;
  if (out.type === undefined && Array.isArray(out.anyOf) && (out.anyOf as Json[]).every((b) => b.type === "object")) out.type = "object";
  return out;
}

/** `s` without any `additionalProperties: false`, at any depth. */
function open(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(open);
  if (!s || typeof s !== "object") return s;
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) if (!(k === "additionalProperties" && v === false)) out[k] = open(v);
  return out;
}
