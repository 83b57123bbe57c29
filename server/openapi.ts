/**
 * The OpenAPI document, generated from the router by trpc-to-openapi and
 * completed with what it cannot express: the binary PDF response, our one
 * error shape, 201 statuses and the dashboard's cookie authentication.
 */
import { generateOpenApiDocument } from "trpc-to-openapi";
import { z } from "zod";
import {
  app_router,
  ErrorBodySchema,
  INVOICE_LIMITS,
} from "../contract/mod.ts";

/** Operations that answer 201 Created. */
const CREATED = new Set([
  "post /admin/accounts",
  "post /admin/accounts/{id}/keys",
  "post /account/keys",
]);

type Json = Record<string, unknown>;

/** Builds the service's OpenAPI document. */
export function build_openapi_document(): Json {
  const document = generateOpenApiDocument(app_router, {
    title: "Invoice PDF API",
    version: "1.0.0",
    baseUrl: "http://127.0.0.1:8000",
    description:
      "Turns invoice JSON into a PDF in milliseconds. Nothing about an invoice is stored. " +
      `Limits: request body 1 MiB, ${INVOICE_LIMITS.max_items} line items, string lengths as given per field. ` +
      "Every error answers with the `Error` schema.",
    securitySchemes: {
      Authorization: {
        type: "http",
        scheme: "bearer",
        description:
          "An API key (`ink_live_…`) for /generate; the ADMIN_TOKEN for /admin.",
      },
      Session: {
        type: "apiKey",
        in: "cookie",
        name: "session",
        description:
          "The dashboard's session cookie (with the `X-CSRF-Token` header on writes).",
      },
    },
  }) as unknown as Json;
  const components = document.components as Json & { schemas: Json };
  for (const name of Object.keys(components.schemas)) {
    if (name.startsWith("error.")) delete components.schemas[name];
  }
  const converted = z.toJSONSchema(ErrorBodySchema) as Json & {
    $defs: Record<string, Json>;
  };
  components.schemas.Error = converted.$defs.Error;
  const error_content = {
    "application/json": { schema: { $ref: "#/components/schemas/Error" } },
  };
  const paths = document.paths as Record<string, Record<string, Json>>;
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const responses = operation.responses as Record<string, Json>;
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) >= 400) response.content = error_content;
      }
      if (path.startsWith("/account/")) operation.security = [{ Session: [] }];
      if (CREATED.has(`${method} ${path}`) && responses["200"]) {
        responses["201"] = { ...responses["200"], description: "Created." };
        delete responses["200"];
      }
    }
  }
  const generate = paths["/generate"].post;
  const responses = generate.responses as Record<string, Json>;
  const header = (description: string, type = "string") => ({
    description,
    schema: { type },
  });
  const rate_headers = {
    "RateLimit-Limit": header(
      "Requests allowed per minute (sliding window of 60 s).",
      "integer",
    ),
    "RateLimit-Remaining": header("Requests that fit now.", "integer"),
    "RateLimit-Reset": header(
      "Seconds until one more request than `RateLimit-Remaining` fits.",
      "integer",
    ),
  };
  responses["200"] = {
    description: "The invoice PDF (A4), streamed.",
    headers: {
      "Content-Disposition": header(
        'attachment; filename="invoice-<number>.pdf" (a safe file name from the invoice number).',
      ),
      ...rate_headers,
      "X-Quota-Limit": header(
        "Invoices included per month in the plan.",
        "integer",
      ),
      "X-Quota-Remaining": header("Invoices left this month.", "integer"),
      "X-Quota-Reset": header(
        "Date (UTC) the monthly quota resets, YYYY-MM-DD.",
      ),
      "Idempotent-Replayed": header(
        "`true` when this identical request was already charged this month.",
      ),
    },
    content: {
      "application/pdf": { schema: { type: "string", format: "binary" } },
    },
  };
  responses["429"] = {
    ...responses["429"],
    headers: {
      "Retry-After": header(
        "Seconds until the next request fits (equals `RateLimit-Reset`).",
        "integer",
      ),
      ...rate_headers,
    },
  };
  responses["503"] = {
    ...responses["503"],
    headers: { "Retry-After": header("Seconds to wait.", "integer") },
  };
  return document;
}
