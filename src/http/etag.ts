// Conditional GETs: whether an If-None-Match header names the current ETag.

/** Whether an If-None-Match header names `etag` (weak comparison, RFC 9110 §13.1.2; `*` matches). */
export function noneMatch(header: string | null, etag: string): boolean {
  if (!header) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  const mine = opaque(etag);
  return header.split(",").some((tag) => tag.trim() === "*" || opaque(tag) === mine);
}
