/**
 * JSON nested deeper than 64 levels is refused (400 `json_too_deep`) from
 * its first bytes, before anything parses it, so a body built to be slow to
 * parse cannot stall the request thread for other clients.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { full_invoice } from "../fixtures/invoices.ts";
import { start_test_server } from "../helpers/test_server.ts";

/**
 * Bounds for a loaded 2-core machine. Before the depth check such a body
 * took 1–4 s and held up /healthz as long; measured after: tens of ms.
 */
const DEEP_ANSWER_MS = 500;
const HEALTH_WAIT_MS = 500;

function nested(depth: number, inner = ""): string {
  return "[".repeat(depth) + inner + "]".repeat(depth);
}

/** Polls `/healthz` every 20 ms and records the longest wait. */
function poll_health(url: string): { stop(): Promise<number[]> } {
  let stopped = false;
  const waits: number[] = [];
  const running = (async () => {
    while (!stopped) {
      const started = performance.now();
      const response = await fetch(`${url}/healthz`);
      await response.body?.cancel();
      waits.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await running;
      return waits;
    },
  };
}

Deno.test({
  name:
    "deep JSON: 500,000 nested arrays without credentials get 400 json_too_deep at once while /healthz keeps answering",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await start_test_server({ env: { RENDER_WORKERS: "0" } });
    try {
      const body = nested(500_000);
      assertEquals(body.length, 1_000_000);
      // Warm the connection pool and the paths once.
      await (await fetch(`${server.url}/healthz`)).body?.cancel();
      const waits: number[] = [];
      const health = poll_health(server.url);
      const answers: {
        path: string;
        ms: number;
        status: number;
        code: string;
        message: string;
      }[] = [];
      try {
        for (let round = 0; round < 5; round++) {
          for (const path of ["/trpc/auth.sign_in", "/admin/accounts"]) {
            const started = performance.now();
            const response = await fetch(`${server.url}${path}`, {
              method: "POST",
              headers: { "Content-Type": "application/json" },
              body,
            });
            const answer = await response.json();
            answers.push({
              path,
              ms: performance.now() - started,
              status: response.status,
              code: answer.error?.code,
              message: answer.error?.message,
            });
          }
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      } finally {
        waits.push(...await health.stop());
      }
      const slowest = Math.max(...answers.map((answer) => answer.ms));
      const longest_wait = Math.max(...waits);
      console.log(
        `deep bodies answered in ${
          answers.map((answer) => answer.ms.toFixed(1)).join(", ")
        } ms; /healthz polled ${waits.length} times, longest wait ${
          longest_wait.toFixed(1)
        } ms`,
      );
      assert(slowest < DEEP_ANSWER_MS, `slowest deep answer ${slowest} ms`);
      assert(waits.length >= 3, `only ${waits.length} polls`);
      assert(
        longest_wait < HEALTH_WAIT_MS,
        `/healthz waited ${longest_wait} ms`,
      );
      for (const answer of answers) {
        assertEquals(answer.status, 400, `${answer.path}: ${answer.code}`);
        assertEquals(answer.code, "json_too_deep", answer.path);
        assertMatch(answer.message, /deeper than 64 levels/);
      }
    } finally {
      await server.close();
    }
  },
});

Deno.test({
  name:
    "deep JSON: 64 levels pass the reader, 65 do not, and ordinary invoices are served",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const server = await start_test_server({ env: { RENDER_WORKERS: "0" } });
    try {
      const { key } = await server.create_account();
      const ordinary = await server.generate(key, full_invoice());
      assertEquals(ordinary.status, 200);
      await ordinary.body?.cancel();
      // `notes` inside the invoice object: that object is level 1.
      const invoice = JSON.stringify({ ...full_invoice(), notes: "@" });
      const with_notes = (depth: number) =>
        invoice.replace('"@"', nested(depth - 1, '"deep"'));
      const at_limit = await server.generate(key, with_notes(64));
      const at_limit_body = await at_limit.json();
      assertEquals(at_limit.status, 400);
      // Past the reader: the field check refuses an array as notes.
      assertEquals(at_limit_body.error.code, "invalid_request");
      assertEquals(at_limit_body.error.details?.[0]?.path, "notes");
      for (const path of ["/generate", "/trpc/invoice.generate"]) {
        const over = await fetch(`${server.url}${path}`, {
          method: "POST",
          headers: {
            Authorization: `Bearer ${key}`,
            "Content-Type": "application/json",
          },
          body: with_notes(65),
        });
        assertEquals(over.status, 400, path);
        assertEquals((await over.json()).error.code, "json_too_deep", path);
      }
      // Brackets inside strings are text, not nesting.
      const in_text = await server.generate(key, {
        ...full_invoice(),
        notes: "[".repeat(200) + '\\"{' + "]".repeat(200),
      });
      assertEquals(in_text.status, 200);
      await in_text.body?.cancel();
    } finally {
      await server.close();
    }
  },
});
