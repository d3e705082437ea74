// The OAuth endpoints' own error answer (RFC 6749 §5.2): `{error, error_description}`, never cached.
export class OAuthError extends Error {
  constructor(
    public readonly status: number,
    public readonly error: string,
    public readonly description: string,
    public readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

export const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

export function oauthErrorResponse(err: OAuthError): Response {
  return new Response(JSON.stringify({ error: err.error, error_description: err.description }), {
    status: err.status,
    headers: { "content-type": "application/json", ...NO_STORE, ...err.headers },
  });
}
