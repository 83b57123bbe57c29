/**
 * `/trpc/*`: the tRPC face, through tRPC's fetch adapter, with the same
 * body checks as every JSON entry point. A generated document answered
 * here settles on delivery like `/generate`'s.
 *
 * @module
 */
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { ApiError, app_router } from "../../contract/mod.ts";
import { parse_checked_json, read_checked_json } from "../body.ts";
import { delivered_bytes } from "../generate/delivery.ts";
import { log_fault, with_error_headers } from "./responses.ts";
import type { ContextFor } from "./service_context.ts";
import type { Exchange } from "./steps.ts";

/**
 * A tRPC batch may not carry `auth.*` calls: each sign-up or sign-in costs a
 * password hash, and the per-request limits must see every one.
 */
function refuse_auth_batches(url: URL): void {
  if (!url.searchParams.has("batch")) return;
  let names = url.pathname.slice("/trpc/".length);
  try {
    names = decodeURIComponent(names);
  } catch {
    // Left encoded: a malformed name is no procedure, auth or otherwise.
  }
  const procedures = names.split(",");
  if (procedures.some((name) => name.trim().startsWith("auth."))) {
    throw new ApiError(
      "invalid_request",
      "auth.* procedures cannot be batched; send each as its own request",
    );
  }
}

/**
 * tRPC reads a query's input from `?input=`: it gets the same JSON checks
 * (depth, syntax, duplicate keys) and answers as a body.
 */
function check_query_input(request: Request, url: URL): void {
  if (request.method !== "GET") return;
  const input = url.searchParams.get("input");
  if (input) parse_checked_json(input, "The input query parameter");
}

const text_encoder = new TextEncoder();

/** The `/trpc/*` handler. */
export function trpc_route(
  context_for: ContextFor,
): (exchange: Exchange) => Promise<Response> {
  return async function trpc(exchange: Exchange): Promise<Response> {
    const { request, url, limits } = exchange;
    refuse_auth_batches(url);
    check_query_input(request, url);
    const ctx = await context_for(exchange, false);
    // The same body checks as every JSON entry point, made when a procedure
    // asks for its input (after its credentials middleware); it gets the
    // checked text in a fresh Request, whose signal is not the connection's
    // (Deno aborts that one after every response). A body that fails them
    // is answered like any other entry point's.
    let body_error: unknown;
    const body = request.body
      ? new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            const checked = await read_checked_json(request, limits, {
              allow_empty: true,
            });
            if (checked) controller.enqueue(text_encoder.encode(checked.text));
            controller.close();
          } catch (error) {
            body_error = error;
            controller.error(error);
          }
        },
      }, { highWaterMark: 0 })
      : undefined;
    const forwarded = new Request(request.url, {
      method: request.method,
      headers: request.headers,
      body,
    });
    const response = await fetchRequestHandler({
      endpoint: "/trpc",
      req: forwarded,
      router: app_router,
      createContext: () => ctx,
      responseMeta: ({ errors }) => ({
        headers: with_error_headers(ctx.response.headers, errors),
      }),
      onError: ({ error }) => {
        if (body_error === undefined) log_fault(error);
      },
    });
    if (body_error !== undefined) {
      await response.body?.cancel();
      await ctx.response.delivery?.undelivered();
      throw body_error;
    }
    const delivery = ctx.response.delivery;
    if (delivery && response.status !== 200) {
      // The document was made but the answer is an error: not delivered.
      await delivery.undelivered();
    } else if (delivery) {
      // A generated document: charged once the answer was delivered.
      const bytes = new Uint8Array(await response.arrayBuffer());
      const headers = new Headers(response.headers);
      headers.delete("Content-Length");
      return new Response(delivered_bytes(bytes, delivery), {
        status: response.status,
        headers,
      });
    }
    if (response.status === 405) {
      // Queries are read by GET, mutations sent by POST.
      const name = new URL(request.url).pathname.slice("/trpc/".length);
      // deno-lint-ignore no-explicit-any
      const procedure = (app_router._def.procedures as any)[name];
      response.headers.set(
        "Allow",
        procedure?._def?.type === "query" ? "GET" : "POST",
      );
    }
    return response;
  };
}
