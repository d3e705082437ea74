// JSON answers serialised by the route itself. Elysia cleans every object a handler returns
// against the route's response schema (an exact copy of the whole answer) and then checks it: on
// a page of 20 posts with their authors that is two walks of a few thousand values on every
// answer. A hot read route whose view builds exactly its schema's
// shape may answer through `jsonAnswer` instead: the schema stays declared on the route (the
// OpenAPI document, the types), the compiler holds the body to the schema's static type, and the
// route's tests check every answer at run time with `expectAnswer` (test/harness.ts).
import type { Static, TSchema } from "@sinclair/typebox";

/** `body` as the route's answer (200 unless `status`), as Elysia would send it (application/json, UTF-8). */
export function jsonAnswer<S extends TSchema>(_schema: S, body: Static<S>, status = 200): Response {
  return Response.json(body, { status });
}
