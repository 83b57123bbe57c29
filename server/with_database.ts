/**
 * Database calls as the API answers them: an outage becomes a 503
 * `unavailable` with a `Retry-After`, never a 500.
 *
 * @module
 */
import { ApiError } from "../contract/mod.ts";
import * as store from "../db/mod.ts";

const RETRY_AFTER_UNAVAILABLE_SECONDS = 5;

/** Runs a database operation; an outage becomes a 503 `unavailable`. */
export async function with_database<T>(
  operation: () => Promise<T>,
): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (store.is_database_unavailable(error)) {
      throw new ApiError(
        "unavailable",
        store.unavailable_public_message(error) ??
          "The service is temporarily unavailable; retry shortly",
        {
          headers: { "Retry-After": String(RETRY_AFTER_UNAVAILABLE_SECONDS) },
          cause: error,
        },
      );
    }
    throw error;
  }
}
