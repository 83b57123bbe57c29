/**
 * Configuration from the environment, checked once at start-up.
 */
import {
  type Plan,
  PLAN_IDS,
  type SubscriptionStatus,
} from "../contract/mod.ts";
import { postgres_target } from "../db/mod.ts";
import type { StripeConfig } from "./billing.ts";
import { type AddressRange, parse_trusted_proxies } from "./client_address.ts";

/** The service's configuration. */
export interface Config {
  port: number;
  host: string;
  data_dir: string;
  database_url?: string;
  /** PostgreSQL: longest a new connection may take, in ms (`DATABASE_CONNECT_TIMEOUT_MS`, default 2000). */
  database_connect_timeout_ms: number;
  /** PostgreSQL: longest one statement may run, in ms (`DATABASE_STATEMENT_TIMEOUT_MS`, default 5000). */
  database_statement_timeout_ms: number;
  /** PGlite: MiB kept free on the data directory's file system (`DATA_DIR_MIN_FREE_MB`, default 64; 0: unchecked). */
  data_dir_min_free_mb: number;
  admin_token?: string;
  /** Overrides every plan's per-minute rate limit when set. */
  rate_limit_per_minute?: number;
  /** Largest accepted request body, in bytes. */
  max_body_bytes: number;
  /** Longest a request body may take to arrive, in ms (`BODY_TIMEOUT_MS`). */
  body_timeout_ms: number;
  /**
   * Slowest average rate a request body may arrive at after its first 2 s,
   * in bytes a second (`BODY_MIN_BYTES_PER_SECOND`, default 1024; 0: none).
   */
  body_min_bytes_per_second: number;
  /** Longest a request head may take to arrive, in ms (`HEADER_TIMEOUT_MS`; 0: no limit). */
  header_timeout_ms: number;
  /** Longest a connection may sit idle between requests, in ms (`KEEP_ALIVE_TIMEOUT_MS`; 0: no limit). */
  keep_alive_timeout_ms: number;
  /** Most connections open at once (`MAX_CONNECTIONS`); unset: derived from the descriptor limit. */
  max_connections?: number;
  /**
   * Longest a shutdown waits for requests in flight, in ms
   * (`SHUTDOWN_TIMEOUT_MS`, default 25 000); then it closes everything.
   */
  shutdown_timeout_ms: number;
  /** Origins allowed to call `/generate` from a browser (CORS); empty: CORS off. */
  cors_origins: string[];
  /** Open sign-up on the dashboard (`SIGNUP_ENABLED`, default true). */
  signup_enabled: boolean;
  /** Plan of accounts created by sign-up (`SIGNUP_PLAN`, default starter). */
  signup_plan: Plan;
  /** Subscription of accounts created by sign-up (`SIGNUP_SUBSCRIPTION_STATUS`, default active). */
  signup_subscription_status: SubscriptionStatus;
  /** Dashboard session lifetime in hours (`SESSION_TTL_HOURS`, default 12). */
  session_ttl_hours: number;
  /**
   * `auto` (default): the session cookie is `Secure` when the request came
   * over HTTPS (or `X-Forwarded-Proto: https`); `always`: on every request.
   */
  cookie_secure: "auto" | "always";
  /** Where the Usage page tells customers to ask for a plan change (`SUPPORT_EMAIL`). */
  support_email?: string;
  /** Where upgrade requests are mailed (`OPERATOR_EMAIL`); unset: they are only recorded and logged. */
  operator_email?: string;
  /** Render workers (`RENDER_WORKERS`); 0 renders on the request thread. */
  render_workers: number;
  /**
   * Render workers kept running while idle (`RENDER_WORKERS_MIN`, at most
   * `render_workers`); the others start when renders wait.
   */
  render_workers_min: number;
  /** Renders that may wait for a worker before new ones get 503 (`RENDER_QUEUE`). */
  render_queue: number;
  /** Longest a render may take before it is cancelled, in ms (`RENDER_TIMEOUT_MS`). */
  render_timeout_ms: number;
  /** Render-seconds an account may use a minute (`RENDER_SECONDS_PER_MINUTE`, default 30). */
  render_seconds_per_minute: number;
  /**
   * How long a generation's reservation and a running `Idempotency-Key`
   * hold unless the answer was delivered, in ms (`RESERVATION_TTL_MS`,
   * default 30 000).
   */
  reservation_ttl_ms: number;
  /**
   * MiB that requests in flight may hold in memory (`REQUEST_MEMORY_MB`,
   * default 64): bodies as parsed, documents not yet handed over; past it, 503.
   */
  request_memory_mb: number;
  /**
   * MiB of that which requests without checked credentials may hold
   * together (`ANONYMOUS_REQUEST_MEMORY_MB`, default an eighth of
   * `REQUEST_MEMORY_MB`, at least 1); one client address a quarter of it.
   */
  anonymous_request_memory_mb: number;
  /** Stripe billing (`STRIPE_*`); unset: billing is off. */
  stripe?: StripeConfig;
  /** Proxies whose `X-Forwarded-For` is believed (`TRUSTED_PROXIES`); empty: none. */
  trusted_proxies: AddressRange[];
  /** Sign-ups per client address an hour (`SIGNUPS_PER_ADDRESS_PER_HOUR`, default 5). */
  signups_per_address_per_hour: number;
  /** Bearer token `/metrics` asks for (`METRICS_TOKEN`); unset: open. */
  metrics_token?: string;
  /**
   * The service's public origin (`PUBLIC_URL`; required with `SMTP_URL`):
   * links in mail, and where Stripe sends customers back. Unset: mail
   * (written to the log) links to the address the service listens on, and
   * Stripe returns to the origin each request reached.
   */
  public_url?: string;
  /** `SMTP_URL` (`smtp://user:pass@host:587`, `smtps://…`); unset: mail goes to the log. */
  smtp_url?: string;
  /** `MAIL_FROM`, the sender of the service's mail (required with `SMTP_URL`). */
  mail_from: string;
}

/** The variable of a plan's Stripe price id: `STRIPE_PRICE_<PLAN>`. */
export function stripe_price_variable(plan: Plan): string {
  return `STRIPE_PRICE_${plan.toUpperCase()}`;
}

const STRIPE_VARIABLES = [
  "STRIPE_SECRET_KEY",
  "STRIPE_WEBHOOK_SECRET",
  ...PLAN_IDS.map(stripe_price_variable),
];

function parse_stripe(
  get: (name: string) => string | undefined,
): StripeConfig | undefined {
  const values = STRIPE_VARIABLES.map((name) => get(name)?.trim());
  const missing = STRIPE_VARIABLES.filter((_, index) => !values[index]);
  if (missing.length === STRIPE_VARIABLES.length) return undefined;
  if (missing.length > 0) {
    throw new ConfigError(
      `Stripe billing needs all of ${STRIPE_VARIABLES.join(", ")}; missing: ${
        missing.join(", ")
      }`,
    );
  }
  const [secret_key, webhook_secret, ...price_ids] = values as string[];
  if (!/^(sk|rk)_(test|live)_/.test(secret_key)) {
    throw new ConfigError(
      "STRIPE_SECRET_KEY must be a Stripe secret or restricted key (sk_test_…, sk_live_…, rk_…)",
    );
  }
  if (!webhook_secret.startsWith("whsec_")) {
    throw new ConfigError(
      "STRIPE_WEBHOOK_SECRET must be the endpoint's signing secret (whsec_…)",
    );
  }
  const prices = Object.fromEntries(
    PLAN_IDS.map((plan, index) => [plan, price_ids[index]]),
  ) as Record<Plan, string>;
  for (const plan of PLAN_IDS) {
    if (!prices[plan].startsWith("price_")) {
      throw new ConfigError(
        `${
          stripe_price_variable(plan)
        } must be a Stripe price id (price_…), got "${prices[plan]}"`,
      );
    }
  }
  const api_url = get("STRIPE_API_URL")?.trim();
  if (api_url !== undefined && !/^https?:\/\/[^/]+$/.test(api_url)) {
    throw new ConfigError(
      `STRIPE_API_URL must be an origin like http://127.0.0.1:12111, got "${api_url}"`,
    );
  }
  return {
    secret_key,
    webhook_secret,
    prices,
    ...(api_url ? { api_url } : {}),
  };
}

function parse_public_url(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(text.trim());
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.origin !== text.trim()) {
    throw new ConfigError(
      `PUBLIC_URL must be an origin like https://invoices.example.com, got "${text}"`,
    );
  }
  return url.origin;
}

function parse_smtp_url(text: string | undefined): string | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  let url: URL | undefined;
  try {
    url = new URL(text.trim());
  } catch {
    url = undefined;
  }
  if (!url || !/^smtps?:$/.test(url.protocol) || !url.hostname) {
    // Never echo the value: it may hold a password.
    throw new ConfigError(
      "SMTP_URL must look like smtp://user:pass@host:587 (STARTTLS when offered) or smtps://user:pass@host:465",
    );
  }
  return text.trim();
}

function parse_mail_from(
  text: string | undefined,
  smtp_url: string | undefined,
): string {
  const value = text?.trim();
  if (!value) {
    if (smtp_url) {
      throw new ConfigError(
        "MAIL_FROM is required with SMTP_URL, e.g. MAIL_FROM='Ink <no-reply@invoices.example.com>'",
      );
    }
    return "Ink <no-reply@localhost>";
  }
  const address = /<([^<>]+)>\s*$/.exec(value)?.[1] ?? value;
  if (!/^[^\s@<>"]+@[^\s@<>"]+$/.test(address) || /[\r\n]/.test(value)) {
    throw new ConfigError(
      `MAIL_FROM must be an address or "Name <address>", got "${value}"`,
    );
  }
  return value;
}

function parse_email_address(
  name: string,
  get: (name: string) => string | undefined,
): string | undefined {
  const value = get(name)?.trim();
  if (
    value !== undefined && !/^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/.test(value)
  ) {
    throw new ConfigError(`${name} must be an e-mail address, got "${value}"`);
  }
  return value;
}

/** A configuration problem; start-up stops with its message. */
export class ConfigError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

function parse_int(
  name: string,
  text: string,
  range: { min: number; max: number },
): number {
  if (!/^\d+$/.test(text.trim())) {
    throw new ConfigError(`${name} must be a whole number, got "${text}"`);
  }
  const value = Number(text.trim());
  if (value < range.min || value > range.max) {
    throw new ConfigError(
      `${name} must be between ${range.min} and ${range.max}, got ${value}`,
    );
  }
  return value;
}

function default_workers(): number {
  // One worker per core: the request thread mostly waits on I/O.
  return Math.max(1, Math.min(8, navigator.hardwareConcurrency || 1));
}

function parse_origins(text: string | undefined): string[] {
  if (text === undefined) return [];
  const origins = text.split(",").map((origin) => origin.trim()).filter(
    Boolean,
  );
  for (const origin of origins) {
    if (origin === "*") continue;
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || parsed.origin !== origin) {
      throw new ConfigError(
        `CORS_ORIGINS must be "*" or comma-separated origins like https://app.example.com, got "${origin}"`,
      );
    }
  }
  return origins;
}

function parse_choice<T extends string>(
  name: string,
  text: string | undefined,
  choices: readonly T[],
  fallback: T,
): T {
  if (text === undefined) return fallback;
  const value = text.trim().toLowerCase();
  if (!(choices as readonly string[]).includes(value)) {
    throw new ConfigError(
      `${name} must be one of ${choices.join(", ")}, got "${text}"`,
    );
  }
  return value as T;
}

function parse_bool(
  name: string,
  text: string | undefined,
  fallback: boolean,
): boolean {
  if (text === undefined) return fallback;
  const value = text.trim().toLowerCase();
  if (["true", "1", "yes", "on"].includes(value)) return true;
  if (["false", "0", "no", "off"].includes(value)) return false;
  throw new ConfigError(`${name} must be true or false, got "${text}"`);
}

/** Reads one environment variable; blank counts as unset. */
type EnvReader = (name: string) => string | undefined;

/** A whole-number setting: its range and default (none: unset). */
interface IntegerSetting {
  min: number;
  max: number;
  fallback?: number;
  /** 0 turns it off (a connection timeout a load balancer in front enforces). */
  zero_turns_off?: true;
}

/**
 * The whole-number settings, each read from the variable of its name in
 * capitals (`port` from `PORT`); `ANONYMOUS_REQUEST_MEMORY_MB`, whose range
 * depends on `REQUEST_MEMORY_MB`, is read on its own.
 */
const INTEGER_SETTINGS = {
  port: { min: 0, max: 65535, fallback: 8000 },
  database_connect_timeout_ms: { min: 100, max: 600_000, fallback: 2_000 },
  database_statement_timeout_ms: { min: 100, max: 3_600_000, fallback: 5_000 },
  data_dir_min_free_mb: { min: 0, max: 1_048_576, fallback: 64 },
  rate_limit_per_minute: { min: 1, max: 1_000_000 },
  body_timeout_ms: { min: 100, max: 600_000, fallback: 30_000 },
  body_min_bytes_per_second: { min: 0, max: 1_000_000_000, fallback: 1024 },
  header_timeout_ms: {
    min: 100,
    max: 600_000,
    fallback: 15_000,
    zero_turns_off: true,
  },
  keep_alive_timeout_ms: {
    min: 100,
    max: 3_600_000,
    fallback: 75_000,
    zero_turns_off: true,
  },
  max_connections: { min: 1, max: 1_000_000 },
  shutdown_timeout_ms: { min: 100, max: 3_600_000, fallback: 25_000 },
  session_ttl_hours: { min: 1, max: 24 * 90, fallback: 12 },
  render_workers: { min: 0, max: 64 },
  render_workers_min: { min: 1, max: 64, fallback: 1 },
  render_queue: { min: 1, max: 100_000, fallback: 512 },
  render_timeout_ms: { min: 100, max: 120_000, fallback: 15_000 },
  render_seconds_per_minute: { min: 1, max: 100_000, fallback: 30 },
  reservation_ttl_ms: { min: 100, max: 3_600_000, fallback: 30_000 },
  request_memory_mb: { min: 8, max: 65_536, fallback: 64 },
  signups_per_address_per_hour: { min: 1, max: 1_000_000, fallback: 5 },
} as const satisfies Record<string, IntegerSetting>;

type IntegerKey = keyof typeof INTEGER_SETTINGS;

/** A setting's value: a number when it has a default, else maybe unset. */
type IntegerValue<K extends IntegerKey> = (typeof INTEGER_SETTINGS)[K] extends
  { fallback: number } ? number
  : number | undefined;

function read_integer<K extends IntegerKey>(
  get: EnvReader,
  key: K,
): IntegerValue<K> {
  const setting: IntegerSetting = INTEGER_SETTINGS[key];
  const variable = key.toUpperCase();
  const text = get(variable);
  if (text === undefined) return setting.fallback as IntegerValue<K>;
  if (setting.zero_turns_off && text.trim() === "0") return 0;
  return parse_int(variable, text, setting);
}

function env_reader(env: Record<string, string | undefined>): EnvReader {
  return (name) => {
    const value = env[name];
    return value === undefined || value.trim() === "" ? undefined : value;
  };
}

function parse_database_url(text: string | undefined): string | undefined {
  if (text && !/^postgres(ql)?:\/\//.test(text)) {
    throw new ConfigError(
      "DATABASE_URL must be a postgres:// or postgresql:// URL",
    );
  }
  if (text) {
    try {
      postgres_target(text);
    } catch (error) {
      throw new ConfigError(`DATABASE_URL: ${(error as Error).message}`);
    }
  }
  return text;
}

function parse_proxies(text: string | undefined): AddressRange[] {
  try {
    return parse_trusted_proxies(text ?? "");
  } catch (error) {
    throw new ConfigError(`TRUSTED_PROXIES: ${(error as Error).message}`);
  }
}

/** A secret the operator chooses (`ADMIN_TOKEN`, `METRICS_TOKEN`). */
function parse_token(
  name: string,
  value: string | undefined,
): string | undefined {
  if (value !== undefined && value.length < 16) {
    throw new ConfigError(
      `${name} must be at least 16 characters (use a long random value)`,
    );
  }
  return value;
}

/** `SMTP_URL` and `PUBLIC_URL`, which mail needs with it. */
function parse_mail_urls(
  get: EnvReader,
): { smtp_url?: string; public_url?: string } {
  const smtp_url = parse_smtp_url(get("SMTP_URL"));
  const public_url = parse_public_url(get("PUBLIC_URL"));
  if (smtp_url && !public_url) {
    // Otherwise a reset link would have to name the origin a request
    // claimed (its Host header), which the requester chooses.
    throw new ConfigError(
      "PUBLIC_URL is required with SMTP_URL: links in mail point to it, e.g. PUBLIC_URL=https://invoices.example.com",
    );
  }
  return { smtp_url, public_url };
}

/** `REQUEST_MEMORY_MB` and the anonymous requests' share of it. */
function read_request_memory(
  get: EnvReader,
): { request_memory_mb: number; anonymous_request_memory_mb: number } {
  const request_memory_mb = read_integer(get, "request_memory_mb");
  const anonymous_text = get("ANONYMOUS_REQUEST_MEMORY_MB");
  const anonymous_request_memory_mb = anonymous_text === undefined
    ? Math.max(1, Math.floor(request_memory_mb / 8))
    : parse_int("ANONYMOUS_REQUEST_MEMORY_MB", anonymous_text, {
      min: 1,
      max: Math.floor(request_memory_mb / 2),
    });
  return { request_memory_mb, anonymous_request_memory_mb };
}

/** Reads and validates configuration; throws a `ConfigError` that says what is wrong. */
export function load_config(
  env: Record<string, string | undefined>,
): Config {
  const get = env_reader(env);
  const database_url = parse_database_url(get("DATABASE_URL"));
  const support_email = parse_email_address("SUPPORT_EMAIL", get);
  const operator_email = parse_email_address("OPERATOR_EMAIL", get);
  const trusted_proxies = parse_proxies(get("TRUSTED_PROXIES"));
  const metrics_token = parse_token(
    "METRICS_TOKEN",
    get("METRICS_TOKEN")?.trim(),
  );
  const { smtp_url, public_url } = parse_mail_urls(get);
  const memory = read_request_memory(get);
  const admin_token = parse_token("ADMIN_TOKEN", get("ADMIN_TOKEN"));
  const int = <K extends IntegerKey>(key: K) => read_integer(get, key);
  const render_workers = int("render_workers") ?? default_workers();
  return {
    port: int("port"),
    host: get("HOST") ?? "127.0.0.1",
    data_dir: get("DATA_DIR") ?? "./data",
    database_url,
    database_connect_timeout_ms: int("database_connect_timeout_ms"),
    database_statement_timeout_ms: int("database_statement_timeout_ms"),
    data_dir_min_free_mb: int("data_dir_min_free_mb"),
    admin_token,
    rate_limit_per_minute: int("rate_limit_per_minute"),
    max_body_bytes: 1024 * 1024,
    body_timeout_ms: int("body_timeout_ms"),
    body_min_bytes_per_second: int("body_min_bytes_per_second"),
    header_timeout_ms: int("header_timeout_ms"),
    keep_alive_timeout_ms: int("keep_alive_timeout_ms"),
    max_connections: int("max_connections"),
    shutdown_timeout_ms: int("shutdown_timeout_ms"),
    cors_origins: parse_origins(get("CORS_ORIGINS")),
    signup_enabled: parse_bool("SIGNUP_ENABLED", get("SIGNUP_ENABLED"), true),
    signup_plan: parse_choice(
      "SIGNUP_PLAN",
      get("SIGNUP_PLAN"),
      PLAN_IDS,
      "starter",
    ),
    signup_subscription_status: parse_choice(
      "SIGNUP_SUBSCRIPTION_STATUS",
      get("SIGNUP_SUBSCRIPTION_STATUS"),
      ["active", "inactive"],
      "active",
    ),
    session_ttl_hours: int("session_ttl_hours"),
    cookie_secure: parse_choice(
      "COOKIE_SECURE",
      get("COOKIE_SECURE"),
      ["auto", "always"],
      "auto",
    ),
    support_email,
    operator_email,
    render_workers,
    render_workers_min: Math.min(int("render_workers_min"), render_workers),
    render_queue: int("render_queue"),
    render_timeout_ms: int("render_timeout_ms"),
    render_seconds_per_minute: int("render_seconds_per_minute"),
    reservation_ttl_ms: int("reservation_ttl_ms"),
    ...memory,
    stripe: parse_stripe(get),
    public_url,
    metrics_token,
    trusted_proxies,
    signups_per_address_per_hour: int("signups_per_address_per_hour"),
    smtp_url,
    mail_from: parse_mail_from(get("MAIL_FROM"), smtp_url),
  };
}
