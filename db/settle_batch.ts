/**
 * Settles many delivered generations in one statement: what each would be
 * charged by `settle_generation`, the same function row by row, in one
 * round trip and one commit.
 *
 * @module
 */
import type { Database, PreparedStatement } from "./database.ts";
import {
  type ChargeFields,
  check_account,
  check_charge_fields,
} from "./usage.ts";

// One settlement per element of the arrays, in their order ($1 accounts,
// $2 months, $3 request hashes, $4 days, $5 keys, null for none). Commits
// asynchronously, as each single settlement does: a database crash can
// lose charges (in the customers' favour), never make one twice.
const SETTLE_BATCH_STATEMENT: PreparedStatement = {
  name: "ink_settle_generations",
  types: ["uuid[]", "text[]", "text[]", "date[]", "uuid[]"],
  text: `
    select t.i::int as i,
           ink_settle_generation(t.a, t.m, t.h, t.d, t.k) as settled,
           set_config('synchronous_commit', 'off', true) as async_commit
    from unnest($1::uuid[], $2::text[], $3::text[], $4::date[], $5::uuid[])
      with ordinality as t(a, m, h, d, k, i)
  `,
};

/** `values` as a PostgreSQL array literal; null elements as NULL. */
function array_literal(values: readonly (string | null)[]): string {
  return `{${
    values.map((value) =>
      value === null
        ? "NULL"
        : `"${value.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`
    ).join(",")
  }}`;
}

/**
 * Settles each of `inputs` as `settle_generation` does, in one statement;
 * true where that call charged it, false where it was settled already.
 * The settlements run in account and month order, so that two instances'
 * batches take the accounts' locks in the same order.
 */
export async function settle_generations(
  database: Database,
  inputs: readonly ChargeFields[],
): Promise<boolean[]> {
  for (const input of inputs) {
    check_account(input.account_id);
    check_charge_fields(input);
  }
  if (inputs.length === 0) return [];
  const order = inputs.map((_, index) => index).sort((a, b) => {
    const left = inputs[a];
    const right = inputs[b];
    return left.account_id < right.account_id
      ? -1
      : left.account_id > right.account_id
      ? 1
      : left.month < right.month
      ? -1
      : left.month > right.month
      ? 1
      : a - b;
  });
  const sorted = order.map((index) => inputs[index]);
  const rows = await database.run<{ i: number; settled: boolean }>(
    SETTLE_BATCH_STATEMENT,
    [
      array_literal(sorted.map((input) => input.account_id)),
      array_literal(sorted.map((input) => input.month)),
      array_literal(sorted.map((input) => input.request_hash)),
      array_literal(sorted.map((input) => input.day)),
      array_literal(sorted.map((input) => input.key_id ?? null)),
    ],
  );
  const settled = new Array<boolean>(inputs.length).fill(false);
  for (const row of rows) {
    settled[order[Number(row.i) - 1]] = row.settled === true;
  }
  return settled;
}
