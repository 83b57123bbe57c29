/**
 * End-to-end HTTP load benchmark (part of `deno task bench`; never a test).
 *
 * Starts the real service (`main.ts`) as a separate process on PGlite (a
 * temporary `DATA_DIR`) and on PostgreSQL (a fresh database, dropped
 * afterwards), creates Team accounts and keys through the admin API, and
 * drives `POST /generate` — authentication, rate limit, quota, render — with
 * 1, 10, 50 and 200 concurrent keep-alive clients for a fixed time each,
 * every invoice distinct so the quota is really charged (a fresh account is
 * taken before one reaches its 10,000 a month). Then a paced run (a fixed
 * offered rate over 50 clients, latency counted from each request's
 * scheduled time) and a 1,000-item run. Reports p50/p95/p99 latency,
 * throughput, the server's peak RSS (VmHWM), how the server's time and CPU
 * split between rendering and everything else, and a Chromium baseline for
 * the same invoice. Ends with every performance target (`targets.ts`) and
 * each checkout's figure for it: the renderer's rows of each checkout
 * (`renderer_targets.ts`) and each checkout's cold start (`cold_start.ts`)
 * are measured for that table. Prints tables and writes
 * `tests/bench/results.json`.
 *
 * ```sh
 * deno task bench                     # micro-benchmarks, then this
 * deno run -A tests/bench/http_load.ts
 * ```
 *
 * Environment (all optional):
 * - `BENCH_SECONDS`: measured seconds per level (default 5).
 * - `BENCH_DATABASES`: `pglite,postgres` (default both).
 * - `BENCH_DATABASE_URL`, else `TEST_DATABASE_URL`, else
 *   `postgres://postgres@127.0.0.1:5432/postgres`: the PostgreSQL server on
 *   which a fresh `test_<uuid>` database is created and dropped. When the
 *   server cannot be reached the PostgreSQL runs are skipped.
 * - `BENCH_RATES`: offered rates of the paced runs, requests/s, comma
 *   separated (default `200,400`: comfortably inside and at the target).
 * - `BENCH_ACCOUNTS`: Team accounts the requests are spread over (default
 *   16; one account alone is capped at 600 a minute by its plan, so real
 *   load comes from many).
 * - `BENCH_SERVICE_DIR`: the checkout whose `main.ts` is measured (default
 *   this one), started as its own `deno task start` starts it (the
 *   `--v8-flags` of that task). `BENCH_SERVICES=before=/path,after=/path`
 *   measures several checkouts in one run, alternating per database,
 *   and prints a before/after table.
 * - `BENCH_CLIENTS`: closed-loop client counts (default `1,10,50,200`).
 * - `BENCH_LARGE_ITEMS`: items of the large-invoice rows (default 1,000, the
 *   targets' size; 0 skips them). With them, `large_render.ts` measures the renderer alone
 *   on that invoice, with and without the start task's V8 flags, and the
 *   1-client rows are reported as a multiple of it.
 * - `BENCH_CAPPED_V8_FLAGS`: V8 flags of an extra PostgreSQL run (50 and 200
 *   clients) with other heap limits than the start task's (default: none).
 * - `BENCH_CHROMIUM_RUNS`: measured Chromium renders (default 30; 0 skips).
 * - `BENCH_COLD_START`: `0` skips the cold-start targets (each checkout's
 *   committed state cloned and started with an empty Deno cache, which
 *   downloads its packages from the npm registry).
 * - `RENDER_WORKERS`, `RENDER_WORKERS_MIN`, `RENDER_QUEUE`, `RENDER_TIMEOUT_MS`: passed to the
 *   service (default: the service's own defaults).
 *
 * @module
 */
import postgres from "postgres";
import { type Invoice, InvoiceRequestSchema } from "../../contract/mod.ts";
import { invoice_with_items } from "../fixtures/invoices.ts";
import {
  CHECKOUT_DIR,
  type ServiceProcess,
  start_service_process,
  start_task_settings,
} from "../helpers/service_process.ts";
import { create_empty_test_database } from "../helpers/test_database.ts";
import type { ChromiumResult } from "./chromium_baseline.ts";
import { type ColdStart, measure_cold_start } from "./cold_start.ts";
import type { RendererTargets } from "./renderer_targets.ts";
import { bench_postgres_server_url } from "./postgres_server.ts";
import { median, percentile } from "./stats.ts";
import { type CheckoutFigures, format_targets } from "./targets.ts";
import { type HttpAnswer, HttpConnection } from "./http_client.ts";
import {
  current_rss_bytes,
  machine_cpu_seconds,
  peak_rss_bytes,
  process_cpu_seconds,
  reset_peak_rss,
  thread_cpu_seconds,
} from "./proc_stats.ts";

const ADMIN_TOKEN = "bench-admin-token-0123456789abcdef";
// Team plan allows 10,000 a month; leave a margin for requests in flight
// when an account's budget runs out.
const REQUESTS_PER_ACCOUNT = 9_500;
const RESULTS_PATH = new URL("./results.json", import.meta.url);
// The whole run must end by itself even if the service hangs.
const WATCHDOG_MS = 15 * 60 * 1000;

// Service processes still running, stopped on the watchdog or Ctrl-C so no
// server outlives the benchmark.
const running = new Set<Deno.ChildProcess>();

function kill_running(): void {
  for (const child of running) {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/** One measured level. */
interface LevelResult {
  /** What was measured: "[label ]pglite", "[label ]postgres" or "postgres, capped heap". */
  target: string;
  database: "pglite" | "postgres";
  items: number;
  /**
   * "refused": requests without a key, each on a connection of its own (the
   * service closes a connection whose request it refused unread).
   */
  mode: "closed" | "paced" | "refused";
  clients: number;
  /** Offered rate of a paced level, requests/s. */
  offered_rate?: number;
  seconds: number;
  requests: number;
  ok: number;
  /** Non-200 answers and client errors, by status or message. */
  failures: Record<string, number>;
  rps: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  max_ms: number;
  peak_rss_mb: number;
  /** Mean server time per /generate (from /metrics), ms. */
  server_ms: number;
  /**
   * Share of /generate requests that took the service itself more than
   * 10 ms, from the handler's start to its answer (the 10 ms bucket of its
   * histogram): the p99 target's bound seen from inside. What the load
   * generator measures beyond it is the wait for the request thread to pick
   * a request up, the loopback path and the generator's own pauses.
   */
  server_over_10ms_share: number;
  /** Mean time spent rendering (incl. waiting for a worker), ms. */
  render_ms: number;
  /** Database statements per /generate and their mean round trip, ms. */
  db: { statements_per_request: number; mean_ms: Record<string, number> };
  /** (server time − render time) / server time. */
  non_render_time_share: number;
  /** CPU ms per request: service threads by role, PostgreSQL backends, this load generator. */
  cpu_ms_per_request: Record<string, number>;
  /**
   * Share of the service's and PostgreSQL's CPU spent outside rendering:
   * request thread and PostgreSQL backends over everything. V8's background
   * threads count as rendering: they mostly collect the renderers' garbage
   * (measured alone: about 0.9 ms per 10-item render, of about 1 ms).
   */
  non_render_cpu_share: number;
  /** Whole-machine CPU use during the level (2 cores = 200%). */
  machine_busy_percent: number;
  /** Part of it used by other processes (other work on the machine skews results). */
  other_busy_percent: number;
  /** CPU the hypervisor gave to other guests (a noisy host skews results). */
  steal_percent: number;
}

/** A checkout of the service to measure. */
interface ServiceCheckout {
  /** Prefix of its rows ("" for a single checkout). */
  label: string;
  /** Directory holding its `main.ts` and `deno.json`. */
  dir: string;
}

interface Settings {
  seconds: number;
  services: ServiceCheckout[];
  /** Closed-loop client counts of the 10-item rows. */
  clients: number[];
  /** Items of the large-invoice rows; 0: none. */
  large_items: number;
  databases: ("pglite" | "postgres")[];
  /** V8 flags of the extra "capped heap" PostgreSQL run; empty: no such run. */
  capped_v8_flags: string;
  /** Team accounts the load is spread over. */
  accounts: number;
  postgres_server_url: string;
  /** Offered rates of the paced runs, requests/s. */
  rates: number[];
  chromium_runs: number;
  /** Whether each checkout's cold start is measured. */
  cold_start: boolean;
}

function read_settings(): Settings {
  const env = (name: string) => Deno.env.get(name)?.trim() || undefined;
  const databases = (env("BENCH_DATABASES") ?? "pglite,postgres").split(",")
    .map((name) => name.trim()).filter((name) =>
      name === "pglite" || name === "postgres"
    ) as ("pglite" | "postgres")[];
  const numbers = (text: string) =>
    text.split(",").map(Number).filter((n) => Number.isFinite(n) && n > 0);
  return {
    seconds: Number(env("BENCH_SECONDS") ?? 5),
    services: service_checkouts(
      env("BENCH_SERVICES"),
      env("BENCH_SERVICE_DIR"),
    ),
    clients: numbers(env("BENCH_CLIENTS") ?? "1,10,50,200"),
    large_items: Number(env("BENCH_LARGE_ITEMS") ?? 1000),
    databases,
    capped_v8_flags: env("BENCH_CAPPED_V8_FLAGS") ?? "",
    accounts: Number(env("BENCH_ACCOUNTS") ?? 16),
    postgres_server_url: bench_postgres_server_url(),
    rates: (env("BENCH_RATES") ?? "200,400").split(",").map(Number).filter((
      rate,
    ) => rate > 0),
    chromium_runs: Number(env("BENCH_CHROMIUM_RUNS") ?? 30),
    cold_start: env("BENCH_COLD_START") !== "0",
  };
}

/** `label=dir,label=dir`, or one directory, or this checkout. */
function service_checkouts(
  list: string | undefined,
  single: string | undefined,
): ServiceCheckout[] {
  if (list) {
    return list.split(",").map((entry, index) => {
      const at = entry.indexOf("=");
      return at > 0
        ? { label: entry.slice(0, at).trim(), dir: entry.slice(at + 1).trim() }
        : { label: `service ${index + 1}`, dir: entry.trim() };
    });
  }
  return [{ label: "", dir: single ?? CHECKOUT_DIR }];
}

/**
 * Keys of Team accounts, taken in turn so the load is spread like traffic
 * from many customers (one account alone is capped at 600 requests a minute
 * by its plan), each used for at most REQUESTS_PER_ACCOUNT requests.
 */
class KeyRing {
  readonly #service: Service;
  readonly #keys: { key: string; account_id: string; left: number }[] = [];
  #next = 0;
  #topping_up: Promise<void> | undefined;

  constructor(service: Service) {
    this.#service = service;
  }

  /** Accounts created so far. */
  get account_ids(): string[] {
    return this.#keys.map((entry) => entry.account_id);
  }

  /**
   * Creates accounts until `accounts` have budget left and at least
   * `requests` more can be charged.
   */
  async ensure(options: { requests: number; accounts: number }): Promise<void> {
    while (
      this.#keys.filter((entry) => entry.left > 0).length < options.accounts ||
      this.#keys.reduce((sum, entry) => sum + entry.left, 0) < options.requests
    ) {
      await this.#add();
    }
  }

  /** The next key with budget left; creates an account when all are used up. */
  async take(): Promise<string> {
    for (;;) {
      for (let tries = 0; tries < this.#keys.length; tries++) {
        const entry = this.#keys[this.#next];
        this.#next = (this.#next + 1) % this.#keys.length;
        if (entry.left > 0) {
          entry.left -= 1;
          return entry.key;
        }
      }
      this.#topping_up ??= this.#add().finally(() => {
        this.#topping_up = undefined;
      });
      await this.#topping_up;
    }
  }

  async #add(): Promise<void> {
    const account = await this.#service.admin("/admin/accounts", {
      email: `bench-${crypto.randomUUID()}@example.com`,
      plan: "team",
    }) as { id: string };
    const key = await this.#service.admin(
      `/admin/accounts/${account.id}/keys`,
      { name: "bench" },
    ) as { key: string };
    this.#keys.push({
      key: key.key,
      account_id: account.id,
      left: REQUESTS_PER_ACCOUNT,
    });
  }
}

/** A running service process and how to reach and observe it. */
class Service {
  readonly process: ServiceProcess;
  readonly url: URL;
  readonly keys: KeyRing;
  /** PIDs of the PostgreSQL backends serving this service's database. */
  backend_pids: () => Promise<number[]> = () => Promise.resolve([]);

  constructor(process: ServiceProcess) {
    this.process = process;
    this.url = new URL(process.url);
    this.keys = new KeyRing(this);
  }

  get pid(): number {
    return this.process.child.pid;
  }

  async admin(path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(new URL(path, this.url), {
      method: body === undefined ? "GET" : "POST",
      headers: {
        Authorization: `Bearer ${ADMIN_TOKEN}`,
        "Content-Type": "application/json",
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) {
      throw new Error(`${path}: ${response.status} ${text}`);
    }
    return JSON.parse(text);
  }

  /** The /generate latency and render histogram sums and counts. */
  async metrics(): Promise<ServiceMetrics> {
    const text = await (await fetch(new URL("/metrics", this.url))).text();
    const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
    const statements = new Map<string, { sum: number; count: number }>();
    for (
      const match of text.matchAll(
        /^db_statement_duration_seconds_(sum|count)\{statement="([^"]+)"\} (\S+)$/gm,
      )
    ) {
      const entry = statements.get(match[2]) ?? { sum: 0, count: 0 };
      entry[match[1] as "sum" | "count"] = Number(match[3]);
      statements.set(match[2], entry);
    }
    return {
      statements,
      http_sum: value(
        /^http_request_duration_seconds_sum\{route="\/generate"\} (\S+)$/m,
      ),
      http_count: value(
        /^http_request_duration_seconds_count\{route="\/generate"\} (\S+)$/m,
      ),
      http_within_10ms: value(
        /^http_request_duration_seconds_bucket\{route="\/generate",le="0\.01"\} (\S+)$/m,
      ),
      render_sum: value(/^pdf_render_duration_seconds_sum (\S+)$/m),
    };
  }

  async stop(): Promise<void> {
    try {
      this.process.child.kill("SIGTERM");
    } catch {
      // Already gone.
    }
    await this.process.status;
  }
}

/** What the bench reads from /metrics. */
interface ServiceMetrics {
  http_sum: number;
  http_count: number;
  /** /generate requests answered within 10 ms (histogram bucket). */
  http_within_10ms: number;
  render_sum: number;
  /** Request-path database statements: total seconds and count, by name. */
  statements: Map<string, { sum: number; count: number }>;
}

/** Builds distinct /generate requests for one invoice shape. */
class RequestFactory {
  readonly #before: string;
  readonly #after: string;
  readonly #host: string;
  readonly #prefix: string;
  #next = 0;
  readonly #encoder = new TextEncoder();

  constructor(service: Service, items: number) {
    const placeholder = "\u0000number\u0000";
    const body = JSON.stringify({
      ...invoice_with_items(items, { unicode: true }),
      invoice_number: placeholder,
    });
    const at = body.indexOf(JSON.stringify(placeholder));
    this.#before = body.slice(0, at + 1);
    this.#after = body.slice(at + JSON.stringify(placeholder).length - 1);
    this.#host = service.url.host;
    // Unique per run, so even a reused database never sees a replay.
    this.#prefix = `B${Date.now().toString(36)}-${items}-`;
  }

  /**
   * The next request, with a new invoice number, as bytes on the wire;
   * without `key`, one the service refuses (401).
   */
  build(key?: string): Uint8Array {
    const body = this.#encoder.encode(
      this.#before + this.#prefix + (this.#next++) + this.#after,
    );
    const head = this.#encoder.encode(
      `POST /generate HTTP/1.1\r\nHost: ${this.#host}\r\n` +
        (key === undefined ? "" : `Authorization: Bearer ${key}\r\n`) +
        `Content-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\n\r\n`,
    );
    const bytes = new Uint8Array(head.length + body.length);
    bytes.set(head);
    bytes.set(body, head.length);
    return bytes;
  }
}

interface Recorder {
  latencies: number[];
  failures: Record<string, number>;
  ok: number;
}

function record(
  recorder: Recorder,
  answer: HttpAnswer,
  ms: number,
  expected: "pdf" | "refused" = "pdf",
): void {
  const pdf = answer.status === 200 && answer.body[0] === 0x25 && // "%PDF"
    answer.body[1] === 0x50 && !answer.headers.has("idempotent-replayed");
  if (expected === "pdf" ? pdf : answer.status === 401) {
    recorder.ok += 1;
    recorder.latencies.push(ms);
    return;
  }
  let label = String(answer.status);
  if (answer.status !== 200) {
    try {
      label += ` ${
        JSON.parse(new TextDecoder().decode(answer.body)).error.code
      }`;
    } catch {
      // Not our error shape; the status alone says enough.
    }
  } else {
    label += answer.headers.has("idempotent-replayed")
      ? " replayed"
      : " not a PDF";
  }
  recorder.failures[label] = (recorder.failures[label] ?? 0) + 1;
}

function count_error(recorder: Recorder, error: unknown): void {
  const label = `client error: ${
    error instanceof Error ? error.message : String(error)
  }`;
  recorder.failures[label] = (recorder.failures[label] ?? 0) + 1;
}

/** One client that sends its next request as soon as the last one is answered. */
async function closed_client(
  connection: HttpConnection,
  options: {
    service: Service;
    factory: RequestFactory;
    deadline: number;
    recorder?: Recorder;
  },
): Promise<HttpConnection> {
  const { service, factory, deadline, recorder } = options;
  while (performance.now() < deadline) {
    const bytes = factory.build(await service.keys.take());
    const started = performance.now();
    try {
      const answer = await connection.request(bytes);
      if (recorder) record(recorder, answer, performance.now() - started);
    } catch (error) {
      if (recorder) count_error(recorder, error);
      connection.close();
      connection = await HttpConnection.open(address_of(service));
    }
  }
  return connection;
}

/**
 * One client that sends requests without a key, one per connection, each
 * as soon as the last one is answered.
 */
async function refused_client(options: {
  service: Service;
  factory: RequestFactory;
  deadline: number;
  recorder: Recorder;
}): Promise<void> {
  const { service, factory, deadline, recorder } = options;
  while (performance.now() < deadline) {
    const started = performance.now();
    const connection = await HttpConnection.open(address_of(service));
    try {
      const answer = await connection.request(factory.build());
      record(recorder, answer, performance.now() - started, "refused");
    } catch (error) {
      count_error(recorder, error);
    } finally {
      connection.close();
    }
  }
}

/**
 * One client of a paced run: sends on a fixed schedule; when an answer comes
 * too late for the next slot, that request's latency counts from its slot
 * (no coordinated omission), otherwise from when it was sent.
 */
async function paced_client(
  connection: HttpConnection,
  options: {
    service: Service;
    factory: RequestFactory;
    start: number;
    interval_ms: number;
    deadline: number;
    recorder: Recorder;
  },
): Promise<HttpConnection> {
  const { service, factory, interval_ms, deadline, recorder } = options;
  for (let slot = options.start; slot < deadline; slot += interval_ms) {
    const wait = slot - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const bytes = factory.build(await service.keys.take());
    const sent = performance.now();
    const counted_from = sent - slot > interval_ms ? slot : sent;
    try {
      const answer = await connection.request(bytes);
      record(recorder, answer, performance.now() - counted_from);
    } catch (error) {
      count_error(recorder, error);
      connection.close();
      connection = await HttpConnection.open(address_of(service));
    }
  }
  return connection;
}

function address_of(service: Service): { hostname: string; port: number } {
  return { hostname: service.url.hostname, port: Number(service.url.port) };
}

/**
 * Groups the service's CPU by thread: the main (request) thread, the render
 * workers, V8's background threads (concurrent GC marking and sweeping,
 * compilation: shared by every isolate, so they cannot be split between
 * request thread and workers), tokio's blocking pool (file and DNS work)
 * and anything else.
 */
function thread_roles(
  before: Map<string, number>,
  after: Map<string, number>,
): { main: number; workers: number; v8: number; io: number; other: number } {
  const roles = { main: 0, workers: 0, v8: 0, io: 0, other: 0 };
  for (const [name, value] of after) {
    const used = value - (before.get(name) ?? 0);
    // Deno names the main thread "deno" and web workers "worker-<n>".
    if (/^worker-\d+$/.test(name)) roles.workers += used;
    else if (name.startsWith("V8 ")) roles.v8 += used;
    else if (name.startsWith("tokio")) roles.io += used;
    else if (name === "deno") roles.main += used;
    else roles.other += used;
  }
  return roles;
}

function backend_cpu(pids: number[]): number {
  let total = 0;
  for (const pid of pids) total += process_cpu_seconds(pid);
  return total;
}
/** Runs one level and measures it. */
async function run_level(
  service: Service,
  level: {
    target: Target;
    items: number;
    clients: number;
    seconds: number;
    /** Accounts the requests are spread over. */
    accounts: number;
    rate?: number;
    /** Requests without a key (see `LevelResult.mode`). */
    refused?: boolean;
  },
): Promise<LevelResult> {
  const database = level.target.database;
  const factory = new RequestFactory(service, level.items);
  await service.keys.ensure({
    requests: level.seconds * 3_000,
    accounts: level.accounts,
  });
  const connections = level.refused ? [] : await Promise.all(
    Array.from(
      { length: level.clients },
      () => HttpConnection.open(address_of(service)),
    ),
  );
  const recorder: Recorder = { latencies: [], failures: {}, ok: 0 };
  const metrics_before = await service.metrics();
  const pids = await service.backend_pids();
  const backend_before = backend_cpu(pids);
  const threads_before = thread_cpu_seconds(service.pid);
  const self_before = process_cpu_seconds("self");
  const machine_before = machine_cpu_seconds();
  reset_peak_rss(service.pid);
  const started = performance.now();
  const deadline = started + level.seconds * 1000;
  let finished: HttpConnection[] = [];
  if (level.refused) {
    await Promise.all(
      Array.from(
        { length: level.clients },
        () => refused_client({ service, factory, deadline, recorder }),
      ),
    );
  } else if (level.rate === undefined) {
    finished = await Promise.all(
      connections.map((connection) =>
        closed_client(connection, { service, factory, deadline, recorder })
      ),
    );
  } else {
    const interval_ms = 1000 * level.clients / level.rate;
    finished = await Promise.all(
      connections.map((connection, index) =>
        paced_client(connection, {
          service,
          factory,
          start: started + index * (interval_ms / level.clients),
          interval_ms,
          deadline,
          recorder,
        })
      ),
    );
  }
  const elapsed = (performance.now() - started) / 1000;
  const machine_after = machine_cpu_seconds();
  const self_cpu = process_cpu_seconds("self") - self_before;
  const threads = thread_roles(
    threads_before,
    thread_cpu_seconds(service.pid),
  );
  const backend = backend_cpu(pids) - backend_before;
  const peak = peak_rss_bytes(service.pid);
  const metrics_after = await service.metrics();
  for (const connection of finished) connection.close();

  const latencies = recorder.latencies.sort((a, b) => a - b);
  const requests = recorder.ok +
    Object.values(recorder.failures).reduce((sum, n) => sum + n, 0);
  const count = metrics_after.http_count - metrics_before.http_count;
  const server_ms = 1000 * (metrics_after.http_sum - metrics_before.http_sum) /
    count;
  const render_ms = 1000 *
    (metrics_after.render_sum - metrics_before.render_sum) / count;
  let statements = 0;
  const mean_ms: Record<string, number> = {};
  for (const [name, after] of metrics_after.statements) {
    const before = metrics_before.statements.get(name) ?? { sum: 0, count: 0 };
    const calls = after.count - before.count;
    statements += calls;
    if (calls > 0) {
      mean_ms[name] = round(1000 * (after.sum - before.sum) / calls, 3);
    }
  }
  const per_request = (seconds: number) =>
    round(1000 * seconds / Math.max(1, requests), 3);
  const service_cpu = threads.main + threads.workers + threads.v8 +
    threads.io + threads.other;
  const machine_busy = machine_after.busy - machine_before.busy;
  const machine_total = machine_after.total - machine_before.total;
  const cores = navigator.hardwareConcurrency || 1;
  const ours = service_cpu + backend + self_cpu;
  return {
    target: level.target.name,
    database,
    items: level.items,
    mode: level.refused
      ? "refused"
      : level.rate === undefined
      ? "closed"
      : "paced",
    clients: level.clients,
    ...(level.rate === undefined ? {} : { offered_rate: level.rate }),
    seconds: round(elapsed, 2),
    requests,
    ok: recorder.ok,
    failures: recorder.failures,
    rps: round(recorder.ok / elapsed, 1),
    p50_ms: round(percentile(latencies, 0.5), 2),
    p95_ms: round(percentile(latencies, 0.95), 2),
    p99_ms: round(percentile(latencies, 0.99), 2),
    max_ms: round(latencies[latencies.length - 1] ?? NaN, 2),
    peak_rss_mb: round(peak / 1024 / 1024, 1),
    server_ms: round(server_ms, 3),
    server_over_10ms_share: round(
      1 - (metrics_after.http_within_10ms - metrics_before.http_within_10ms) /
          Math.max(1, count),
      4,
    ),
    render_ms: round(render_ms, 3),
    db: {
      statements_per_request: round(statements / Math.max(1, count), 2),
      mean_ms,
    },
    non_render_time_share: round((server_ms - render_ms) / server_ms, 3),
    cpu_ms_per_request: {
      request_thread: per_request(threads.main),
      render_workers: per_request(threads.workers),
      v8_gc_compiler: per_request(threads.v8),
      io_threads: per_request(threads.io + threads.other),
      service_total: per_request(service_cpu),
      ...(database === "postgres"
        ? { postgres_backends: per_request(backend) }
        : {}),
      load_generator: per_request(self_cpu),
    },
    non_render_cpu_share: round(
      (threads.main + threads.io + backend) /
        Math.max(1e-9, service_cpu + backend),
      3,
    ),
    machine_busy_percent: round(100 * cores * machine_busy / machine_total, 0),
    steal_percent: round(
      100 * cores * (machine_after.steal - machine_before.steal) /
        machine_total,
      0,
    ),
    other_busy_percent: round(
      Math.max(0, 100 * cores * (machine_busy - ours) / machine_total),
      0,
    ),
  };
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Warms the JIT, the connection pools and the workers; nothing is recorded. */
async function warm_up(
  service: Service,
  options: { items: number; clients: number; seconds: number },
): Promise<void> {
  const factory = new RequestFactory(service, options.items);
  const deadline = performance.now() + options.seconds * 1000;
  const connections = await Promise.all(
    Array.from(
      { length: options.clients },
      () => HttpConnection.open(address_of(service)),
    ),
  );
  const finished = await Promise.all(
    connections.map((connection) =>
      closed_client(connection, { service, factory, deadline })
    ),
  );
  for (const connection of finished) connection.close();
}

/** One service configuration to measure. */
interface Target {
  name: string;
  /** Which checkout ("" when only one is measured). */
  label: string;
  service_dir: string;
  database: "pglite" | "postgres";
  /** Arguments for `deno run` before `main.ts` (V8 flags). */
  deno_args: string[];
  /** Environment the start task sets (malloc settings). */
  task_env: Record<string, string>;
  /** All levels, or only 50 and 200 clients with 10 items. */
  full: boolean;
}

function task_settings(
  dir: string,
): Pick<Target, "deno_args" | "task_env"> {
  const { deno_args, env } = start_task_settings(dir);
  return { deno_args, task_env: env };
}

function targets_of(settings: Settings): Target[] {
  // Checkouts alternate within each database, so a before/after pair is
  // measured minutes apart, not at both ends of the run.
  const targets: Target[] = settings.databases.flatMap((database) =>
    settings.services.map((service) => ({
      name: service.label ? `${service.label} ${database}` : database,
      label: service.label,
      service_dir: service.dir,
      database,
      ...task_settings(service.dir),
      full: true,
    }))
  );
  if (settings.databases.includes("postgres") && settings.capped_v8_flags) {
    const service = settings.services[settings.services.length - 1];
    targets.push({
      name: "postgres, capped heap",
      label: service.label,
      service_dir: service.dir,
      database: "postgres",
      deno_args: [`--v8-flags=${settings.capped_v8_flags}`],
      task_env: task_settings(service.dir).task_env,
      full: false,
    });
  }
  return targets;
}

/** Every level against one service configuration. */
async function bench_target(
  target: Target,
  settings: Settings,
): Promise<TargetResult | undefined> {
  const database = target.database;
  const cleanup: (() => Promise<void>)[] = [];
  const env: Record<string, string> = {
    ...target.task_env,
    ADMIN_TOKEN,
    RATE_LIMIT_PER_MINUTE: "1000000",
    DATABASE_URL: "",
  };
  for (
    const name of [
      "RENDER_WORKERS",
      "RENDER_WORKERS_MIN",
      "RENDER_QUEUE",
      "RENDER_TIMEOUT_MS",
    ]
  ) {
    const value = Deno.env.get(name);
    if (value) env[name] = value;
  }
  let backend_pids: (() => Promise<number[]>) | undefined;
  let first_start_rss_mb: number | undefined;
  let first_start_settled_rss_mb: number | undefined;
  try {
    if (database === "pglite") {
      const data_dir = await Deno.makeTempDir({ prefix: "bench-pglite-" });
      cleanup.push(() => Deno.remove(data_dir, { recursive: true }));
      env.DATA_DIR = data_dir;
      // Measure a restarted service: the very first start also runs initdb
      // (in a worker that then ends), reported apart: its peak RSS
      // (first_start_rss_mb) and where it settles once listening.
      const first = await start_service_process(env, {
        deno_args: target.deno_args,
        service_dir: target.service_dir,
      });
      running.add(first.child);
      first_start_settled_rss_mb = await settled_rss_mb(first.child.pid);
      first_start_rss_mb = round(peak_rss_bytes(first.child.pid) / 2 ** 20, 0);
      first.child.kill("SIGTERM");
      await first.status;
      running.delete(first.child);
    } else {
      let empty;
      try {
        empty = await create_empty_test_database(settings.postgres_server_url);
      } catch (error) {
        console.error(
          `PostgreSQL at ${
            redact(settings.postgres_server_url)
          } unreachable, skipping: ${(error as Error).message}`,
        );
        return undefined;
      }
      cleanup.push(() => empty.drop());
      env.DATABASE_URL = empty.database_url;
      const name = new URL(empty.database_url).pathname.slice(1);
      const sql = postgres(settings.postgres_server_url, {
        max: 1,
        onnotice: () => {},
      });
      cleanup.push(() => sql.end({ timeout: 5 }));
      backend_pids = async () =>
        (await sql<{ pid: number }[]>`
          select pid from pg_stat_activity where datname = ${name}
        `).map((row) => row.pid);
    }
    const service = new Service(
      await start_service_process(env, {
        deno_args: target.deno_args,
        service_dir: target.service_dir,
      }),
    );
    running.add(service.process.child);
    cleanup.push(async () => {
      await service.stop();
      running.delete(service.process.child);
    });
    if (backend_pids) service.backend_pids = backend_pids;
    const idle_rss_mb = await settled_rss_mb(service.pid);
    console.error(
      `${target.name}: service pid ${service.pid} at ${service.url}`,
    );

    const levels: LevelResult[] = [];
    const report = (result: LevelResult) => {
      levels.push(result);
      console.error(
        `  ${result.items} items, ${result.clients} clients ${result.mode}: ` +
          `${result.rps} req/s, p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms`,
      );
    };
    await warm_up(service, { items: 10, clients: 8, seconds: 3 });
    for (const clients of target.full ? settings.clients : [50, 200]) {
      report(
        await run_level(service, {
          target,
          items: 10,
          clients,
          seconds: settings.seconds,
          accounts: settings.accounts,
        }),
      );
    }
    if (!target.full) {
      return {
        levels,
        quota: await check_quota(service),
        idle_rss_mb,
        rss_after_load_mb: await rss_after_rest(service),
      };
    }
    // A flood of requests without a key: what each refusal costs.
    report(
      await run_level(service, {
        target,
        items: 10,
        clients: 10,
        seconds: settings.seconds,
        accounts: settings.accounts,
        refused: true,
      }),
    );
    for (const rate of settings.rates) {
      // Let the backlog of a previous overloaded run drain first.
      await new Promise((resolve) => setTimeout(resolve, 500));
      report(
        await run_level(service, {
          target,
          items: 10,
          clients: 50,
          seconds: settings.seconds,
          accounts: settings.accounts,
          rate,
        }),
      );
    }
    if (settings.large_items > 0) {
      const items = settings.large_items;
      await warm_up(service, { items, clients: 2, seconds: 1 });
      for (const clients of [1, 10]) {
        report(
          await run_level(service, {
            target,
            items,
            clients,
            seconds: settings.seconds,
            accounts: settings.accounts,
          }),
        );
      }
    }
    const quota = await check_quota(service);
    const rss_after_load_mb = await rss_after_rest(service);
    return {
      levels,
      quota,
      idle_rss_mb,
      rss_after_load_mb,
      first_start_rss_mb,
      first_start_settled_rss_mb,
    };
  } finally {
    for (const step of cleanup.reverse()) {
      await step().catch((error) => console.error("cleanup:", error));
    }
  }
}

/**
 * RSS of the idle service once it has settled, MB: render workers finish
 * loading after the service listens, so the reading waits until RSS stops
 * growing (two readings a second apart within 1 MB; at most 20 s).
 */
async function settled_rss_mb(pid: number): Promise<number> {
  let last = current_rss_bytes(pid);
  for (let second = 0; second < 20; second++) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const now = current_rss_bytes(pid);
    if (Math.abs(now - last) < 2 ** 20) break;
    last = now;
  }
  return round(current_rss_bytes(pid) / 2 ** 20, 0);
}

/** RSS of the service after 5 s without requests, MB (idle after load). */
async function rss_after_rest(service: Service): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  return round(current_rss_bytes(service.pid) / 2 ** 20, 0);
}

interface TargetResult {
  levels: LevelResult[];
  quota: QuotaCheck;
  /** RSS of the idle service before any load, once settled, MB. */
  idle_rss_mb: number;
  /** RSS of the idle service 5 s after the last row, MB. */
  rss_after_load_mb: number;
  /** PGlite: peak RSS of the first start (initdb + migrations), MB. */
  first_start_rss_mb?: number;
  /** PGlite: RSS of the first start once settled after listening, MB. */
  first_start_settled_rss_mb?: number;
}

interface QuotaCheck {
  accounts: number;
  /** PDFs answered 200 (warm-up included), as counted by the service's metrics. */
  pdfs_returned: number;
  /** Sum of the accounts' usage this month. */
  usage_charged: number;
}

async function check_quota(service: Service): Promise<QuotaCheck> {
  let usage_charged = 0;
  for (const id of service.keys.account_ids) {
    const account = await service.admin(`/admin/accounts/${id}`) as {
      usage: { used: number };
    };
    usage_charged += account.usage.used;
  }
  const text = await (await fetch(new URL("/metrics", service.url))).text();
  const pdfs_returned = Number(
    /^http_requests_total\{route="\/generate",status="200"\} (\S+)$/m.exec(
      text,
    )?.[1] ?? 0,
  );
  return {
    accounts: service.keys.account_ids.length,
    pdfs_returned,
    usage_charged,
  };
}

function redact(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "***";
  return parsed.toString();
}

/**
 * Median in-process render time of `invoice`, in ms (the renderer alone).
 *
 * The renderer is imported here, after the HTTP levels, and so is
 * Playwright for the Chromium baseline: held by this process while it
 * generates load, their ~35 MB of heap made its own garbage collections
 * long enough (up to 50 ms) to show up in the latencies it measures.
 */
async function measure_renderer(
  invoice: Invoice,
  runs: number,
): Promise<number> {
  const { load_invoice_fonts, render_invoice_pdf } = await import(
    "../../server/pdf/mod.ts"
  );
  load_invoice_fonts();
  for (let index = 0; index < runs; index++) render_invoice_pdf(invoice);
  const times: number[] = [];
  for (let index = 0; index < runs; index++) {
    const started = performance.now();
    render_invoice_pdf({ ...invoice, invoice_number: `R-${index}` });
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

// Processes per side for the V8 flags' cost, and renders in each.
const LARGE_RENDER_ROUNDS = 7;
const LARGE_RENDERS_PER_ROUND = 40;

/**
 * The renderer alone on the large invoice: each measured checkout's with
 * its start task's V8 flags, and the last one's without them too.
 */
interface LargeRendererResult {
  items: number;
  /** CPU ms per render, every thread, per checkout (as `settings.services`). */
  with_flags_cpu_ms: number[];
  /** The last checkout's start-task V8 flags. */
  v8_flags: string;
  /** The last checkout's renderer without them. */
  without_flags_cpu_ms: number;
}

/**
 * Runs `large_render.ts` in processes of their own, in turns: each
 * checkout's renderer with its start task's V8 flags, then the last one's
 * without, {@linkcode LARGE_RENDER_ROUNDS} times each; the median CPU per
 * render of each. The same code measures up to a third apart from one
 * process to the next here, so a lowest-of-few compares two draws of that
 * spread rather than the code or the flags.
 */
async function measure_large_renderer(
  settings: Settings,
): Promise<LargeRendererResult> {
  const last = settings.services[settings.services.length - 1];
  const run = async (dir: string, deno_args: string[]): Promise<number> => {
    const result = await bench_script<{ cpu_ms: number }>("large_render.ts", [
      String(settings.large_items),
      String(LARGE_RENDERS_PER_ROUND),
      dir,
    ], deno_args);
    if (result === undefined) {
      throw new Error(`large_render.ts of ${dir} failed`);
    }
    return result.cpu_ms;
  };
  const with_flags: number[][] = settings.services.map(() => []);
  const without_flags: number[] = [];
  for (let round = 0; round < LARGE_RENDER_ROUNDS; round++) {
    for (const [index, service] of settings.services.entries()) {
      const flags = start_task_settings(service.dir).deno_args;
      with_flags[index].push(await run(service.dir, flags));
    }
    without_flags.push(await run(last.dir, []));
  }
  return {
    items: settings.large_items,
    with_flags_cpu_ms: with_flags.map((list) => round(median(list), 2)),
    v8_flags: start_task_settings(last.dir).deno_args.join(" ") || "(none)",
    without_flags_cpu_ms: round(median(without_flags), 2),
  };
}

/** The start task's V8 flags' cost on the last checkout's large render, %. */
function flags_cost_percent(large: LargeRendererResult): number {
  const last = large.with_flags_cpu_ms[large.with_flags_cpu_ms.length - 1];
  return 100 * (last / large.without_flags_cpu_ms - 1);
}

/** The large-invoice targets: flags' cost, and HTTP ÷ each checkout's renderer. */
function format_large_renderer(
  large: LargeRendererResult,
  levels: LevelResult[],
  services: readonly ServiceCheckout[],
): string {
  const cost = flags_cost_percent(large);
  const label_of = (service: ServiceCheckout) =>
    service.label ? `${service.label}: ` : "";
  const lines = [
    `Renderer alone, ${large.items}-item Unicode invoice, CPU per render ` +
    `(all threads, median of ${LARGE_RENDER_ROUNDS} processes) with the ` +
    `start task's V8 flags: ${
      services.map((service, index) =>
        `${label_of(service)}${large.with_flags_cpu_ms[index]} ms`
      ).join(", ")
    }; the last without ${large.v8_flags}: ${large.without_flags_cpu_ms} ms ` +
    `(flags ${cost >= 0 ? "+" : ""}${cost.toFixed(1)}%)`,
  ];
  for (const [index, service] of services.entries()) {
    const renderer = large.with_flags_cpu_ms[index];
    for (const level of levels) {
      if (level.items !== large.items || level.clients !== 1) continue;
      if (service_of(level.target, services) !== service) continue;
      const http = level.cpu_ms_per_request.service_total ?? 0;
      lines.push(
        `  ${level.target}, 1 client: ${http.toFixed(1)} ms CPU per invoice ` +
          `over HTTP = ${(http / renderer).toFixed(2)}× its renderer`,
      );
    }
  }
  return lines.join("\n");
}

/** The checkout a row of `target` ("[label ]database") measured. */
function service_of(
  target: string,
  services: readonly ServiceCheckout[],
): ServiceCheckout | undefined {
  return services.find((service) =>
    service.label ? target.startsWith(`${service.label} `) : true
  );
}

function clients_cell(level: LevelResult): string {
  if (level.mode === "refused") return `${level.clients}, no key`;
  return level.mode === "paced"
    ? `${level.clients} @ ${level.offered_rate}/s`
    : String(level.clients);
}

/** A Markdown table: the first `left` columns left-aligned, the rest right. */
function markdown_table(
  header: string[],
  rows: string[][],
  left: number,
): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column].length))
  );
  const line = (cells: string[]) =>
    `| ${
      cells.map((cell, column) =>
        column < left
          ? cell.padEnd(widths[column])
          : cell.padStart(widths[column])
      ).join(" | ")
    } |`;
  return [
    line(header),
    `|${
      widths.map((width, column) =>
        column < left ? "-".repeat(width + 2) : "-".repeat(width + 1) + ":"
      ).join("|")
    }|`,
    ...rows.map(line),
  ].join("\n");
}

function format_table(levels: LevelResult[]): string {
  const header = [
    "service",
    "items",
    "clients",
    "req/s",
    "p50 ms",
    "p95 ms",
    "p99 ms",
    "peak RSS MB",
    "non-render time",
    "non-render CPU",
    "failures",
    "steal",
  ];
  const rows = levels.map((level) => [
    level.target,
    String(level.items),
    clients_cell(level),
    level.rps.toFixed(0),
    level.p50_ms.toFixed(1),
    level.p95_ms.toFixed(1),
    level.p99_ms.toFixed(1),
    level.peak_rss_mb.toFixed(0),
    `${(100 * level.non_render_time_share).toFixed(0)}%`,
    `${(100 * level.non_render_cpu_share).toFixed(0)}%`,
    String(
      Object.values(level.failures).reduce((sum, n) => sum + n, 0),
    ),
    `${level.steal_percent}%`,
  ]);
  return markdown_table(header, rows, 3);
}

/** CPU ms per invoice by thread, one row per level. */
function format_cpu_table(levels: LevelResult[]): string {
  const header = [
    "service",
    "items",
    "clients",
    "request thread",
    "render workers",
    "V8 GC + compiler",
    "I/O, other",
    "service total",
    "PostgreSQL",
    "load generator",
    "others on machine",
  ];
  const ms = (value: number | undefined) =>
    value === undefined ? "–" : value.toFixed(2);
  const rows = levels.map((level) => {
    const cpu = level.cpu_ms_per_request;
    return [
      level.target,
      String(level.items),
      clients_cell(level),
      ms(cpu.request_thread),
      ms(cpu.render_workers),
      ms(cpu.v8_gc_compiler),
      ms(cpu.io_threads),
      ms(cpu.service_total),
      ms(cpu.postgres_backends),
      ms(cpu.load_generator),
      `${level.other_busy_percent}%`,
    ];
  });
  return markdown_table(header, rows, 3);
}

function format_details(levels: LevelResult[]): string {
  return levels.map((level) =>
    `${level.target.padEnd(21)} ${String(level.items).padStart(3)} items ${
      clients_cell(level).padStart(9)
    }: server ${level.server_ms.toFixed(2)} ms/req (render ${
      level.render_ms.toFixed(2)
    }; over 10 ms ${
      (100 * level.server_over_10ms_share).toFixed(1)
    }%); DB ${level.db.statements_per_request} statements/req (${
      Object.entries(level.db.mean_ms).map(([name, ms]) =>
        `${name.replace(/^ink_/, "")} ${ms.toFixed(2)} ms`
      ).join(", ")
    }); machine ${level.machine_busy_percent}% (others ${level.other_busy_percent}%, steal ${level.steal_percent}%)` +
    (Object.keys(level.failures).length > 0
      ? `; failures ${JSON.stringify(level.failures)}`
      : "")
  ).join("\n");
}

/**
 * Before/after: the same rows of two or more checkouts side by side
 * (throughput, latency, peak RSS, CPU per invoice of the service's threads).
 */
function format_comparison(
  levels: LevelResult[],
  labels: string[],
): string {
  const key = (level: LevelResult) =>
    `${level.database}|${level.items}|${clients_cell(level)}`;
  const rows = new Map<string, Map<string, LevelResult>>();
  for (const level of levels) {
    const label = labels.find((name) =>
      level.target === `${name} ${level.database}`
    );
    if (label === undefined) continue;
    const row = rows.get(key(level)) ?? new Map<string, LevelResult>();
    row.set(label, level);
    rows.set(key(level), row);
  }
  const measures: [string, (level: LevelResult) => string][] = [
    ["req/s", (level) => level.rps.toFixed(0)],
    ["p50 ms", (level) => level.p50_ms.toFixed(1)],
    ["p99 ms", (level) => level.p99_ms.toFixed(1)],
    ["peak RSS MB", (level) => level.peak_rss_mb.toFixed(0)],
    [
      "CPU ms/invoice",
      (level) => (level.cpu_ms_per_request.service_total ?? 0).toFixed(2),
    ],
  ];
  const header = [
    "database",
    "items",
    "clients",
    ...measures.flatMap(([name]) => labels.map((label) => `${name} ${label}`)),
  ];
  const body = [...rows.entries()].map(([row_key, by_label]) => [
    ...row_key.split("|"),
    ...measures.flatMap(([, value]) =>
      labels.map((label) => {
        const level = by_label.get(label);
        return level ? value(level) : "–";
      })
    ),
  ]);
  return markdown_table(header, body, 3);
}

async function machine_description(): Promise<Record<string, unknown>> {
  let cpu = "unknown";
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(
      await Deno.readTextFile("/proc/cpuinfo"),
    )?.[1] ?? cpu;
  } catch {
    // Not Linux.
  }
  return {
    cpu,
    cores: navigator.hardwareConcurrency,
    memory_gib: round(Deno.systemMemoryInfo().total / 1024 ** 3, 1),
    os: `${Deno.build.os} ${Deno.osRelease()}`,
    deno: Deno.version.deno,
  };
}

/**
 * What the targets are read from, for each measured checkout: its HTTP
 * rows and idle RSS from this run, its own renderer on the large invoice
 * (and the flags' cost for the last checkout, measured without them too),
 * and the renderer's rows and cold start measured now, checkout by
 * checkout.
 */
async function checkout_figures(
  settings: Settings,
  runs: Record<string, TargetResult>,
  large: LargeRendererResult | undefined,
): Promise<{ label: string; figures: CheckoutFigures }[]> {
  const renderer = await renderer_rows_by_checkout(settings.services);
  const checkouts: { label: string; figures: CheckoutFigures }[] = [];
  for (const [index, service] of settings.services.entries()) {
    const name = (database: string) =>
      service.label ? `${service.label} ${database}` : database;
    const own = settings.databases.map((database) => runs[name(database)])
      .filter((run) => run !== undefined);
    const last = index === settings.services.length - 1;
    checkouts.push({
      label: service.label,
      figures: {
        rows: own.flatMap((run) => run.levels),
        idle_rss_mb: Object.fromEntries(
          settings.databases.flatMap((database) => {
            const run = runs[name(database)];
            return run ? [[database, run.idle_rss_mb]] : [];
          }),
        ),
        large_items: settings.large_items,
        large_renderer_cpu_ms: large?.with_flags_cpu_ms[index],
        flags_cost_percent: last && large
          ? flags_cost_percent(large)
          : undefined,
        renderer: renderer[index],
        cold_start: settings.cold_start
          ? await measure_cold_start(service.dir).catch((error) => {
            console.error(
              `cold start of ${service.dir} not measured: ${error}`,
            );
            return undefined as ColdStart | undefined;
          })
          : undefined,
      },
    });
  }
  return checkouts;
}

/** Processes of `renderer_targets.ts` per checkout, alternated between them. */
const RENDERER_TARGET_ROUNDS = 3;

/**
 * The renderer rows of each checkout: the median of each figure over
 * {@linkcode RENDERER_TARGET_ROUNDS} processes, the checkouts taking turns,
 * since one process of the same code measures up to a third off the next.
 */
async function renderer_rows_by_checkout(
  services: readonly ServiceCheckout[],
): Promise<(RendererTargets | undefined)[]> {
  const runs: RendererTargets[][] = services.map(() => []);
  for (let round = 0; round < RENDERER_TARGET_ROUNDS; round++) {
    for (const [index, service] of services.entries()) {
      const measured = await measure_renderer_rows(service.dir);
      if (measured) runs[index].push(measured);
    }
  }
  return runs.map((list) => {
    if (list.length === 0) return undefined;
    const names = Object.keys(list[0].feature_ratios);
    return {
      seed_cpu_ms: median(list.map((run) => run.seed_cpu_ms)),
      floor_cpu_ms: median(list.map((run) => run.floor_cpu_ms)),
      feature_ratios: Object.fromEntries(
        names.map((name) => [
          name,
          median(list.map((run) => run.feature_ratios[name])),
        ]),
      ),
    };
  });
}

/**
 * `renderer_targets.ts` for the checkout in `dir`, in a process of its
 * own; undefined (with its error on stderr) when that process fails.
 */
async function measure_renderer_rows(
  dir: string,
): Promise<RendererTargets | undefined> {
  const rows = await bench_script<RendererTargets>("renderer_targets.ts", [
    dir,
  ]);
  if (rows === undefined) console.error(`renderer rows of ${dir} not measured`);
  return rows;
}

/**
 * Runs a script of this folder in a process of its own (`deno_args` before
 * it, `args` after) and reads the JSON line it prints last; undefined when
 * the process fails or prints nothing.
 */
async function bench_script<T>(
  script: string,
  args: string[],
  deno_args: string[] = [],
): Promise<T | undefined> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--node-modules-dir=auto",
      "-A",
      ...deno_args,
      new URL(`./${script}`, import.meta.url).pathname,
      ...args,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const line = new TextDecoder().decode(output.stdout).trim().split("\n")
    .pop();
  return output.success && line ? JSON.parse(line) as T : undefined;
}

async function main(): Promise<void> {
  const settings = read_settings();
  const watchdog = setTimeout(() => {
    console.error("http_load: watchdog expired; exiting");
    kill_running();
    Deno.exit(2);
  }, WATCHDOG_MS);
  const interrupted = () => {
    kill_running();
    Deno.exit(130);
  };
  Deno.addSignalListener("SIGINT", interrupted);
  const started_at = new Date();
  const runs: Record<string, TargetResult> = {};
  for (const target of targets_of(settings)) {
    const result = await bench_target(target, settings);
    if (result) runs[target.name] = result;
  }
  const levels = Object.values(runs).flatMap((run) => run.levels);

  const invoice = InvoiceRequestSchema.parse(
    invoice_with_items(10, { unicode: true }),
  ) as Invoice;
  const renderer_median_ms = await measure_renderer(invoice, 300);
  const large_renderer = settings.large_items > 0
    ? await measure_large_renderer(settings)
    : undefined;
  let chromium: ChromiumResult | undefined;
  if (settings.chromium_runs > 0) {
    const { chromium_available, measure_chromium } = await import(
      "./chromium_baseline.ts"
    );
    if (chromium_available()) {
      chromium = await measure_chromium(invoice, {
        runs: settings.chromium_runs,
        warmup: 5,
      });
    } else {
      console.error("No /usr/bin/chromium: Chromium baseline skipped");
    }
  }
  const single_client = (target: string) =>
    levels.find((level) =>
      level.target === target && level.items === 10 && level.clients === 1 &&
      level.mode === "closed"
    );
  const single = single_client("postgres") ?? single_client("pglite");
  const checkouts = await checkout_figures(settings, runs, large_renderer);
  const results = {
    generated_at: started_at.toISOString(),
    machine: await machine_description(),
    settings: { ...settings, postgres_server_url: undefined },
    levels,
    services: Object.fromEntries(
      Object.entries(runs).map(([name, run]) => [name, {
        quota: run.quota,
        idle_rss_mb: run.idle_rss_mb,
        rss_after_load_mb: run.rss_after_load_mb,
        first_start_rss_mb: run.first_start_rss_mb,
        first_start_settled_rss_mb: run.first_start_settled_rss_mb,
      }]),
    ),
    renderer: { invoice: "10 items, Unicode", median_ms: renderer_median_ms },
    large_renderer,
    chromium: chromium && {
      ...chromium,
      speedup_renderer: round(chromium.median_ms / renderer_median_ms, 1),
      speedup_end_to_end: single
        ? round(chromium.median_ms / single.p50_ms, 1)
        : undefined,
    },
    targets: checkouts.map(({ label, figures }) => ({
      label,
      renderer: figures.renderer,
      cold_start: figures.cold_start,
    })),
  };
  await Deno.writeTextFile(RESULTS_PATH, JSON.stringify(results, null, 2));

  console.log(
    "\nPOST /generate, Unicode invoices, keep-alive clients " +
      `(${settings.seconds} s per row):\n`,
  );
  console.log(format_table(levels));
  console.log(
    "\nCPU ms per invoice by thread (service total = request thread + " +
      "render workers + V8 GC/compiler + I/O; PostgreSQL backends and the " +
      "load generator apart):\n",
  );
  console.log(format_cpu_table(levels));
  console.log(`\n${format_details(levels)}`);
  const labels = settings.services.map((service) => service.label);
  if (labels.length > 1) {
    console.log(`\nBefore/after (${labels.join(" | ")}):\n`);
    console.log(format_comparison(levels, labels));
  }
  for (const [name, run] of Object.entries(runs)) {
    const q = run.quota;
    console.log(
      `${name}: ${q.pdfs_returned} PDFs returned, ${q.usage_charged} charged to ${q.accounts} accounts` +
        (q.pdfs_returned === q.usage_charged ? " (equal)" : " (MISMATCH)") +
        `; idle RSS ${run.idle_rss_mb} MB at start, ${run.rss_after_load_mb} MB 5 s after the load` +
        (run.first_start_rss_mb === undefined
          ? ""
          : `, first start (initdb) peak ${run.first_start_rss_mb} MB, settled ${run.first_start_settled_rss_mb} MB`),
    );
  }
  console.log(
    `\nRenderer alone, 10-item Unicode invoice: median ${
      renderer_median_ms.toFixed(2)
    } ms`,
  );
  if (large_renderer) {
    console.log(
      format_large_renderer(large_renderer, levels, settings.services),
    );
  }
  if (results.chromium) {
    console.log(
      `Chromium ${results.chromium.version} (setContent + pdf, page reused, ${results.chromium.runs} runs): ` +
        `median ${results.chromium.median_ms.toFixed(1)} ms, p95 ${
          results.chromium.p95_ms.toFixed(1)
        } ms → ` +
        `${results.chromium.speedup_renderer}× the renderer` +
        (results.chromium.speedup_end_to_end
          ? `, ${results.chromium.speedup_end_to_end}× our end-to-end p50 at 1 client`
          : ""),
    );
  }
  console.log(
    "\nTargets (tests/bench/README.md), each checkout measured in this run; " +
      "met: the last one:\n",
  );
  console.log(format_targets(checkouts));
  console.log(`\nWrote ${RESULTS_PATH.pathname}`);
  clearTimeout(watchdog);
  Deno.removeSignalListener("SIGINT", interrupted);
}

if (import.meta.main) {
  await main();
}
