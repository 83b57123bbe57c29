/**
 * Faults never cost a customer an invoice they did not get: a service
 * process killed with SIGKILL under load (its own PGlite `DATA_DIR`), and
 * clients that give up before their answer. Units charged are counted against
 * the documents clients received completely (status 200 and the chunked body
 * read to its end).
 */
import { assert, assertEquals } from "../assert.ts";
import {
  admin_request,
  type ServiceProcess,
  start_service_process,
} from "../helpers/service_process.ts";
import { full_invoice, invoice_with_items } from "../fixtures/invoices.ts";

const ADMIN_TOKEN = "delivery-faults-admin-token-0123";
/** The lease of reservations and Idempotency-Keys in these tests. */
const LEASE_MS = 1_500;
const CLIENTS = 12;

function admin(
  url: string,
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  return admin_request(
    url,
    ADMIN_TOKEN,
    path,
    body,
    body === undefined ? 200 : 201,
  );
}

async function charged(url: string, account_id: string): Promise<number> {
  const account = await admin(url, `/admin/accounts/${account_id}`);
  return (account.usage as { used: number }).used;
}

interface Sent {
  invoice_number: string;
  idempotency_key: string;
}

/**
 * Sends one request; its status, 200 only when the whole document came back
 * (0: nothing, or not all of it). `items`: that many line items;
 * `timeout_ms`: the client gives up after it.
 */
async function send(
  url: string,
  key: string,
  sent: Sent,
  options: { items?: number; timeout_ms?: number } = {},
): Promise<number> {
  const invoice = options.items === undefined
    ? full_invoice()
    : invoice_with_items(options.items);
  try {
    const response = await fetch(`${url}/generate`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${key}`,
        "Content-Type": "application/json",
        "Idempotency-Key": sent.idempotency_key,
      },
      body: JSON.stringify({ ...invoice, invoice_number: sent.invoice_number }),
      signal: AbortSignal.timeout(options.timeout_ms ?? 15_000),
    });
    // The body is chunked: reading it fails unless all of it came.
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (response.status === 200 && bytes.length === 0) return 0;
    return response.status;
  } catch {
    return 0; // the connection died: nothing was received
  }
}

function start(
  data_dir: string,
  env: Record<string, string> = {},
): Promise<ServiceProcess> {
  return start_service_process({
    ADMIN_TOKEN,
    DATA_DIR: data_dir,
    RESERVATION_TTL_MS: String(LEASE_MS),
    RATE_LIMIT_PER_MINUTE: "1000000",
    ...env,
  });
}

async function stop(service: ServiceProcess): Promise<void> {
  try {
    service.child.kill("SIGKILL");
  } catch {
    // Exited already.
  }
  await service.status;
}

Deno.test({
  name:
    "kill -9 under load: after the lease units charged = documents delivered; retries with the dead requests' Idempotency-Keys are served and charged once",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const data_dir = await Deno.makeTempDir({ prefix: "ink-kill-" });
    let service = await start(data_dir);
    try {
      const account = await admin(service.url, "/admin/accounts", {
        email: `kill${crypto.randomUUID()}@example.com`,
        plan: "team",
      });
      const account_id = account.id as string;
      const { key } = await admin(
        service.url,
        `/admin/accounts/${account_id}/keys`,
        { name: "Load" },
      ) as { key: string };

      // Load until the kill: every request a new invoice with its own key.
      const delivered = new Set<string>();
      const failed: Sent[] = [];
      let killed = false;
      const url = service.url;
      const client = async (client_index: number) => {
        for (let n = 0; n < 400 && !killed; n++) {
          const sent = {
            invoice_number: `KILL-${client_index}-${n}`,
            idempotency_key: `kill-${client_index}-${n}`,
          };
          const status = await send(url, key, sent);
          if (status === 200) delivered.add(sent.invoice_number);
          else failed.push(sent);
        }
      };
      const clients = Array.from({ length: CLIENTS }, (_, i) => client(i));
      // Load runs until a good number of documents went out.
      for (let waited = 0; delivered.size < 40 && waited < 300; waited++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert(delivered.size >= 40, `load too slow: ${delivered.size}`);
      killed = true;
      service.child.kill("SIGKILL");
      await service.status;
      await Promise.all(clients);
      assert(failed.length > 0, "no request was in flight at the kill");

      service = await start(data_dir);
      // Within the lease a retry with a dead request's key may wait (409)…
      await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 200));
      const before_retries = await charged(service.url, account_id);
      console.log(
        `kill -9: ${delivered.size} delivered, ${before_retries} charged, ` +
          `${failed.length} in flight`,
      );
      // No document charged that the client did not receive. A document
      // whose last byte left just before the kill may go uncharged (its
      // settlement died with the process): at most one per client.
      assert(
        before_retries <= delivered.size,
        `${before_retries} charged for ${delivered.size} delivered`,
      );
      assert(
        delivered.size - before_retries <= CLIENTS,
        `${before_retries} charged for ${delivered.size} delivered`,
      );

      // …after it, every retry with the same key and body is served.
      const retried = await Promise.all(
        failed.map((sent) => send(service.url, key, sent)),
      );
      assertEquals(
        retried.filter((status) => status !== 200),
        [],
        "retries after the lease",
      );
      for (const sent of failed) delivered.add(sent.invoice_number);
      const after_retries = await charged(service.url, account_id);
      assertEquals(after_retries - before_retries, failed.length);
      assert(after_retries <= delivered.size);
      // A second retry of a delivered document is a free replay.
      assertEquals(await send(service.url, key, failed[0]!), 200);
      assertEquals(await charged(service.url, account_id), after_retries);
    } finally {
      await stop(service);
      await Deno.remove(data_dir, { recursive: true }).catch(() => {});
    }
  },
});

Deno.test({
  name:
    "clients that give up before their answer under load are not charged; the others are, once each",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const data_dir = await Deno.makeTempDir({ prefix: "ink-abort-" });
    // One render worker: renders queue, so clients that give up after
    // 100 ms leave while their request is reserved and waiting.
    const service = await start(data_dir, { RENDER_WORKERS: "1" });
    try {
      const account = await admin(service.url, "/admin/accounts", {
        email: `abort${crypto.randomUUID()}@example.com`,
        plan: "team",
      });
      const account_id = account.id as string;
      const { key } = await admin(
        service.url,
        `/admin/accounts/${account_id}/keys`,
        { name: "Load" },
      ) as { key: string };
      let delivered = 0;
      let gave_up = 0;
      const patient = async (client_index: number) => {
        for (let n = 0; n < 6; n++) {
          const status = await send(service.url, key, {
            invoice_number: `STAY-${client_index}-${n}`,
            idempotency_key: `stay-${client_index}-${n}`,
          });
          assertEquals(status, 200);
          delivered++;
        }
      };
      const impatient = async (client_index: number) => {
        for (let n = 0; n < 6; n++) {
          const sent = {
            invoice_number: `LEAVE-${client_index}-${n}`,
            idempotency_key: `leave-${client_index}-${n}`,
          };
          const status = await send(service.url, key, sent, {
            items: 1_000,
            timeout_ms: 100,
          });
          if (status === 200) delivered++;
          else gave_up++;
        }
      };
      await Promise.all([
        ...Array.from({ length: 4 }, (_, i) => patient(i)),
        ...Array.from({ length: 4 }, (_, i) => impatient(i)),
      ]);
      // Past the lease, whatever the service noticed or not.
      await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 500));
      console.log(`aborts: ${delivered} delivered, ${gave_up} gave up`);
      assert(gave_up > 0, "no client gave up");
      assertEquals(await charged(service.url, account_id), delivered);
    } finally {
      await stop(service);
      await Deno.remove(data_dir, { recursive: true }).catch(() => {});
    }
  },
});
