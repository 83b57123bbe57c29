/**
 * The one tRPC router: every procedure of the service, defined once. The REST
 * face (trpc-to-openapi) and typed `/trpc` callers share it. Each domain's
 * procedures are in `procedures/`; the invoice procedures are here.
 */
import { z } from "zod";
import type { RenderedDocument, ServiceContext } from "./context.ts";
import { OUTPUT_CONTENT_TYPES } from "./formats.ts";
import { ApiError } from "./errors.ts";
import { GenerateRequestSchema, type Invoice } from "./invoice.ts";
import { negotiate_locale } from "./locales.ts";
import { account_router } from "./procedures/account.ts";
import { admin_router } from "./procedures/admin.ts";
import { auth_router } from "./procedures/auth.ts";
import { base, pick_errors, session_procedure, t } from "./procedures/base.ts";
import { billing_router } from "./procedures/billing.ts";
import { upgrade_router } from "./procedures/upgrade.ts";

// POST /generate: a key that checked out lately is checked by the service
// in the statement that charges the quota (one database round trip per
// invoice); any other key is checked here. Either way the body is read
// only afterwards, when the input is parsed. A request refused before its
// key was looked at (a 400 for the body or a header) has it checked then,
// so 401, 403 and 429 still come before 400 and the rate limit counts the
// request.
const generate_procedure = base.use(async ({ ctx, next }) => {
  const api_key = await ctx.services.begin_generate_key_check(
    ctx.authorization,
    ctx.response,
  );
  ctx.credentials_checked?.();
  const result = await next({ ctx: { api_key } });
  if (!result.ok && !api_key.checked) {
    await ctx.services.authenticate_api_key(ctx.authorization, ctx.response);
  }
  return result;
});

/**
 * Without a `locale` in the body, the request's `Accept-Language` picks a
 * supported one; without both the invoice gets the default output.
 */
function with_negotiated_locale(
  invoice: Invoice,
  ctx: ServiceContext,
): Invoice {
  if (invoice.locale !== undefined) return invoice;
  const locale = negotiate_locale(ctx.accept_language);
  return locale ? { ...invoice, locale } : invoice;
}

/** The `Idempotency-Key` request header: 1-255 printable ASCII characters. */
export const IdempotencyKeySchema = z.string()
  .min(1, "must not be empty")
  .max(255, "must be at most 255 characters")
  .regex(/^[\x20-\x7e]+$/, "must be printable ASCII characters only")
  .describe(
    "Makes retries safe: the same key with the same body within 24 hours returns the same PDF " +
      "(`Idempotent-Replayed: true`) and is charged once. 1-255 printable ASCII characters, " +
      "e.g. a UUID per invoice. Only hashes of the key and request are stored.",
  );

function idempotency_key_of(ctx: ServiceContext): string | undefined {
  if (ctx.idempotency_key === undefined || ctx.idempotency_key === null) {
    return undefined;
  }
  const parsed = IdempotencyKeySchema.safeParse(ctx.idempotency_key);
  if (!parsed.success) {
    const message = parsed.error.issues[0]?.message ?? "is invalid";
    throw new ApiError(
      "invalid_request",
      `The Idempotency-Key header ${message}`,
      { details: [{ path: "Idempotency-Key", message }] },
    );
  }
  return parsed.data;
}

/** What a tRPC caller receives for a generated invoice. */
export const GeneratedDocumentSchema = z.object({
  file_name: z.string(),
  content_type: z.enum([OUTPUT_CONTENT_TYPES.pdf, OUTPUT_CONTENT_TYPES.xml]),
  byte_length: z.number().int(),
  pdf_base64: z.string().optional().describe(
    "The PDF (formats `pdf` and `factur-x`), base64-encoded (tRPC callers). The REST face streams the bytes instead.",
  ),
  xml: z.string().optional().describe(
    "The XML (XML formats), as text (tRPC callers). The REST face streams the bytes instead.",
  ),
}).meta({ id: "GeneratedDocument" });

function document_fields(
  document: RenderedDocument,
  binary: boolean,
): { pdf_base64?: string; xml?: string } {
  if (binary) return {};
  if (document.content_type === "application/pdf") {
    return { pdf_base64: encode_base64(document.bytes) };
  }
  return { xml: new TextDecoder().decode(document.bytes) };
}

function encode_base64(bytes: Uint8Array): string {
  let binary = "";
  for (let offset = 0; offset < bytes.length; offset += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(offset, offset + 0x8000));
  }
  return btoa(binary);
}

/** The service's router. */
export const app_router = t.router({
  // Dashboard sign-in; tRPC-only (no REST face): API clients use keys.
  auth: auth_router,
  invoice: t.router({
    generate: generate_procedure
      .meta({
        openapi: {
          method: "POST",
          path: "/generate",
          protect: true,
          tags: ["invoices"],
          summary: "Generate an invoice PDF or e-invoice",
          description:
            "Turns invoice JSON into a PDF, streamed back as `application/pdf`, or with `format` into an " +
            "e-invoice: Factur-X (PDF/A-3 with CII XML inside), XRechnung 3.0 (CII or UBL), Peppol BIS UBL or " +
            "EN 16931 CII (`application/xml`). Nothing is stored. An identical retry (format included) in the " +
            "same month returns the same document and is not charged again. A format that needs fields the " +
            "request lacks is a 400 listing every missing field with its business term. " +
            "Send an `Idempotency-Key` header to make retries safe across months too. " +
            "With a test key (`ink_test_…`) the document is marked TEST and nothing is charged.",
          successDescription: "The PDF or XML.",
          errorResponses: pick_errors([
            400,
            401,
            403,
            408,
            409,
            413,
            422,
            429,
            500,
            503,
          ]),
        },
      })
      .input(GenerateRequestSchema)
      .output(GeneratedDocumentSchema)
      .mutation(async ({ ctx, input }) => {
        const document = await ctx.services.generate_invoice(
          ctx.api_key,
          with_negotiated_locale(input.invoice, ctx),
          ctx.response,
          {
            format: input.format,
            idempotency_key: idempotency_key_of(ctx),
          },
        );
        if (ctx.binary_document) ctx.response.document = document.bytes;
        return {
          file_name: document.file_name,
          content_type: document.content_type,
          byte_length: document.bytes.length,
          ...document_fields(document, ctx.binary_document),
        };
      }),
    // The body of `POST /generate`, `format` included; every preview is
    // marked (PREVIEW on PDF pages, TEST in e-invoice XML).
    preview: session_procedure
      .input(GenerateRequestSchema)
      .output(GeneratedDocumentSchema)
      .mutation(async ({ ctx, input }) => {
        const document = await ctx.services.preview_invoice(
          ctx.principal,
          with_negotiated_locale(input.invoice, ctx),
          { format: input.format },
        );
        return {
          file_name: document.file_name,
          content_type: document.content_type,
          byte_length: document.bytes.length,
          ...document_fields(document, false),
        };
      }),
  }),
  account: account_router,
  billing: billing_router,
  upgrade: upgrade_router,
  admin: admin_router,
});

/** The router's type, for typed tRPC clients. */
export type AppRouter = typeof app_router;

/** Creates a server-side caller (tests, the dashboard's server side). */
export const create_caller = t.createCallerFactory(app_router);
