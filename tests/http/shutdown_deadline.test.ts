/**
 * A shutdown waits for requests in flight at most `SHUTDOWN_TIMEOUT_MS`:
 * a request that never ends (a hung render, a stuck database) cannot keep
 * the service from stopping; the settlements of answers delivered last are
 * recorded before it ends.
 */
import { assertEquals } from "../assert.ts";
import { full_invoice } from "../fixtures/invoices.ts";
import { start_test_server } from "../helpers/test_server.ts";
import { render_invoice_document } from "../../server/einvoice/mod.ts";
import {
  type Database,
  get_usage,
  type PreparedStatement,
  type StatementParam,
} from "../../db/mod.ts";
import { open_test_database } from "../helpers/test_database.ts";

Deno.test("shutdown: a request that never ends is left behind after SHUTDOWN_TIMEOUT_MS", async () => {
  let render_started!: () => void;
  const started = new Promise<void>((resolve) => render_started = resolve);
  let release!: () => void;
  const released = new Promise<void>((resolve) => release = resolve);
  const server = await start_test_server({
    env: { SHUTDOWN_TIMEOUT_MS: "300" },
    render_document: async (invoice, render) => {
      render_started();
      await released;
      return render_invoice_document(invoice, {
        format: render?.format ?? "pdf",
      }).bytes;
    },
  });
  const { key } = await server.create_account();
  const client = new AbortController();
  const request = server.generate(key, full_invoice(), {
    signal: client.signal,
  }).then((response) => response.body?.cancel(), () => {});
  try {
    await started;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const outcome = await Promise.race([
      server.server.shutdown(),
      new Promise<"still waiting">((resolve) => {
        timer = setTimeout(() => resolve("still waiting"), 20_000);
      }),
    ]);
    clearTimeout(timer);
    assertEquals(
      outcome,
      false,
      "shutdown ends, and says a request was left in flight",
    );
  } finally {
    release();
    client.abort();
    await request;
    await server.close();
  }
});

Deno.test("shutdown: the answers delivered last are charged before it ends", async () => {
  // The settlement's statement waits for the test's go-ahead.
  const test_database = await open_test_database();
  const settling = Promise.withResolvers<void>();
  const go_ahead = Promise.withResolvers<void>();
  const database: Database = {
    ...test_database.database,
    async run<T>(
      statement: PreparedStatement,
      params: readonly StatementParam[],
    ): Promise<T[]> {
      if (statement.name === "ink_settle_generation") {
        settling.resolve();
        await go_ahead.promise;
      }
      return await test_database.database.run<T>(statement, params);
    },
  };
  const server = await start_test_server({
    test_database: { ...test_database, database },
  });
  try {
    const { key, account_id } = await server.create_account();
    const response = await server.generate(key, full_invoice());
    assertEquals(response.status, 200);
    await response.arrayBuffer();
    // The client holds the whole answer; its charge is on its way.
    await settling.promise;
    let ended = false;
    const stopped = server.server.shutdown().then((drained) => {
      ended = true;
      return drained;
    });
    // Closing idle connections alone takes about a second.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    assertEquals(ended, false, "shutdown waits for the settlement");
    go_ahead.resolve();
    assertEquals(await stopped, true);
    const used = await get_usage(test_database.database, account_id, {
      month: new Date().toISOString().slice(0, 7),
    });
    assertEquals(used, 1, "the delivered document is charged");
  } finally {
    go_ahead.resolve();
    await server.close();
    await test_database.close();
  }
});
