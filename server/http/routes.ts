/**
 * The route table: which handler serves a request.
 *
 * @module
 */
import { ApiError } from "../../contract/mod.ts";
import type { Exchange } from "./steps.ts";

/** One route: the paths (and method) it serves, and its handler. */
export interface Route {
  path: (path: string) => boolean;
  /** Only this method; other methods go on to the next routes. */
  method?: string;
  /** The answer; undefined passes the request on to the next routes. */
  handle: (
    exchange: Exchange,
  ) => Response | undefined | Promise<Response | undefined>;
}

/** Serves the exchange by the first route that matches and answers. */
export async function route(
  routes: Route[],
  exchange: Exchange,
): Promise<Response> {
  const path = exchange.url.pathname;
  for (const candidate of routes) {
    if (!candidate.path(path)) continue;
    if (candidate.method && candidate.method !== exchange.request.method) {
      continue;
    }
    const response = await candidate.handle(exchange);
    if (response) return response;
  }
  throw new ApiError(
    "not_found",
    `No endpoint ${exchange.request.method} ${path}`,
  );
}
