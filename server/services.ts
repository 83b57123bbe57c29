/**
 * The server's implementation of the contract's `Services`, composed by
 * domain: generation (`generate/`: keys checked, the `/generate`
 * pipeline, previews), API keys, accounts and sessions, billing, upgrades
 * (`services/`).
 */
import type { Services } from "../contract/mod.ts";
import type * as store from "../db/mod.ts";
import { create_generation_services } from "./generate/mod.ts";
import { create_account_services } from "./services/accounts.ts";
import { create_billing_services } from "./services/billing.ts";
import {
  create_service_context,
  type ServicesOptions,
} from "./services/context.ts";
import { create_key_services } from "./services/keys.ts";
import { create_upgrade_services } from "./services/upgrades.ts";

export {
  document_file_name,
  PREVIEWS_PER_DAY,
  PREVIEWS_PER_MINUTE,
  TIMEOUTS_PER_HOUR,
} from "./generate/mod.ts";
export type {
  RenderDocument,
  RenderOptions,
  ServicesOptions,
} from "./services/context.ts";

/** Creates the services over an open database. */
export function create_services(
  database: store.Database,
  options: ServicesOptions,
): Services {
  const context = create_service_context(database, options);
  return {
    ...create_generation_services(context),
    ...create_key_services(context),
    ...create_account_services(context),
    ...create_billing_services(context),
    ...create_upgrade_services(context),
  };
}
