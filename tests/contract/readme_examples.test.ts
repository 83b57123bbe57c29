/**
 * Every example invoice in the READMEs renders: the JSON examples (```json
 * blocks with an `invoice_number`) and the `curl … /generate -d '…'`
 * bodies are posted to a real server's /generate and must come back as a
 * PDF whose text (pdftotext) shows the invoice number (or, for e-invoice
 * examples with a `format`, a document that carries it).
 */

import { assert, assertEquals, assertGreater } from "../assert.ts";
import { pdf_text } from "../helpers/pdf_text.ts";
import { start_test_server } from "../helpers/test_server.ts";

/** The READMEs that show example invoices, from the repository's root. */
const READMES = [
  "README.md",
  "contract/README.md",
  "server/README.md",
  "server/pdf/README.md",
  "server/einvoice/README.md",
  "server/dashboard/README.md",
];
/** The READMEs each of which must show at least one example invoice. */
const READMES_WITH_EXAMPLES = [
  "README.md",
  "server/pdf/README.md",
  "server/einvoice/README.md",
];

/** The invoice requests written in one README. */
function readme_examples(markdown: string): Record<string, unknown>[] {
  const examples: Record<string, unknown>[] = [];
  for (const m of markdown.matchAll(/```json\n([\s\S]*?)```/g)) {
    const value = JSON.parse(m[1]);
    if (
      typeof value === "object" && value !== null && "invoice_number" in value
    ) {
      examples.push(value);
    }
  }
  for (const m of markdown.matchAll(/\/generate[^`]*?-d '(\{[\s\S]*?\})'/g)) {
    examples.push(JSON.parse(m[1]));
  }
  return examples;
}

Deno.test("every example invoice in the READMEs renders", async () => {
  const examples: Record<string, unknown>[] = [];
  for (const path of READMES) {
    const markdown = await Deno.readTextFile(
      new URL(`../../${path}`, import.meta.url),
    );
    const found = readme_examples(markdown);
    if (READMES_WITH_EXAMPLES.includes(path)) {
      assertGreater(found.length, 0, `${path} shows an example invoice`);
    }
    examples.push(...found);
  }
  // A slow (shared) machine must not fail the test: a generous render limit.
  const server = await start_test_server({
    env: { RENDER_TIMEOUT_MS: "120000" },
  });
  try {
    const { key } = await server.create_account({ plan: "pro" });
    for (const example of examples) {
      const response = await server.generate(key, example);
      const body = new Uint8Array(await response.arrayBuffer());
      assertEquals(
        response.status,
        200,
        `${example.invoice_number}: ${new TextDecoder().decode(body)}`,
      );
      // E-invoice examples (`format`) answer XML; the rest a PDF.
      const type = response.headers.get("content-type") ?? "";
      const text = type === "application/pdf"
        ? await pdf_text(body)
        : new TextDecoder().decode(body);
      if (example.format === undefined || example.format === "pdf") {
        assertEquals(type, "application/pdf");
      }
      assert(
        text.includes(String(example.invoice_number)),
        `${example.invoice_number} in the ${type} answer`,
      );
    }
  } finally {
    await server.close();
  }
});
