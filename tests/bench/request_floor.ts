/**
 * The request thread's floor: what the stack's own parts cost per request,
 * measured the way `http_load.ts` measures the service. `deno run
 * --node-modules-dir=auto -A tests/bench/request_floor.ts` starts a server
 * made of those parts only (as a child process, with the start task's V8
 * flags and variables) and loads it with keep-alive clients sending the
 * 10-item Unicode invoice to `POST /generate`. Per request the server does
 * what any `POST /generate` of the service does at least, and nothing else:
 *
 * - `Deno.serve` receives it, and it reads the body as text and parses it;
 * - one prepared statement on PostgreSQL through postgres.js (a round trip
 *   carrying the key, on the server of `BENCH_DATABASE_URL`, else
 *   `TEST_DATABASE_URL`, else `postgres://postgres@127.0.0.1:5432/postgres`;
 *   it reads nothing and writes nothing);
 * - a round trip to one of two web workers: the body's text out, 16 KB of
 *   bytes back (transferred, as a render's PDF is);
 * - the bytes as the answer.
 *
 * Rows: 1 and 50 closed-loop clients, and 50 clients whose workers hold each
 * reply for 100 ms or 50 ms: about 500 requests a second, the rate at which
 * the service itself answers 50 clients on two cores, and about 1,000, the
 * targets' rate. A request thread's CPU per request falls as its rate rises
 * (more requests share each wake-up of the thread), so the floor is compared
 * with the service at the same rate.
 * `REQUEST_FLOOR_SECONDS` sets the seconds per row (default 5).
 *
 * The bench README's "What is left" compares these figures with the
 * service's request thread.
 *
 * @module
 */
import { open_postgres_client } from "../../db/mod.ts";
import { invoice_with_items } from "../fixtures/invoices.ts";
import { start_task_settings } from "../helpers/service_process.ts";
import { HttpConnection } from "./http_client.ts";
import { bench_postgres_server_url } from "./postgres_server.ts";
import { process_cpu_seconds, thread_cpu_seconds } from "./proc_stats.ts";

/** Bytes of each answer: about the 10-item invoice's PDF. */
const ANSWER_BYTES = 16_000;
const WORKERS = 2;
const SERVE_FLAG = "--serve";

interface Row {
  clients: number;
  /** How long a worker holds each reply, ms. */
  hold_ms: number;
}

const ROWS: readonly Row[] = [
  { clients: 1, hold_ms: 0 },
  { clients: 50, hold_ms: 0 },
  { clients: 50, hold_ms: 100 },
  { clients: 50, hold_ms: 50 },
];

/** A worker: answers each message with the answer's bytes, after `hold_ms`. */
function worker_role(hold_ms: number): void {
  const scope = self as unknown as {
    onmessage: (event: MessageEvent<{ id: number; text: string }>) => void;
    postMessage(message: unknown, transfer: Transferable[]): void;
  };
  scope.onmessage = ({ data }) => {
    JSON.parse(data.text);
    const reply = () => {
      const bytes = new Uint8Array(ANSWER_BYTES);
      bytes[0] = data.id & 0xff;
      scope.postMessage({ id: data.id, bytes }, [bytes.buffer]);
    };
    if (hold_ms > 0) setTimeout(reply, hold_ms);
    else reply();
  };
}

/** The server: see the module. Prints its port as one JSON line. */
function serve_role(database_url: string, hold_ms: number): void {
  const sql = open_postgres_client(database_url, {
    max: 10,
    fetch_types: false,
    idle_timeout: 30,
    onnotice: () => {},
  });
  const waiting = new Map<number, (bytes: Uint8Array) => void>();
  const workers = Array.from({ length: WORKERS }, () => {
    const worker = new Worker(import.meta.url, {
      type: "module",
      name: `floor-${hold_ms}`,
    });
    worker.onmessage = (
      { data }: MessageEvent<{ id: number; bytes: Uint8Array }>,
    ) => {
      const resolve = waiting.get(data.id);
      waiting.delete(data.id);
      resolve?.(data.bytes);
    };
    return worker;
  });
  let next_id = 0;
  Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ port }) => console.log(JSON.stringify({ port })),
  }, async (request) => {
    if (request.method !== "POST") return new Response("ok");
    const text = await request.text();
    JSON.parse(text);
    const key = request.headers.get("authorization") ?? "";
    const rows = await sql.unsafe(
      "select $1::text as key, $2::int as length, now() as at",
      [key, text.length],
      { prepare: true },
    );
    if (rows.length !== 1) return new Response(null, { status: 500 });
    const id = next_id++;
    const bytes = await new Promise<Uint8Array>((resolve) => {
      waiting.set(id, resolve);
      workers[id % WORKERS].postMessage({ id, text });
    });
    return new Response(bytes as Uint8Array<ArrayBuffer>, {
      headers: { "Content-Type": "application/pdf" },
    });
  });
}

/** The server as a child process, and its port. */
async function start_server(database_url: string, hold_ms: number) {
  const settings = start_task_settings();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--node-modules-dir=auto",
      "-A",
      ...settings.deno_args,
      new URL(import.meta.url).pathname,
      SERVE_FLAG,
      database_url,
      String(hold_ms),
    ],
    env: settings.env,
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream())
    .getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) throw new Error("the floor server ended before listening");
    text += value;
  }
  reader.releaseLock();
  const { port } = JSON.parse(text.slice(0, text.indexOf("\n")));
  return { child, port: Number(port) };
}

/** Closed-loop clients for `seconds`; returns the requests answered. */
async function load(
  port: number,
  clients: number,
  seconds: number,
): Promise<number> {
  const body = JSON.stringify(invoice_with_items(10, { unicode: true }));
  const encoder = new TextEncoder();
  const request = encoder.encode(
    `POST /generate HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
      "Authorization: Bearer ink_live_request_floor_0123456789abcdef\r\n" +
      "Content-Type: application/json\r\n" +
      `Content-Length: ${encoder.encode(body).length}\r\n\r\n${body}`,
  );
  const end = performance.now() + seconds * 1000;
  let answered = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      const connection = await HttpConnection.open({
        hostname: "127.0.0.1",
        port,
      });
      try {
        while (performance.now() < end) {
          const answer = await connection.request(request);
          if (answer.status !== 200) {
            throw new Error(`the floor server answered ${answer.status}`);
          }
          answered++;
        }
      } finally {
        connection.close();
      }
    }),
  );
  return answered;
}

/** One row: a fresh server, a second of warm-up, then the measured load. */
async function measure(database_url: string, row: Row, seconds: number) {
  const { child, port } = await start_server(database_url, row.hold_ms);
  try {
    await load(port, row.clients, 1);
    const threads_before = thread_cpu_seconds(child.pid);
    const process_before = process_cpu_seconds(child.pid);
    const started = performance.now();
    const answered = await load(port, row.clients, seconds);
    const elapsed_s = (performance.now() - started) / 1000;
    const main = (thread_cpu_seconds(child.pid).get("deno") ?? 0) -
      (threads_before.get("deno") ?? 0);
    const whole = process_cpu_seconds(child.pid) - process_before;
    return {
      rate: answered / elapsed_s,
      request_thread_ms: main * 1000 / answered,
      process_ms: whole * 1000 / answered,
    };
  } finally {
    child.kill();
    await child.status;
  }
}

/** Whether a statement runs on the server of `database_url`. */
async function reachable(database_url: string): Promise<boolean> {
  const sql = open_postgres_client(database_url, {
    max: 1,
    connect_timeout: 2,
    fetch_types: false,
    onnotice: () => {},
  });
  try {
    await sql`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

async function main(): Promise<void> {
  const database_url = bench_postgres_server_url();
  const seconds = Number(Deno.env.get("REQUEST_FLOOR_SECONDS") ?? 5);
  if (!await reachable(database_url)) {
    console.log(
      `\nThe request floor: skipped, PostgreSQL at ${database_url} is unreachable.`,
    );
    return;
  }
  console.log(
    "\nThe request floor (Deno.serve, one postgres.js statement, a worker " +
      "round trip, a 16 KB answer), CPU ms per request:\n",
  );
  console.log(
    "| clients | worker holds | requests/s | request thread | whole process |",
  );
  console.log(
    "|--------:|-------------:|-----------:|---------------:|--------------:|",
  );
  for (const row of ROWS) {
    const result = await measure(database_url, row, seconds);
    console.log(
      `| ${row.clients} | ${row.hold_ms} ms | ${result.rate.toFixed(0)} | ${
        result.request_thread_ms.toFixed(3)
      } | ${result.process_ms.toFixed(3)} |`,
    );
  }
}

// A worker sees the process's arguments too: its role is decided first.
if ("WorkerGlobalScope" in globalThis) {
  worker_role(Number(/^floor-(\d+)$/.exec(self.name)?.[1] ?? 0));
} else if (Deno.args[0] === SERVE_FLAG) {
  serve_role(Deno.args[1], Number(Deno.args[2]));
} else if (import.meta.main) {
  await main();
}
