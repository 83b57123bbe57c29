/**
 * The services' view of one request (the tRPC context): its credentials'
 * headers, its dashboard session, where procedures put headers, and the
 * hook that tells the memory lease the credentials checked out.
 *
 * @module
 */
import type {
  Principal,
  ResponseSink,
  ServiceContext,
  Services,
  SessionControl,
} from "../../contract/mod.ts";
import type { Exchange } from "./steps.ts";

/** What the context is made from. */
export interface ContextOptions {
  services: Services;
  /** Resolves the dashboard session from a request (cookie), if any. */
  resolve_session?: (request: Request) => Promise<Principal | null>;
  /** Starts and ends dashboard sessions for a request (`auth.*` procedures). */
  session_control?: (
    request: Request,
    response: ResponseSink,
  ) => SessionControl;
  /** The public origin for links back to the dashboard; default: each request's own. */
  public_url?: string;
}

/**
 * Makes an exchange's service context (and keeps it on the exchange, for
 * the request log); `binary_document` when the HTTP face streams a
 * generated document itself, `admin_path` on the REST face's admin paths.
 */
export type ContextFor = (
  exchange: Exchange,
  binary_document: boolean,
  admin_path?: boolean,
) => Promise<ServiceContext>;

/** The context factory over `options`. */
export function create_context_for(options: ContextOptions): ContextFor {
  /** True when the request carries the operator's admin token. */
  function has_admin_token(request: Request): boolean {
    const authorization = request.headers.get("authorization");
    if (!authorization) return false;
    try {
      options.services.authenticate_admin(authorization);
      return true;
    } catch {
      return false;
    }
  }

  return async function context_for(
    exchange: Exchange,
    binary_document: boolean,
    admin_path = false,
  ): Promise<ServiceContext> {
    const { request } = exchange;
    const session = (await options.resolve_session?.(request)) ?? null;
    // A session is known before any body is read, and so is the admin token
    // on the REST face's admin paths (whose bodies are read before the
    // procedure runs); an API key or the admin token over tRPC once the
    // procedure checked it (`credentials_checked`).
    const lease = exchange.limits.lease;
    if (session || (admin_path && has_admin_token(request))) lease?.known();
    const response: ResponseSink = {
      headers: new Headers(),
      account_id: session?.account.id,
    };
    const ctx: ServiceContext = {
      authorization: request.headers.get("authorization"),
      idempotency_key: request.headers.get("idempotency-key"),
      session,
      session_control: options.session_control?.(request, response),
      binary_document,
      origin: options.public_url ?? new URL(request.url).origin,
      accept_language: request.headers.get("accept-language"),
      client_address: exchange.client_address,
      credentials_checked: () => lease?.known(),
      response,
      services: options.services,
    };
    exchange.service_context = ctx;
    return ctx;
  };
}
