/**
 * Every e-invoice we write passes the official validation artefacts (the
 * kit at ../shared/einvoice, or EINVOICE_KIT) with no fatal error: a corpus
 * of requests covering every tax situation, parsed by the contract as the
 * service parses them, written in each format and validated in one kit run
 * per rule set.
 */
import { assert, assertEquals } from "./assert.ts";
import { kit_missing_reason, validate_xml } from "./helpers/einvoice_kit.ts";
import { corpus, SCENARIOS } from "./fixtures/einvoice_corpus.ts";
import { format_problems, InvoiceRequestSchema } from "../contract/mod.ts";
import { invoice_xml } from "../server/einvoice/mod.ts";
import type { DocumentFormat } from "../server/einvoice/mod.ts";

const missing = kit_missing_reason();
const VARIANTS = 4; // 13 scenarios × 4 = 52 invoices per format

/** Format → the kit's rule sets for its XML. */
const RULESETS: [DocumentFormat, string][] = [
  ["factur-x", "cii+facturx"],
  ["cii", "cii"],
  ["ubl", "ubl"],
  ["xrechnung-cii", "cii+xr-cii"],
  ["xrechnung-ubl", "ubl+xr-ubl"],
];

const requests = corpus(VARIANTS);
const invoices = requests.map((request) => ({
  name: request.invoice_number as string,
  invoice: InvoiceRequestSchema.parse(request),
}));

Deno.test("the corpus covers every scenario and needs nothing more for any format", () => {
  assert(invoices.length >= 50, `${invoices.length} invoices`);
  assertEquals(
    new Set(invoices.map(({ name }) => name.split("-")[0])).size,
    SCENARIOS.length,
  );
  for (const { name, invoice } of invoices) {
    for (const [format] of RULESETS) {
      assertEquals(format_problems(invoice as never, format), [], name);
    }
  }
});

for (const [format, ruleset] of RULESETS) {
  Deno.test({
    name: `${invoices.length} ${format} e-invoices pass validate ${ruleset}`,
    ignore: missing !== undefined,
    async fn() {
      const files = new Map(
        invoices.map(({ name, invoice }) => [
          name,
          invoice_xml(invoice as never, { format }),
        ]),
      );
      const run = await validate_xml(ruleset, files);
      console.log(`  ${format}: ${run.output.trim().split("\n").pop()}`);
      assertEquals(run.fatal, 0, run.output);
      assertEquals(run.invalid_files, 0, run.output);
      assert(run.ok, run.output);
    },
  });
}

Deno.test({
  name: "test output is marked TEST and still valid",
  ignore: missing !== undefined,
  async fn() {
    const { name, invoice } = invoices[0];
    const files = new Map<string, string>();
    for (const format of ["cii", "xrechnung-cii"] as const) {
      const xml = invoice_xml(invoice as never, { format, test: true });
      assert(xml.includes("TEST"), format);
      files.set(`${name}-${format}`, xml);
    }
    const run = await validate_xml("cii+xr-cii", files);
    assertEquals(run.fatal, 0, run.output);
    const ubl = new Map([[
      name,
      invoice_xml(invoice as never, { format: "ubl", test: true }),
    ]]);
    assertEquals((await validate_xml("ubl", ubl)).fatal, 0);
  },
});

Deno.test({
  name: "the validator does reject a broken e-invoice (the oracle is live)",
  ignore: missing !== undefined,
  async fn() {
    const { name, invoice } = invoices[0];
    const xml = invoice_xml(invoice as never, { format: "ubl" })
      // Totals that no longer add up: BR-CO-15.
      .replace(
        /<cbc:TaxInclusiveAmount currencyID="EUR">[^<]*</,
        '<cbc:TaxInclusiveAmount currencyID="EUR">1.00<',
      );
    const run = await validate_xml("ubl", new Map([[name, xml]]));
    assert(!run.ok);
    assert(run.output.includes("BR-CO-15"), run.output);
  },
});
