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
  legacy_request_hash,
  request_hash,
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
