/**
 * An error the handler raises on purpose. The server turns it into `status`
 * with `body` as JSON, plus `headers`.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(`HTTP ${status}`);
    this.name = 'HttpError';
  }
}

/** FastAPI's `HTTPException(status, detail)`: body `{"detail": detail}`. */
export function detailError(status: number, detail: string, headers?: Record<string, string>): HttpError {
  return new HttpError(status, { detail }, headers);
}
