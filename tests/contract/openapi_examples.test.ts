/**
 * The OpenAPI document's examples follow the contract: every operation has
 * a request example (when it takes a body) and an example for every
 * documented answer; each one parses with the procedure's own zod schema.
 */
import type { z } from "zod";
import { assert, assertEquals } from "../assert.ts";
import { app_router, ErrorBodySchema } from "../../contract/mod.ts";
import { build_openapi_document } from "../../server/openapi.ts";

type Json = Record<string, unknown>;

interface ProcedureDef {
  meta?: { openapi?: { method: string; path: string } };
  inputs: z.ZodType[];
  output?: z.ZodType;
}

function procedure_for(method: string, path: string): ProcedureDef {
  const procedures = app_router._def.procedures as unknown as Record<
    string,
    { _def: ProcedureDef }
  >;
  const found = Object.values(procedures).find((procedure) =>
    procedure._def.meta?.openapi?.method.toLowerCase() === method &&
    procedure._def.meta?.openapi?.path === path
  );
  assert(found, `no procedure for ${method} ${path}`);
  return found._def;
}

const PATH_PARAMS = { id: "3f6c1a52-8b0e-4c7d-9a51-2f4e8d7b6c10" };

Deno.test("every operation has examples, and they parse with the contract's schemas", () => {
  const document = build_openapi_document();
  const paths = document.paths as Record<string, Record<string, Json>>;
  let checked = 0;
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const name = `${method} ${path}`;
      const procedure = procedure_for(method, path);
      const body = operation.requestBody as
        | { content: Record<string, Json> }
        | undefined;
      if (body) {
        const example = body.content["application/json"].example;
        assert(example !== undefined, `${name}: no request example`);
        const input = path.includes("{id}")
          ? { ...(example as Json), ...PATH_PARAMS }
          : example;
        const parsed = procedure.inputs[0].safeParse(input);
        assert(parsed.success, `${name}: ${parsed.error?.message}`);
      }
      const responses = operation.responses as Record<string, Json>;
      for (const [status, response] of Object.entries(responses)) {
        const content = response.content as Record<string, Json>;
        assert(content, `${name} ${status}: no content`);
        const media = Object.values(content)[0];
        const examples = media.examples
          ? Object.values(media.examples as Record<string, { value: unknown }>)
            .map((entry) => entry.value)
          : [media.example];
        assert(
          examples.length > 0 && examples[0] !== undefined,
          `${name} ${status}: no example`,
        );
        for (const example of examples) {
          if (Number(status) >= 400) {
            const parsed = ErrorBodySchema.safeParse(example);
            assert(
              parsed.success,
              `${name} ${status}: ${parsed.error?.message}`,
            );
          } else if (path === "/generate") {
            assertEquals(Object.keys(content), [
              "application/pdf",
              "application/xml; charset=utf-8",
            ]);
            assert(String(example).startsWith("%PDF-"));
            assert(
              String(content["application/xml; charset=utf-8"].example)
                .startsWith("<?xml"),
            );
          } else {
            const parsed = procedure.output!.safeParse(example);
            assert(
              parsed.success,
              `${name} ${status}: ${parsed.error?.message}`,
            );
          }
          checked += 1;
        }
      }
    }
  }
  assert(checked > 30, `only ${checked} examples`);
});

Deno.test("POST /generate documents the PDF answer and every error status", () => {
  const document = build_openapi_document();
  const generate = (document.paths as Record<string, Record<string, Json>>)[
    "/generate"
  ].post;
  const responses = generate.responses as Record<string, Json>;
  for (
    const status of [
      "200",
      "400",
      "401",
      "403",
      "405",
      "408",
      "413",
      "429",
      "500",
      "503",
    ]
  ) {
    assert(responses[status], `no ${status}`);
  }
  const forbidden = (responses["403"].content as Record<string, Json>)[
    "application/json"
  ].examples as Record<string, unknown>;
  assertEquals(Object.keys(forbidden).sort(), [
    "key_revoked",
    "quota_exceeded",
    "subscription_inactive",
    "test_limit_reached",
  ]);
});
