// Schema helpers shared by every feature's routes.
import { Type, type IntegerOptions, type SchemaOptions, type TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { t, ValidationError } from "elysia";

/**
 * An optional enumerated parameter. `t.UnionEnum` on its own defaults to its first value, and
 * Elysia fills defaults in for absent optional fields, so an unsent filter would silently bind;
 * this keeps "not sent" as undefined.
 */
export const OptionalEnum = <const T extends readonly [string, ...string[]]>(values: T, opts: { description?: string } = {}) =>
  t.Optional(t.UnionEnum(values as unknown as T & string[], { default: undefined, ...opts }));

/** An id on the wire. */
export const Uuid = t.String({ format: "uuid" });
/** An instant on the wire (ISO 8601, UTC). */
export const DateTime = t.String({ format: "date-time" });

/** The reference service's handled-error body. */
export const ErrorOut = t.Object({ detail: t.Object({ code: t.String(), message: t.String() }) });

/**
 * An integer in a RESPONSE schema. Elysia's `t.Integer` is a string-or-integer union with a
 * decode transform (right for query and path parameters, which arrive as text); in a response it
 * makes every validation walk the whole body through TypeBox's transform encoder and documents
 * the field as `anyOf [string, integer]`. Responses use TypeBox's plain integer instead.
 */
export const Int = Type.Integer;

/**
 * An integer a client sends (query, path or body): Elysia's `t.Integer`, a whole number or its
 * digits as text, with its range checker compiled on the first value it checks instead of when
 * the schema is made. `t.Integer` compiles one as it is called, and the routes' 50-odd integer
 * fields made that a measurable part of start-up. The schema, the decoding and the error are
 * Elysia's own.
 */
export function IntInput(options?: IntegerOptions) {
  const schema = Type.Integer(options);
  let checker: TypeCheck<typeof schema> | undefined;
  return t
    .Transform(t.Union([t.String({ format: "integer", default: 0 }), Type.Integer(options)], options))
    .Decode((value) => {
      const number = +value;
      checker ??= TypeCompiler.Compile(schema);
      // As Elysia's own: the errors go where its `compile` helper puts them.
      if (!checker.Check(number)) throw new ValidationError("property", schema, number, checker.Errors(number) as never);
      return number;
    })
    .Encode((value) => value);
}

/**
 * A value or null. Elysia's `t.Nullable` also writes OpenAPI 3.0's `nullable: true` into the
 * schema, which is not a keyword of OpenAPI 3.1 (the document is 3.1); this is the same union
 * without it, documented as `type: [T, "null"]` (or an `anyOf` with `{type: "null"}`).
 */
export const Nullable = <T extends TSchema>(schema: T, options: SchemaOptions = {}) => t.Union([schema, t.Null()], options);
