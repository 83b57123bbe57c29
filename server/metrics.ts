/**
 * Prometheus metrics in the text exposition format, kept in process memory.
 */

/**
 * The error codes of requests refused by a limit: the monthly quota, the
 * test documents' monthly limit, and every rate limit. `rejections_total`
 * counts each, from zero.
 */
export const REJECTION_CODES = [
  "quota_exceeded",
  "test_limit_reached",
  "rate_limited",
] as const;

const LATENCY_BUCKETS_SECONDS = [
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
];

/** A histogram with fixed buckets. */
class Histogram {
  readonly counts = new Array<number>(LATENCY_BUCKETS_SECONDS.length).fill(0);
  sum = 0;
  count = 0;

  observe(seconds: number): void {
    this.sum += seconds;
    this.count += 1;
    for (let index = 0; index < LATENCY_BUCKETS_SECONDS.length; index++) {
      if (seconds <= LATENCY_BUCKETS_SECONDS[index]) this.counts[index] += 1;
    }
  }

  render(name: string, labels: string): string[] {
    const lines: string[] = [];
    const prefix = labels ? `${labels},` : "";
    LATENCY_BUCKETS_SECONDS.forEach((bound, index) => {
      lines.push(
        `${name}_bucket{${prefix}le="${bound}"} ${this.counts[index]}`,
      );
    });
    lines.push(`${name}_bucket{${prefix}le="+Inf"} ${this.count}`);
    const braces = labels ? `{${labels}}` : "";
    lines.push(`${name}_sum${braces} ${this.sum}`);
    lines.push(`${name}_count${braces} ${this.count}`);
    return lines;
  }
}

function escape_label(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(
    /\n/g,
    "\\n",
  );
}

/** The request memory budget as /metrics shows it. */
export interface RequestMemory {
  readonly limit: number;
  readonly in_use: number;
  readonly peak: number;
  readonly refused: number;
  readonly anonymous_limit: number;
  readonly anonymous_in_use: number;
  readonly anonymous_refused: number;
}

function request_memory_lines(memory: RequestMemory): string[] {
  return [
    "# HELP request_memory_bytes Bytes held by requests in flight (bodies as parsed, documents not yet handed over).",
    "# TYPE request_memory_bytes gauge",
    `request_memory_bytes ${memory.in_use}`,
    "# HELP request_memory_peak_bytes The most bytes requests held at once since start.",
    "# TYPE request_memory_peak_bytes gauge",
    `request_memory_peak_bytes ${memory.peak}`,
    "# HELP request_memory_limit_bytes The budget (REQUEST_MEMORY_MB); past it requests get 503.",
    "# TYPE request_memory_limit_bytes gauge",
    `request_memory_limit_bytes ${memory.limit}`,
    "# HELP request_memory_refusals_total Requests refused with 503 because the budget was used up.",
    "# TYPE request_memory_refusals_total counter",
    `request_memory_refusals_total ${memory.refused}`,
    "# HELP request_memory_anonymous_bytes Bytes held by requests whose credentials have not checked out.",
    "# TYPE request_memory_anonymous_bytes gauge",
    `request_memory_anonymous_bytes ${memory.anonymous_in_use}`,
    "# HELP request_memory_anonymous_limit_bytes What those may hold together (ANONYMOUS_REQUEST_MEMORY_MB).",
    "# TYPE request_memory_anonymous_limit_bytes gauge",
    `request_memory_anonymous_limit_bytes ${memory.anonymous_limit}`,
    "# HELP request_memory_anonymous_refusals_total Requests without checked credentials refused with 503 because their part was used up.",
    "# TYPE request_memory_anonymous_refusals_total counter",
    `request_memory_anonymous_refusals_total ${memory.anonymous_refused}`,
  ];
}

/** The service's metrics. */
export class Metrics {
  #requests = new Map<string, number>();
  #latency = new Map<string, Histogram>();
  #render = new Histogram();
  #statements = new Map<string, Histogram>();
  #rejections = new Map<string, number>();
  #queue_depth: () => number = () => 0;
  #running_workers: () => number = () => 0;
  #memory?: RequestMemory;

  /** Counts one answered request; `route` must be a route template, never a raw path. */
  observe_request(route: string, status: number, seconds: number): void {
    const key = `route="${escape_label(route)}",status="${status}"`;
    this.#requests.set(key, (this.#requests.get(key) ?? 0) + 1);
    const latency_key = `route="${escape_label(route)}"`;
    let histogram = this.#latency.get(latency_key);
    if (!histogram) {
      histogram = new Histogram();
      this.#latency.set(latency_key, histogram);
    }
    histogram.observe(seconds);
  }

  /** Records how long one PDF took to render. */
  observe_render(seconds: number): void {
    this.#render.observe(seconds);
  }

  /** Records one database statement on a request path (name, round trip). */
  observe_statement(name: string, seconds: number): void {
    const key = `statement="${escape_label(name)}"`;
    let histogram = this.#statements.get(key);
    if (!histogram) {
      histogram = new Histogram();
      this.#statements.set(key, histogram);
    }
    histogram.observe(seconds);
  }

  /** Counts a rejection by error code (one of {@link REJECTION_CODES}). */
  count_rejection(code: string): void {
    this.#rejections.set(code, (this.#rejections.get(code) ?? 0) + 1);
  }

  /** Sets where the render queue depth is read from. */
  track_queue_depth(read: () => number): void {
    this.#queue_depth = read;
  }

  /** Sets where the number of render workers running is read from. */
  track_running_workers(read: () => number): void {
    this.#running_workers = read;
  }

  /** Sets where the request memory budget is read from. */
  track_request_memory(memory: RequestMemory): void {
    this.#memory = memory;
  }

  /** The Prometheus text exposition. */
  render(): string {
    const lines: string[] = [
      "# HELP http_requests_total Requests answered, by route and status.",
      "# TYPE http_requests_total counter",
    ];
    for (const [labels, value] of this.#requests) {
      lines.push(`http_requests_total{${labels}} ${value}`);
    }
    lines.push(
      "# HELP http_request_duration_seconds Time to answer, by route.",
      "# TYPE http_request_duration_seconds histogram",
    );
    for (const [labels, histogram] of this.#latency) {
      lines.push(...histogram.render("http_request_duration_seconds", labels));
    }
    lines.push(
      "# HELP pdf_render_duration_seconds Time to render one PDF.",
      "# TYPE pdf_render_duration_seconds histogram",
      ...this.#render.render("pdf_render_duration_seconds", ""),
      "# HELP db_statement_duration_seconds Per-request database statements, round trip included.",
      "# TYPE db_statement_duration_seconds histogram",
      ...[...this.#statements].flatMap(([labels, histogram]) =>
        histogram.render("db_statement_duration_seconds", labels)
      ),
      "# HELP render_queue_depth Renders waiting for a worker.",
      "# TYPE render_queue_depth gauge",
      `render_queue_depth ${this.#queue_depth()}`,
      "# HELP render_workers_running Render workers running or starting (the others start when renders wait).",
      "# TYPE render_workers_running gauge",
      `render_workers_running ${this.#running_workers()}`,
      ...(this.#memory ? request_memory_lines(this.#memory) : []),
      "# HELP rejections_total Requests rejected by limits, by error code.",
      "# TYPE rejections_total counter",
    );
    for (const code of REJECTION_CODES) {
      if (!this.#rejections.has(code)) this.#rejections.set(code, 0);
    }
    for (const [code, value] of this.#rejections) {
      lines.push(`rejections_total{code="${escape_label(code)}"} ${value}`);
    }
    return lines.join("\n") + "\n";
  }
}
