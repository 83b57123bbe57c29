import { assert, assertEquals } from "./assert.ts";
import { openapi_json } from "../server/write_openapi.ts";
import { start_test_server } from "./helpers/test_server.ts";

Deno.test("committed openapi/openapi.json is up to date (run `deno task openapi`)", async () => {
  const committed = await Deno.readTextFile(
    new URL("../openapi/openapi.json", import.meta.url),
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
