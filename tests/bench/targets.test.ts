/**
 * The bench's targets table reads each target from the row it names (the
 * 50-client row for CPU, the 400/s paced row for p99, the large invoice's
 * 1-client row), compares with the bound in the target's direction, judges
 * the last checkout, and says when a target was not measured.
 */
import { assertEquals } from "../assert.ts";
import {
  type CheckoutFigures,
  format_targets,
  type MeasuredRow,
} from "./targets.ts";

function row(fields: Partial<MeasuredRow>): MeasuredRow {
  return {
    database: "postgres",
    items: 10,
    mode: "closed",
    clients: 1,
    rps: 0,
    p50_ms: 0,
    p99_ms: 0,
    peak_rss_mb: 0,
    cpu_ms_per_request: {},
    ...fields,
  };
}

function figures(cpu_50: number, p99_400: number): CheckoutFigures {
  return {
    rows: [
      row({
        clients: 50,
        rps: 1200,
        cpu_ms_per_request: { service_total: cpu_50 },
      }),
      row({ clients: 200, cpu_ms_per_request: { service_total: 9 } }),
      row({ mode: "paced", clients: 50, offered_rate: 200, p99_ms: 1 }),
      row({ mode: "paced", clients: 50, offered_rate: 400, p99_ms: p99_400 }),
      row({ items: 1000, cpu_ms_per_request: { service_total: 26 } }),
    ],
    idle_rss_mb: { postgres: 140 },
    large_items: 1000,
    large_renderer_cpu_ms: 20,
    renderer: {
      seed_cpu_ms: 0.6,
      floor_cpu_ms: 0.1,
      feature_ratios: { tax: 1.5, arabic: 2.5 },
    },
  };
}

/** The cells of the table's row that starts with `target`. */
function cells(table: string, target: string): string[] {
  const line = table.split("\n").find((l) => l.startsWith(`| ${target}`));
  return line?.split("|").slice(1, -1).map((cell) => cell.trim()) ?? [];
}

const table = format_targets([
  { label: "before", figures: figures(2.5, 40) },
  { label: "after", figures: figures(1.1, 8) },
]);

Deno.test("targets: each figure comes from the row the target names", () => {
  assertEquals(
    cells(
      table,
      "CPU per 10-item invoice, all service threads, 50 clients, PostgreSQL",
    ),
    [
      "CPU per 10-item invoice, all service threads, 50 clients, PostgreSQL",
      "≤ 1.2 ms",
      "2.50 ms",
      "1.10 ms",
      "yes",
    ],
  );
  assertEquals(cells(table, "p99 at 400/s offered, PostgreSQL").slice(2), [
    "40.0 ms",
    "8.0 ms",
    "yes",
  ]);
  assertEquals(
    cells(
      table,
      "large invoice over HTTP ÷ the renderer alone (CPU, 1 client), PostgreSQL (1000 items)",
    )
      .slice(2),
    ["1.30 ×", "1.30 ×", "yes"],
  );
});

Deno.test("targets: at-least bounds, ratios, feature rows and what was not measured", () => {
  assertEquals(cells(table, "invoices/s at 50 clients, PostgreSQL").slice(1), [
    "≥ 1000 /s",
    "1200 /s",
    "1200 /s",
    "yes",
  ]);
  assertEquals(
    cells(table, "renderer alone ÷ the hand-written floor (CPU)").slice(2),
    ["6.0 ×", "6.0 ×", "no"],
  );
  assertEquals(cells(table, 'feature row "tax"').slice(4), ["yes"]);
  assertEquals(cells(table, 'feature row "arabic"').slice(4), ["no"]);
  assertEquals(cells(table, "idle RSS, PostgreSQL").slice(2), [
    "140 MB",
    "140 MB",
    "yes",
  ]);
  assertEquals(cells(table, "idle RSS, PGlite").slice(2), [
    "–",
    "–",
    "not measured",
  ]);
  assertEquals(
    cells(table, "restart on its data directory to /healthz").slice(4),
    ["not measured"],
  );
});
