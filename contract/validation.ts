/**
 * Turns zod issues into the service's error details, with messages that say
 * what is wrong and where.
 */
import { z } from "zod";
import { ApiError, type ErrorDetail, format_path } from "./errors.ts";

function describe_value(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number" && !Number.isFinite(value)) {
    return String(value);
  }
  return `a ${typeof value}`;
}

// One global error map: the contract is the only user of zod in the process,
// and a required field must read "is required", not zod's type jargon.
z.config({
  customError(issue) {
    if (issue.code === "invalid_type") {
      if (issue.input === undefined) return "is required";
      return `must be ${
        issue.expected === "object" ? "an object" : `a ${issue.expected}`
      }, got ${describe_value(issue.input)}`;
    }
    return undefined;
  },
});

/** Converts zod issues into error details, one per field problem. */
export function issues_to_details(
  issues: readonly z.core.$ZodIssue[],
): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        details.push({
          path: format_path([...issue.path, key]),
          message: "is not a known field",
        });
      }
    } else if (issue.code === "invalid_union") {
      details.push({ path: format_path(issue.path), message: issue.message });
    } else {
      details.push({
        path: format_path(issue.path) || "(body)",
        message: issue.message,
      });
    }
  }
  return details;
}

/** The code of a 400 other than `invalid_request` that an issue asks for. */
function special_code(
  issues: readonly z.core.$ZodIssue[],
): "logo_too_large" | undefined {
  for (const issue of issues) {
    const params = (issue as { params?: { error_code?: unknown } }).params;
    if (params?.error_code === "logo_too_large") return "logo_too_large";
  }
  return undefined;
}

/**
 * Builds the 400 error for a set of zod issues: `invalid_request`, or the
 * code one of them names (`logo_too_large`), with every problem in
 * `details` either way.
 */
export function validation_error(
  issues: readonly z.core.$ZodIssue[],
): ApiError {
  const details = issues_to_details(issues);
  const first = details[0];
  const more = details.length > 1
    ? ` (and ${details.length - 1} more problem${
      details.length > 2 ? "s" : ""
    })`
    : "";
  const message = first
    ? `Invalid request: ${first.path} ${first.message}${more}`
    : "Invalid request";
  return new ApiError(special_code(issues) ?? "invalid_request", message, {
    details,
  });
}
