/**
 * The service's log on standard output: one JSON record per request, each
 * on a line of its own, as a log collector reads it.
 */
import { assert, assertEquals } from "../assert.ts";
import { CHECKOUT_DIR, listening_url } from "../helpers/service_process.ts";

Deno.test("the service writes one JSON line per request to standard output", async () => {
  const data_dir = await Deno.makeTempDir({ prefix: "log_lines_test_" });
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${CHECKOUT_DIR}/main.ts`],
    cwd: CHECKOUT_DIR,
    env: { PORT: "0", HOST: "127.0.0.1", DATA_DIR: data_dir },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  try {
    const { url } = await listening_url(child, {
      timeout_ms: 60_000,
      name: "service",
    });
    const paths = ["/healthz", "/readyz", "/no-such-page"];
    for (const path of paths) {
      const response = await fetch(`${url}${path}`, {
        headers: { "X-Request-Id": `log-line-${path.slice(1)}` },
      });
      await response.body?.cancel();
    }
    const records = await read_records(child.stdout, paths.length);
    for (const [index, path] of paths.entries()) {
      const record = records[index];
      assertEquals(record.path, path);
      assertEquals(record.method, "GET");
      assertEquals(record.request_id, `log-line-${path.slice(1)}`);
      assert(typeof record.duration_ms === "number");
      assert(!Number.isNaN(Date.parse(String(record.time))));
    }
    assertEquals(records.map((record) => record.status), [200, 200, 404]);
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await Deno.remove(data_dir, { recursive: true });
  }
});

Deno.test("a log line that cannot be written is dropped, and the process goes on", async () => {
  const module = new URL("../../server/log_lines.ts", import.meta.url).href;
  const script = `
    const { write_log_line } = await import(${JSON.stringify(module)});
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (let i = 0; i < 100; i++) write_log_line({ line: i });
    console.error("went on");
  `;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", script],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // Nobody reads the log any more: every write meets a closed pipe.
  await child.stdout.cancel();
  const output = await child.output();
  const stderr = new TextDecoder().decode(output.stderr);
  assertEquals(output.code, 0, stderr);
  assert(stderr.includes("went on"), stderr);
});

/** The first `count` lines of `stream`, each parsed as one JSON record. */
async function read_records(
  stream: ReadableStream<Uint8Array>,
  count: number,
): Promise<Record<string, unknown>[]> {
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  const timer = setTimeout(() => reader.cancel(), 10_000);
  let text = "";
  try {
    while (text.split("\n").length <= count) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    clearTimeout(timer);
    reader.releaseLock();
  }
  const lines = text.split("\n").slice(0, count);
  assertEquals(lines.length, count, `stdout: ${text}`);
  return lines.map((line) => JSON.parse(line));
}
