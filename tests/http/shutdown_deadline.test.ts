/**
 * A shutdown waits for requests in flight at most `SHUTDOWN_TIMEOUT_MS`:
 * a request that never ends (a hung render, a stuck database) cannot keep
 * the service from stopping.
 */
import { assertEquals } from "../assert.ts";
import { full_invoice } from "../fixtures/invoices.ts";
import { start_test_server } from "../helpers/test_server.ts";
import { render_invoice_document } from "../../server/einvoice/mod.ts";

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
