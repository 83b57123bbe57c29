/**
 * Runs `main.ts` as a separate process, as operators do, for tests of
 * signals, crashes and restarts.
 */

/** A running service process. */
export interface ServiceProcess {
  url: string;
  child: Deno.ChildProcess;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** Waits for the exit status. */
  status: Promise<Deno.CommandStatus>;
}

/** The root of this checkout (where `main.ts` and `deno.json` are). */
export const CHECKOUT_DIR = new URL("../../", import.meta.url).pathname;

/**
 * Starts `main.ts` with `env` on a free loopback port and waits until it
 * listens. `deno_args` go before the script (e.g. `--v8-flags=…`);
 * `service_dir` runs another checkout's `main.ts` (from its own directory,
 * with its own `deno.json`), default this one; `open_files` starts it under
 * that descriptor limit (`ulimit -n`, through `sh`, which `exec`s Deno: the
 * child's pid stays the service's).
 */
export async function start_service_process(
  env: Record<string, string>,
  options: {
    deno_args?: string[];
    service_dir?: string;
    open_files?: number;
  } = {},
): Promise<ServiceProcess> {
  const dir = options.service_dir ?? CHECKOUT_DIR;
  const deno_args = [
    "run",
    "-A",
    ...(options.deno_args ?? []),
    `${dir}/main.ts`,
  ];
  const [command, args] = options.open_files === undefined
    ? [Deno.execPath(), deno_args]
    : [
      "sh",
      [
        "-c",
        `ulimit -n ${options.open_files} && exec "$0" "$@"`,
        Deno.execPath(),
        ...deno_args,
      ],
    ];
  const child = new Deno.Command(command, {
    args,
    cwd: dir,
    env: { PORT: "0", HOST: "127.0.0.1", ...env },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const { url, stderr } = await listening_url(child, {
    timeout_ms: 60_000,
    name: "service",
  });
  return { url, child, stderr, status: child.status };
}

/**
 * Waits for a child's "listening on <url>" line on stderr; fails with its
 * stderr when it exits first or after `timeout_ms`. `stderr` keeps reading.
 */
export async function listening_url(
  child: Deno.ChildProcess,
  options: { timeout_ms: number; name: string },
): Promise<{ url: string; stderr: () => string }> {
  let text = "";
  const { promise: listening, resolve, reject } = Promise.withResolvers<
    string
  >();
  (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      text += decoder.decode(chunk, { stream: true });
      const match = /listening on (http:\/\/\S+)/.exec(text);
      if (match) resolve(match[1]);
    }
  })().catch(() => {});
  child.status.then((s) =>
    reject(
      new Error(
        `${options.name} exited (${s.code}) before listening:\n${text}`,
      ),
    )
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const url = await Promise.race([
    listening,
    new Promise<never>((_, fail) => {
      timer = setTimeout(
        () => fail(new Error(`${options.name} did not start:\n${text}`)),
        options.timeout_ms,
      );
    }),
  ]).finally(() => clearTimeout(timer));
  return { url, stderr: () => text };
}

/** How a checkout's `deno task start` runs `main.ts`. */
export interface StartTaskSettings {
  /** Its `--v8-flags=…` arguments. */
  deno_args: string[];
  /** The variables it sets before `deno run` (e.g. `MALLOC_ARENA_MAX`). */
  env: Record<string, string>;
}

/**
 * The V8 flags and environment of a checkout's `deno task start`, so a
 * service process runs with the memory settings operators get by default.
 */
export function start_task_settings(
  dir: string = CHECKOUT_DIR,
): StartTaskSettings {
  const settings: StartTaskSettings = { deno_args: [], env: {} };
  let task = "";
  try {
    const config = JSON.parse(Deno.readTextFileSync(`${dir}/deno.json`));
    task = String(config.tasks?.start ?? "");
  } catch {
    return settings;
  }
  const words = task.split(/\s+/).filter((word) => word !== "");
  let index = 0;
  for (; index < words.length; index++) {
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(words[index]);
    if (!assignment) break;
    settings.env[assignment[1]] = assignment[2];
  }
  settings.deno_args = words.slice(index).filter((word) =>
    word.startsWith("--v8-flags=")
  );
  return settings;
}

/**
 * Calls a service process's admin API with `token`: GET without `body`,
 * POST with it; the answer's JSON, or an error naming the status when it is
 * not `expected_status` (default: any 2xx).
 */
export async function admin_request(
  url: string,
  token: string,
  path: string,
  body?: unknown,
  expected_status?: number,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  if (
    expected_status === undefined
      ? !response.ok
      : response.status !== expected_status
  ) {
    throw new Error(`${path}: ${response.status} ${await response.text()}`);
  }
  return await response.json();
}
