/**
 * The authenticate stage: an API key from the `Authorization` header,
 * checked by one statement (key, account, subscription, rate limit), with
 * the rate-limit headers set. A key that checked out is "warm" for
 * {@linkcode WARM_KEY_MS}: its next `/generate` is checked together with
 * the quota reservation, in the one statement of the reserve stage, and
 * may start its render before that statement answers. A key that fails a
 * check is forgotten.
 *
 * @module
 */
import {
  ApiError,
  type KeyMode,
  PLANS,
  type Principal,
  type ResponseSink,
  TEST_KEY_REQUESTS_PER_MINUTE,
} from "../../contract/mod.ts";
import * as store from "../../db/mod.ts";
import { type HintOptions, reactivate_hint } from "../services/hints.ts";
import { account_view } from "../views.ts";
import { sha256_hex } from "./request_hash.ts";

// How long a key that checked out stays warm.
const WARM_KEY_MS = 60_000;
// Bound on the warm keys remembered; past it, they are forgotten (their
// next request checks the key in its own statement again).
const WARM_KEYS_LIMIT = 10_000;

/** An API key from the `Authorization` header, with its SHA-256: parsed and hashed once per request. */
export interface BearerKey {
  key: string;
  key_hash: string;
}

/** A key that checked out lately: its account and mode, until when. */
export interface WarmKey {
  account_id: string;
  mode: KeyMode;
  until: number;
  /** Requests the rate limit still allowed after its last one. */
  rate_remaining: number;
}

/** The bearer token of an `Authorization` header, or the 401 its absence calls for. */
export function bearer_key(authorization: string | null): BearerKey {
  if (!authorization) {
    throw new ApiError(
      "unauthorized",
      "Missing Authorization header; send `Authorization: Bearer <API key>`",
    );
  }
  const match = /^Bearer +(\S+) *$/i.exec(authorization);
  if (!match) {
    throw new ApiError(
      "unauthorized",
      "Authorization header must use the Bearer scheme: `Bearer <API key>`",
    );
  }
  const key = match[1];
  return { key, key_hash: sha256_hex(key) };
}

/** Sets the rate-limit headers; throws the 429 when the request is over the limit. */
function apply_rate_limit(
  result: Extract<store.AuthenticateResult, { status: "ok" }>,
  response: ResponseSink,
  at: Date,
): number {
  const { rate } = result;
  const remaining = store.sliding_window_remaining(rate, at);
  // Seconds until one more request than `remaining` fits: on a 429, the
  // true wait, so RateLimit-Reset and Retry-After agree.
  const reset_seconds = Math.max(
    1,
    Math.ceil(
      store.sliding_window_wait_ms(rate, {
        now: at,
        needed: Math.min(remaining + 1, rate.limit),
      }) / 1000,
    ),
  );
  response.headers.set("RateLimit-Limit", String(rate.limit));
  response.headers.set("RateLimit-Remaining", String(remaining));
  response.headers.set("RateLimit-Reset", String(reset_seconds));
  if (!result.rate_allowed) {
    throw new ApiError(
      "rate_limited",
      `Rate limit of ${rate.limit} requests per minute reached; retry in ${reset_seconds} seconds`,
      { headers: { "Retry-After": String(reset_seconds) } },
    );
  }
  return remaining;
}

/** The authenticate stage (see the module). */
export class KeyCheck {
  readonly #warm = new Map<string, WarmKey>();
  readonly #rate_limits: store.RateLimits;
  readonly #test_rate_limit: number;

  constructor(
    private readonly database: store.Database,
    private readonly options: {
      now: () => Date;
      hint_options: HintOptions;
      /** Requests a minute for every key (default: each plan's own). */
      rate_limit_per_minute?: number;
    },
  ) {
    this.#rate_limits = Object.fromEntries(
      Object.entries(PLANS).map((
        [plan, limits],
      ) => [plan, options.rate_limit_per_minute ?? limits.requests_per_minute]),
    ) as store.RateLimits;
    this.#test_rate_limit = options.rate_limit_per_minute ??
      TEST_KEY_REQUESTS_PER_MINUTE;
  }

  /** The key statement's input for `key` at `at`. */
  input(key: string, at: Date): store.AuthenticateInput {
    return {
      key,
      now: at,
      rate_limits: this.#rate_limits,
      test_rate_limit: this.#test_rate_limit,
    };
  }

  /** The key, if it checked out lately. */
  warm(bearer: BearerKey): WarmKey | undefined {
    const warm = this.#warm.get(bearer.key_hash);
    return warm && warm.until > this.options.now().getTime() ? warm : undefined;
  }

  /** Checks the key in its own statement. */
  async authenticate(
    bearer: BearerKey,
    response: ResponseSink,
    at: Date = this.options.now(),
  ): Promise<Principal> {
    const result = await store.authenticate_api_key(
      this.database,
      this.input(bearer.key, at),
    );
    return this.principal_of(result, response, { at, bearer });
  }

  /**
   * The key statement's answer: the principal, with the rate-limit headers
   * set; or the 401, 403 or 429 it calls for. A key that checks out is
   * remembered as warm, any other forgotten.
   */
  principal_of(
    result: store.AuthenticateResult,
    response: ResponseSink,
    state: { at: Date; bearer: BearerKey },
  ): Principal {
    const { at, bearer } = state;
    this.#warm.delete(bearer.key_hash);
    if (result.status === "unknown") {
      throw new ApiError("unauthorized", "Unknown API key");
    }
    response.account_id = result.status === "revoked"
      ? result.account_id
      : result.account.id;
    if (result.status === "revoked") {
      throw new ApiError(
        "key_revoked",
        "This API key was revoked and can no longer be used; generate a new key",
      );
    }
    if (result.status === "inactive") {
      throw new ApiError(
        "subscription_inactive",
        "The account's subscription is inactive, so invoices cannot be generated; " +
          reactivate_hint(result.account.plan, this.options.hint_options),
      );
    }
    const remaining = apply_rate_limit(result, response, at);
    if (this.#warm.size >= WARM_KEYS_LIMIT) this.#warm.clear();
    this.#warm.set(bearer.key_hash, {
      account_id: result.account.id,
      mode: result.mode,
      until: at.getTime() + WARM_KEY_MS,
      rate_remaining: remaining,
    });
    return {
      account: account_view(result.account),
      key_id: result.key_id,
      key_mode: result.mode,
    };
  }
}
