/**
 * `POST /generate`: the document itself, streamed. The procedure runs the
 * generate pipeline (`../generate/pipeline.ts`); this route hands it the
 * body to read after the key checked out, and streams the document so that
 * its delivery settles the charge (`../generate/delivery.ts`).
 *
 * @module
 */
import { ApiError, call_generate, to_api_error } from "../../contract/mod.ts";
import { read_json_body } from "../body.ts";
import { delivered_bytes } from "../generate/delivery.ts";
import { owned_bytes } from "../owned_bytes.ts";
import { content_disposition, error_response, log_fault } from "./responses.ts";
import type { ContextFor } from "./service_context.ts";
import type { Exchange } from "./steps.ts";

// What `/generate` answers to; HEAD (a GET without body) is not among them.
const GENERATE_ALLOW = "POST, OPTIONS";

/** The `/generate` handler. */
export function generate_route(
  context_for: ContextFor,
): (exchange: Exchange) => Promise<Response> {
  return async function generate(exchange: Exchange): Promise<Response> {
    const { request, limits } = exchange;
    if (request.method === "OPTIONS") {
      // Not a CORS preflight (those are answered before routing): say what
      // this endpoint accepts.
      return new Response(null, {
        status: 204,
        headers: { Allow: GENERATE_ALLOW },
      });
    }
    if (request.method !== "POST") {
      // HEAD is "GET without the body", and GET is not served here either.
      throw new ApiError("method_not_allowed", "Use POST /generate", {
        headers: { Allow: GENERATE_ALLOW },
      });
    }
    const ctx = await context_for(exchange, true);
    try {
      // The body is read when the procedure parses its input, after the key
      // checked out: a request with a bad key gets its 401 without a byte of
      // body held.
      const result = await call_generate(
        ctx,
        () => read_json_body(request, limits),
      );
      // The document is held until the answer is handed over.
      limits.lease?.hold_existing(result.byte_length);
      const headers = ctx.response.headers;
      headers.set("Content-Type", result.content_type);
      headers.set("Content-Disposition", content_disposition(result.file_name));
      headers.set("Cache-Control", "no-store");
      const document = ctx.response.document;
      if (document === undefined) {
        throw new Error("invoice.generate left no document bytes");
      }
      const bytes = owned_bytes(document);
      const delivery = ctx.response.delivery;
      if (!delivery) return new Response(bytes, { status: 200, headers });
      // Chunked, without Content-Length: the server then pulls the body to
      // its end, so that pull can say the document was delivered.
      return new Response(delivered_bytes(bytes, delivery), {
        status: 200,
        headers,
      });
    } catch (error) {
      await ctx.response.delivery?.undelivered();
      log_fault(error);
      return error_response(to_api_error(error), ctx.response.headers);
    }
  };
}
