/**
 * Connection floods do not take the service down: the service runs as its
 * own process with 512 file descriptors (`ulimit -n 512`), and 2,000
 * connections that each send one request and go idle plus 500 that send
 * half a request head arrive at once. Meanwhile a keyed `POST /generate`
 * on a new connection is answered 200 within 5 s; afterwards the process
 * is alive, `/healthz` answers and its descriptor count is back near where
 * it started. Also: the process listens on the public port only.
 */
import { assert, assertEquals } from "../assert.ts";
import { start_service_process } from "../helpers/service_process.ts";
import { open_test_database } from "../helpers/test_database.ts";
import { RawConnection } from "../helpers/raw_http.ts";
import { invoice_with_items } from "../fixtures/invoices.ts";

const ADMIN_TOKEN = "flood-admin-token-0123456789";
const OPEN_FILES = 512;
const IDLE_CLIENTS = 2_000;
const HALF_HEAD_CLIENTS = 500;
// Connections opened at once: enough for a flood, few enough that the
// kernel's accept queue never overflows (a dropped SYN waits 1 s to retry).
const OPENING_AT_ONCE = 100;
const GENERATE_LIMIT_MS = 5_000;

/** Open descriptors of process `pid`; 0 once it is gone. */
function descriptor_count(pid: number): number {
  try {
    return [...Deno.readDirSync(`/proc/${pid}/fd`)].length;
  } catch {
    return 0;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function admin(url: string, path: string, body: unknown) {
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

/** A keyed `POST /generate` on a connection of its own. */
async function generate(port: number, key: string, number: string) {
  const body = JSON.stringify({
    ...invoice_with_items(3),
    invoice_number: number,
  });
  const started = Date.now();
  const client = await RawConnection.open(port);
  try {
    await client.send(
      `POST /generate HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${
          new TextEncoder().encode(body).length
        }\r\n\r\n${body}`,
    );
    const answer = await client.answer(30_000);
    return { answer, ms: Date.now() - started };
  } finally {
    client.close();
  }
}

/**
 * Sockets of `pid` that accept connections: TCP as `address:port` (hex, as
 * /proc writes them), Unix as `unix:path`.
 */
function listening_sockets(pid: number): string[] {
  const inodes = new Set<string>();
  for (const entry of Deno.readDirSync(`/proc/${pid}/fd`)) {
    try {
      const target = Deno.readLinkSync(`/proc/${pid}/fd/${entry.name}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) inodes.add(inode);
    } catch {
      // Closed meanwhile.
    }
  }
  const listening: string[] = [];
  for (const table of ["tcp", "tcp6"]) {
    const lines = Deno.readTextFileSync(`/proc/${pid}/net/${table}`)
      .trim().split("\n").slice(1);
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      // st 0A is LISTEN; field 9 is the socket's inode.
      if (fields[3] === "0A" && inodes.has(fields[9])) {
        listening.push(fields[1]);
      }
    }
  }
  const unix = Deno.readTextFileSync(`/proc/${pid}/net/unix`).trim().split(
    "\n",
  ).slice(1);
  for (const line of unix) {
    const fields = line.trim().split(/\s+/);
    // Flags 00010000: accepts connections; field 6 is the inode.
    if (fields[3] === "00010000" && inodes.has(fields[6])) {
      listening.push(`unix:${fields[7] ?? ""}`);
    }
  }
  return listening;
}

Deno.test("a flood of idle and half-head connections under ulimit -n 512: keyed requests served, process alive, descriptors back", async () => {
  const test_database = await open_test_database();
  const data_dir = await Deno.makeTempDir({ prefix: "invoice-flood-" });
  const service = await start_service_process({
    ADMIN_TOKEN,
    RATE_LIMIT_PER_MINUTE: "100000",
    ...(test_database.database_url
      ? { DATABASE_URL: test_database.database_url }
      : { DATA_DIR: data_dir }),
  }, { open_files: OPEN_FILES });
  const pid = service.child.pid;
  const port = Number(new URL(service.url).port);
  const clients: RawConnection[] = [];
  let exited = false;
  service.status.then(() => exited = true);
  try {
    const limits = await Deno.readTextFile(`/proc/${pid}/limits`);
    assert(/Max open files\s+512\s/.test(limits), "ulimit not applied");
    const account = await admin(service.url, "/admin/accounts", {
      email: `flood-${crypto.randomUUID()}@example.com`,
      plan: "team",
    });
    const { key } = await admin(
      service.url,
      `/admin/accounts/${account.id}/keys`,
      { name: "Flood" },
    );
    // Warm up (render worker, database files) before the baseline.
    assertEquals((await generate(port, key, "WARM-1")).answer?.status, 200);
    await sleep(200);
    const baseline = descriptor_count(pid);

    let opened = 0;
    let most_descriptors = baseline;
    const open_one = async (index: number) => {
      let client: RawConnection;
      try {
        client = await RawConnection.open(port);
      } catch {
        return; // Refused: counted below as not opened.
      }
      clients.push(client);
      opened += 1;
      await client.send(
        index < IDLE_CLIENTS
          ? "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
          : "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: ",
      );
    };
    const total = IDLE_CLIENTS + HALF_HEAD_CLIENTS;
    let next = 0;
    const flood = Promise.all(
      Array.from({ length: OPENING_AT_ONCE }, async () => {
        while (next < total) {
          await open_one(next++);
          if (next % 50 === 0) {
            most_descriptors = Math.max(
              most_descriptors,
              descriptor_count(pid),
            );
          }
        }
      }),
    );
    // In the thick of it: a paying customer's request on a new connection.
    while (next < total / 2) await sleep(5);
    const during = await generate(port, key, "FLOOD-1");
    await flood;
    assertEquals(exited, false, service.stderr());
    assertEquals(during.answer?.status, 200);
    assert(
      during.ms < GENERATE_LIMIT_MS,
      `keyed request took ${during.ms} ms during the flood`,
    );
    console.log(
      `flood: ${opened} of ${total} connections opened; keyed /generate ` +
        `answered in ${during.ms} ms; descriptors ${baseline} at rest, ` +
        `at most ${most_descriptors} seen`,
    );
    assertEquals(exited, false, service.stderr());
    const after = await generate(port, key, "FLOOD-2");
    assertEquals(after.answer?.status, 200);
    const health = await fetch(`${service.url}/healthz`);
    assertEquals(health.status, 200);
    await health.body?.cancel();

    // The flood's connections go away: so do their descriptors.
    for (const client of clients) client.close();
    let descriptors = descriptor_count(pid);
    for (let waited = 0; waited < 10_000 && descriptors > baseline + 16;) {
      await sleep(100);
      waited += 100;
      descriptors = descriptor_count(pid);
    }
    assert(
      descriptors <= baseline + 16,
      `${descriptors} descriptors after the flood, ${baseline} before`,
    );
    assertEquals(exited, false, service.stderr());
  } finally {
    for (const client of clients) client.close();
    if (!exited) service.child.kill("SIGTERM");
    await service.status;
    await Deno.remove(data_dir, { recursive: true });
    await test_database.close();
  }
});

Deno.test("the process listens on the public port only: nothing private for other local processes to reach", async () => {
  const data_dir = await Deno.makeTempDir({ prefix: "invoice-listen-" });
  const service = await start_service_process({ DATA_DIR: data_dir });
  try {
    const port = Number(new URL(service.url).port);
    const listening = listening_sockets(service.child.pid);
    // 127.0.0.1 is 0100007F in /proc's little-endian hex.
    const public_socket = `0100007F:${
      port.toString(16).toUpperCase().padStart(4, "0")
    }`;
    assertEquals(listening, [public_socket]);
  } finally {
    service.child.kill("SIGTERM");
    await service.status;
    await Deno.remove(data_dir, { recursive: true });
  }
});
