/**
 * The service as a process: SIGTERM finishes in-flight requests and exits 0,
 * and under keep-alive load answers every request it received (with
 * `Connection: close`); a PGlite data directory survives kill -9.
 */
import { assert, assertEquals } from "../assert.ts";
import {
  admin_request,
  start_service_process,
} from "../helpers/service_process.ts";
import { open_test_database } from "../helpers/test_database.ts";
import { RawConnection } from "../helpers/raw_http.ts";
import { invoice_with_items } from "../fixtures/invoices.ts";

const ADMIN_TOKEN = "lifecycle-admin-token-0123";

function admin(
  url: string,
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  return admin_request(url, ADMIN_TOKEN, path, body);
}

async function account_with_key(
  url: string,
): Promise<{ account_id: string; key: string; key_id: string }> {
  const account = await admin(url, "/admin/accounts", {
    email: `p${crypto.randomUUID()}@example.com`,
    plan: "team",
  });
  const key = await admin(url, `/admin/accounts/${account.id}/keys`, {
    name: "Lifecycle",
  });
  return {
    account_id: account.id as string,
    key: key.key as string,
    key_id: key.id as string,
  };
}

function generate(url: string, key: string, body: unknown): Promise<Response> {
  return fetch(`${url}/generate`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${key}`,
      "Content-Type": "application/json",
    },
    body: JSON.stringify(body),
  });
}

Deno.test("SIGTERM: in-flight requests finish, the database closes, exit code 0", async () => {
  const test_database = await open_test_database();
  const data_dir = await Deno.makeTempDir({ prefix: "invoice-sigterm-" });
  try {
    const service = await start_service_process({
      ADMIN_TOKEN,
      RATE_LIMIT_PER_MINUTE: "100000",
      ...(test_database.database_url
        ? { DATABASE_URL: test_database.database_url }
        : { DATA_DIR: data_dir }),
    });
    const { key } = await account_with_key(service.url);
    // Large invoices keep the server busy long enough for requests to be in flight.
    const pending = Array.from(
      { length: 24 },
      (_, n) =>
        generate(service.url, key, {
          ...invoice_with_items(1000),
          invoice_number: `T-${n}`,
        })
          .then(async (response) => ({
            status: response.status,
            size: (await response.arrayBuffer()).byteLength,
          }))
          .catch((error) => ({ status: 0, size: 0, error: String(error) })),
    );
    // Signal as soon as the first answer is back: the rest are in flight.
    await Promise.race(pending);
    service.child.kill("SIGTERM");
    const results = await Promise.all(pending);
    for (const result of results) {
      assertEquals(
        result.status,
        200,
        JSON.stringify(result) + service.stderr(),
      );
      assert(result.size > 1000);
    }
    const status = await service.status;
    assertEquals(status.code, 0, service.stderr());
    let refused = false;
    try {
      await fetch(`${service.url}/healthz`);
    } catch {
      refused = true;
    }
    assert(refused, "the server must stop accepting connections");
  } finally {
    await Deno.remove(data_dir, { recursive: true });
    await test_database.close();
  }
});

/** What one keep-alive client saw while the service shut down. */
interface KeepAliveClient {
  sent: number;
  answered: number;
  /** Its last answer carried `Connection: close`. */
  told_to_close: boolean;
  /** The connection closed with a request of it unanswered. */
  dropped: boolean;
  failures: string[];
}

/**
 * Sends invoices one after another on one keep-alive connection until an
 * answer says `Connection: close` or the connection closes.
 */
async function keep_alive_client(
  port: number,
  key: string,
  index: number,
  on_answer: () => void,
): Promise<KeepAliveClient> {
  const client: KeepAliveClient = {
    sent: 0,
    answered: 0,
    told_to_close: false,
    dropped: false,
    failures: [],
  };
  const connection = await RawConnection.open(port);
  try {
    for (let n = 0; !client.told_to_close; n++) {
      const body = JSON.stringify({
        ...invoice_with_items(2),
        invoice_number: `KA-${index}-${n}`,
      });
      const sent = await connection.send(
        `POST /generate HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      if (!sent) break; // Closed before this request went out.
      client.sent += 1;
      const answer = await connection.answer(20_000);
      if (!answer) {
        client.dropped = true;
        break;
      }
      client.answered += 1;
      const pdf = new TextDecoder().decode(answer.body.subarray(0, 5));
      if (answer.status !== 200 || pdf !== "%PDF-") {
        client.failures.push(`${answer.status} ${pdf}`);
      }
      client.told_to_close = answer.headers.get("connection") === "close";
      on_answer();
    }
  } finally {
    connection.close();
  }
  return client;
}

Deno.test("SIGTERM under keep-alive load: every request received is answered with Connection: close, exit code 0", async () => {
  const test_database = await open_test_database();
  const data_dir = await Deno.makeTempDir({ prefix: "invoice-drain-" });
  const CLIENTS = 48;
  try {
    const service = await start_service_process({
      ADMIN_TOKEN,
      RATE_LIMIT_PER_MINUTE: "100000",
      ...(test_database.database_url
        ? { DATABASE_URL: test_database.database_url }
        : { DATA_DIR: data_dir }),
    });
    const { key } = await account_with_key(service.url);
    const port = Number(new URL(service.url).port);
    // SIGTERM once every client has had a few answers: all are mid-stream.
    let answers = 0;
    const { promise: loaded, resolve: signal } = Promise.withResolvers<void>();
    const clients = Array.from(
      { length: CLIENTS },
      (_, index) =>
        keep_alive_client(port, key, index, () => {
          answers += 1;
          if (answers === CLIENTS * 3) signal();
        }),
    );
    await loaded;
    service.child.kill("SIGTERM");
    const results = await Promise.all(clients);
    const status = await service.status;
    const sent = results.reduce((sum, client) => sum + client.sent, 0);
    const dropped = results.filter((client) => client.dropped).length;
    console.log(
      `${CLIENTS} keep-alive clients: ${sent} requests sent, ${dropped} dropped`,
    );
    assertEquals(dropped, 0, "requests sent and never answered");
    for (const [index, client] of results.entries()) {
      assertEquals(client.failures, [], `client ${index}`);
      assertEquals(client.answered, client.sent, `client ${index}`);
      assert(client.told_to_close, `client ${index} not told to close`);
    }
    assertEquals(status.code, 0, service.stderr());
  } finally {
    await Deno.remove(data_dir, { recursive: true });
    await test_database.close();
  }
});

Deno.test("PGlite data directory survives kill -9: revoked keys stay revoked, usage is kept", async () => {
  const data_dir = await Deno.makeTempDir({ prefix: "invoice-kill9-" });
  try {
    const first = await start_service_process({
      ADMIN_TOKEN,
      DATA_DIR: data_dir,
    });
    const { account_id, key, key_id } = await account_with_key(first.url);
    const second_key = await admin(
      first.url,
      `/admin/accounts/${account_id}/keys`,
      { name: "Survivor" },
    );
    for (let n = 0; n < 3; n++) {
      const response = await generate(first.url, key, {
        ...invoice_with_items(2),
        invoice_number: `K-${n}`,
      });
      assertEquals(response.status, 200);
      await response.arrayBuffer();
    }
    // A usage read waits for the settlements still on their way.
    const before = await admin(first.url, `/admin/accounts/${account_id}`);
    assertEquals((before.usage as { used: number }).used, 3);
    await admin(first.url, `/admin/keys/${key_id}/revoke`, {});
    first.child.kill("SIGKILL");
    await first.status;

    const second = await start_service_process({
      ADMIN_TOKEN,
      DATA_DIR: data_dir,
    });
    try {
      const revoked = await generate(second.url, key, invoice_with_items(1));
      assertEquals(revoked.status, 403);
      assertEquals((await revoked.json()).error.code, "key_revoked");
      const account = await admin(second.url, `/admin/accounts/${account_id}`);
      assertEquals((account.usage as { used: number }).used, 3);
      const works = await generate(
        second.url,
        second_key.key as string,
        invoice_with_items(1),
      );
      assertEquals(works.status, 200);
      await works.arrayBuffer();
    } finally {
      second.child.kill("SIGTERM");
      await second.status;
    }
  } finally {
    await Deno.remove(data_dir, { recursive: true });
  }
});
