// Paged lists over HTTP: the query parameters of a paged endpoint, the envelope's schema, and the
// bare-array variant whose paging facts go to X-Total-Count and X-Has-More headers where the spec
// says so. The rules themselves (core/paging.ts) are re-exported for the routes.
import { t, type TSchema } from "elysia";
import { type Page, type PagingSpec, MAX_OFFSET } from "../core/paging";
import { Int, IntInput } from "./schemas";

export { MAX_OFFSET, paged, resolvePage, type Page, type PagingSpec } from "../core/paging";

const pagingFields = (spec: PagingSpec) => ({
  limit: t.Optional(IntInput({ minimum: 1, maximum: spec.max, default: spec.default, description: `1-${spec.max}, default ${spec.default}` })),
  offset: t.Optional(IntInput({ minimum: 0, maximum: MAX_OFFSET, description: `0-${MAX_OFFSET}` })),
  page: t.Optional(IntInput({ minimum: 1, description: "1-indexed; equals offset = (page-1)*limit" })),
});
/** One set of fields per limit rule: Elysia compiles a checker for every `t.Integer` it makes, which added up at start. */
const pagingBySpec = new Map<string, ReturnType<typeof pagingFields>>();

/** The query fields of a paged endpoint, to spread into its `query` schema (shared by the endpoints with the same limits). */
export function pagingQuery(spec: PagingSpec) {
  const key = `${spec.max} ${spec.default}`;
  let fields = pagingBySpec.get(key);
  if (!fields) pagingBySpec.set(key, (fields = pagingFields(spec)));
  return fields;
}

/** Bare-array variant: the array is the body, the paging facts go to headers. */
export function bareList<T>(set: { headers: Record<string, string | number> }, items: T[], total: number, page: Page): T[] {
  set.headers["X-Total-Count"] = String(total);
  set.headers["X-Has-More"] = String(page.offset + items.length < total);
  return items;
}

/** Response schema of a paged envelope around `item`. */
export const pagedSchema = <T extends TSchema>(item: T) =>
  t.Object({ items: t.Array(item), total: Int(), has_more: t.Boolean(), page: t.Optional(Int()) });
