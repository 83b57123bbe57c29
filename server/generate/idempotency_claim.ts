/**
 * The claim-idempotency stage: an `Idempotency-Key` is claimed for the
 * request (only hashes of the key and of the request are stored), found
 * done (its request is answered again, uncharged), still running (409) or
 * used with another request (422). A claim is marked done once the answer
 * was delivered and given back otherwise; a claim never marked done only
 * makes a retry wait (409) until its lease ends.
 *
 * @module
 */
import { ApiError } from "../../contract/mod.ts";
import { sha256_hex } from "./request_hash.ts";
import * as store from "../../db/mod.ts";
import type {
  Authenticated,
  GenerateRequest,
  IdempotencyClaim,
} from "./pipeline.ts";

/** How long an `Idempotency-Key` is remembered. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

const NO_CLAIM: IdempotencyClaim = {
  replay: false,
  release: () => Promise.resolve(),
  settlement: { delivered: [], undelivered: [] },
};

/** Claims the request's `Idempotency-Key`, if it sent one (see the module). */
export async function claim_idempotency(
  database: store.Database,
  request: GenerateRequest,
  key: Authenticated,
  options: { reservation_ttl_ms: number },
): Promise<IdempotencyClaim> {
  if (request.idempotency_key === undefined) return NO_CLAIM;
  const { at } = request;
  const mode = key.principal.key_mode ?? "live";
  const idempotency = {
    account_id: key.principal.account.id,
    key_hash: sha256_hex(request.idempotency_key),
    request_hash: sha256_hex(
      JSON.stringify([mode, request.format, request.invoice]),
    ),
  };
  const claim = await store.claim_idempotency_key(database, {
    ...idempotency,
    now: at,
    expired_before: new Date(at.getTime() - IDEMPOTENCY_KEY_TTL_MS),
    abandoned_before: new Date(at.getTime() - options.reservation_ttl_ms),
  });
  if (claim.status === "reused") {
    throw new ApiError(
      "idempotency_key_reused",
      "This Idempotency-Key was already used with a different request body; " +
        "use a new key for a new request",
    );
  }
  if (claim.status === "in_progress") {
    throw new ApiError(
      "idempotency_in_progress",
      "The first request with this Idempotency-Key is still running; retry in a moment",
      { headers: { "Retry-After": "1" } },
    );
  }
  if (claim.status === "replay") return { ...NO_CLAIM, replay: true };
  const release = () => store.release_idempotency_key(database, idempotency);
  return {
    replay: false,
    release,
    settlement: {
      delivered: [() => store.complete_idempotency_key(database, idempotency)],
      undelivered: [release],
    },
  };
}
