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

/** Builds the 400 `invalid_request` error for a set of zod issues. */
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
  return new ApiError("invalid_request", message, { details });
}
