// The credential of an `Authorization: Bearer <token>` header (RFC 6750 §2.1; the scheme's name is
// case-insensitive, spaces around the token are allowed).

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const SPACE = /\s/;

/** The token of a bearer header, or null for a missing header or another scheme. */
export function bearerToken(header: string | null | undefined): string | null {
  if (!header) return null;
  // The form clients send, without the general pattern: its case-insensitive match over a long
  // access token costs several times this check, and every authenticated request makes it.
  if (header.startsWith("Bearer ")) {
    const token = header.slice(7);
    if (token !== "" && !SPACE.test(token)) return token;
  }
  return BEARER.exec(header)?.[1] ?? null;
}
