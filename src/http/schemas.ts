// Schema helpers shared by every feature's routes.
import { t } from "elysia";

/**
 * An optional enumerated parameter. `t.UnionEnum` on its own defaults to its first value, and
 * Elysia fills defaults in for absent optional fields, so an unsent filter would silently bind;
 * this keeps "not sent" as undefined.
 */
export const OptionalEnum = <const T extends readonly [string, ...string[]]>(values: T, opts: { description?: string } = {}) =>
  t.Optional(t.UnionEnum(values as unknown as T & string[], { default: undefined, ...opts }));

/** The reference service's handled-error body. */
export const ErrorOut = t.Object({ detail: t.Object({ code: t.String(), message: t.String() }) });
