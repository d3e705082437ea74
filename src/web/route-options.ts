// What every web route declares besides its handler: pages and forms are not part of the API's
// OpenAPI document, and a form's body is read (and checked) by the sessions plugin
// (web/session.ts), not by Elysia's parser.
import { t } from "elysia";

export const PAGE = { detail: { hide: true } };
export const FORM = { parse: "none" as const, detail: { hide: true } };

/** A path naming something by id, or a person by username. */
export const ById = t.Object({ id: t.String() });
export const ByName = t.Object({ username: t.String() });
