/**
 * What every REST answer has in common, for the OpenAPI document: the
 * statuses each kind of operation can answer besides its own (credentials,
 * body limits, CSRF, faults, overload) and the response headers each answer
 * carries (`Ink-Version`, `X-Request-Id`, `WWW-Authenticate` on 401,
 * `Retry-After` on 429 and 503, the rate and quota headers of `/generate`).
 */
import {
  CONTRACT_VERSION,
  CONTRACT_VERSION_HEADER,
  INVOICE_FORMAT_TABLE,
  INVOICE_FORMATS,
  type InvoiceFormat,
  OUTPUT_CONTENT_TYPES,
} from "../contract/mod.ts";

type Json = Record<string, unknown>;

function header(
  description: string,
  schema: Json = { type: "string" },
  required = false,
): Json {
  return { description, required, schema };
}

/** The response headers, as `components.headers`. */
export const RESPONSE_HEADERS: Record<string, Json> = {
  [CONTRACT_VERSION_HEADER]: header(
    "The contract version of this answer (`info.version` of this document; see openapi/CHANGELOG.md).",
    { type: "string", const: CONTRACT_VERSION },
    true,
  ),
  "X-Request-Id": header(
    "The request's `X-Request-Id` when it sent a valid one (1-128 of `A-Z a-z 0-9 . _ -`), otherwise a new UUID; it is in the server's log line of this request.",
    { type: "string" },
    true,
  ),
  "WWW-Authenticate": header(
    '`Bearer` (RFC 6750) when no credentials were sent; `Bearer error="invalid_token"` when a token was sent and is not accepted here.',
    { type: "string", pattern: "^Bearer" },
    true,
  ),
  "Retry-After": header(
    "Whole seconds to wait before retrying (at least 1): the true wait of the limit that was hit.",
    { type: "integer", minimum: 1 },
    true,
  ),
  "RateLimit-Limit": header(
    "Requests allowed per minute (sliding window of 60 s).",
    { type: "integer" },
  ),
  "RateLimit-Remaining": header("Requests that fit now.", { type: "integer" }),
  "RateLimit-Reset": header(
    "Seconds until one more request than `RateLimit-Remaining` fits.",
    { type: "integer" },
  ),
  "X-Quota-Limit": header("Invoices included per month in the plan.", {
    type: "integer",
  }),
  "X-Quota-Remaining": header("Invoices left this month.", {
    type: "integer",
  }),
  "X-Quota-Reset": header("Date (UTC) the monthly quota resets, YYYY-MM-DD.", {
    type: "string",
    format: "date",
  }),
  "Idempotent-Replayed": header(
    "`true` when this request was already charged: the same body this month, " +
      "or the same `Idempotency-Key` and body within 24 hours.",
    { type: "string", enum: ["true"] },
  ),
  "Content-Disposition": header(
    'The file name: `attachment; filename="invoice-<number>.pdf"` (`.xml` for the XML formats), ' +
      "a safe file name from the invoice number, also as `filename*` in UTF-8.",
    { type: "string" },
    true,
  ),
  Allow: header("The methods the path serves, e.g. `POST, OPTIONS`.", {
    type: "string",
  }, true),
};

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Headers of the rate limit and the monthly quota, sent once the key is known. */
const GENERATE_HEADERS = [
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
  "X-Quota-Limit",
  "X-Quota-Remaining",
  "X-Quota-Reset",
];

/**
 * Statuses an operation answers besides those its router entry names, by
 * what it does: who may call it, whether it reads a body.
 */
function common_errors(method: string, path: string): Record<string, string> {
  const errors: Record<string, string> = {
    "401": path.startsWith("/account/")
      ? "No dashboard session, or an expired one (`unauthorized`); a request with an `Authorization` header is never a session."
      : path.startsWith("/admin/")
      ? "Missing or wrong `ADMIN_TOKEN` bearer token (`unauthorized`)."
      : "Missing, malformed or unknown API key (`unauthorized`).",
    "500": "Unexpected fault (`internal`); safe to retry.",
    "503":
      "Temporarily unavailable (`unavailable`): the database is unreachable, or too many request bytes are in memory; retry after `Retry-After` seconds.",
  };
  const reads_body = method === "post" || method === "patch";
  if (reads_body || path.includes("{")) {
    errors["400"] =
      "Invalid JSON, a `Content-Type` other than `application/json`, or invalid fields (`invalid_request`, with per-field `details`); JSON nested deeper than 64 levels (`json_too_deep`).";
  }
  if (reads_body) {
    errors["408"] =
      "The request body did not arrive in time, or arrived too slowly (`request_timeout`).";
    errors["413"] =
      "Request body over 1 MiB, or over 16 KiB before the credentials checked out (`payload_too_large`).";
  }
  if (reads_body && path.startsWith("/account/")) {
    errors["403"] =
      "A cross-site request, or a missing or wrong `X-CSRF-Token` header (`forbidden`).";
  }
  if (path.startsWith("/admin/")) {
    errors["404"] =
      "The server has no `ADMIN_TOKEN`: no admin API (`not_found`).";
  }
  return errors;
}

/** The headers each answer of an operation declares, by status. */
function headers_of(path: string, status: string): Record<string, Json> {
  const names = [CONTRACT_VERSION_HEADER, "X-Request-Id"];
  if (status === "401") names.push("WWW-Authenticate");
  if (status === "429" || status === "503") names.push("Retry-After");
  if (status === "405") names.push("Allow");
  if (path === "/generate") {
    if (status === "409") names.push("Retry-After");
    if (status !== "401" && status !== "405") names.push(...GENERATE_HEADERS);
    if (status === "200") {
      names.push("Content-Disposition", "Idempotent-Replayed");
    }
  }
  return Object.fromEntries(names.map((name) => [name, ref(name)]));
}

/**
 * Adds the common statuses to every operation (merging descriptions where
 * the router names a status for its own reasons) and declares the headers
 * of every answer.
 */
export function complete_responses(
  paths: Record<string, Record<string, Json>>,
  error_content: Json,
): void {
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const responses = operation.responses as Record<string, Json>;
      for (
        const [status, text] of Object.entries(common_errors(method, path))
      ) {
        const known = responses[status];
        if (!known) {
          responses[status] = { description: text, content: error_content };
        } else if (
          status !== "400" && status !== "401" &&
          !String(known.description).includes(text)
        ) {
          known.description = `${known.description} Or: ${text}`;
        }
      }
      operation.responses = Object.fromEntries(
        Object.entries(responses)
          .sort(([a], [b]) => Number(a) - Number(b))
          .map(([status, response]) => [status, {
            ...response,
            headers: {
              ...(response.headers as Json | undefined),
              ...headers_of(path, status),
            },
          }]),
      );
    }
  }
}

/** The formats that answer `output`, from the format registry. */
function formats_answering(output: "pdf" | "xml"): InvoiceFormat[] {
  return INVOICE_FORMATS.filter((format) =>
    INVOICE_FORMAT_TABLE[format].extension === output
  );
}

/** `POST /generate`'s 200: one content type per kind of output, from the registry. */
export function generate_success(): Json {
  const listed = (output: "pdf" | "xml") =>
    formats_answering(output).map((format) =>
      `\`${format}\` (${INVOICE_FORMAT_TABLE[format].name})`
    ).join(", ");
  return {
    description:
      `The invoice, streamed: \`${OUTPUT_CONTENT_TYPES.pdf}\` (A4) for ${
        listed("pdf")
      }; ` +
      `\`${OUTPUT_CONTENT_TYPES.xml}\` for ${listed("xml")}.`,
    content: {
      [OUTPUT_CONTENT_TYPES.pdf]: {
        schema: {
          type: "string",
          format: "binary",
          description: `The PDF, for ${listed("pdf")}.`,
        },
      },
      [OUTPUT_CONTENT_TYPES.xml]: {
        schema: {
          type: "string",
          description: `UTF-8 XML, for ${listed("xml")}.`,
        },
        example: '<?xml version="1.0" encoding="UTF-8"?>\n' +
          '<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100" …> … </rsm:CrossIndustryInvoice>',
      },
    },
  };
}
