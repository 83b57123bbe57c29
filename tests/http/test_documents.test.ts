/**
 * Test keys are not a free plan: at most TEST_DOCUMENTS_PER_MONTH documents
 * a month per account (all formats together, exact across instances), 403
 * `test_limit_reached` past it; and their e-invoices are marked TEST in the
 * invoice number (BT-1) and the seller name (BT-27) besides the note
 * (BT-22), in every XML format and in the XML inside Factur-X.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { sql } from "drizzle-orm";
import { start_test_server, type TestServer } from "../helpers/test_server.ts";
import { start_two_instances } from "../helpers/two_instances.ts";
import { pdf_attachment_text } from "../helpers/pdf_text.ts";
import { corpus_request } from "../fixtures/einvoice_corpus.ts";
import { full_invoice } from "../fixtures/invoices.ts";
import type { Database } from "../../db/mod.ts";
import { query_rows } from "../../db/_util.ts";
import { TEST_DOCUMENTS_PER_MONTH } from "../../contract/mod.ts";
import { month_of } from "../../server/services/calendar.ts";

async function test_key_for(
  server: TestServer,
  account_id: string,
): Promise<string> {
  const response = await server.admin(`/admin/accounts/${account_id}/keys`, {
    body: { name: "CI", mode: "test" },
  });
  assertEquals(response.status, 201);
  return (await response.json()).key;
}

/** Sets the month's test documents of an account, as if made already. */
async function set_test_documents(
  database: Database,
  account_id: string,
  month: string,
  count: number,
): Promise<void> {
  await query_rows(
    database,
    sql`insert into usage_monthly (account_id, month, count, test_count)
        values (${account_id}::uuid, ${month}, 0, ${count})
        on conflict (account_id, month)
          do update set test_count = excluded.test_count`,
  );
}

async function test_documents(
  database: Database,
  account_id: string,
  month: string,
): Promise<number> {
  const rows = await query_rows<{ test_count: number | string }>(
    database,
    sql`select test_count from usage_monthly
        where account_id = ${account_id}::uuid and month = ${month}`,
  );
  return Number(rows[0]?.test_count ?? 0);
}

/** XML character data as text (the five predefined entities). */
function unescape_xml(text: string): string {
  const entities: Record<string, string> = {
    amp: "&",
    lt: "<",
    gt: ">",
    quot: '"',
    apos: "'",
  };
  return text.replace(/&(amp|lt|gt|quot|apos);/g, (_, name) => entities[name]);
}

/** Text of the first element `name` inside the first element `parent`. */
function value_in(xml: string, parent: string, name: string): string {
  const scope = new RegExp(`<${parent}[ >][\\s\\S]*?</${parent}>`).exec(xml);
  assert(scope, `no ${parent}`);
  const match = new RegExp(`<${name}(?: [^>]*)?>([^<]*)</${name}>`).exec(
    scope[0],
  );
  assert(match, `no ${name} in ${parent}`);
  return unescape_xml(match[1]);
}

/** BT-1, BT-27 and BT-22 of a CII or UBL document. */
function business_terms(xml: string) {
  if (xml.includes("<rsm:CrossIndustryInvoice")) {
    return {
      invoice_number: value_in(xml, "rsm:ExchangedDocument", "ram:ID"),
      seller_name: value_in(xml, "ram:SellerTradeParty", "ram:Name"),
      note: xml.includes("<ram:IncludedNote>")
        ? value_in(xml, "ram:IncludedNote", "ram:Content")
        : "",
    };
  }
  return {
    // The document's own ID comes right after ProfileID (BT-23).
    invoice_number: unescape_xml(
      /<\/cbc:ProfileID>\s*<cbc:ID>([^<]*)<\/cbc:ID>/.exec(xml)?.[1] ?? "",
    ),
    seller_name: value_in(
      xml,
      "cac:AccountingSupplierParty",
      "cbc:RegistrationName",
    ),
    note: unescape_xml(/<cbc:Note>([^<]*)<\/cbc:Note>/.exec(xml)?.[1] ?? ""),
  };
}

Deno.test("test e-invoices are marked TEST in BT-1, BT-27 and BT-22 in every XML format and inside Factur-X; live ones are not", async () => {
  const server = await start_test_server({
    env: { RENDER_TIMEOUT_MS: "120000" },
  });
  try {
    const { account_id, key } = await server.create_account({ plan: "team" });
    const test_key = await test_key_for(server, account_id);
    const request = corpus_request("standard", 1);
    for (
      const format of [
        "factur-x",
        "cii",
        "ubl",
        "xrechnung-cii",
        "xrechnung-ubl",
      ]
    ) {
      const xml_of = async (api_key: string) => {
        const response = await server.generate(api_key, {
          ...request,
          format,
        });
        assertEquals(response.status, 200, format);
        const bytes = new Uint8Array(await response.arrayBuffer());
        return format === "factur-x"
          ? await pdf_attachment_text(bytes)
          : new TextDecoder().decode(bytes);
      };
      const test = business_terms(await xml_of(test_key));
      assertEquals(
        test.invoice_number,
        `TEST-${request.invoice_number}`,
        `${format} BT-1`,
      );
      assertEquals(
        test.seller_name,
        `${request.sender.name} (TEST)`,
        `${format} BT-27`,
      );
      assertMatch(test.note, /^TEST – not valid for accounting/, format);
      const live = business_terms(await xml_of(key));
      assertEquals(live.invoice_number, request.invoice_number, format);
      assertEquals(live.seller_name, request.sender.name, format);
      assert(!live.note.includes("TEST"), format);
    }
  } finally {
    await server.close();
  }
});

Deno.test("test documents: 1,000 a month per account, all formats together; then 403 test_limit_reached", async () => {
  let now = new Date("2030-05-10T12:00:00Z");
  const server = await start_test_server({ now: () => now });
  try {
    assertEquals(TEST_DOCUMENTS_PER_MONTH, 1000);
    const { account_id, key } = await server.create_account({ plan: "pro" });
    const test_key = await test_key_for(server, account_id);
    const database = server.test_database.database;
    await set_test_documents(
      database,
      account_id,
      "2030-05",
      TEST_DOCUMENTS_PER_MONTH - 2,
    );
    // The last two of the month: a PDF and an XML format.
    const pdf = await server.generate(test_key, full_invoice());
    assertEquals(pdf.status, 200);
    await pdf.arrayBuffer();
    const xml = await server.generate(test_key, {
      ...corpus_request("standard", 2),
      format: "ubl",
    });
    assertEquals(xml.status, 200);
    await xml.arrayBuffer();
    for (const format of ["pdf", "cii"]) {
      const refused = await server.generate(test_key, {
        ...(format === "pdf" ? full_invoice() : corpus_request("standard", 3)),
        format,
      });
      assertEquals(refused.status, 403, format);
      const error = (await refused.json()).error;
      assertEquals(error.code, "test_limit_reached");
      assertMatch(error.message, /at most 1000 documents a month/);
      assertMatch(error.message, /reset on 2030-06-01/);
    }
    // Refusals by a limit, counted as the quota's and the rate limits' are.
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    assertMatch(metrics, /rejections_total\{code="test_limit_reached"\} 2/);
    assertMatch(metrics, /rejections_total\{code="quota_exceeded"\} 0/);
    assertEquals(
      await test_documents(database, account_id, "2030-05"),
      TEST_DOCUMENTS_PER_MONTH,
    );
    // The account's usage says so; live keys are not affected.
    const usage = (await (await server.admin(`/admin/accounts/${account_id}`))
      .json()).usage;
    assertEquals(usage.test_calls, TEST_DOCUMENTS_PER_MONTH);
    assertEquals(usage.test_limit, TEST_DOCUMENTS_PER_MONTH);
    const live = await server.generate(key, full_invoice());
    assertEquals(live.status, 200);
    await live.arrayBuffer();
    // Next month the test documents start again.
    now = new Date("2030-06-01T00:00:01Z");
    const june = await server.generate(test_key, full_invoice());
    assertEquals(june.status, 200);
    await june.arrayBuffer();
    assertEquals(await test_documents(database, account_id, "2030-06"), 1);
  } finally {
    await server.close();
  }
});

Deno.test("test documents: a render that fails gives its count back", async () => {
  const server = await start_test_server({
    render_document: (invoice) =>
      invoice.invoice_number === "BREAKS"
        ? Promise.reject(new Error("the renderer failed"))
        : Promise.resolve(new TextEncoder().encode("%PDF-1.7 stand-in")),
  });
  try {
    const { account_id } = await server.create_account({ plan: "pro" });
    const test_key = await test_key_for(server, account_id);
    const month = month_of(new Date());
    const database = server.test_database.database;
    await set_test_documents(
      database,
      account_id,
      month,
      TEST_DOCUMENTS_PER_MONTH - 1,
    );
    const failed = await server.generate(test_key, {
      ...full_invoice(),
      invoice_number: "BREAKS",
    });
    assertEquals(failed.status, 500);
    await failed.body?.cancel();
    assertEquals(
      await test_documents(database, account_id, month),
      TEST_DOCUMENTS_PER_MONTH - 1,
    );
    const last = await server.generate(test_key, full_invoice());
    assertEquals(last.status, 200, "the failed render was not counted");
    await last.arrayBuffer();
  } finally {
    await server.close();
  }
});

Deno.test("test documents: R left, 40 sent at once through two instances: exactly R rendered", async () => {
  const instances = await start_two_instances();
  try {
    const month = month_of(new Date());
    for (const left of [1, 5]) {
      const { account_id } = await instances.servers[0]!.create_account({
        plan: "pro",
      });
      const test_key = await test_key_for(instances.servers[0]!, account_id);
      await set_test_documents(
        instances.database,
        account_id,
        month,
        TEST_DOCUMENTS_PER_MONTH - left,
      );
      const statuses = await Promise.all(
        Array.from({ length: 40 }, async (_, n) => {
          const response = await instances.servers[n % 2]!.generate(
            test_key,
            { ...full_invoice(), invoice_number: `RACE-${left}-${n}` },
          );
          if (response.status === 200) {
            await response.arrayBuffer();
            return "ok";
          }
          return (await response.json()).error.code as string;
        }),
      );
      assertEquals(
        statuses.filter((status) => status === "ok").length,
        left,
        statuses.join(" "),
      );
      assertEquals(
        statuses.filter((status) => status === "test_limit_reached").length,
        40 - left,
      );
      assertEquals(
        await test_documents(instances.database, account_id, month),
        TEST_DOCUMENTS_PER_MONTH,
      );
    }
  } finally {
    await instances.close();
  }
});
