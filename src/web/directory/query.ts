// Reading a page's query: Elysia hands a repeated parameter over as an array; a page takes its
// first value, and nothing for anything that is not text.
export function firstOf(v: unknown): string {
  if (typeof v === "string") return v;
  if (Array.isArray(v) && typeof v[0] === "string") return v[0];
  return "";
}
