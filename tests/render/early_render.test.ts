/**
 * Rendering while the quota is reserved (generate_invoice with
 * `render_early`): the answer and the charged quota are exactly those of
 * render-after-reserve; only the timing differs. And the pool's idle count
 * that decides it.
 */
import { assert, assertEquals, assertMatch, assertRejects } from "../assert.ts";
import {
  ApiError,
  type Invoice,
  InvoiceRequestSchema,
  type ResponseSink,
} from "../../contract/mod.ts";
import { charge_generation, create_account, get_usage } from "../../db/mod.ts";
import { create_services, type RenderDocument } from "../../server/services.ts";
import { RenderPool } from "../../server/render_pool.ts";
import { full_invoice } from "../fixtures/invoices.ts";
import { open_test_database } from "../helpers/test_database.ts";

const NOW = new Date("2030-03-14T12:00:00Z");
const MONTH = "2030-03";

function numbered(n: number): Invoice {
  return InvoiceRequestSchema.parse({
    ...full_invoice(),
    invoice_number: `E-${n}`,
  }) as Invoice;
}

Deno.test("early render: same answers and quota as render-after-reserve", async (t) => {
  const test_database = await open_test_database();
  const { database } = test_database;
  const rendered: string[] = [];
  let fail_for: string | undefined;
  const render_document: RenderDocument = (invoice) => {
    rendered.push(invoice.invoice_number);
    return invoice.invoice_number === fail_for
      ? Promise.reject(new Error("renderer crashed"))
      : Promise.resolve(
        new TextEncoder().encode(`%PDF ${invoice.invoice_number}`),
      );
  };
  const services = create_services(database, {
    render_document,
    render_early: () => true,
    now: () => NOW,
  });
  try {
    const account = await create_account(database, {
      email: "early@example.com",
      plan: "starter",
    });
    const principal = {
      account: {
        ...account,
        created_at: account.created_at.toISOString(),
      },
    };
    // A key checked before the body: the quota statement runs on its own.
    // The document is delivered as soon as it is returned.
    const generate = async (invoice: Invoice) => {
      const response: ResponseSink = { headers: new Headers() };
      const document = await services.generate_invoice(
        { authorization: null, checked: true, principal },
        invoice,
        response,
      );
      await response.delivery?.delivered();
      return document;
    };

    await t.step("a charged request returns its PDF", async () => {
      const pdf = await generate(numbered(1));
      assertEquals(new TextDecoder().decode(pdf.bytes), "%PDF E-1");
      assertEquals(await get_usage(database, account.id, { month: MONTH }), 1);
    });

    await t.step("a failed render is not charged", async () => {
      fail_for = "E-2";
      await assertRejects(() => generate(numbered(2)), Error, "crashed");
      fail_for = undefined;
      assertEquals(await get_usage(database, account.id, { month: MONTH }), 1);
    });

    await t.step(
      "over the limit: 403, and later calls do not render",
      async () => {
        for (let n = 3; n <= 151; n++) {
          await charge_generation(database, {
            account_id: account.id,
            month: MONTH,
            day: "2030-03-14",
            limit: 150,
            request_hash: `filler-${n}`,
          });
        }
        assertEquals(
          await get_usage(database, account.id, { month: MONTH }),
          150,
        );
        rendered.length = 0;
        const over = await assertRejects(
          () => generate(numbered(500)),
          ApiError,
        );
        assertEquals((over as ApiError).code, "quota_exceeded");
        // The message says where to upgrade, not only that one should.
        assertMatch(
          (over as ApiError).message,
          /Usage page \(\/dashboard\/usage#upgrade\)/,
        );
        // Not yet known to be over: rendered early, then dropped.
        assertEquals(rendered, ["E-500"]);
        const again = await assertRejects(
          () => generate(numbered(501)),
          ApiError,
        );
        assertEquals((again as ApiError).code, "quota_exceeded");
        assertEquals(rendered, ["E-500"]);
        assertEquals(
          await get_usage(database, account.id, { month: MONTH }),
          150,
        );
      },
    );

    await t.step("an identical retry is still free and answered", async () => {
      const pdf = await generate(numbered(1));
      assertEquals(new TextDecoder().decode(pdf.bytes), "%PDF E-1");
    });
  } finally {
    await test_database.close();
  }
});

Deno.test("render pool: idle_workers counts free workers, 0 while jobs wait", async () => {
  const pool = new RenderPool({ size: 2, max_queue: 10, timeout_ms: 60_000 });
  try {
    assertEquals(pool.idle_workers, 2);
    const invoice = numbered(1);
    const renders = [pool.render(invoice), pool.render(invoice)];
    assertEquals(pool.idle_workers, 0);
    const third = pool.render(invoice);
    assertEquals(pool.idle_workers, 0);
    await Promise.all([...renders, third]);
    assertEquals(pool.idle_workers, 2);
    assert(pool.queue_depth === 0);
  } finally {
    await pool.close();
  }
});
