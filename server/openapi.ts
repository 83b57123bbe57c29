/**
 * The OpenAPI document, generated from the router by trpc-to-openapi and
 * completed with what it cannot express: the PDF and XML responses, our one
 * error shape, every status and header an answer can carry, 201 statuses,
 * the dashboard's cookie authentication, tags and contact.
 */
import { generateOpenApiDocument } from "trpc-to-openapi";
import { z } from "zod";
import {
  error_example,
  FORBIDDEN_EXAMPLES,
  OPERATION_EXAMPLES,
} from "./openapi_examples.ts";
import {
  complete_responses,
  generate_success,
  RESPONSE_HEADERS,
} from "./openapi_responses.ts";
import {
  app_router,
  CONTRACT_VERSION,
  ErrorBodySchema,
  IdempotencyKeySchema,
  INVOICE_LIMITS,
} from "../contract/mod.ts";

/** Operations that answer 201 Created. */
const CREATED = new Set([
  "post /admin/accounts",
  "post /admin/accounts/{id}/keys",
  "post /account/keys",
  "post /account/upgrade-requests",
]);

type Json = Record<string, unknown>;

/** The operations' tags, in the order the reference shows them. */
const TAGS = [
  {
    name: "invoices",
    description: "Invoice PDFs and e-invoices from JSON, with an API key.",
  },
  {
    name: "account",
    description:
      "The signed-in dashboard account: usage, API keys, billing and upgrade requests (session cookie).",
  },
  {
    name: "admin",
    description:
      "The operator's API: accounts, keys and upgrade requests (`ADMIN_TOKEN`).",
  },
];

type SchemeName = "ApiKey" | "AdminToken" | "Session";

function security_scheme_of(path: string): SchemeName {
  if (path.startsWith("/admin/")) return "AdminToken";
  if (path.startsWith("/account/")) return "Session";
  return "ApiKey";
}

/**
 * Alias pairs (`bill_to`/`recipient`, `items`/`line_items`,
 * `rate`/`unit_price`): the contract accepts either name, so zod can mark
 * neither as required. The document requires the canonical name and lists the
 * alias as a deprecated property pointing to it (`x-alias-of`), so readers and
 * generated clients see the field as required under its canonical name.
 */
const ALIASES: Record<string, string> = {
  recipient: "bill_to",
  line_items: "items",
  unit_price: "rate",
};

function mark_aliases(schema: Json): void {
  const properties = schema.properties as Record<string, Json> | undefined;
  if (!properties) return;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  for (const [alias, canonical] of Object.entries(ALIASES)) {
    if (!properties[alias] || !properties[canonical]) continue;
    required.add(canonical);
    properties[alias] = {
      ...properties[alias],
      deprecated: true,
      "x-alias-of": canonical,
    };
  }
  schema.required = [...required];
  for (const property of Object.values(properties)) {
    const items = property.items as Json | undefined;
    if (items) mark_aliases(items);
  }
}

/**
 * Puts the examples of openapi_examples.ts on every operation: the request
 * body, the success answer and one per error status (named ones where a
 * status has several codes).
 */
function add_examples(paths: Record<string, Record<string, Json>>): void {
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const examples = OPERATION_EXAMPLES[`${method} ${path}`];
      const body = operation.requestBody as
        | { content: Record<string, Json> }
        | undefined;
      if (body && examples?.request !== undefined) {
        body.content["application/json"].example = examples.request;
      }
      const responses = operation.responses as Record<string, Json>;
      for (const [status, response] of Object.entries(responses)) {
        const content = response.content as Record<string, Json> | undefined;
        if (!content) continue;
        // Copies: error answers share one content object. The example goes
        // to the first media type; the others stay as they are.
        const [media_type, media] = Object.entries(content)[0];
        const example = examples?.responses[status] ??
          (Number(status) >= 400 ? error_example(path, status) : undefined);
        if (example === undefined) continue;
        const with_example: Json = { ...media };
        if (status === "403" && path === "/generate") {
          with_example.examples = Object.fromEntries(
            Object.entries(FORBIDDEN_EXAMPLES).map((
              [name, value],
            ) => [name, { value }]),
          );
        } else with_example.example = example;
        response.content = { ...content, [media_type]: with_example };
      }
    }
  }
}

/** Builds the service's OpenAPI document. */
export function build_openapi_document(): Json {
  const document = generateOpenApiDocument(app_router, {
    title: "Ink",
    version: CONTRACT_VERSION,
    // Relative: the document describes whichever server serves it, and the
    // committed copy does not depend on where it was generated.
    baseUrl: "/",
    description:
      "Turns invoice JSON into a PDF or an e-invoice in milliseconds. Nothing about an invoice is stored. " +
      `Limits: request body 1 MiB, ${INVOICE_LIMITS.max_items} line items, string lengths as given per field. ` +
      "Every error answers with the `Error` schema; every answer carries `Ink-Version`, the contract " +
      "version (this document's `info.version`; changes are listed in openapi/CHANGELOG.md).",
    securitySchemes: SECURITY_SCHEMES,
  }) as unknown as Json;
  (document.info as Json).contact = {
    name: "The operator of this Ink server",
  };
  document.tags = TAGS;
  (document.info as Json).license = {
    name: "Proprietary: use under the service's terms",
    identifier: "LicenseRef-Proprietary",
  };
  const components = document.components as Json & { schemas: Json };
  const error_content = use_error_schema(components);
  const paths = document.paths as Record<string, Record<string, Json>>;
  complete_operations(paths, error_content);
  complete_generate(paths, components, error_content);
  components.headers = RESPONSE_HEADERS;
  complete_responses(paths, error_content);
  add_examples(paths);
  // Only tRPC callers receive GeneratedDocument; REST clients get the PDF bytes.
  delete components.schemas.GeneratedDocument;
  return document;
}

/** The credentials: an API key, the admin token, the dashboard session. */
const SECURITY_SCHEMES = {
  ApiKey: {
    type: "http",
    scheme: "bearer",
    description:
      "An API key (`ink_live_…`, or `ink_test_…` for marked, uncharged test output), for `POST /generate`.",
  },
  AdminToken: {
    type: "http",
    scheme: "bearer",
    description:
      "The operator's ADMIN_TOKEN, for `/admin/…` (404 when the server has none).",
  },
  Session: {
    type: "apiKey",
    in: "cookie",
    name: "session",
    description:
      "The dashboard's session cookie (with the `X-CSRF-Token` header on writes).",
  },
} as const;

/**
 * One `Error` schema in place of the generator's per-status ones; returns
 * the content every error answer has.
 */
function use_error_schema(components: Json & { schemas: Json }): Json {
  for (const name of Object.keys(components.schemas)) {
    if (name.startsWith("error.")) delete components.schemas[name];
  }
  const converted = z.toJSONSchema(ErrorBodySchema) as Json & {
    $defs: Record<string, Json>;
  };
  components.schemas.Error = converted.$defs.Error;
  return {
    "application/json": { schema: { $ref: "#/components/schemas/Error" } },
  };
}

/** Every operation: its error content, its one security scheme, its 201. */
function complete_operations(
  paths: Record<string, Record<string, Json>>,
  error_content: Json,
): void {
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const responses = operation.responses as Record<string, Json>;
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) >= 400) response.content = error_content;
      }
      // Each operation claims exactly the one scheme the server accepts there.
      operation.security = [{ [security_scheme_of(path)]: [] }];
      if (CREATED.has(`${method} ${path}`) && responses["200"]) {
        responses["201"] = { ...responses["200"], description: "Created." };
        delete responses["200"];
      }
    }
  }
}

/**
 * `POST /generate`: alias properties marked, the `Idempotency-Key` header,
 * the document as its 200 and the 405 of other methods.
 */
function complete_generate(
  paths: Record<string, Record<string, Json>>,
  components: Json & { schemas: Json },
  error_content: Json,
): void {
  const generate = paths["/generate"].post;
  const body = generate.requestBody as Json & { content: Record<string, Json> };
  const request_schema = body.content["application/json"].schema as Json;
  mark_aliases(request_schema);
  const line_item = components.schemas.LineItem as Json | undefined;
  if (line_item) mark_aliases(line_item);
  generate.parameters = [
    ...((generate.parameters as Json[] | undefined) ?? []),
    {
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description: IdempotencyKeySchema.description +
        " Retry a request that timed out or failed with 5xx with the same key and body; " +
        "after 409 `idempotency_in_progress`, retry after `Retry-After` seconds; " +
        "after 422 `idempotency_key_reused`, send the new body with a new key.",
      schema: {
        type: "string",
        minLength: 1,
        maxLength: 255,
        pattern: "^[\\x20-\\x7e]+$",
      },
    },
  ];
  const responses = generate.responses as Record<string, Json>;
  responses["200"] = generate_success();
  responses["405"] = {
    description:
      "Any method but POST (`method_not_allowed`); `OPTIONS` answers 204. Both list the methods in `Allow`.",
    content: error_content,
  };
}
