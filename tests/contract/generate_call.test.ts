/**
 * `call_generate` reaches tRPC's procedure-call entry point
 * (`callTRPCProcedure`, the one its HTTP adapters use). These tests pin the
 * @trpc/server version it was written against and the order it promises:
 * the key middleware first, the input read after it, and never for a key
 * that is refused.
 */
import { assertEquals, assertRejects } from "../assert.ts";
import {
  ApiError,
  type ApiKeyRequest,
  call_generate,
  type ServiceContext,
  type Services,
} from "../../contract/mod.ts";
import { full_invoice } from "../fixtures/invoices.ts";

Deno.test("the tRPC server version call_generate is written against", async () => {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("../../deno.json", import.meta.url)),
  );
  assertEquals(config.imports["@trpc/server"], "npm:@trpc/server@11.25.2");
});

function context_with(
  services: Partial<Services>,
  calls: string[],
): ServiceContext {
  return {
    authorization: "Bearer ink_live_x",
    session: null,
    binary_document: true,
    response: { headers: new Headers() },
    credentials_checked: () => calls.push("credentials_checked"),
    services: services as Services,
  };
}

Deno.test("call_generate reads the input after the key middleware, once", async () => {
  const calls: string[] = [];
  const api_key: ApiKeyRequest = {
    authorization: "Bearer ink_live_x",
    checked: false,
  };
  const ctx = context_with({
    begin_generate_key_check: () => {
      calls.push("key");
      return Promise.resolve(api_key);
    },
    generate_invoice: (_key, invoice) => {
      calls.push(`generate ${invoice.invoice_number}`);
      api_key.checked = true;
      return Promise.resolve({
        file_name: "invoice-1.pdf",
        bytes: new Uint8Array([1, 2, 3]),
        content_type: "application/pdf",
      });
    },
  }, calls);
  const output = await call_generate(ctx, () => {
    calls.push("read");
    return Promise.resolve(full_invoice());
  });
  assertEquals(calls, [
    "key",
    "credentials_checked",
    "read",
    `generate ${full_invoice().invoice_number}`,
  ]);
  assertEquals(output.byte_length, 3);
  assertEquals(ctx.response.document, new Uint8Array([1, 2, 3]));
});

Deno.test("call_generate never reads the input of a refused key", async () => {
  const calls: string[] = [];
  const ctx = context_with({
    begin_generate_key_check: () => {
      calls.push("key");
      return Promise.reject(new ApiError("unauthorized", "Unknown API key"));
    },
  }, calls);
  await assertRejects(() =>
    call_generate(ctx, () => {
      calls.push("read");
      return Promise.resolve({});
    })
  );
  assertEquals(calls, ["key"]);
});
