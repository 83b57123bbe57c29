/**
 * Reading a test server's `/metrics` and waiting until they say something.
 *
 * @module
 */
import type { TestServer } from "./test_server.ts";

/** The value of the unlabelled metric `name` in the server's `/metrics`. */
export async function metric(
  server: TestServer,
  name: string,
): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const match = new RegExp(`^${name} (\\S+)$`, "m").exec(text);
  if (!match) throw new Error(`no ${name} in /metrics`);
  return Number(match[1]);
}

/** Polls `condition` every 20 ms; throws naming `what` after `within_ms` (10 s). */
export async function until(
  condition: () => Promise<boolean>,
  what: string,
  within_ms = 10_000,
): Promise<void> {
  const deadline = Date.now() + within_ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
