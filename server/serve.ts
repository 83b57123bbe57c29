/**
 * Starting and stopping the whole service: database, services, HTTP server.
 */
import { ApiError, type Services } from "../contract/mod.ts";
import {
  type Database,
  observe_statements,
  open_database,
  unavailable_public_message,
} from "../db/mod.ts";
import { create_app, type Handler } from "./app.ts";
import { type Billing, create_billing } from "./billing.ts";
import {
  type ConnectionGuard,
  start_connection_guard,
} from "./connection_guard.ts";
import {
  connection_cap,
  type ConnectionCap,
  open_files_limit,
} from "./connection_limit.ts";
import type { Config } from "./config.ts";
import {
  create_dashboard,
  type Dashboard,
  type DashboardOptions,
  type SignupPolicy,
} from "./dashboard/mod.ts";
import { start_housekeeping } from "./housekeeping.ts";
import { ListenError } from "./listen_error.ts";
import { write_log_line } from "./log_lines.ts";
import {
  type AccountMail,
  create_account_mail,
} from "./dashboard/account_mail.ts";
import type { ScryptParams } from "./dashboard/password.ts";
import { create_mailer, type Mailer } from "./mail.ts";
import { MemoryBudget } from "./memory_budget.ts";
import { create_operator_mail, type OperatorMail } from "./operator_mail.ts";
import { Metrics } from "./metrics.ts";
import { PendingSettlements } from "./generate/pending_settlements.ts";
import { RenderPool } from "./render_pool.ts";
import { create_services, type RenderDocument } from "./services.ts";

/** Options of {@link start_server}. */
export interface StartOptions {
  /** Injectable clock (tests of month rollover). */
  now?: () => Date;
  /** Replaces the renderer (tests of render failures). */
  render_document?: RenderDocument;
  /** Receives one structured record per request; default: JSON lines on stdout. */
  log?: (record: Record<string, unknown>) => void;
  /** No request log (tests). */
  quiet?: boolean;
  /** An already-open database to serve from (tests); it is not closed on shutdown. */
  database?: Database;
  /**
   * Cost of new password hashes; default `DEFAULT_SCRYPT_PARAMS`, the
   * production cost. Tests inject a low cost so sign-ups hash cheaply.
   */
  scrypt_params?: ScryptParams;
  /** How long settlements gather into one statement, ms (tests; default 20). */
  settle_window_ms?: number;
}

/** A running service. */
export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:8000`. */
  url: string;
  port: number;
  database: Database;
  handler: Handler;
  /** Most connections open at once (`MAX_CONNECTIONS` or its default). */
  connection_cap: ConnectionCap;
  /**
   * Resolves once the charges of the answers delivered so far are recorded
   * (each within the settlement batch window after its body ends).
   */
  settled(): Promise<void>;
  /**
   * Stops accepting, answers the requests already received (with
   * `Connection: close`), closes the database. Resolves true when every
   * request in flight was answered within `SHUTDOWN_TIMEOUT_MS`.
   */
  shutdown(): Promise<boolean>;
}

/** Opens the database (migrating it) and starts serving. */
export async function start_server(
  config: Config,
  options: StartOptions = {},
): Promise<RunningServer> {
  const owns_database = options.database === undefined;
  const database = options.database ?? await open_configured_database(config);
  const { pool, render_document } = await start_renderer(config, options);
  const metrics = new Metrics();
  const stop_housekeeping = start_housekeeping(database, {
    interval_ms: 10 * 60 * 1000,
    now: options.now ?? (() => new Date()),
  });
  if (pool) {
    metrics.track_queue_depth(() => pool.queue_depth);
    metrics.track_running_workers(() => pool.running_workers);
  }
  const memory_budget = new MemoryBudget(config.request_memory_mb * 2 ** 20, {
    anonymous_limit: config.anonymous_request_memory_mb * 2 ** 20,
  });
  metrics.track_request_memory(memory_budget);
  const signup = signup_policy(config);
  // The per-request statements (API key, quota) are timed for /metrics.
  const timed = observe_statements(
    database,
    (name, seconds) => metrics.observe_statement(name, seconds),
  );
  const billing = config.stripe
    ? create_billing(database, { stripe: config.stripe, now: options.now })
    : undefined;
  // Links in mail: PUBLIC_URL (required with SMTP), else the address this
  // process listens on, known once it is bound; never a request's Host.
  let listening_url = "";
  const mail = create_mail(
    database,
    config,
    options,
    () => config.public_url ?? listening_url,
  );
  const settlements = new PendingSettlements();
  const services = create_configured_services(timed, config, options, {
    settlements,
    mail,
    billing,
    signup,
    metrics,
    render_document,
    pool,
  });
  const dashboard = await create_dashboard(
    database,
    dashboard_options(config, options, signup, billing, mail),
  );
  const handler = create_handler(config, options, {
    services,
    dashboard,
    database,
    billing,
    memory_budget,
    metrics,
  });
  const cap = connection_cap(config.max_connections, open_files_limit());
  const opened = { stop_housekeeping, mail, pool, database, settlements };
  let guard: ConnectionGuard;
  try {
    guard = start_connection_guard(handler, {
      hostname: config.host,
      port: config.port,
      header_timeout_ms: config.header_timeout_ms,
      keep_alive_timeout_ms: config.keep_alive_timeout_ms,
      max_connections: cap.max_connections,
    });
  } catch (error) {
    await close_opened(opened, owns_database);
    throw new ListenError(config.host, config.port, error);
  }
  listening_url = url_of(guard.address);
  const stop = { guard, ...opened };
  let closing: Promise<boolean> | undefined;
  return {
    url: listening_url,
    port: guard.address.port,
    database,
    handler,
    connection_cap: cap,
    settled: () => settlements.all_settled(),
    shutdown() {
      closing ??= stop_server(config, stop, owns_database);
      return closing;
    },
  };
}

function open_configured_database(config: Config): Promise<Database> {
  return open_database({
    database_url: config.database_url,
    data_dir: config.data_dir,
    connect_timeout_ms: config.database_connect_timeout_ms,
    statement_timeout_ms: config.database_statement_timeout_ms,
    min_free_bytes: config.data_dir_min_free_mb * 2 ** 20,
  });
}

/** The render workers (none with `RENDER_WORKERS=0`) and how to render. */
async function start_renderer(
  config: Config,
  options: StartOptions,
): Promise<{ pool?: RenderPool; render_document: RenderDocument }> {
  const pool =
    options.render_document === undefined && config.render_workers > 0
      ? new RenderPool({
        size: config.render_workers,
        min_workers: config.render_workers_min,
        max_queue: config.render_queue,
        timeout_ms: config.render_timeout_ms,
      })
      : undefined;
  const render_document: RenderDocument = options.render_document ??
    (pool
      ? (invoice, render) => pool.render(invoice, render)
      : await request_thread_renderer());
  return { pool, render_document };
}

function signup_policy(config: Config): SignupPolicy {
  return {
    enabled: config.signup_enabled,
    plan: config.signup_plan,
    subscription_status: config.signup_subscription_status,
    per_address_per_hour: config.signups_per_address_per_hour,
  };
}

/** The mailer and the two kinds of mail the service sends. */
interface ServiceMail {
  mailer: Mailer;
  account_mail: AccountMail;
  operator_mail: OperatorMail;
}

function create_mail(
  database: Database,
  config: Config,
  options: StartOptions,
  link_origin: () => string,
): ServiceMail {
  const mailer = create_mailer({
    smtp_url: config.smtp_url,
    mail_from: config.mail_from,
  });
  const account_mail = create_account_mail(database, {
    mailer,
    now: options.now ?? (() => new Date()),
    link_origin,
    support_email: config.support_email,
    scrypt_params: options.scrypt_params,
  });
  const operator_mail = create_operator_mail({
    mailer,
    operator_email: config.operator_email,
    link_origin,
  });
  return { mailer, account_mail, operator_mail };
}

function dashboard_options(
  config: Config,
  options: StartOptions,
  signup: SignupPolicy,
  billing: Billing | undefined,
  mail: ServiceMail,
): DashboardOptions {
  return {
    signup,
    session_ttl_seconds: config.session_ttl_hours * 3600,
    cookie_secure: config.cookie_secure,
    support_email: config.support_email,
    billing_enabled: billing !== undefined,
    operator_mail: mail.operator_mail.configured,
    now: options.now ?? (() => new Date()),
  };
}

function create_configured_services(
  timed: Database,
  config: Config,
  options: StartOptions,
  parts: {
    mail: ServiceMail;
    billing?: Billing;
    signup: SignupPolicy;
    metrics: Metrics;
    render_document: RenderDocument;
    pool?: RenderPool;
    settlements: PendingSettlements;
  },
): Services {
  const { pool, metrics } = parts;
  return create_services(timed, {
    account_mail: parts.mail.account_mail,
    operator_mail: parts.mail.operator_mail,
    support_email: config.support_email,
    billing: parts.billing,
    signup: parts.signup,
    on_render: (seconds) => metrics.observe_render(seconds),
    render_document: parts.render_document,
    render_early: pool ? () => pool.idle_workers > 0 : undefined,
    render_seconds_per_minute: config.render_seconds_per_minute,
    reservation_ttl_ms: config.reservation_ttl_ms,
    admin_token: config.admin_token,
    rate_limit_per_minute: config.rate_limit_per_minute,
    now: options.now,
    scrypt_params: options.scrypt_params,
    settlements: parts.settlements,
    settle_window_ms: options.settle_window_ms,
  });
}

function create_handler(
  config: Config,
  options: StartOptions,
  parts: {
    services: Services;
    dashboard: Dashboard;
    database: Database;
    billing?: Billing;
    memory_budget: MemoryBudget;
    metrics: Metrics;
  },
): Handler {
  const { billing, database } = parts;
  const log = options.log ?? (options.quiet ? undefined : write_log_line);
  return create_app({
    services: parts.services,
    ...parts.dashboard.app_options,
    max_body_bytes: config.max_body_bytes,
    body_timeout_ms: config.body_timeout_ms,
    body_min_bytes_per_second: config.body_min_bytes_per_second,
    memory_budget: parts.memory_budget,
    check_ready: () => check_database_ready(database),
    cors_origins: config.cors_origins,
    stripe_webhook: billing
      ? (raw, signature) => billing.handle_webhook(raw, signature)
      : undefined,
    public_url: config.public_url,
    metrics: parts.metrics,
    metrics_token: config.metrics_token,
    trusted_proxies: config.trusted_proxies,
    log,
  });
}

/** Ready when the database answers; otherwise a 503 that says why when it can. */
function check_database_ready(database: Database): Promise<void> {
  return database.ping().catch((error: unknown) => {
    // Says why (e.g. the disk is full) when there is more to say.
    const message = unavailable_public_message(error);
    if (message === undefined) throw error;
    throw new ApiError("unavailable", message, {
      headers: { "Retry-After": "5" },
    });
  });
}

function url_of(address: Deno.NetAddr): string {
  const host = address.hostname.includes(":")
    ? `[${address.hostname}]`
    : address.hostname;
  return `http://${host}:${address.port}`;
}

/** Drains the connections (within the deadline), then stops the rest. */
async function stop_server(
  config: Config,
  parts: {
    guard: ConnectionGuard;
    stop_housekeeping: () => void;
    mail: ServiceMail;
    pool?: RenderPool;
    database: Database;
    settlements: PendingSettlements;
  },
  owns_database: boolean,
): Promise<boolean> {
  const { guard } = parts;
  // Answers delivered last are charged before the database closes.
  const drained = await within_shutdown_deadline(
    guard.shutdown().then(() => parts.settlements.all_settled()),
    config.shutdown_timeout_ms,
    () => guard.open_connections,
  );
  await close_opened(parts, owns_database);
  return drained;
}

/** Stops what the start opened before listening: housekeeping, mail, workers, the database. */
async function close_opened(
  parts: {
    stop_housekeeping: () => void;
    mail: ServiceMail;
    pool?: RenderPool;
    database: Database;
  },
  owns_database: boolean,
): Promise<void> {
  const { mail } = parts;
  parts.stop_housekeeping();
  await mail.account_mail.idle();
  await mail.operator_mail.idle();
  mail.mailer.close();
  await parts.pool?.close();
  if (owns_database) await parts.database.close();
}

/**
 * Waits for `drained` at most `timeout_ms`: a request stuck in flight (a
 * hung database, a client that never reads) never keeps the process from
 * stopping. The connections still open then close with the process.
 */
export async function within_shutdown_deadline(
  drained: Promise<void>,
  timeout_ms: number,
  open_connections: () => number,
): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"deadline">((resolve) => {
    timer = setTimeout(() => resolve("deadline"), timeout_ms);
  });
  try {
    const ended = await Promise.race([drained, deadline]);
    if (ended === "deadline") {
      console.error(
        `Shutdown: ${open_connections()} connection(s) still busy after ` +
          `${timeout_ms} ms (SHUTDOWN_TIMEOUT_MS); stopping without them.`,
      );
    }
    return ended !== "deadline";
  } finally {
    clearTimeout(timer);
  }
}

// `RENDER_WORKERS=0`: renders on the request thread. The renderer is loaded
// only then; with workers it lives in them alone, and loading it here too
// (fonts, HarfBuzz's WebAssembly, jsPDF) cost the request thread ~60 MB.
async function request_thread_renderer(): Promise<RenderDocument> {
  const { render_invoice_document } = await import("./einvoice/mod.ts");
  return (invoice, render) =>
    Promise.resolve(
      render_invoice_document(invoice, {
        format: render?.format ?? "pdf",
        test: render?.test,
        preview: render?.preview,
      }).bytes,
    );
}
