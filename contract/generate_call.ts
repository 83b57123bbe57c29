/**
 * `invoice.generate` called with its input read only when the procedure
 * parses it, the way tRPC's own HTTP adapters call procedures
 * (`callTRPCProcedure` with `getRawInput`): the procedure's key middleware
 * runs first, so the REST face's `POST /generate` reads no byte of a body
 * whose key is refused, and reads the rest knowing whose request it is.
 *
 * @module
 */
import { callTRPCProcedure, type inferRouterOutputs } from "@trpc/server";
import type { ServiceContext } from "./context.ts";
import { app_router, type AppRouter } from "./router.ts";

/** What `invoice.generate` answers. */
export type GenerateOutput = inferRouterOutputs<AppRouter>["invoice"][
  "generate"
];

/**
 * Runs `invoice.generate` for `ctx`; `read_input` produces the raw request
 * (the JSON body) when the procedure asks for its input, after its key
 * middleware, and not at all for a request refused before.
 */
export async function call_generate(
  ctx: ServiceContext,
  read_input: () => Promise<unknown>,
): Promise<GenerateOutput> {
  const output: GenerateOutput = await callTRPCProcedure({
    router: app_router,
    path: "invoice.generate",
    type: "mutation",
    ctx,
    getRawInput: read_input,
    signal: undefined,
    batchIndex: 0,
  });
  return output;
}
