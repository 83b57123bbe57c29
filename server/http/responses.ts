/**
 * Answers of the HTTP layer: JSON bodies, and the one error shape every
 * failure answers with. An error answer carries its error code, for the
 * request log and the metrics.
 *
 * @module
 */
import { ApiError, to_api_error } from "../../contract/mod.ts";

/** An error answer: the error's JSON body, and its code for logs and metrics. */
export class ErrorResponse extends Response {
  /** The error code the body names. */
  readonly error_code: string;

  constructor(error: ApiError, headers: Headers) {
    super(JSON.stringify(error.to_body()), {
      status: error.status,
      headers,
    });
    this.error_code = error.code;
  }
}

/** The error code of an error answer; undefined for any other. */
export function error_code_of(response: Response): string | undefined {
  return response instanceof ErrorResponse ? response.error_code : undefined;
}

/** The answer to `error`, with `headers` and those the error asks for. */
export function error_response(error: ApiError, headers?: Headers): Response {
  const merged = new Headers(headers);
  for (const [name, value] of Object.entries(error.headers)) {
    merged.set(name, value);
  }
  merged.set("Content-Type", "application/json; charset=utf-8");
  merged.delete("Content-Disposition");
  return new ErrorResponse(error, merged);
}

/**
 * The response headers with those the thrown errors ask for (`Retry-After`
 * on every 429 and 503, `Allow`), as the REST face's answers carry them.
 */
export function with_error_headers(
  headers: Headers,
  errors: unknown[],
): Headers {
  if (errors.length === 0) return headers;
  const merged = new Headers(headers);
  for (const error of errors) {
    for (const [name, value] of Object.entries(to_api_error(error).headers)) {
      merged.set(name, value);
    }
  }
  return merged;
}

/** A JSON answer. */
export function json_response(
  body: unknown,
  init: { status?: number; headers?: Headers } = {},
): Response {
  const headers = new Headers(init.headers);
  headers.set("Content-Type", "application/json; charset=utf-8");
  return new Response(JSON.stringify(body), {
    status: init.status ?? 200,
    headers,
  });
}

/** `Content-Disposition` of a download named `file_name`. */
export function content_disposition(file_name: string): string {
  return `attachment; filename="${file_name}"; filename*=UTF-8''${
    encodeURIComponent(file_name)
  }`;
}

/** Logs an error that is the service's fault (a 500, not an outage). */
export function log_fault(error: unknown): void {
  const api_error = to_api_error(error);
  if (api_error.status >= 500 && api_error.code !== "unavailable") {
    console.error(
      "internal error:",
      (api_error.cause as Error)?.stack ?? api_error.cause,
    );
  }
}
