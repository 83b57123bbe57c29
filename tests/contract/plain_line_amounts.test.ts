/**
 * A plain line (no line discounts or charges, no base quantity) is checked
 * in double arithmetic where its figures fit, and with bigints where they do
 * not: either way, its amount is accepted exactly when it is quantity × rate
 * to within one cent. Compared here with that rule computed on bigints from
 * the decimals the line was written from, over small figures and figures
 * whose products pass 2^53.
 */
import { assertEquals } from "../assert.ts";
import { InvoiceRequestSchema } from "../../contract/mod.ts";
import { invoice_with_items } from "../fixtures/invoices.ts";
import { seeded_random } from "../helpers/random.ts";

/** A decimal written from `units` × 10^-`scale`, and the number it is. */
interface Written {
  units: bigint;
  scale: number;
  value: number;
}

function written(units: bigint, scale: number): Written {
  const digits = (units < 0n ? -units : units).toString().padStart(
    scale + 1,
    "0",
  );
  const text = scale === 0
    ? digits
    : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return { units, scale, value: Number(units < 0n ? `-${text}` : text) };
}

// A decimal below 10^`max_whole` with up to `max_scale` decimals, its
// magnitude and its decimals spread over their ranges.
function random_decimal(
  random: () => number,
  max_whole: number,
  max_scale: number,
): Written {
  const scale = Math.floor(random() * (max_scale + 1));
  const digits = 1 + Math.floor(random() * (max_whole + scale));
  const units = BigInt(Math.floor(random() * 10 ** digits)) + 1n;
  return written(units, scale);
}

/** Whether the schema refuses the line's amount as not quantity × rate. */
function amount_refused(quantity: number, rate: number, amount: number) {
  const request = invoice_with_items(1) as unknown as {
    items: Record<string, unknown>[];
  };
  request.items = [{ description: "Line", quantity, rate, amount }];
  const result = InvoiceRequestSchema.safeParse(request);
  return !result.success &&
    result.error.issues.some((issue) =>
      issue.path.join(".") === "items.0.amount" &&
      issue.message.startsWith("must equal")
    );
}

Deno.test("plain lines: an amount is accepted exactly when it is quantity × rate to within one cent, whether the check fits doubles or not", () => {
  const random = seeded_random(20261127);
  let past_doubles = 0;
  for (let round = 0; round < 4_000; round++) {
    // Quantities up to 10^6 with up to 4 decimals, rates up to 10^6 with up
    // to 6: products of units from 1 to about 10^22.
    const quantity = random_decimal(random, 6, 4);
    const rate = random_decimal(random, 6, 6);
    const numerator = quantity.units * rate.units * 100n;
    const denominator = 10n ** BigInt(quantity.scale + rate.scale);
    if (numerator > BigInt(Number.MAX_SAFE_INTEGER)) past_doubles++;
    // The product in cents, rounded down, then up to two cents either way.
    const near = numerator / denominator +
      BigInt(Math.floor(random() * 5) - 2);
    if (near < 0n) continue;
    const amount = written(near, 2);
    if (amount.value > 1e12) continue;
    const off = near * denominator - numerator;
    const within = (off < 0n ? -off : off) <= denominator;
    assertEquals(
      amount_refused(quantity.value, rate.value, amount.value),
      !within,
      `quantity ${quantity.value}, rate ${rate.value}, amount ${amount.value}`,
    );
  }
  // Both paths were taken.
  assertEquals(
    past_doubles > 200 && past_doubles < 3_800,
    true,
    `${past_doubles}`,
  );
});
