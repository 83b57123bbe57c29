/**
 * The one error shape of the service and its stable error codes.
 *
 * Every non-2xx answer of the HTTP faces is
 * `{"error": {"code", "message", "details"?}}`.
 */
import { z } from "zod";

/** Stable error codes and the HTTP status each one answers with. */
export const ERROR_STATUS = {
  invalid_request: 400,
  logo_too_large: 400,
  json_too_deep: 400,
  unauthorized: 401,
  forbidden: 403,
  key_revoked: 403,
  subscription_inactive: 403,
  quota_exceeded: 403,
  test_limit_reached: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  idempotency_in_progress: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

/** A stable, machine-readable error code. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** All error codes, for schemas and documentation. */
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [
  ErrorCode,
  ...ErrorCode[],
];

/** One problem with a request field, e.g. `items[2].amount`. */
export interface ErrorDetail {
  path: string;
  message: string;
}

/** JSON body of every error answer. */
export interface ErrorBody {
  error: {
    code: ErrorCode;
    message: string;
    details?: ErrorDetail[];
  };
}

/** Schema of the error body, for the OpenAPI document. */
export const ErrorBodySchema = z.object({
  error: z.object({
    code: z.enum(ERROR_CODES).describe("Stable machine-readable error code."),
    message: z.string().describe("What is wrong, in plain words."),
    details: z.array(z.object({
      path: z.string().describe("Field path, e.g. `items[2].amount`."),
      message: z.string(),
    })).optional().describe("Per-field problems, for invalid_request."),
  }),
}).meta({ id: "Error" });

/** Options of an {@link ApiError}. */
export interface ApiErrorOptions {
  details?: ErrorDetail[];
  /** Extra response headers, e.g. `Retry-After`. */
  headers?: Record<string, string>;
  cause?: unknown;
}

/** An expected failure with a stable code; the HTTP layer turns it into the error body. */
export class ApiError extends Error {
  /** Stable error code. */
  readonly code: ErrorCode;
  /** HTTP status derived from the code. */
  readonly status: number;
  /** Per-field problems. */
  readonly details?: ErrorDetail[];
  /** Extra response headers. */
  readonly headers: Record<string, string>;

  /**
   * Creates an error with a code and a message that says what is wrong. It
   * carries no stack trace: it is an answer, not a fault (a fault keeps its
   * own as the `cause`), and tRPC copies the stack of what a procedure
   * throws, which formats it: about 0.1 ms for every refused request.
   */
  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message, { cause: options.cause });
    // Replaces the captured trace before anything formats it.
    Object.defineProperty(this, "stack", {
      value: `ApiError: ${message}`,
      writable: true,
      configurable: true,
    });
    this.name = "ApiError";
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  /** The JSON body for this error. */
  to_body(): ErrorBody {
    return error_body(this.code, this.message, this.details);
  }
}

/** Builds an error body. */
export function error_body(
  code: ErrorCode,
  message: string,
  details?: ErrorDetail[],
): ErrorBody {
  return details && details.length > 0
    ? { error: { code, message, details } }
    : { error: { code, message } };
}

/** Formats a field path like `["items", 2, "amount"]` as `items[2].amount`. */
export function format_path(path: readonly PropertyKey[]): string {
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else text += text === "" ? String(segment) : `.${String(segment)}`;
  }
  return text;
}
