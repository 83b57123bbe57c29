/**
 * `Idempotency-Key`s of `POST /generate`: per account, a hash of the key and
 * of the request, and whether its first request is still running. Invoice
 * content is never stored.
 *
 * @module
 */
import { sql } from "drizzle-orm";
import type { Database } from "./database.ts";
import { count_deleted, is_uuid, query_rows, to_number } from "./_util.ts";

/** Which key of which account, and the request it was sent with. */
export interface IdempotencyKeyInput {
  /** Account the key belongs to. */
  account_id: string;
  /** SHA-256 of the `Idempotency-Key` value. */
  key_hash: string;
  /** Hash of the request (key mode and canonical body). */
  request_hash: string;
}

/** Outcome of {@linkcode claim_idempotency_key}. */
export type IdempotencyClaim =
  /** New (or expired, or abandoned): this request runs; complete or release it. */
  | { status: "claimed" }
  /** The same key and request finished before: answer as a replay. */
  | { status: "replay" }
  /** The key was used with a different request. */
  | { status: "reused" }
  /** The key's first request is still running. */
  | { status: "in_progress" };

function check_input(input: IdempotencyKeyInput): void {
  if (!is_uuid(input.account_id)) {
    throw new TypeError("account_id must be a UUID");
  }
  if (input.key_hash.length === 0 || input.request_hash.length === 0) {
    throw new RangeError("key_hash and request_hash must not be empty");
  }
}

/**
 * Claims the key for a request at `now` in one statement. A key older than
 * `expired_before` counts as new; a running one started before
 * `abandoned_before` with the same request (its instance died) is taken over.
 */
export async function claim_idempotency_key(
  database: Database,
  input: IdempotencyKeyInput & {
    now: Date;
    expired_before: Date;
    abandoned_before: Date;
  },
): Promise<IdempotencyClaim> {
  check_input(input);
  const { account_id, key_hash, request_hash } = input;
  const rows = await query_rows<{
    claimed: number | string;
    request_hash: string | null;
    state: string | null;
  }>(
    database,
    sql`
      with claimed as (
        insert into idempotency_keys as k
          (account_id, key_hash, request_hash, state, created_at)
        values (${account_id}::uuid, ${key_hash}, ${request_hash}, 'running',
          ${input.now.toISOString()}::timestamptz)
        on conflict (account_id, key_hash) do update
          set request_hash = excluded.request_hash, state = 'running',
              created_at = excluded.created_at
          where k.created_at < ${input.expired_before.toISOString()}::timestamptz
            or (k.state = 'running' and k.request_hash = excluded.request_hash
              and k.created_at
                < ${input.abandoned_before.toISOString()}::timestamptz)
        returning 1
      ),
      existing as (
        select request_hash, state from idempotency_keys
        where account_id = ${account_id}::uuid and key_hash = ${key_hash}
      )
      select (select count(*) from claimed)::int as claimed,
             (select request_hash from existing) as request_hash,
             (select state from existing) as state
    `,
  );
  const row = rows[0]!;
  if (to_number(row.claimed) > 0) return { status: "claimed" };
  // Not visible in this statement's snapshot: claimed by a request that
  // committed meanwhile, so (almost surely) still running.
  if (row.request_hash === null) return { status: "in_progress" };
  if (row.request_hash !== request_hash) return { status: "reused" };
  return row.state === "done"
    ? { status: "replay" }
    : { status: "in_progress" };
}

/** Marks a claimed key's request as done: later ones with it are replays. */
export async function complete_idempotency_key(
  database: Database,
  input: IdempotencyKeyInput,
): Promise<void> {
  check_input(input);
  await query_rows(
    database,
    sql`update idempotency_keys set state = 'done'
      where account_id = ${input.account_id}::uuid
        and key_hash = ${input.key_hash}
        and request_hash = ${input.request_hash} and state = 'running'`,
  );
}

/**
 * Forgets a claimed key whose request failed, so a retry with the same key
 * is judged afresh.
 */
export async function release_idempotency_key(
  database: Database,
  input: IdempotencyKeyInput,
): Promise<void> {
  check_input(input);
  await query_rows(
    database,
    sql`delete from idempotency_keys
      where account_id = ${input.account_id}::uuid
        and key_hash = ${input.key_hash}
        and request_hash = ${input.request_hash} and state = 'running'`,
  );
}

/** Deletes keys created before `before`; returns how many. */
export async function prune_idempotency_keys(
  database: Database,
  before: Date,
): Promise<number> {
  return await count_deleted(
    database,
    sql`delete from idempotency_keys
      where created_at < ${before.toISOString()}::timestamptz returning 1`,
  );
}
