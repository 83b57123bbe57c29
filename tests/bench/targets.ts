/**
 * The performance targets (tests/bench/README.md) as one table, and the
 * report `http_load.ts` ends with: each target with its bound and the
 * figure of every measured checkout (before and after), and whether the
 * last checkout meets it.
 *
 * @module
 */
import type { ColdStart } from "./cold_start.ts";
import type { RendererTargets } from "./renderer_targets.ts";

type Database = "pglite" | "postgres";

/** The fields of a measured HTTP row that the targets read. */
export interface MeasuredRow {
  database: Database;
  items: number;
  mode: "closed" | "paced" | "refused";
  clients: number;
  offered_rate?: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  peak_rss_mb: number;
  cpu_ms_per_request: Record<string, number>;
}

/** Everything the targets are read from, for one checkout. */
export interface CheckoutFigures {
  /** Its HTTP rows, both databases. */
  rows: MeasuredRow[];
  /** Idle RSS once settled after start, MB, by database. */
  idle_rss_mb: Partial<Record<Database, number>>;
  /** Renderer alone on the large invoice with the start task's flags, CPU ms. */
  large_renderer_cpu_ms?: number;
  /** Items of the large invoice. */
  large_items: number;
  /** The start task's V8 flags' cost on that render, percent. */
  flags_cost_percent?: number;
  renderer?: RendererTargets;
  cold_start?: ColdStart;
}

/** One target: what, its bound, and how its figure is read. */
interface Target {
  what: string;
  /** "≤" bounds are met at or below, "≥" at or above. */
  relation: "≤" | "≥";
  bound: number;
  unit: string;
  digits: number;
  value(figures: CheckoutFigures): number | undefined;
}

function row_of(
  figures: CheckoutFigures,
  database: Database,
  match: Partial<MeasuredRow>,
): MeasuredRow | undefined {
  return figures.rows.find((row) =>
    row.database === database &&
    Object.entries(match).every(([key, value]) =>
      row[key as keyof MeasuredRow] === value
    )
  );
}

const FIFTY_CLIENTS = { items: 10, clients: 50, mode: "closed" } as const;

function per_database(
  make: (database: Database, name: string) => Target,
): Target[] {
  return [make("postgres", "PostgreSQL"), make("pglite", "PGlite")];
}

/**
 * The targets, in the README's order, with one row for each single-feature
 * row of the renderer (`render_cases.ts`) named in `feature_rows`.
 */
export function targets(feature_rows: readonly string[]): Target[] {
  return [
    ...per_database((database, name) => ({
      what: `CPU per 10-item invoice, all service threads, 50 clients, ${name}`,
      relation: "≤",
      bound: database === "postgres" ? 1.2 : 1.6,
      unit: "ms",
      digits: 2,
      value: (f) =>
        row_of(f, database, FIFTY_CLIENTS)?.cpu_ms_per_request.service_total,
    })),
    ...per_database((database, name) => ({
      what: `its request thread's share, ${name}`,
      relation: "≤",
      bound: 0.4,
      unit: "ms",
      digits: 2,
      value: (f) =>
        row_of(f, database, FIFTY_CLIENTS)?.cpu_ms_per_request.request_thread,
    })),
    {
      what: "invoices/s at 50 clients, PostgreSQL",
      relation: "≥",
      bound: 1000,
      unit: "/s",
      digits: 0,
      value: (f) => row_of(f, "postgres", FIFTY_CLIENTS)?.rps,
    },
    {
      what: "p99 at 400/s offered, PostgreSQL",
      relation: "≤",
      bound: 10,
      unit: "ms",
      digits: 1,
      value: (f) =>
        row_of(f, "postgres", { items: 10, mode: "paced", offered_rate: 400 })
          ?.p99_ms,
    },
    {
      what: "p50 at 1 client, PostgreSQL",
      relation: "≤",
      bound: 2,
      unit: "ms",
      digits: 2,
      value: (f) =>
        row_of(f, "postgres", { items: 10, clients: 1, mode: "closed" })
          ?.p50_ms,
    },
    {
      what: "renderer alone ÷ the hand-written floor (CPU)",
      relation: "≤",
      bound: 3,
      unit: "×",
      digits: 1,
      value: (f) =>
        f.renderer && f.renderer.seed_cpu_ms / f.renderer.floor_cpu_ms,
    },
    ...feature_rows.map((name): Target => ({
      what: `feature row "${name}" ÷ the seed row (CPU)`,
      relation: "≤",
      bound: 2,
      unit: "×",
      digits: 2,
      value: (f) => f.renderer?.feature_ratios[name],
    })),
    ...per_database((database, name) => ({
      what:
        `large invoice over HTTP ÷ the renderer alone (CPU, 1 client), ${name}`,
      relation: "≤",
      bound: 1.3,
      unit: "×",
      digits: 2,
      value: (f) => {
        const total = row_of(f, database, {
          items: f.large_items,
          clients: 1,
          mode: "closed",
        })?.cpu_ms_per_request.service_total;
        return total && f.large_renderer_cpu_ms &&
          total / f.large_renderer_cpu_ms;
      },
    })),
    {
      what: "the start task's V8 flags' cost on the large render",
      relation: "≤",
      bound: 5,
      unit: "%",
      digits: 1,
      value: (f) => f.flags_cost_percent,
    },
    ...per_database((database, name) => ({
      what: `peak RSS at 200 clients, ${name}`,
      relation: "≤",
      bound: database === "postgres" ? 200 : 300,
      unit: "MB",
      digits: 0,
      value: (f) =>
        row_of(f, database, { items: 10, clients: 200, mode: "closed" })
          ?.peak_rss_mb,
    })),
    ...per_database((database, name) => ({
      what: `idle RSS, ${name}`,
      relation: "≤",
      bound: database === "postgres" ? 150 : 200,
      unit: "MB",
      digits: 0,
      value: (f) => f.idle_rss_mb[database],
    })),
    {
      what: "a fresh clone's `deno task start` to /healthz, empty cache",
      relation: "≤",
      bound: 15,
      unit: "s",
      digits: 1,
      value: (f) => f.cold_start?.first_start_s,
    },
    {
      what: "restart on its data directory to /healthz",
      relation: "≤",
      bound: 3,
      unit: "s",
      digits: 1,
      value: (f) => f.cold_start?.restart_s,
    },
  ];
}

/** Whether `value` meets `target`. */
export function meets(target: Target, value: number): boolean {
  return target.relation === "≤"
    ? value <= target.bound
    : value >= target.bound;
}

/**
 * The targets as a markdown table: a column per checkout (labelled as
 * measured, in order) and whether the last one meets each target.
 */
export function format_targets(
  checkouts: readonly { label: string; figures: CheckoutFigures }[],
): string {
  const header = [
    "target",
    "bound",
    ...checkouts.map(({ label }) => label || "measured"),
    "met",
  ];
  const feature_rows = [
    ...new Set(
      checkouts.flatMap(({ figures }) =>
        Object.keys(figures.renderer?.feature_ratios ?? {})
      ),
    ),
  ];
  const rows = targets(feature_rows).map((target) => {
    const values = checkouts.map(({ figures }) => target.value(figures));
    const last = values[values.length - 1];
    const large = target.what.startsWith("large invoice")
      ? ` (${checkouts[0]?.figures.large_items ?? 0} items)`
      : "";
    return [
      target.what + large,
      `${target.relation} ${target.bound} ${target.unit}`,
      ...values.map((value) =>
        value === undefined || !Number.isFinite(value)
          ? "–"
          : `${value.toFixed(target.digits)} ${target.unit}`
      ),
      last === undefined || !Number.isFinite(last)
        ? "not measured"
        : meets(target, last)
        ? "yes"
        : "no",
    ];
  });
  const widths = header.map((cell, i) =>
    Math.max(cell.length, ...rows.map((row) => row[i].length))
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(" | ")} |`;
  return [
    line(header),
    `|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`,
    ...rows.map(line),
  ].join("\n");
}
