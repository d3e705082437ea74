// Body shape guard. The app uses Elysia's fast "exactMirror" normaliser (unknown fields dropped,
// responses cleaned cheaply), which reshapes the body before validating it: a string or an array
// sent where the schema wants an object would come out as an object of its characters or items
// and pass. This guard runs in the transform hook, before the normaliser, and answers 422 when a
// value that must be an object (or an array) is not one, anywhere in the body.
import { Elysia, type TSchema } from "elysia";
import { FieldError } from "../core/errors";

const Kind = Symbol.for("TypeBox.Kind");
type Loc = (string | number)[];

const isPlainObject = (v: unknown) => v !== null && typeof v === "object" && !Array.isArray(v);

/** The first place in `value` whose JSON type contradicts `schema`'s object/array shape. */
export function shapeProblem(schema: TSchema | undefined, value: unknown, loc: Loc): { loc: Loc; msg: string; type: string } | null {
  if (!schema || value === undefined) return null;
  const kind = (schema as unknown as Record<symbol, unknown>)[Kind];
  if (kind === "Union" && Array.isArray(schema.anyOf)) {
    const options = schema.anyOf as TSchema[];
    if (value === null && options.some((o) => o.type === "null")) return null;
    const structural = options.filter((o) => o.type === "object" || o.type === "array");
    // Only unions whose every non-null member has one shape are checked here.
    if (structural.length && structural.length === options.filter((o) => o.type !== "null").length) {
      const problems = structural.map((o) => shapeProblem(o, value, loc));
      return problems.some((p) => p === null) ? null : problems[0];
    }
    return null;
  }
  if (schema.type === "object") {
    if (!isPlainObject(value)) return { loc, msg: "Input should be a valid dictionary", type: "dict_type" };
    const props = (schema.properties ?? {}) as Record<string, TSchema>;
    for (const [key, sub] of Object.entries(props)) {
      const p = shapeProblem(sub, (value as Record<string, unknown>)[key], [...loc, key]);
      if (p) return p;
    }
    return null;
  }
  if (schema.type === "array") {
    if (!Array.isArray(value)) return { loc, msg: "Input should be a valid list", type: "list_type" };
    const items = schema.items as TSchema | undefined;
    for (let i = 0; i < value.length; i++) {
      const p = shapeProblem(items, value[i], [...loc, i]);
      if (p) return p;
    }
  }
  return null;
}

/**
 * The guard as a global transform. `bodies` maps "METHOD path" to the body schema of each route
 * that has one; createApp fills it once every route is registered.
 */
export function bodyShapePlugin(bodies: Map<string, TSchema>) {
  return new Elysia({ name: "colony.body-shape" }).onTransform({ as: "global" }, ({ request, route, body }) => {
    if (body === undefined || !route) return;
    const schema = bodies.get(request.method + " " + route);
    if (!schema) return;
    const problem = shapeProblem(schema, body, ["body"]);
    if (problem) throw new FieldError(problem.loc, problem.msg, undefined, problem.type);
  });
}

/** Collects the body schemas of an app's routes (objects and arrays only: the rest cannot be mangled). */
export function collectBodySchemas(routes: readonly { method: string; path: string; hooks?: { body?: unknown } }[], into: Map<string, TSchema>): void {
  for (const r of routes) {
    const body = r.hooks?.body as TSchema | undefined;
    if (body && typeof body === "object" && (body.type === "object" || body.type === "array" || body.anyOf)) into.set(`${r.method} ${r.path}`, body);
  }
}
