/**
 * A private PostgreSQL cluster (initdb into a temp dir, its own port) for
 * tests that stop or break the database. The shared server is never touched.
 */
import { free_port } from "./free_port.ts";

/** A throwaway cluster. */
export interface ThrowawayPostgres {
  url: string;
  port: number;
  /** The directory of its Unix socket (`.s.PGSQL.<port>`). */
  socket_dir: string;
  stop(mode?: "fast" | "immediate"): Promise<void>;
  start(): Promise<void>;
  /** Stops the cluster and deletes its directory. */
  destroy(): Promise<void>;
}

function find_bin_dir(): string | undefined {
  for (
    const candidate of [
      "/usr/lib/postgresql/17/bin",
      "/usr/lib/postgresql/16/bin",
      "/usr/lib/postgresql/15/bin",
    ]
  ) {
    try {
      Deno.statSync(`${candidate}/initdb`);
      return candidate;
    } catch {
      // Try the next version.
    }
  }
  return undefined;
}

/** Whether a cluster can be made here (PostgreSQL binaries and root to run them as `postgres`). */
export function throwaway_postgres_available(): boolean {
  return find_bin_dir() !== undefined && Deno.uid?.() === 0;
}

async function run(args: string[]): Promise<void> {
  // initdb refuses to run as root: run the cluster as the `postgres` user.
  const output = await new Deno.Command("runuser", {
    args: ["-u", "postgres", "--", ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(
      `${args[0]} failed: ${new TextDecoder().decode(output.stderr)}`,
    );
  }
}

/** Creates and starts a cluster on a free loopback port. */
export async function start_throwaway_postgres(): Promise<ThrowawayPostgres> {
  const bin = find_bin_dir();
  if (!bin) {
    throw new Error(
      "PostgreSQL server binaries not found (install the postgresql package)",
    );
  }
  const dir = await Deno.makeTempDir({ prefix: "invoice-pg-" });
  await new Deno.Command("chown", { args: ["postgres:postgres", dir] })
    .output();
  const data = `${dir}/data`;
  const port = free_port();
  await run([
    `${bin}/initdb`,
    "-D",
    data,
    "-A",
    "trust",
    "-U",
    "postgres",
    "--no-sync",
    "-E",
    "UTF8",
  ]);
  const start = () =>
    run([
      `${bin}/pg_ctl`,
      "-D",
      data,
      "-l",
      `${dir}/log`,
      "-w",
      "-o",
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      "start",
    ]);
  const stop = (mode: "fast" | "immediate" = "fast") =>
    run([`${bin}/pg_ctl`, "-D", data, "-m", mode, "-w", "stop"]);
  await start();
  let destroyed = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    socket_dir: dir,
    start,
    stop,
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      await stop("immediate").catch(() => {});
      await Deno.remove(dir, { recursive: true });
    },
  };
}
