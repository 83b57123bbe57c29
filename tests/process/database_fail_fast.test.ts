/**
 * PostgreSQL behind a TCP proxy that refuses connections, then one that
 * stalls them (holds them open and forwards nothing), under load: every
 * `/generate` answers 503 `unavailable` with `Retry-After` within the
 * promised time, `/readyz` answers 503 within its bound, and the service
 * serves again by itself once the proxy forwards again.
 *
 * Promised with the default timeouts (connect 2 s, statement 5 s): 503
 * within 2 s when refused, within 6 s when stalled; `/readyz` within 1 s.
 * The assertions leave room for a loaded 2-core machine.
 */
import { assert, assertEquals } from "../assert.ts";
import { start_test_server, type TestServer } from "../helpers/test_server.ts";
import { open_database } from "../../db/mod.ts";
import {
  start_throwaway_postgres,
  throwaway_postgres_available,
  type ThrowawayPostgres,
} from "../helpers/throwaway_postgres.ts";
import { start_tcp_proxy, type TcpProxy } from "../helpers/tcp_proxy.ts";
import { invoice_with_items } from "../fixtures/invoices.ts";
import { until } from "../helpers/server_metrics.ts";

const REFUSED_BOUND_MS = 3_000;
const STALLED_BOUND_MS = 8_000;
const READYZ_BOUND_MS = 2_000;
// A request still unanswered after this is counted as hung.
const CLIENT_GIVE_UP_MS = 20_000;

interface Outage {
  postgres: ThrowawayPostgres;
  proxy: TcpProxy;
  server: TestServer;
  key: string;
  close(): Promise<void>;
}

async function service_behind_proxy(): Promise<Outage> {
  const postgres = await start_throwaway_postgres();
  const proxy = start_tcp_proxy("127.0.0.1", postgres.port);
  const url = new URL(postgres.url);
  url.port = String(proxy.port);
  const database = await open_database({ database_url: url.toString() });
  const server = await start_test_server({
    env: { RATE_LIMIT_PER_MINUTE: "1000000", RENDER_WORKERS: "1" },
    test_database: {
      database,
      database_url: url.toString(),
      close: () => database.close(),
    },
  });
  const { key } = await server.create_account({ plan: "team" });
  return {
    postgres,
    proxy,
    server,
    key,
    async close() {
      // The proxy first: it cuts the connections it holds silent.
      await proxy.stop();
      await server.close();
      await database.close();
      await postgres.destroy();
    },
  };
}

interface Answer {
  status: number;
  ms: number;
  retry_after: string | null;
  code?: string;
}

let sequence = 0;

async function generate_once(outage: Outage): Promise<Answer> {
  const started = performance.now();
  const signal = AbortSignal.timeout(CLIENT_GIVE_UP_MS);
  try {
    const response = await fetch(`${outage.server.url}/generate`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${outage.key}`,
        "Content-Type": "application/json",
      },
      body: JSON.stringify({
        ...invoice_with_items(1),
        invoice_number: `FF-${sequence++}`,
      }),
      signal,
    });
    const retry_after = response.headers.get("retry-after");
    if (response.status === 200) {
      await response.arrayBuffer();
      return { status: 200, ms: performance.now() - started, retry_after };
    }
    const body = await response.json();
    return {
      status: response.status,
      ms: performance.now() - started,
      retry_after,
      code: body?.error?.code,
    };
  } catch {
    return { status: 0, ms: performance.now() - started, retry_after: null };
  }
}

async function readyz_once(outage: Outage): Promise<Answer> {
  const started = performance.now();
  try {
    const response = await fetch(`${outage.server.url}/readyz`, {
      signal: AbortSignal.timeout(CLIENT_GIVE_UP_MS),
    });
    const body = await response.json();
    return {
      status: response.status,
      ms: performance.now() - started,
      retry_after: response.headers.get("retry-after"),
      code: body?.error?.code,
    };
  } catch {
    return { status: 0, ms: performance.now() - started, retry_after: null };
  }
}

/** An answer with the time its request was sent (performance.now()). */
interface TimedAnswer {
  at: number;
  answer: Answer;
}

/** Clients sending invoices back to back until `stop()`. */
function start_load(outage: Outage, clients: number) {
  const answers: TimedAnswer[] = [];
  let running = true;
  const loops = Array.from({ length: clients }, async () => {
    while (running) {
      const at = performance.now();
      const answer = await generate_once(outage);
      answers.push({ at, answer });
      if (answer.status !== 200) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  });
  return {
    answers,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** Polls `/readyz` every 300 ms for `ms`; returns the answers. */
async function poll_readyz(outage: Outage, ms: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  const until = performance.now() + ms;
  while (performance.now() < until) {
    answers.push(await readyz_once(outage));
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  return answers;
}

/**
 * Waits for `/readyz` to answer 200 once `/generate` has: readiness follows
 * the recovery within its bound, not always at the first ask.
 */
function ready_within(outage: Outage, ms: number): Promise<void> {
  return until(
    async () => (await readyz_once(outage)).status === 200,
    `/readyz 200 within ${ms} ms of the recovery`,
    ms,
  );
}

/** Waits until `/generate` answers 200 again; returns how long it took. */
async function recovery_ms(outage: Outage, limit_ms: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < limit_ms) {
    const answer = await generate_once(outage);
    if (answer.status === 200) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Infinity;
}

function summary(answers: Answer[]): string {
  const statuses: Record<number, number> = {};
  for (const answer of answers) {
    statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
  }
  const sorted = answers.map((answer) => answer.ms).sort((a, b) => a - b);
  const at = (q: number) =>
    sorted.length === 0 ? 0 : Math.round(
      sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))],
    );
  return `${JSON.stringify(statuses)} median ${at(0.5)} ms, p95 ${
    at(0.95)
  } ms, max ${at(1)} ms`;
}

/**
 * The answers to requests sent after the outage began, and to those in
 * flight then, with their time counted from the outage on: the latter may
 * have been answered 200 (their database work was done), or 503.
 */
function answers_since(
  answers: TimedAnswer[],
  outage_at: number,
): { after: Answer[]; in_flight: Answer[] } {
  const after: Answer[] = [];
  const in_flight: Answer[] = [];
  for (const { at, answer } of answers) {
    if (at >= outage_at) after.push(answer);
    else if (at + answer.ms > outage_at) {
      in_flight.push({ ...answer, ms: at + answer.ms - outage_at });
    }
  }
  return { after, in_flight };
}

function assert_in_flight_answered(answers: Answer[], bound_ms: number): void {
  for (const answer of answers) {
    assert(
      (answer.status === 200 || answer.status === 503) &&
        answer.ms <= bound_ms,
      `requests in flight at the outage answered within ${bound_ms} ms: ${
        summary(answers)
      }`,
    );
  }
}

function assert_unavailable(answers: Answer[], bound_ms: number): void {
  assert(answers.length > 0, "no requests during the outage");
  for (const answer of answers) {
    assert(
      answer.status === 503,
      `every request during the outage gets 503: ${summary(answers)}`,
    );
    assertEquals(answer.code, "unavailable");
    assert(answer.retry_after !== null, "503 without Retry-After");
    assert(
      answer.ms <= bound_ms,
      `503 within ${bound_ms} ms: ${summary(answers)}`,
    );
  }
}

async function warm_up(outage: Outage): Promise<void> {
  for (let n = 0; n < 5; n++) {
    const answer = await generate_once(outage);
    assertEquals(answer.status, 200, "the service serves before the outage");
  }
}

Deno.test({
  name:
    "PostgreSQL refusing connections under load: 503 within 2 s, /readyz within 1 s, recovery by itself",
  ignore: !throwaway_postgres_available(),
  async fn() {
    const outage = await service_behind_proxy();
    try {
      await warm_up(outage);
      const load = start_load(outage, 8);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await outage.proxy.stop();
      const cut_at = performance.now();
      const readyz = await poll_readyz(outage, 6_000);
      await load.stop();
      const { after: during, in_flight } = answers_since(load.answers, cut_at);
      outage.proxy.start();
      const recovered = await recovery_ms(outage, 20_000);
      console.log(
        `refused: /generate ${summary(during)}; in flight ${
          summary(in_flight)
        }; /readyz ${summary(readyz)}; recovery ${Math.round(recovered)} ms`,
      );
      assert_in_flight_answered(in_flight, REFUSED_BOUND_MS);
      assert_unavailable(during, REFUSED_BOUND_MS);
      assert(during.length >= 40, `503s came quickly: ${summary(during)}`);
      assert_unavailable(readyz, READYZ_BOUND_MS);
      assert(recovered < 10_000, `recovered in ${recovered} ms`);
      await ready_within(outage, READYZ_BOUND_MS);
    } finally {
      await outage.close();
    }
  },
});

Deno.test({
  name:
    "PostgreSQL stalling connections under load: 503 within 6 s, /readyz within 1 s, recovery without the stalled connections",
  ignore: !throwaway_postgres_available(),
  async fn() {
    const outage = await service_behind_proxy();
    try {
      await warm_up(outage);
      const load = start_load(outage, 8);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      outage.proxy.stall();
      const stalled_at = performance.now();
      const readyz = await poll_readyz(outage, 12_000);
      await load.stop();
      const { after: during, in_flight } = answers_since(
        load.answers,
        stalled_at,
      );
      // The connections open during the stall stay silent for good.
      outage.proxy.resume();
      const recovered = await recovery_ms(outage, 20_000);
      console.log(
        `stalled: /generate ${summary(during)}; in flight ${
          summary(in_flight)
        }; /readyz ${summary(readyz)}; recovery ${Math.round(recovered)} ms`,
      );
      assert_in_flight_answered(in_flight, STALLED_BOUND_MS);
      assert_unavailable(during, STALLED_BOUND_MS);
      assert_unavailable(readyz, READYZ_BOUND_MS);
      assert(recovered < 10_000, `recovered in ${recovered} ms`);
      await ready_within(outage, READYZ_BOUND_MS);
    } finally {
      await outage.close();
    }
  },
});
