/**
 * The circuit breaker every database operation runs through: deadlines,
 * refusal at once while open, withdrawal of what waits, one probe at a time,
 * closing by itself.
 */
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { CircuitBreaker } from "../../db/circuit_breaker.ts";
import { DatabaseUnavailableError } from "../../db/errors.ts";

const refused = Object.assign(new Error("connect ECONNREFUSED"), {
  code: "ECONNREFUSED",
});

function breaker_with(options: {
  deadline_ms?: number;
  probe: () => Promise<void>;
  answered_within?: (ms: number) => boolean;
}) {
  const lines: string[] = [];
  const breaker = new CircuitBreaker({
    deadline_ms: options.deadline_ms ?? 0,
    answered_within: options.answered_within,
    is_outage: (error) => (error as { code?: string })?.code === "ECONNREFUSED",
    probe: options.probe,
    log: (line) => lines.push(line),
  });
  return { breaker, lines };
}

const never = () => new Promise<never>(() => {});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("circuit breaker: an outage error opens it; new operations are refused without running; a probe closes it", async () => {
  let probes = 0;
  let database_back = false;
  const { breaker, lines } = breaker_with({
    probe: () => {
      probes++;
      return database_back ? Promise.resolve() : Promise.reject(refused);
    },
  });
  try {
    assertEquals(await breaker.run(() => Promise.resolve(1)), 1);
    await assertRejects(() => breaker.run(() => Promise.reject(refused)));
    assert(breaker.is_open);
    let ran = false;
    const started = performance.now();
    await assertRejects(
      () => breaker.run(() => (ran = true, Promise.resolve(2))),
      DatabaseUnavailableError,
    );
    assert(!ran, "refused without running");
    assert(performance.now() - started < 50);
    // An error that is not an outage leaves it closed.
    database_back = true;
    while (breaker.is_open) await sleep(20);
    await assertRejects(() =>
      breaker.run(() => Promise.reject(new Error("x")))
    );
    assert(!breaker.is_open);
    assertEquals(await breaker.run(() => Promise.resolve(3)), 3);
    assert(probes >= 1);
    assertEquals(lines.length, 2, lines.join("\n"));
    assert(lines[0].startsWith("Database unreachable"));
    assert(lines[1].startsWith("Database reachable again"));
  } finally {
    breaker.dispose();
  }
});

Deno.test("circuit breaker: an operation past its deadline is answered then and opens it", async () => {
  const { breaker } = breaker_with({
    deadline_ms: 100,
    probe: () => Promise.reject(refused),
  });
  try {
    let withdrawn = 0;
    const started = performance.now();
    const error = await assertRejects(
      () => breaker.run(never, () => (withdrawn++, false)),
      DatabaseUnavailableError,
    );
    const took = performance.now() - started;
    assert(took >= 90 && took < 1_000, `${took} ms`);
    assert(/within 100 ms/.test((error as Error).message));
    assertEquals(withdrawn, 1);
    assert(breaker.is_open);
  } finally {
    breaker.dispose();
  }
});

Deno.test("circuit breaker: past its deadline while the database answers other connections, an operation waits its turn", async () => {
  let answering = true;
  const { breaker, lines } = breaker_with({
    deadline_ms: 50,
    probe: () => Promise.reject(refused),
    answered_within: () => answering,
  });
  try {
    // Queued behind busy connections for four deadlines: load, not an outage.
    const queued = await breaker.run(() => sleep(200).then(() => "done"));
    assertEquals(queued, "done");
    assert(!breaker.is_open);
    assertEquals(lines, []);
    // The database falls silent: the next deadline opens the circuit.
    answering = false;
    await assertRejects(() => breaker.run(never), DatabaseUnavailableError);
    assert(breaker.is_open);
  } finally {
    breaker.dispose();
  }
});

Deno.test("circuit breaker: when it opens, operations that can be withdrawn are refused at once, the others are waited for", async () => {
  const { breaker } = breaker_with({ probe: () => Promise.reject(refused) });
  try {
    // Waiting for a connection: withdrawn, refused at once.
    const queued = breaker.run(never, () => true);
    // Sent: it may be done by the database, so its own outcome counts.
    let finish_sent: (value: string) => void = () => {};
    const sent = breaker.run(
      () => new Promise<string>((resolve) => finish_sent = resolve),
      () => false,
    );
    // A statement that rejects once withdrawn is answered as a refusal.
    let reject_cancelled: (error: unknown) => void = () => {};
    const cancelled = breaker.run(
      () => new Promise<string>((_, reject) => reject_cancelled = reject),
      () => (reject_cancelled(new Error("canceling statement")), false),
    );
    await assertRejects(() => breaker.run(() => Promise.reject(refused)));
    await assertRejects(() => queued, DatabaseUnavailableError);
    await assertRejects(() => cancelled, DatabaseUnavailableError);
    finish_sent("done");
    assertEquals(await sent, "done");
  } finally {
    breaker.dispose();
  }
});

Deno.test("circuit breaker: probes back off and run one at a time", async () => {
  let running = 0;
  let most_at_once = 0;
  const started: number[] = [];
  const { breaker } = breaker_with({
    probe: async () => {
      started.push(performance.now());
      running++;
      most_at_once = Math.max(most_at_once, running);
      await sleep(50);
      running--;
      throw refused;
    },
  });
  try {
    breaker.open(refused);
    await sleep(2_500);
    assertEquals(most_at_once, 1);
    // 250 ms, then 500, 1000, 2000 between them (plus the probe's own time).
    assert(started.length >= 2 && started.length <= 4, `${started.length}`);
    const gaps = started.slice(1).map((at, index) => at - started[index]);
    for (let index = 1; index < gaps.length; index++) {
      assert(gaps[index] > gaps[index - 1], `gaps ${gaps.join(", ")}`);
    }
  } finally {
    breaker.dispose();
  }
});
