/**
 * Replays that survive upgrades: a live request is charged under a
 * versioned hash of its canonical form, which fields at their default and
 * absent optional fields do not change; a receipt written in the legacy form
 * (before the version) is still found, so its retry stays a free replay,
 * also for an account at its limit.
 */
import { assert, assertEquals, assertNotEquals } from "../assert.ts";
import { sql } from "drizzle-orm";
import { start_test_server } from "../helpers/test_server.ts";
import { full_invoice } from "../fixtures/invoices.ts";
import { every_term_invoice } from "../fixtures/einvoice_terms.ts";
import { query_rows } from "../../db/_util.ts";
import { GenerateRequestSchema, type Invoice } from "../../contract/mod.ts";
import {
  canonical_request,
  legacy_request_hash,
  request_hash,
  sort_keys,
} from "../../server/generate/request_hash.ts";

function normalized(body: unknown): Invoice {
  return GenerateRequestSchema.parse(body).invoice as Invoice;
}

Deno.test("request hash: versioned; fields at their default and absent optional fields leave it unchanged", () => {
  const invoice = normalized(full_invoice());
  const hash = request_hash(invoice, "pdf");
  assert(hash.startsWith("v2:"), hash);
  // A field a newer version fills in with its default, an optional field
  // absent as undefined or null, another key order: the same request.
  const reordered = Object.fromEntries(Object.entries(invoice).reverse());
  assertEquals(
    request_hash(
      {
        ...reordered,
        document_type: "invoice",
        future_option: undefined,
        other_option: null,
      } as unknown as Invoice,
      "pdf",
    ),
    hash,
  );
  const { document_type: _default, ...without_default } = invoice;
  assertEquals(request_hash(without_default as Invoice, "pdf"), hash);
  // What the request says does change it.
  assertNotEquals(
    request_hash({ ...invoice, document_type: "credit_note" }, "pdf"),
    hash,
  );
  assertNotEquals(request_hash(invoice, "xrechnung-cii"), hash);
  assertNotEquals(
    request_hash({ ...invoice, invoice_number: "OTHER" }, "pdf"),
    hash,
  );
  // The legacy form is the unversioned hash of the invoice as written.
  assertNotEquals(legacy_request_hash(invoice, "pdf"), hash);
});

Deno.test("request hash: the hashes receipts hold stay what they are", () => {
  // Receipts of the month are stored under these: a change to how the
  // canonical form is written must leave them as they are (a change to
  // these fixtures changes them too).
  assertEquals(
    request_hash(normalized(full_invoice()), "pdf"),
    "v2:b5eb5f0b071f1c36fe74247c4e04a20337b17fbc291a911fbfb7108af59ba4ca",
  );
  assertEquals(
    request_hash(normalized(every_term_invoice()), "xrechnung-ubl"),
    "v2:3c6a8044e99676f27d7e2cdae660fb6ea31ba987333d29bcc87c6043818639ca",
  );
});

// The canonical form by its definition: every object's keys sorted by
// `sort()`, undefined and null fields left out, the invoice's fields at
// their default left out, the format left out when it is the default.
function defined_canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(defined_canonical);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value).sort()
      .filter((key) => (value as Record<string, unknown>)[key] != null)
      .map((key) => [
        key,
        defined_canonical((value as Record<string, unknown>)[key]),
      ]),
  );
}

function random_value(random: () => number, depth: number): unknown {
  const pick = Math.floor(random() * (depth > 3 ? 5 : 7));
  if (pick === 0) return null;
  if (pick === 1) return undefined;
  if (pick === 2) return Math.round(random() * 1e6) / 100;
  if (pick === 3) return String.fromCharCode(...random_key_codes(random));
  if (pick === 4) return random() < 0.5;
  if (pick === 5) {
    return Array.from(
      { length: Math.floor(random() * 4) },
      () => random_value(random, depth + 1),
    );
  }
  const object: Record<string, unknown> = {};
  const count = Math.floor(random() * 24);
  for (let i = 0; i < count; i++) {
    object[String.fromCharCode(...random_key_codes(random))] = random_value(
      random,
      depth + 1,
    );
  }
  return object;
}

// Keys from a small alphabet (so prefixes and repeats are common), with
// upper case, digits (integer-like keys), "_" and non-ASCII.
function random_key_codes(random: () => number): number[] {
  const alphabet = "abAB_09é漢";
  return Array.from(
    { length: 1 + Math.floor(random() * 4) },
    () => alphabet.charCodeAt(Math.floor(random() * alphabet.length)),
  );
}

Deno.test("request hash: the canonical form is that of its definition, for any keys and nesting", () => {
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  for (let round = 0; round < 2_000; round++) {
    const invoice = random_value(random, 0) as Record<string, unknown>;
    if (
      invoice === null || typeof invoice !== "object" || Array.isArray(invoice)
    ) continue;
    if (random() < 0.3) invoice.document_type = "invoice";
    const format = random() < 0.5 ? "pdf" : "factur-x";
    const { document_type, ...rest } = invoice;
    const expected = JSON.stringify(defined_canonical({
      ...(format === "pdf" ? {} : { format }),
      invoice: document_type === "invoice" ? rest : invoice,
    }));
    assertEquals(
      canonical_request(invoice as unknown as Invoice, format),
      expected,
    );
  }
  // Longer key lists go through `sort()` itself; shorter ones by insertion.
  for (let length = 0; length < 40; length++) {
    const keys = Array.from(
      { length },
      () => String.fromCharCode(...random_key_codes(random)),
    );
    assertEquals(sort_keys([...keys]), [...keys].sort());
  }
});

Deno.test("legacy request hash: a normalized line keeps its keys in a fixed order, its own extra terms last", () => {
  // The legacy hash is that of the invoice's JSON text, so the order of its
  // keys is part of what a receipt of the legacy form was written under.
  const [first, second] = normalized(every_term_invoice()).items;
  assertEquals(Object.keys(first!), [
    "description",
    "quantity",
    "rate",
    "amount",
    "unit",
    "item_id",
    "buyer_item_id",
    "tax_category",
    "tax_rate",
    "item_description",
    "note",
    "period",
    "order_line_reference",
    "accounting_reference",
    "object_id",
    "standard_id",
    "classifications",
    "origin_country",
    "attributes",
  ]);
  assertEquals(Object.keys(second!), [
    "description",
    "quantity",
    "rate",
    "amount",
    "unit",
    "tax_category",
    "tax_rate",
    "base_quantity",
    "gross_rate",
    "price_discount",
    "discounts",
    "charges",
  ]);
});

Deno.test("upgrade: a receipt written in the legacy form makes the retry a free replay, also at the limit", async () => {
  const server = await start_test_server();
  try {
    const { account_id, key } = await server.create_account({
      plan: "starter",
    });
    const body = { ...full_invoice(), invoice_number: "UPGRADE-1" };
    const month = new Date().toISOString().slice(0, 7);
    const { database } = server.test_database;
    // What the previous version wrote: the receipt with its legacy hash,
    // and a month used up (150 on Starter), this invoice among them.
    await query_rows(
      database,
      sql`insert into generation_receipts (account_id, month, request_hash)
          values (${account_id}::uuid, ${month},
            ${legacy_request_hash(normalized(body), "pdf")})`,
    );
    await query_rows(
      database,
      sql`insert into usage_monthly (account_id, month, count)
          values (${account_id}::uuid, ${month}, 150)`,
    );
    for (let attempt = 0; attempt < 2; attempt++) {
      const retry = await server.generate(key, body);
      assertEquals(retry.status, 200);
      assertEquals(retry.headers.get("idempotent-replayed"), "true");
      assertEquals(retry.headers.get("x-quota-remaining"), "0");
      await retry.arrayBuffer();
    }
    // Another invoice is refused: the month is used up.
    const other = await server.generate(key, {
      ...body,
      invoice_number: "UPGRADE-2",
    });
    assertEquals(other.status, 403);
    await other.body?.cancel();
    const account = await (await server.admin(`/admin/accounts/${account_id}`))
      .json();
    assertEquals(account.usage.used, 150);
  } finally {
    await server.close();
  }
});
