/**
 * Typed TypeScript callers: the tRPC client over /trpc, and the server-side
 * caller for the dashboard's account procedures.
 */
import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";
import { assert, assertEquals, assertRejects } from "../assert.ts";
import { start_test_server } from "../helpers/test_server.ts";
import { full_invoice } from "../fixtures/invoices.ts";
import {
  type AppRouter,
  create_caller,
  type ServiceContext,
  to_api_error,
} from "../../contract/mod.ts";
import { create_services, PREVIEWS_PER_MINUTE } from "../../server/services.ts";
import { render_invoice_pdf } from "../../server/pdf/mod.ts";

Deno.test("tRPC client: invoice.generate over /trpc with full types", async () => {
  const server = await start_test_server();
  try {
    const { key } = await server.create_account({ plan: "pro" });
    const client = createTRPCClient<AppRouter>({
      links: [
        httpLink({
          url: `${server.url}/trpc`,
          headers: { Authorization: `Bearer ${key}` },
        }),
      ],
    });
    const result = await client.invoice.generate.mutate(full_invoice());
    assertEquals(result.content_type, "application/pdf");
    assertEquals(result.file_name, "invoice-INV-2026-0042.pdf");
    const bytes = Uint8Array.from(
      atob(result.pdf_base64!),
      (c) => c.charCodeAt(0),
    );
    assertEquals(bytes.length, result.byte_length);
    assertEquals(new TextDecoder().decode(bytes.subarray(0, 5)), "%PDF-");

    const error = await assertRejects(() =>
      client.invoice.generate.mutate({ ...full_invoice(), date: "2026-02-30" })
    );
    assert(error instanceof TRPCClientError);
    assertEquals(error.data.code, "invalid_request");
    assertEquals(error.data.http_status, 400);
    assertEquals(error.data.details, [{
      path: "date",
      message: "is not a real calendar date",
    }]);
    assert(!("stack" in error.data), "no stack traces leave the server");

    const anonymous = createTRPCClient<AppRouter>({
      links: [httpLink({ url: `${server.url}/trpc` })],
    });
    const unauthorized = await assertRejects(() =>
      anonymous.invoice.generate.mutate(full_invoice())
    );
    assert(unauthorized instanceof TRPCClientError);
    assertEquals(unauthorized.data.code, "unauthorized");
    assertEquals(unauthorized.data.http_status, 401);
  } finally {
    await server.close();
  }
});

Deno.test("account procedures: one account never sees or revokes another's keys", async () => {
  const server = await start_test_server();
  try {
    const services = create_services(server.test_database.database, {
      render_document: (invoice) =>
        Promise.resolve(render_invoice_pdf(invoice)),
    });
    const a = await server.create_account();
    const b = await server.create_account();
    const context = async (account_id: string): Promise<ServiceContext> => ({
      authorization: null,
      session: { account: await services.get_account(account_id) },
      binary_document: false,
      response: { headers: new Headers() },
      services,
    });
    const as_a = create_caller(await context(a.account_id));
    const created = await as_a.account.create_key({ name: "Staging" });
    assert(created.key.startsWith("ink_live_"));
    const listed = await as_a.account.list_keys();
    assertEquals(listed.keys.map((k) => k.name).sort(), [
      "Staging",
      "Test key",
    ]);
    assert(listed.keys.every((k) => !JSON.stringify(k).includes(created.key)));
    const error = await assertRejects(() =>
      as_a.account.revoke_key({ id: b.key_id })
    );
    assertEquals((error as Error).message, "No API key with this id");
    const still = await server.generate(b.key, full_invoice());
    assertEquals(still.status, 200);
    await still.arrayBuffer();
    const revoked = await as_a.account.revoke_key({ id: created.id });
    assertEquals(revoked.status, "revoked");
    const usage = await as_a.account.usage();
    assertEquals(usage.limit, 150);

    // Free previews are limited per account and never counted.
    for (let n = 0; n < PREVIEWS_PER_MINUTE; n++) {
      const preview = await as_a.invoice.preview(full_invoice());
      assertEquals(preview.content_type, "application/pdf");
    }
    const limited = await assertRejects(() =>
      as_a.invoice.preview(full_invoice())
    );
    assertEquals(to_api_error(limited).code, "rate_limited");
    assertEquals((await as_a.account.usage()).used, usage.used);

    const anonymous = create_caller({
      ...(await context(a.account_id)),
      session: null,
    });
    const denied = await assertRejects(() => anonymous.account.list_keys());
    assertEquals((denied as Error).message, "Sign in to the dashboard first");
  } finally {
    await server.close();
  }
});
