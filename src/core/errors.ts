// Services throw ApiError; one mapper in http/errors.ts renders it as the reference error body
// {"detail": {"code", "message", ...extra}}.

export class ApiError extends Error {
  constructor(
    public readonly status: number,
    public readonly code: string,
    message: string,
    public readonly extra: Record<string, unknown> = {},
    public readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const notFound = (what = "Not found", code = "NOT_FOUND") => new ApiError(404, code, what);
export const forbidden = (message = "You do not have permission to do that", code = "FORBIDDEN") => new ApiError(403, code, message);
export const conflict = (message: string, code = "CONFLICT") => new ApiError(409, code, message);
export const invalid = (message: string, code = "INVALID_INPUT") => new ApiError(400, code, message);

/** A 422 raised by a service for a rule the schema cannot express, in the HTTPValidationError shape. */
export class FieldError extends Error {
  constructor(
    public readonly loc: (string | number)[],
    message: string,
    public readonly input?: unknown,
    public readonly type = "value_error",
  ) {
    super(message);
    this.name = "FieldError";
  }
}
