/**
 * The registries: one plan list and one table of output formats, read by
 * every place that depends on them.
 */
import { assert, assertEquals } from "../assert.ts";
import {
  INVOICE_FORMAT_TABLE,
  INVOICE_FORMATS,
  InvoiceFormatSchema,
  is_pdf_format,
  PLAN_IDS,
  PLANS,
  PlanSchema,
} from "../../contract/mod.ts";
import { PLANS as DATABASE_PLANS } from "../../db/schema.ts";
import { load_config, stripe_price_variable } from "../../server/config.ts";
import { render_invoice_document } from "../../server/einvoice/mod.ts";
import { document_file_name } from "../../server/services.ts";
import { german_invoice } from "../fixtures/einvoices.ts";

Deno.test("plans: the database's plan list is the contract's, in the same order", () => {
  assertEquals([...DATABASE_PLANS], PLAN_IDS);
  assertEquals(PLAN_IDS, Object.keys(PLANS));
  assertEquals(PlanSchema.options, PLAN_IDS);
});

Deno.test("plans: Stripe billing asks for one price variable per plan", () => {
  const stripe: Record<string, string> = {
    STRIPE_SECRET_KEY: "sk_test_registry",
    STRIPE_WEBHOOK_SECRET: "whsec_registry",
  };
  for (const plan of PLAN_IDS) {
    stripe[stripe_price_variable(plan)] = `price_${plan}`;
  }
  const config = load_config(stripe);
  assertEquals(
    config.stripe?.prices,
    Object.fromEntries(PLAN_IDS.map((plan) => [plan, `price_${plan}`])),
  );
  const last = stripe_price_variable(PLAN_IDS.at(-1)!);
  delete stripe[last];
  let message = "";
  try {
    load_config(stripe);
  } catch (error) {
    message = (error as Error).message;
  }
  assert(message.endsWith(`missing: ${last}`), message);
});

Deno.test("formats: every format is in the table, and the request field offers exactly those", () => {
  assertEquals(
    Object.keys(INVOICE_FORMAT_TABLE).sort(),
    [...INVOICE_FORMATS].sort(),
  );
  assertEquals(InvoiceFormatSchema.options, [...INVOICE_FORMATS]);
  for (const format of INVOICE_FORMATS) {
    const info = INVOICE_FORMAT_TABLE[format];
    assertEquals(is_pdf_format(format), info.pdf);
    assertEquals(info.extension, info.pdf ? "pdf" : "xml");
    assert(
      InvoiceFormatSchema.description!.includes(`\`${format}\``),
      `the description names ${format}`,
    );
  }
});

Deno.test("formats: each renders with the table's content type and file extension", () => {
  const invoice = german_invoice();
  for (const format of INVOICE_FORMATS) {
    const info = INVOICE_FORMAT_TABLE[format];
    const document = render_invoice_document(invoice, { format });
    assertEquals(document.content_type, info.content_type, format);
    const head = new TextDecoder().decode(document.bytes.subarray(0, 5));
    assertEquals(head === "%PDF-", info.pdf, format);
    assert(
      document_file_name(invoice.invoice_number, format).endsWith(
        `.${info.extension}`,
      ),
    );
  }
});
