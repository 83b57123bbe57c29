/**
 * The example invoice is written once (server/example_invoice.ts): it passes
 * the contract's schemas, the OpenAPI document sends that very object as the
 * `POST /generate` request example, and the Try it page the server serves
 * carries the same invoice for its editor (which dates it today; the
 * browser test checks that part).
 */
import { assert, assertEquals, assertStrictEquals } from "../assert.ts";
import {
  GenerateRequestSchema,
  InvoiceRequestSchema,
} from "../../contract/mod.ts";
import { EXAMPLE_INVOICE } from "../../server/example_invoice.ts";
import { build_openapi_document } from "../../server/openapi.ts";
import { session_headers } from "../helpers/accounts.ts";
import { start_test_server } from "../helpers/test_server.ts";

type Json = Record<string, unknown>;

function generate_request_example(document: Json): unknown {
  const paths = document.paths as Record<string, Record<string, Json>>;
  const body = paths["/generate"].post.requestBody as {
    content: Record<string, Json>;
  };
  return body.content["application/json"].example;
}

/** The value of `data-example` on the Try it page's editor, as JSON. */
function page_example(html: string): unknown {
  const editor = /<textarea [^>]*\bdata-editor\b[^>]*>/.exec(html)?.[0];
  assert(editor, "no editor on the page");
  const attribute = /\bdata-example="([^"]*)"/.exec(editor)?.[1];
  assert(attribute !== undefined, "the editor has no data-example");
  return JSON.parse(
    attribute.replace(
      /&#(\d+);/g,
      (_, code: string) => String.fromCharCode(Number(code)),
    ),
  );
}

Deno.test("the example invoice passes the contract's schemas for /generate and the preview", () => {
  const generate = GenerateRequestSchema.safeParse(EXAMPLE_INVOICE);
  assert(generate.success, generate.error?.message);
  assertEquals(generate.data.format, "pdf");
  const preview = InvoiceRequestSchema.safeParse(EXAMPLE_INVOICE);
  assert(preview.success, preview.error?.message);
});

Deno.test("the OpenAPI document's /generate request example is the example invoice", async () => {
  assertStrictEquals(
    generate_request_example(build_openapi_document()),
    EXAMPLE_INVOICE,
  );
  const committed = JSON.parse(
    await Deno.readTextFile(
      new URL("../../openapi/openapi.json", import.meta.url),
    ),
  );
  assertEquals(generate_request_example(committed), EXAMPLE_INVOICE);
});

Deno.test("the served Try it page carries the example invoice, and it renders", async () => {
  const server = await start_test_server();
  try {
    const { account_id, key } = await server.create_account();
    const response = await fetch(`${server.url}/dashboard/try`, {
      headers: await session_headers(server, account_id),
    });
    assertEquals(response.status, 200);
    assertEquals(page_example(await response.text()), EXAMPLE_INVOICE);

    const pdf = await server.generate(key, EXAMPLE_INVOICE);
    assertEquals(pdf.status, 200);
    assertEquals(pdf.headers.get("content-type"), "application/pdf");
    const bytes = new Uint8Array(await pdf.arrayBuffer());
    assertEquals(new TextDecoder().decode(bytes.subarray(0, 5)), "%PDF-");
  } finally {
    await server.close();
  }
});
