/**
 * PGlite's disk nearly full (a small tmpfs filled to less than one WAL
 * segment free), on the service as a process: new generations and
 * `/readyz` answer 503 saying why, a line is logged, `/healthz` answers, the
 * service serves again once space is freed, and SIGTERM stops it while the
 * disk is full, leaving a data directory the next start opens.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { start_service_process } from "../helpers/service_process.ts";
import {
  mount_small_file_system,
  small_file_system_unavailable,
} from "../helpers/small_file_system.ts";
import { invoice_with_items } from "../fixtures/invoices.ts";

const ADMIN_TOKEN = "disk-full-admin-token-0123456789";
const skipped = small_file_system_unavailable();
if (skipped) console.log(`PGlite disk-full test skipped: ${skipped}`);

async function admin_post(
  url: string,
  path: string,
  body: unknown,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}${path}`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${ADMIN_TOKEN}`,
      "Content-Type": "application/json",
    },
    body: JSON.stringify(body),
  });
  return await response.json();
}

interface Answer {
  status: number;
  ms: number;
  retry_after: string | null;
  code?: string;
  message?: string;
}

async function answer_of(request: () => Promise<Response>): Promise<Answer> {
  const started = performance.now();
  const response = await request();
  const ms = performance.now() - started;
  const retry_after = response.headers.get("retry-after");
  if (!response.headers.get("content-type")?.includes("json")) {
    await response.arrayBuffer();
    return { status: response.status, ms, retry_after };
  }
  const body = await response.json();
  return {
    status: response.status,
    ms,
    retry_after,
    code: body?.error?.code,
    message: body?.error?.message,
  };
}

let sequence = 0;

function generate(url: string, key: string): Promise<Answer> {
  return answer_of(() =>
    fetch(`${url}/generate`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${key}`,
        "Content-Type": "application/json",
      },
      body: JSON.stringify({
        ...invoice_with_items(1),
        invoice_number: `DF-${sequence++}`,
      }),
      signal: AbortSignal.timeout(20_000),
    })
  );
}

function get(url: string, path: string): Promise<Answer> {
  return answer_of(() =>
    fetch(`${url}${path}`, { signal: AbortSignal.timeout(20_000) })
  );
}

// Free space is read at most once a second.
const settle = () => new Promise((resolve) => setTimeout(resolve, 1_200));

function assert_disk_full(answer: Answer, what: string): void {
  assertEquals(answer.status, 503, `${what}: ${JSON.stringify(answer)}`);
  assertEquals(answer.code, "unavailable");
  assert(answer.retry_after !== null, `${what} without Retry-After`);
  assertMatch(answer.message ?? "", /out of disk space/);
}

Deno.test({
  name:
    "PGlite with its disk nearly full: 503 saying why, /healthz up, recovery once space is freed, SIGTERM works",
  ignore: skipped !== undefined,
  async fn() {
    // About 39 MiB of data directory; the rest is free until filled.
    const disk = await mount_small_file_system(96);
    const env = {
      ADMIN_TOKEN,
      DATA_DIR: `${disk.path}/data`,
      DATA_DIR_MIN_FREE_MB: "24",
      RENDER_WORKERS: "1",
    };
    let service = await start_service_process(env);
    try {
      const account = await admin_post(service.url, "/admin/accounts", {
        email: `disk-${crypto.randomUUID()}@example.com`,
        plan: "team",
      });
      const { key } = await admin_post(
        service.url,
        `/admin/accounts/${account.id}/keys`,
        { name: "Disk" },
      ) as { key: string };
      assertEquals((await generate(service.url, key)).status, 200);

      // Less than one 16 MiB WAL segment left: PGlite must not be used.
      await disk.fill(8);
      await settle();
      for (let n = 0; n < 5; n++) {
        assert_disk_full(await generate(service.url, key), "generate");
      }
      const readyz = await get(service.url, "/readyz");
      assert_disk_full(readyz, "/readyz");
      assert(readyz.ms < 1_500, `/readyz took ${readyz.ms} ms`);
      assertEquals((await get(service.url, "/healthz")).status, 200);
      assertMatch(service.stderr(), /Database disk nearly full: \d+ MiB free/);

      // Space freed: serving again, no restart.
      await disk.unfill();
      await settle();
      assertEquals((await generate(service.url, key)).status, 200);
      assertEquals((await get(service.url, "/readyz")).status, 200);
      assertMatch(service.stderr(), /Database disk has room again/);

      // SIGTERM while the disk is full: the process exits by itself.
      await disk.fill(8);
      await settle();
      assert_disk_full(await generate(service.url, key), "generate");
      const signalled = performance.now();
      service.child.kill("SIGTERM");
      const status = await Promise.race([
        service.status,
        new Promise<"hung">((resolve) =>
          setTimeout(() => resolve("hung"), 20_000)
        ),
      ]);
      assert(status !== "hung", "SIGTERM ignored");
      assertEquals(status.code, 0, service.stderr());
      const exit_ms = performance.now() - signalled;
      assertMatch(service.stderr(), /Not closing PGlite cleanly/);

      // Nor does it start on a full disk: it says why and exits.
      const refused = await start_service_process(env).then(
        () => "started",
        (error: Error) => error.message,
      );
      assertMatch(
        refused,
        /Cannot open the database: database disk nearly full/,
      );

      // The data directory left that way opens again once space is freed.
      await disk.unfill();
      service = await start_service_process(env);
      assertEquals((await generate(service.url, key)).status, 200);
      console.log(
        `disk full: 503 in ${
          Math.round(readyz.ms)
        } ms (/readyz); exit after SIGTERM in ${Math.round(exit_ms)} ms`,
      );
    } finally {
      try {
        service.child.kill("SIGKILL");
      } catch {
        // Already exited.
      }
      await service.status;
      await disk.unmount();
    }
  },
});
