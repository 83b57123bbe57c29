/**
 * The example invoice is written once (server/example_invoice.ts): it passes
 * the contract's schemas, and the OpenAPI document sends that very object as
 * the `POST /generate` request example.
 */
import { assert, assertEquals, assertStrictEquals } from "./assert.ts";
import {
  GenerateRequestSchema,
  InvoiceRequestSchema,
} from "../contract/mod.ts";
import { EXAMPLE_INVOICE } from "../server/example_invoice.ts";
import { build_openapi_document } from "../server/openapi.ts";

type Json = Record<string, unknown>;

function generate_request_example(document: Json): unknown {
  const paths = document.paths as Record<string, Record<string, Json>>;
  const body = paths["/generate"].post.requestBody as {
    content: Record<string, Json>;
  };
  return body.content["application/json"].example;
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
      new URL("../openapi/openapi.json", import.meta.url),
    ),
  );
  assertEquals(generate_request_example(committed), EXAMPLE_INVOICE);
});
