/**
 * The contract types the client package names. Here they come from the
 * contract itself; the package ships them printed as plain declarations
 * (`deno task client`), so callers need neither zod nor the server.
 *
 * @module
 */
export type {
  AccountUsageView,
  AccountView,
  AccountWithBilling,
  ApiKeyView,
  AppRouter,
  CreatedApiKey,
  DocumentType,
  ErrorBody,
  ErrorCode,
  ErrorDetail,
  GenerateRequest,
  InvoiceFormat,
  InvoiceRequest,
  KeyMode,
  Plan,
  SubscriptionStatus,
  TaxCategory,
  UpgradeRequestView,
} from "../mod.ts";
