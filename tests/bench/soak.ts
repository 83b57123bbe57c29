/**
 * Soak: two service processes sharing one PostgreSQL database under steady
 * load for `SOAK_SECONDS` (default 480); then the books of every account
 * are checked: units charged equal documents delivered whole. Prints the
 * statuses, the requests a second, each process's peak RSS, and the books;
 * exits 1 when they do not balance.
 *
 * ```sh
 * deno run -A tests/bench/soak.ts
 * ```
 *
 * Environment (all optional): `SOAK_SECONDS`, `SOAK_CLIENTS` (default 32),
 * `SOAK_ACCOUNTS` (default 16 Team accounts), `SOAK_SERVICE_DIR` (another
 * checkout whose `main.ts` runs; default this one), `BENCH_DATABASE_URL`, else
 * `TEST_DATABASE_URL`, else `postgres://postgres@127.0.0.1:5432/postgres`
 * (a fresh `test_<uuid>` database is created on it and dropped).
 *
 * @module
 */
import { invoice_with_items } from "../fixtures/invoices.ts";
import {
  admin_request,
  type ServiceProcess,
  start_service_process,
} from "../helpers/service_process.ts";
import { create_empty_test_database } from "../helpers/test_database.ts";
import { bench_postgres_server_url } from "./postgres_server.ts";

const ADMIN_TOKEN = "soak-admin-token-0123456789";

interface Account {
  id: string;
  key: string;
  delivered: number;
}

function admin(
  url: string,
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  return admin_request(url, ADMIN_TOKEN, path, body);
}

function rss_mb(pid: number): number {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return kb / 1024;
  } catch {
    return 0;
  }
}

async function main(): Promise<number> {
  const env = (name: string) => Deno.env.get(name)?.trim() || undefined;
  const seconds = Number(env("SOAK_SECONDS") ?? 480);
  const client_count = Number(env("SOAK_CLIENTS") ?? 32);
  const account_count = Number(env("SOAK_ACCOUNTS") ?? 16);
  const server_url = bench_postgres_server_url();
  const database = await create_empty_test_database(server_url);
  const services: ServiceProcess[] = [];
  try {
    for (let n = 0; n < 2; n++) {
      services.push(
        await start_service_process({
          DATABASE_URL: database.database_url,
          ADMIN_TOKEN,
          RATE_LIMIT_PER_MINUTE: "1000000",
        }, { service_dir: env("SOAK_SERVICE_DIR") }),
      );
    }
    const accounts: Account[] = [];
    for (let n = 0; n < account_count; n++) {
      const account = await admin(services[0].url, "/admin/accounts", {
        email: `soak-${n}-${crypto.randomUUID().slice(0, 8)}@example.com`,
        plan: "team",
        subscription_status: "active",
      });
      const key = await admin(
        services[0].url,
        `/admin/accounts/${account.id}/keys`,
        { name: "soak" },
      );
      accounts.push({
        id: String(account.id),
        key: String(key.key),
        delivered: 0,
      });
    }
    const statuses: Record<string, number> = {};
    const peaks = services.map(() => 0);
    const sampler = setInterval(() => {
      services.forEach((service, n) => {
        peaks[n] = Math.max(peaks[n], rss_mb(service.child.pid));
      });
    }, 1000);
    const ends = Date.now() + seconds * 1000;
    let sequence = 0;
    const client = async (n: number) => {
      const service = services[n % services.length];
      while (Date.now() < ends) {
        const account = accounts[sequence % accounts.length];
        const number = `SOAK-${sequence++}`;
        try {
          const response = await fetch(`${service.url}/generate`, {
            method: "POST",
            headers: {
              Authorization: `Bearer ${account.key}`,
              "Content-Type": "application/json",
            },
            body: JSON.stringify({
              ...invoice_with_items(10),
              invoice_number: number,
            }),
          });
          const body = await response.arrayBuffer();
          const status = String(response.status);
          statuses[status] = (statuses[status] ?? 0) + 1;
          if (response.status === 200 && body.byteLength > 0) {
            account.delivered += 1;
          }
        } catch (error) {
          const name = (error as Error).name ?? "error";
          statuses[name] = (statuses[name] ?? 0) + 1;
        }
      }
    };
    const started = performance.now();
    await Promise.all(
      Array.from({ length: client_count }, (_, n) => client(n)),
    );
    const elapsed = (performance.now() - started) / 1000;
    clearInterval(sampler);
    let balanced = true;
    let charged_total = 0;
    let delivered_total = 0;
    for (const account of accounts) {
      const view = await admin(
        services[1].url,
        `/admin/accounts/${account.id}`,
      );
      const used = Number((view.usage as { used: number }).used);
      charged_total += used;
      delivered_total += account.delivered;
      if (used !== account.delivered) {
        balanced = false;
        console.log(
          `account ${account.id}: charged ${used}, delivered ${account.delivered}`,
        );
      }
    }
    const requests = Object.values(statuses).reduce((a, b) => a + b, 0);
    console.log(
      JSON.stringify(
        {
          seconds: Math.round(elapsed),
          clients: client_count,
          accounts: account_count,
          requests,
          requests_per_second: Math.round(requests / elapsed),
          statuses,
          peak_rss_mb: peaks.map((peak) => Math.round(peak)),
          charged: charged_total,
          delivered: delivered_total,
          books: balanced ? "exact" : "NOT BALANCED",
        },
        null,
        2,
      ),
    );
    return balanced ? 0 : 1;
  } finally {
    for (const service of services) {
      try {
        service.child.kill("SIGTERM");
      } catch {
        // Already gone.
      }
      await service.status;
    }
    await database.drop();
  }
}

if (import.meta.main) Deno.exit(await main());
