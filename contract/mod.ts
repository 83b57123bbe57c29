/**
 * The service contract: schemas, error shape and the tRPC router.
 *
 * @module
 */
export * from "./accounts.ts";
export * from "./auth.ts";
export * from "./billing.ts";
export * from "./context.ts";
export * from "./einvoice.ts";
export * from "./format_rules.ts";
export * from "./formats.ts";
export * from "./errors.ts";
export * from "./invoice.ts";
export * from "./money.ts";
export * from "./router.ts";
export * from "./generate_call.ts";
export * from "./trpc_errors.ts";
export * from "./upgrades.ts";
export * from "./validation.ts";
export * from "./version.ts";
