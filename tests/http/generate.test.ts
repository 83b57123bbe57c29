/**
 * POST /generate through a real server on loopback: the PDF, the 400s, 413,
 * and the promise that bad input never gets a 500.
 */
import {
  assert,
  assertEquals,
  assertMatch,
  assertStringIncludes,
} from "../assert.ts";
import { start_test_server } from "../helpers/test_server.ts";
import { full_invoice, invoice_with_items } from "../fixtures/invoices.ts";
import { pdf_page_count, pdf_text } from "../helpers/pdf_text.ts";

interface ErrorBody {
  error: {
    code: string;
    message: string;
    details?: { path: string; message: string }[];
  };
}

async function error_of(response: Response): Promise<ErrorBody> {
  assertMatch(response.headers.get("content-type") ?? "", /^application\/json/);
  const body = await response.json();
  assertEquals(Object.keys(body), ["error"]);
  assertEquals(typeof body.error.code, "string");
  assertEquals(typeof body.error.message, "string");
  return body;
}

Deno.test("POST /generate over HTTP", async (t) => {
  const server = await start_test_server();
  const { key } = await server.create_account({ plan: "team" });
  try {
    await t.step(
      "200 with the PDF, its content type and a safe file name",
      async () => {
        const invoice = { ...full_invoice(), invoice_number: 'INV/2026 "42"' };
        const response = await server.generate(key, invoice);
        assertEquals(response.status, 200);
        assertEquals(response.headers.get("content-type"), "application/pdf");
        assertEquals(
          response.headers.get("content-disposition"),
          `attachment; filename="invoice-INV_2026_42.pdf"; filename*=UTF-8''invoice-INV_2026_42.pdf`,
        );
        assert(response.headers.get("x-request-id"));
        assertEquals(response.headers.get("x-content-type-options"), "nosniff");
        const bytes = new Uint8Array(await response.arrayBuffer());
        assertEquals(new TextDecoder().decode(bytes.subarray(0, 5)), "%PDF-");
        const text = await pdf_text(bytes);
        assertStringIncludes(text, "Łukasz Wróbel Design");
        assertStringIncludes(text, "Ștefan Bălănescu SRL");
      },
    );

    await t.step("aliases work end to end", async () => {
      const { bill_to, items, ...rest } = full_invoice();
      const response = await server.generate(key, {
        ...rest,
        recipient: bill_to,
        line_items: items?.map(({ rate, ...item }) => ({
          ...item,
          unit_price: rate,
        })),
      });
      assertEquals(response.status, 200);
      await response.arrayBuffer();
    });

    await t.step("malformed JSON is 400 invalid_request", async () => {
      const response = await server.generate(key, '{"invoice_number": "A-1",');
      assertEquals(response.status, 400);
      const body = await error_of(response);
      assertEquals(body.error.code, "invalid_request");
      assertMatch(body.error.message, /not valid JSON/);
    });

    await t.step("wrong or missing content type is 400", async () => {
      const wrong = await server.generate(key, JSON.stringify(full_invoice()), {
        headers: { "Content-Type": "text/plain" },
      });
      assertEquals(wrong.status, 400);
      assertMatch(
        (await error_of(wrong)).error.message,
        /Content-Type must be application\/json/,
      );
      const form = await fetch(`${server.url}/generate`, {
        method: "POST",
        headers: { Authorization: `Bearer ${key}` },
        body: new URLSearchParams({ a: "b" }),
      });
      assertEquals(form.status, 400);
      await form.body?.cancel();
    });

    await t.step("bad fields are 400 with paths", async () => {
      const invoice = full_invoice();
      invoice.items![2].amount = 1;
      const response = await server.generate(key, invoice);
      assertEquals(response.status, 400);
      const body = await error_of(response);
      assertEquals(body.error.code, "invalid_request");
      assertEquals(body.error.details, [{
        path: "items[2].amount",
        message: "must equal quantity × rate = 0.38 (got 1)",
      }]);
    });

    await t.step("unknown field is 400 naming it", async () => {
      const response = await server.generate(key, {
        ...full_invoice(),
        discount: 5,
      });
      assertEquals(response.status, 400);
      const body = await error_of(response);
      assertEquals(body.error.details, [{
        path: "discount",
        message: "is not a known field",
      }]);
    });

    await t.step("a body over 1 MiB is 413 before it is parsed", async () => {
      const huge = "x".repeat(1024 * 1024 + 1);
      const response = await server.generate(key, huge);
      assertEquals(response.status, 413);
      assertEquals((await error_of(response)).error.code, "payload_too_large");
    });

    await t.step("a chunked body over 1 MiB is 413 too", async () => {
      const chunk = new TextEncoder().encode("[" + "1,".repeat(64 * 1024));
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent > 1.5 * 1024 * 1024) return controller.close();
          sent += chunk.length;
          controller.enqueue(chunk);
        },
      });
      const response = await fetch(`${server.url}/generate`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${key}`,
          "Content-Type": "application/json",
        },
        body: stream,
      });
      assertEquals(response.status, 413);
      await response.body?.cancel();
    });

    await t.step("300 items give a multi-page PDF", async () => {
      const response = await server.generate(key, invoice_with_items(300));
      assertEquals(response.status, 200);
      const pages = await pdf_page_count(
        new Uint8Array(await response.arrayBuffer()),
      );
      assert(pages > 2, `expected several pages, got ${pages}`);
    });

    await t.step("GET /generate is 405 with the error shape", async () => {
      const response = await fetch(`${server.url}/generate`);
      assertEquals(response.status, 405);
      assertEquals(response.headers.get("allow"), "POST, OPTIONS");
      assertEquals((await error_of(response)).error.code, "method_not_allowed");
    });

    await t.step("unknown paths are 404 with the error shape", async () => {
      const response = await fetch(`${server.url}/nope`);
      assertEquals(response.status, 404);
      assertEquals((await error_of(response)).error.code, "not_found");
    });

    await t.step(
      "bad input never gets a 500 and the server keeps serving",
      async () => {
        const bodies: string[] = [
          "",
          "null",
          "[]",
          '"text"',
          "1e999",
          '{"items": [' + "[".repeat(5000) + "]".repeat(5000) + "]}",
          JSON.stringify({
            ...full_invoice(),
            items: [{ description: 1, quantity: {}, rate: [], amount: "x" }],
          }),
          JSON.stringify({ ...full_invoice(), sender: "me" }),
          JSON.stringify({ ...full_invoice(), date: 20261123 }),
          JSON.stringify({
            ...full_invoice(),
            notes: "\u0000\uFFFF(endobj) %%EOF \\",
          }),
          '{"__proto__": {"polluted": true}}',
          '{"constructor": {"prototype": {}}}',
        ];
        for (const body of bodies) {
          const response = await server.generate(key, body);
          assert(
            response.status < 500,
            `${body.slice(0, 40)} gave ${response.status}`,
          );
          await response.body?.cancel();
        }
        const invalid_utf8 = await fetch(`${server.url}/generate`, {
          method: "POST",
          headers: {
            Authorization: `Bearer ${key}`,
            "Content-Type": "application/json",
          },
          body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
        });
        assertEquals(invalid_utf8.status, 400);
        assertMatch((await error_of(invalid_utf8)).error.message, /UTF-8/);
        const after = await server.generate(key, full_invoice());
        assertEquals(after.status, 200);
        await after.arrayBuffer();
      },
    );
  } finally {
    await server.close();
  }
});
