// Parameters the spec sends in the body and the reference service in the query (invite username,
// is_admin, new creator, accept, receipts show, PATCH title/description): both are accepted.
import { ApiError, FieldError } from "../../../core/errors";

/** The value from the body or the query; both with different values is 400 INVALID_INPUT. */
export function either<T>(name: string, body: T | undefined, query: T | undefined): T | undefined {
  if (body !== undefined && query !== undefined && JSON.stringify(body) !== JSON.stringify(query)) {
    throw new ApiError(400, "INVALID_INPUT", `${name} was sent in both the body and the query with different values; send it once`);
  }
  return body !== undefined ? body : query;
}

/** As `either`, and the value is required (422 like any missing field). */
export function required<T>(name: string, body: T | undefined, query: T | undefined): T {
  const v = either(name, body, query);
  if (v === undefined || v === null) throw new FieldError(["body", name], `${name} is required`, null, "missing");
  return v;
}
