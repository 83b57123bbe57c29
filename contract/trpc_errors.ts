/**
 * Mapping between our `ApiError` and tRPC's errors, in both directions.
 */
import { TRPCError } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import { ApiError, type ErrorCode } from "./errors.ts";
import { validation_error } from "./validation.ts";
import type { z } from "zod";

const TRPC_CODE_FOR_STATUS: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_SUPPORTED",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  422: "UNPROCESSABLE_CONTENT",
  429: "TOO_MANY_REQUESTS",
  500: "INTERNAL_SERVER_ERROR",
  503: "SERVICE_UNAVAILABLE",
};

const CODE_FOR_TRPC: Partial<Record<TRPC_ERROR_CODE_KEY, [ErrorCode, string]>> =
  {
    PARSE_ERROR: ["invalid_request", "The request body is not valid JSON"],
    PAYLOAD_TOO_LARGE: ["payload_too_large", "The request body is too large"],
    NOT_FOUND: ["not_found", "No such endpoint"],
    METHOD_NOT_SUPPORTED: ["method_not_allowed", "Method not allowed here"],
    UNSUPPORTED_MEDIA_TYPE: [
      "unsupported_media_type",
      "Content-Type must be application/json",
    ],
    UNAUTHORIZED: ["unauthorized", "Authentication required"],
    FORBIDDEN: ["forbidden", "Forbidden"],
    TOO_MANY_REQUESTS: ["rate_limited", "Too many requests"],
  };

/** Wraps an `ApiError` in a `TRPCError` whose code gives the same HTTP status. */
export function to_trpc_error(error: ApiError): TRPCError {
  return new TRPCError({
    code: TRPC_CODE_FOR_STATUS[error.status] ?? "INTERNAL_SERVER_ERROR",
    message: error.message,
    cause: error,
  });
}

function find_api_error(error: unknown): ApiError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    if (current instanceof ApiError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function find_issues(error: unknown): z.core.$ZodIssue[] | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    const issues = (current as { issues?: unknown }).issues;
    if (Array.isArray(issues)) return issues as z.core.$ZodIssue[];
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Turns anything thrown by a procedure into an `ApiError`. Unexpected faults
 * become `internal` without leaking their message.
 */
export function to_api_error(error: unknown): ApiError {
  const api_error = find_api_error(error);
  if (api_error) return api_error;
  if (error instanceof TRPCError) {
    if (error.code === "BAD_REQUEST") {
      const issues = find_issues(error);
      if (issues) return validation_error(issues);
      return new ApiError("invalid_request", error.message);
    }
    const mapped = CODE_FOR_TRPC[error.code];
    if (mapped) return new ApiError(mapped[0], mapped[1], { cause: error });
  }
  return new ApiError("internal", "Internal error; safe to retry", {
    cause: error,
  });
}
