/**
 * The REST face: the procedures at their OpenAPI paths (trpc-to-openapi's
 * node handler over a Fetch request), with our body limits and our error
 * shape, and 405 with `Allow` for a path served with other methods.
 *
 * @module
 */
import { createOpenApiNodeHttpHandler } from "trpc-to-openapi";
import {
  ApiError,
  app_router,
  type ServiceContext,
  to_api_error,
} from "../../contract/mod.ts";
import { read_json_body } from "../body.ts";
import { error_response, log_fault } from "./responses.ts";
import type { Exchange } from "./steps.ts";

const HTTP_METHODS = new Set(["get", "put", "post", "delete", "patch"]);

// trpc-to-openapi reads `request.signal`; ours never aborts mid-procedure.
const never_aborted = new AbortController().signal;

/** Path patterns of the OpenAPI document with the methods each serves. */
function method_table(
  document: Record<string, unknown>,
): { pattern: RegExp; methods: string[] }[] {
  const paths = (document.paths ?? {}) as Record<string, object>;
  return Object.entries(paths).map(([template, item]) => ({
    pattern: new RegExp(
      `^${
        template.split(/\{[^}]+\}/).map((part) =>
          part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
        ).join("[^/]+")
      }/?$`,
    ),
    methods: Object.keys(item).filter((key) => HTTP_METHODS.has(key))
      .map((method) => method.toUpperCase()),
  }));
}

/**
 * A request that carries no body at all (no `Content-Type`, nothing to
 * read): action endpoints such as `POST /admin/keys/{id}/revoke` take their
 * input from the path alone, as `curl -X POST` sends them.
 */
function is_bodyless(request: Request): boolean {
  if (request.headers.has("content-type")) return false;
  const length = request.headers.get("content-length");
  if (length !== null) return length.trim() === "0";
  return request.body === null;
}

/** The request's body as the node handler takes it, and its headers. */
async function body_of(
  exchange: Exchange,
): Promise<{ body: unknown; headers: Headers }> {
  const { request, limits } = exchange;
  if (
    request.method === "GET" || request.method === "HEAD" ||
    request.method === "DELETE"
  ) {
    return { body: undefined as unknown, headers: request.headers };
  }
  if (!is_bodyless(request)) {
    return {
      body: await read_json_body(request, limits) as unknown,
      headers: request.headers,
    };
  }
  // No body is an empty input: the path alone, validated as usual.
  const headers = new Headers(request.headers);
  headers.set("Content-Type", "application/json");
  return { body: {} as unknown, headers };
}

/** Runs the node handler; `not_found` when it has no such procedure. */
function run_handler(
  // deno-lint-ignore no-explicit-any
  rest_handler: any,
  request_like: unknown,
  on_error: (error: unknown) => void,
): Promise<{ response: Response; not_found: boolean }> {
  return new Promise((resolve) => {
    let status = 200;
    const headers = new Headers();
    const response_like = {
      setHeader(name: string, value: string | string[]) {
        if (typeof value === "string") headers.set(name, value);
        else for (const item of value) headers.append(name, item);
      },
      get statusCode() {
        return status;
      },
      set statusCode(code: number) {
        status = code;
      },
      end(text?: string) {
        resolve({
          response: new Response(text ?? null, { status, headers }),
          not_found: false,
        });
      },
    };
    const no_route = () =>
      resolve({
        response: new Response(null, { status: 404 }),
        not_found: true,
      });
    rest_handler(request_like, response_like, no_route).catch(
      (error: unknown) => {
        on_error(error);
        resolve({
          response: new Response(null, { status: 500 }),
          not_found: false,
        });
      },
    );
  });
}

/** What the REST face answers with, and what it reads a request's context from. */
export interface RestFaceOptions {
  openapi_document: Record<string, unknown>;
  /** The services' view of the request (admin paths know the admin token early). */
  context_for(exchange: Exchange, admin_path: boolean): Promise<ServiceContext>;
}

/** Handler of the REST face. */
export function create_rest_face(
  options: RestFaceOptions,
): (exchange: Exchange) => Promise<Response> {
  const path_methods = method_table(options.openapi_document);

  /** The methods the REST face serves on a path (empty: no such path). */
  function allowed_methods(path: string): string[] {
    for (const { pattern, methods } of path_methods) {
      if (pattern.test(path)) return methods;
    }
    return [];
  }
  // The node handler answers errors in its own shape; we keep the thrown
  // error per request and answer in ours.
  const rest_errors = new WeakMap<ServiceContext, unknown>();
  type RequestLike = { service_context: ServiceContext };
  // deno-lint-ignore no-explicit-any
  const rest_handler: any = createOpenApiNodeHttpHandler({
    router: app_router,
    createContext: ({ req }: { req: RequestLike }) => req.service_context,
    responseMeta: ({ ctx }: { ctx?: ServiceContext }) => ({
      status: ctx?.response.status,
      headers: ctx ? Object.fromEntries(ctx.response.headers) : {},
    }),
    onError: ({ error, req }: { error: unknown; req: RequestLike }) => {
      log_fault(error);
      rest_errors.set(req.service_context, error);
    },
    // deno-lint-ignore no-explicit-any
  } as any);

  return async function rest(exchange: Exchange): Promise<Response> {
    const { request, url } = exchange;
    const ctx = await options.context_for(
      exchange,
      url.pathname.startsWith("/admin/"),
    );
    const { body, headers } = await body_of(exchange);
    // trpc-to-openapi's node handler takes a request-like object; a proxy of
    // the real Request with the already-parsed body keeps the limits ours.
    const request_like = new Proxy(request, {
      get(target, property) {
        if (property === "url") return url.toString();
        if (property === "body") return body;
        if (property === "service_context") return ctx;
        if (property === "signal") return never_aborted;
        if (property === "headers") return headers;
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
      has(target, property) {
        return property === "body" || Reflect.has(target, property);
      },
    });
    const { response, not_found } = await run_handler(
      rest_handler,
      request_like,
      (error) => rest_errors.set(ctx, error),
    );
    if (response.status < 400 && !rest_errors.has(ctx)) return response;
    const allowed = not_found ? allowed_methods(url.pathname) : [];
    const error = allowed.length > 0
      ? new ApiError(
        "method_not_allowed",
        `${request.method} is not allowed on ${url.pathname}; use ${
          allowed.join(" or ")
        }`,
        { headers: { Allow: allowed.join(", ") } },
      )
      : not_found
      ? new ApiError(
        "not_found",
        `No endpoint ${request.method} ${url.pathname}`,
      )
      : rest_errors.get(ctx);
    return error_response(to_api_error(error), ctx.response.headers);
  };
}
