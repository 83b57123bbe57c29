/**
 * Every example invoice in the README renders: the JSON examples (```json
 * blocks with an `invoice_number`) and the `curl … /generate -d '…'`
 * bodies are posted to a real server's /generate and must come back as a
 * PDF whose text (pdftotext) shows the invoice number (or, for e-invoice
 * examples with a `format`, a document that carries it).
 */

import { assert, assertEquals, assertGreater } from "./assert.ts";
import { pdf_text } from "./helpers/pdf_text.ts";
import { start_test_server } from "./helpers/test_server.ts";

/** The invoice requests written in the README. */
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

Deno.test("every example invoice in the README renders", async () => {
  const markdown = await Deno.readTextFile(
    new URL("../README.md", import.meta.url),
  );
  const examples = readme_examples(markdown);
  // The quick-start request and the issue 9 example at least.
  assertGreater(examples.length, 1);
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
