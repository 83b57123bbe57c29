/**
 * Cold start of a checkout as a new user meets it: its committed state
 * cloned into a temporary directory, `deno task start` with an empty Deno
 * cache (`DENO_DIR`) and a new data directory, timed until `/healthz`
 * answers 200; then the same service stopped and started again on that
 * data directory and cache (the restart). Downloads what the start task
 * needs from the npm registry; the clone, cache and data are removed
 * afterwards.
 *
 * @module
 */

/** Seconds to a healthy service, and what the first start downloaded. */
export interface ColdStart {
  /** From `deno task start` to the first 200 of `/healthz`, empty cache. */
  first_start_s: number;
  /** The same, on the data directory and cache the first start left. */
  restart_s: number;
  /** Size of the Deno cache after the first start, MB. */
  cache_mb: number;
}

import { command_stdout } from "../helpers/command.ts";
import { free_port } from "../helpers/free_port.ts";

const HEALTHY_WITHIN_MS = 180_000;

/** Starts `deno task start` in `dir`; resolves with the seconds to a healthy `/healthz`. */
async function timed_start(
  dir: string,
  env: Record<string, string>,
): Promise<{ seconds: number; stop: () => Promise<void> }> {
  const port = free_port();
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "start"],
    cwd: dir,
    env: { ...env, PORT: String(port), HOST: "127.0.0.1" },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch {
      // Already gone.
    }
    await child.status;
  };
  let exited = false;
  child.status.then(() => exited = true);
  while (performance.now() - started < HEALTHY_WITHIN_MS && !exited) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`, {
        signal: AbortSignal.timeout(1_000),
      });
      await response.body?.cancel();
      if (response.status === 200) {
        return { seconds: (performance.now() - started) / 1000, stop };
      }
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stop();
  throw new Error(`deno task start in ${dir} did not become healthy`);
}

async function size_mb(path: string): Promise<number> {
  const kilobytes = Number(
    (await command_stdout("du", ["-sk", path])).split(/\s/)[0],
  );
  return Math.round(kilobytes / 1024);
}

/** Measures the committed state (HEAD) of the checkout at `checkout`. */
export async function measure_cold_start(checkout: string): Promise<ColdStart> {
  const commit =
    (await command_stdout("git", ["-C", checkout, "rev-parse", "HEAD"])).trim();
  const root = await Deno.makeTempDir({ prefix: "ink-cold-start-" });
  try {
    const clone = `${root}/clone`;
    await command_stdout("git", [
      "clone",
      "--quiet",
      "--no-checkout",
      checkout,
      clone,
    ]);
    await command_stdout("git", [
      "-C",
      clone,
      "checkout",
      "--quiet",
      "--detach",
      commit,
    ]);
    const env = { DENO_DIR: `${root}/deno_dir`, DATA_DIR: `${root}/data` };
    const first = await timed_start(clone, env);
    await first.stop();
    const cache_mb = await size_mb(env.DENO_DIR);
    const again = await timed_start(clone, env);
    await again.stop();
    return {
      first_start_s: first.seconds,
      restart_s: again.seconds,
      cache_mb,
    };
  } finally {
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) {
  const checkout = Deno.args[0] ?? new URL("../../", import.meta.url).pathname;
  console.log(JSON.stringify(await measure_cold_start(checkout)));
}
