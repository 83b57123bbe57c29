/**
 * Operator CLI over the same services as the admin API:
 * `deno task admin <command> …`. Prints JSON.
 */
import { parseArgs } from "node:util";
import {
  ApiError,
  CreateAccountSchema,
  KeyModeSchema,
  ListUpgradeRequestsSchema,
  NewPasswordSchema,
  PLAN_IDS,
  PlanSchema,
  type Services,
  SubscriptionStatusSchema,
} from "../contract/mod.ts";
import {
  type Database,
  database_open_failure,
  list_deleted_account_usage,
  open_database,
  update_account,
} from "../db/mod.ts";
import { create_billing } from "./billing.ts";
import { ConfigError, load_config } from "./config.ts";
import { hash_password } from "./dashboard/password.ts";
import { create_services } from "./services.ts";

const PLAN_CHOICES = PLAN_IDS.join("|");

const USAGE = `Usage: deno task admin <command> [options]

Commands:
  create-account --email <email> --plan ${PLAN_CHOICES} [--name <name>] [--inactive]
  get-account <account-id>
  set-plan <account-id> ${PLAN_CHOICES}
  set-subscription <account-id> active|inactive
  release-override <account-id>   (Stripe billing: hand plan and status back to Stripe)
  list-keys <account-id>
  create-key <account-id> --name <key name> [--mode live|test]
  revoke-key <key-id>
  set-password <account-id>   (reads the new password from NEW_PASSWORD or stdin)
  list-upgrade-requests [--status open|closed|withdrawn|all] [--limit <n>]
                              (customers' requests for a higher plan, newest first;
                               set-plan closes the account's open request)
  deleted-usage               (monthly invoice counts of deleted accounts, kept
                               only as anonymous month totals for the books)

Uses DATABASE_URL, or the PGlite database in DATA_DIR (stop the server first:
an embedded database has one user at a time).`;

/** Runs one CLI command; returns the process exit code. */
export async function run_admin_cli(
  args: string[],
  env: Record<string, string | undefined>,
): Promise<number> {
  const { values, positionals } = parse_cli_args(args);
  const [command, target, extra] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  const config = load_config(env);
  let database;
  try {
    database = await open_database({
      database_url: config.database_url,
      data_dir: config.data_dir,
    });
  } catch (error) {
    const failure = database_open_failure(error, config.database_url);
    if (!failure) throw error;
    console.error(`Cannot open the database: ${failure}`);
    return 1;
  }
  const services = create_services(database, {
    render_document: () => Promise.reject(new Error("the CLI does not render")),
    billing: config.stripe
      ? create_billing(database, { stripe: config.stripe })
      : undefined,
  });
  try {
    if (!Object.hasOwn(COMMANDS, command)) {
      throw new UsageError(`Unknown command "${command}"`);
    }
    const result = await COMMANDS[command]({
      services,
      database,
      env,
      values,
      target,
      extra,
    });
    console.log(JSON.stringify(result, null, 2));
    return 0;
  } catch (error) {
    return exit_code_of(error);
  } finally {
    await database.close();
  }
}

function parse_cli_args(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      email: { type: "string" },
      plan: { type: "string" },
      name: { type: "string" },
      mode: { type: "string" },
      status: { type: "string" },
      limit: { type: "string" },
      inactive: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
}

/** What a command works with: the services, its arguments and options. */
interface CliCommand {
  services: Services;
  database: Database;
  env: Record<string, string | undefined>;
  values: ReturnType<typeof parse_cli_args>["values"];
  target?: string;
  extra?: string;
}

/** Each command of the CLI (listed in `USAGE`). */
const COMMANDS: Record<string, (cli: CliCommand) => Promise<unknown>> = {
  "create-account": ({ services, values }) =>
    services.create_account(CreateAccountSchema.parse({
      email: values.email,
      name: values.name,
      plan: values.plan,
      subscription_status: values.inactive ? "inactive" : "active",
    })),
  "get-account": ({ services, target }) =>
    services.get_account(required(target, "account id")),
  "set-plan": ({ services, target, extra }) =>
    services.update_account(required(target, "account id"), {
      plan: PlanSchema.parse(extra),
    }, BY_CLI),
  "set-subscription": ({ services, target, extra }) =>
    services.update_account(required(target, "account id"), {
      subscription_status: SubscriptionStatusSchema.parse(extra),
    }, BY_CLI),
  "release-override": ({ services, target }) =>
    services.update_account(required(target, "account id"), {
      billing_override: false,
    }, BY_CLI),
  "list-upgrade-requests": ({ services, values }) => {
    const filter = ListUpgradeRequestsSchema.parse({
      status: values.status,
      limit: values.limit,
    });
    return services.list_upgrade_requests({
      status: filter.status === "all" ? undefined : filter.status,
      limit: filter.limit,
    });
  },
  "list-keys": ({ services, target }) =>
    services.list_keys(required(target, "account id")),
  "create-key": ({ services, target, values }) =>
    services.create_key(required(target, "account id"), {
      name: required(values.name, "--name"),
      mode: values.mode === undefined
        ? undefined
        : KeyModeSchema.parse(values.mode),
    }),
  "revoke-key": ({ services, target }) =>
    services.revoke_key(required(target, "key id")),
  "set-password": ({ database, env, target }) =>
    set_password(database, env, required(target, "account id")),
  "deleted-usage": ({ database }) => list_deleted_account_usage(database),
};

// Lets an operator-created account (no password yet) use the dashboard.
async function set_password(
  database: Database,
  env: Record<string, string | undefined>,
  account_id: string,
): Promise<unknown> {
  const password = NewPasswordSchema.parse(await read_new_password(env));
  const account = await update_account(database, account_id, {
    password_hash: await hash_password(password),
  });
  if (!account) throw new ApiError("not_found", "No account with this id");
  return { id: account.id, email: account.email, password: "updated" };
}

/** A failed command's message on stderr and exit code; anything else is rethrown. */
function exit_code_of(error: unknown): number {
  if (error instanceof UsageError) {
    console.error(`${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (error instanceof ApiError) {
    console.error(`${error.code}: ${error.message}`);
    return 1;
  }
  if (error instanceof Error && error.name === "ZodError") {
    console.error(`Invalid input: ${error.message}`);
    return 2;
  }
  throw error;
}

class UsageError extends Error {}

const BY_CLI = { by: "admin_cli" } as const;

async function read_new_password(
  env: Record<string, string | undefined>,
): Promise<string> {
  if (env.NEW_PASSWORD) return env.NEW_PASSWORD;
  const text = await new Response(Deno.stdin.readable).text();
  return text.replace(/\r?\n$/, "");
}

function required(value: string | undefined, name: string): string {
  if (!value) throw new UsageError(`Missing ${name}`);
  return value;
}

if (import.meta.main) {
  try {
    Deno.exit(await run_admin_cli(Deno.args, Deno.env.toObject()));
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Invalid configuration: ${error.message}`);
      Deno.exit(2);
    }
    throw error;
  }
}
