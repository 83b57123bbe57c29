import { assert, assertEquals } from "../assert.ts";
import {
  CONTRACT_VERSION,
  INVOICE_FORMAT_TABLE,
  OUTPUT_CONTENT_TYPES,
} from "../../contract/mod.ts";
import { openapi_json } from "../../server/write_openapi.ts";
import { start_test_server } from "../helpers/test_server.ts";

Deno.test("committed openapi/openapi.json is up to date (run `deno task openapi`)", async () => {
  const committed = await Deno.readTextFile(
    new URL("../../openapi/openapi.json", import.meta.url),
  );
  assertEquals(committed, openapi_json());
});

Deno.test("the OpenAPI document declares the PDF response and every error with the one shape", () => {
  const document = JSON.parse(openapi_json());
  const generate = document.paths["/generate"].post;
  assert(generate.responses["200"].content["application/pdf"]);
  for (const status of ["400", "401", "403", "413", "429", "500", "503"]) {
    assertEquals(
      generate.responses[status].content["application/json"].schema.$ref,
      "#/components/schemas/Error",
      status,
    );
  }
  const error = document.components.schemas.Error;
  assertEquals(error.required, ["error"]);
  assert(
    error.properties.error.properties.code.enum.includes("quota_exceeded"),
  );
  const line_item = document.components.schemas.LineItem;
  assertEquals(line_item.properties.description.maxLength, 5000);
  for (
    const path of [
      "/admin/accounts",
      "/admin/accounts/{id}",
      "/admin/accounts/{id}/keys",
      "/admin/keys/{id}/revoke",
    ]
  ) {
    assert(document.paths[path], path);
  }
});

Deno.test("GET /openapi.json serves the committed document", async () => {
  const server = await start_test_server();
  try {
    const response = await fetch(`${server.url}/openapi.json`);
    assertEquals(response.status, 200);
    assertEquals(await response.json(), JSON.parse(openapi_json()));
  } finally {
    await server.close();
  }
});

Deno.test("the OpenAPI document is relative, requires canonical fields, and claims only the scheme each operation accepts", () => {
  const document = JSON.parse(openapi_json());
  assertEquals(document.servers, [{ url: "/" }]);
  const request = document.paths["/generate"].post.requestBody.content[
    "application/json"
  ].schema;
  for (const field of ["bill_to", "items"]) {
    assert(request.required.includes(field), field);
  }
  assertEquals(request.properties.recipient["x-alias-of"], "bill_to");
  assertEquals(request.properties.recipient.deprecated, true);
  assertEquals(request.properties.line_items["x-alias-of"], "items");
  const line_item = document.components.schemas.LineItem;
  assert(line_item.required.includes("rate"));
  assertEquals(line_item.properties.unit_price["x-alias-of"], "rate");
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations as object)) {
      const expected = path.startsWith("/admin/")
        ? "AdminToken"
        : path.startsWith("/account/")
        ? "Session"
        : "ApiKey";
      assertEquals(
        (operation as { security: unknown }).security,
        [{ [expected]: [] }],
        `${method} ${path}`,
      );
    }
  }
});

/** Redocly's CLI, pinned: an independent linter of the committed document. */
const REDOCLY_CLI = "npm:@redocly/cli@2.77.0";

Deno.test("Redocly's linter finds no error and no warning in openapi/openapi.json", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      // The linter's dependency tree stays out of the project's lock and
      // node_modules (its @types/node would change our type checking).
      "--no-config",
      "--no-lock",
      REDOCLY_CLI,
      "lint",
      "--format=json",
      new URL("../../openapi/openapi.json", import.meta.url).pathname,
    ],
    env: { REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout);
  const report = JSON.parse(text.slice(text.indexOf("{")));
  const problems = (report.problems as { ruleId: string; message: string }[])
    .map((problem) => `${problem.ruleId}: ${problem.message}`);
  assertEquals(problems, []);
  assertEquals(report.totals.errors, 0);
  assertEquals(report.totals.warnings, 0);
  assertEquals(output.code, 0);
});

/** Spectral's CLI, pinned: its `spectral:oas` ruleset over the committed document. */
const SPECTRAL_CLI = "npm:@stoplight/spectral-cli@6.16.3";

Deno.test("Spectral's spectral:oas ruleset (openapi/.spectral.yaml) finds nothing in openapi/openapi.json", async () => {
  const folder = new URL("../../openapi/", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      // As for Redocly: the linter's dependencies stay out of the project.
      "--no-config",
      "--no-lock",
      SPECTRAL_CLI,
      "lint",
      "--ruleset",
      `${folder}.spectral.yaml`,
      "--format",
      "json",
      "--fail-severity",
      "hint",
      `${folder}openapi.json`,
    ],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout);
  const start = text.indexOf("[");
  assert(start >= 0, new TextDecoder().decode(output.stderr));
  const findings =
    (JSON.parse(text.slice(start, text.lastIndexOf("]") + 1)) as {
      code: string;
      path: string[];
      message: string;
    }[]).map((finding) =>
      `${finding.code} at ${finding.path.join(".")}: ${finding.message}`
    );
  assertEquals(findings, []);
  assertEquals(output.code, 0);
});

Deno.test("the document names the API Ink, carries the contract version, and lists one content type per kind of format output", () => {
  const document = JSON.parse(openapi_json());
  assertEquals(document.info.title, "Ink");
  assertEquals(document.info.version, CONTRACT_VERSION);
  const outputs = new Set(
    Object.values(INVOICE_FORMAT_TABLE).map((info) => info.extension),
  );
  const expected = [...outputs].map((output) => OUTPUT_CONTENT_TYPES[output]);
  const content = document.paths["/generate"].post.responses["200"].content;
  assertEquals(Object.keys(content).sort(), expected.sort());
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations as object)) {
      const responses = (operation as {
        responses: Record<
          string,
          { headers: Record<string, { $ref: string }> }
        >;
      }).responses;
      const challenge = responses["401"].headers["WWW-Authenticate"];
      assertEquals(
        challenge.$ref,
        "#/components/headers/WWW-Authenticate",
        `${method} ${path}`,
      );
      for (const [status, response] of Object.entries(responses)) {
        assert(
          response.headers["Ink-Version"],
          `${method} ${path} ${status} declares Ink-Version`,
        );
      }
    }
  }
});

Deno.test("the OpenAPI document lists en-CA among the locales and Letter as its paper", () => {
  const document = JSON.parse(openapi_json());
  const properties = document.paths["/generate"].post.requestBody.content[
    "application/json"
  ].schema.properties;
  const locales = /PDF: ([^.]*)\./.exec(properties.locale.description)?.[1]
    .split(", ");
  assert(locales?.includes("en-CA"), properties.locale.description);
  assert(
    properties.page_size.description.includes("letter for the en-US and en-CA"),
    properties.page_size.description,
  );
});
