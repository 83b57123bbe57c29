/**
 * Every e-invoice we write passes the official validation artefacts
 * (`tests/fixtures/einvoice_rules/`, run in-process by
 * `tests/einvoice_validator/`; `ubl` is Peppol BIS Billing 3.0, so its rules
 * run too) with no fatal error: a corpus of requests
 * covering every tax situation, parsed by the contract as the service parses
 * them, written in each format and validated in one run per rule set.
 */
import { assert, assertEquals } from "../assert.ts";
import { validate_xml } from "../helpers/einvoice_kit.ts";
import { corpus, SCENARIOS } from "../fixtures/einvoice_corpus.ts";
import {
  format_problems,
  GenerateRequestSchema,
  InvoiceRequestSchema,
} from "../../contract/mod.ts";
import { escape_xml_text, invoice_xml } from "../../server/einvoice/mod.ts";
import type { DocumentFormat } from "../../server/einvoice/mod.ts";

const VARIANTS = 4; // 13 scenarios × 4 = 52 invoices per format

/** Format → the kit's rule sets for its XML. */
const RULESETS: [DocumentFormat, string][] = [
  ["factur-x", "cii+facturx"],
  ["cii", "cii"],
  ["ubl", "ubl+peppol"],
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
      assertEquals(format_problems(invoice, format), [], name);
    }
  }
});

const BROKEN = "broken-on-purpose";
const BROKEN_PEPPOL = "broken-on-purpose-peppol";

/** The example requests of the e-invoice README, parsed as the service does. */
function readme_examples() {
  const readme = Deno.readTextFileSync(
    new URL("../../server/einvoice/README.md", import.meta.url),
  );
  return [...readme.matchAll(/```json\n([\s\S]*?)```/g)].map((m) =>
    GenerateRequestSchema.parse(JSON.parse(m[1]))
  );
}

Deno.test("the e-invoice README has a valid example request for every e-invoice format", () => {
  assertEquals(
    readme_examples().map((example) => example.format).sort(),
    RULESETS.map(([format]) => format).sort(),
  );
});

for (const [format, ruleset] of RULESETS) {
  Deno.test({
    name: `${invoices.length} ${format} e-invoices pass validate ${ruleset}`,
    async fn() {
      const files = new Map(
        invoices.map(({ name, invoice }) => [
          name,
          invoice_xml(invoice, { format }),
        ]),
      );
      for (const example of readme_examples()) {
        if (example.format === format) {
          files.set(
            `README-${format}`,
            invoice_xml(example.invoice, { format }),
          );
        }
      }
      // Output of a test key: marked TEST in BT-22, BT-1 and BT-27, still valid.
      const test_xml = invoice_xml(invoices[0].invoice, { format, test: true });
      assert(test_xml.includes("TEST – not valid for accounting"));
      assert(test_xml.includes(`>TEST-${invoices[0].invoice.invoice_number}<`));
      assert(
        test_xml.includes(
          `>${escape_xml_text(invoices[0].invoice.sender.name)} (TEST)<`,
        ),
      );
      files.set(`${invoices[0].name}-test`, test_xml);
      if (format === "ubl") {
        // The oracle is live: totals that do not add up (BR-CO-15) fail.
        files.set(
          BROKEN,
          invoice_xml(invoices[0].invoice, { format }).replace(
            /<cbc:TaxInclusiveAmount currencyID="EUR">[^<]*</,
            '<cbc:TaxInclusiveAmount currencyID="EUR">1.00<',
          ),
        );
        // The Peppol rules are live: no seller electronic address (R020) fails.
        files.set(
          BROKEN_PEPPOL,
          invoice_xml(invoices[0].invoice, { format }).replace(
            /<cbc:EndpointID [^>]*>[^<]*<\/cbc:EndpointID>/,
            "",
          ),
        );
      }
      const run = await validate_xml(ruleset, files);
      console.log(`  ${format}: ${run.output.trim().split("\n").pop()}`);
      const fatal_lines = run.output.split("\n").filter((line) =>
        /^(fatal|error|schema)/.test(line)
      );
      if (format === "ubl") {
        assert(!run.ok);
        assertEquals(run.invalid_files, 2, run.output);
        assert(
          fatal_lines.length > 0 &&
            fatal_lines.every((line) =>
              line.startsWith(`fatal ${BROKEN}: `) ||
              line.startsWith(`fatal ${BROKEN_PEPPOL}: `)
            ),
          run.output,
        );
        assert(
          run.output.includes(`fatal ${BROKEN}: EN16931-UBL: [BR-CO-15]`),
          run.output,
        );
        assert(
          run.output.includes(
            `fatal ${BROKEN_PEPPOL}: PEPPOL-EN16931-UBL: [PEPPOL-EN16931-R020]`,
          ),
          run.output,
        );
      } else {
        assertEquals(fatal_lines, []);
        assertEquals(run.fatal, 0, run.output);
        assertEquals(run.invalid_files, 0, run.output);
        assert(run.ok, run.output);
      }
    },
  });
}
