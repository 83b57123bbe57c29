/**
 * E-invoice formats through the public faces: POST /generate and tRPC
 * `invoice.generate` with `format`; content types, file names, charging and
 * free retries, the 400 that lists every missing field, and the visible PDF
 * saying what its embedded XML says.
 */
import {
  assert,
  assertEquals,
  assertMatch,
  assertStringIncludes,
} from "../assert.ts";
import { start_test_server } from "../helpers/test_server.ts";
import { pdf_attachment_text, pdf_text } from "../helpers/pdf_text.ts";
import { validate_xml } from "../helpers/einvoice_kit.ts";
import { corpus_request } from "../fixtures/einvoice_corpus.ts";
import { full_invoice } from "../fixtures/invoices.ts";
import { createTRPCClient, httpLink } from "@trpc/client";
import type { AppRouter } from "../../contract/mod.ts";

const XML = "application/xml; charset=utf-8";

function values(xml: string, element: string): string[] {
  return [
    ...xml.matchAll(new RegExp(`<${element}[^>]*>([^<]*)</${element}>`, "g")),
  ]
    .map((m) => m[1]);
}

Deno.test("e-invoice formats over HTTP", async (t) => {
  // Rendered in the worker pool like production; a generous deadline so a
  // loaded machine's cold workers are not a failure.
  const server = await start_test_server({
    env: { RENDER_TIMEOUT_MS: "120000" },
  });
  const { key } = await server.create_account({ plan: "team" });
  const request = corpus_request("several_rates", 1);
  try {
    await t.step(
      "XML formats: application/xml, .xml file name, charged once per format",
      async () => {
        let remaining: number | undefined;
        for (const format of ["ubl", "cii", "xrechnung-cii", "xrechnung-ubl"]) {
          const response = await server.generate(key, { ...request, format });
          assertEquals(response.status, 200, await response.clone().text());
          assertEquals(response.headers.get("content-type"), XML);
          const name = `invoice-${request.invoice_number}.xml`;
          assertEquals(
            response.headers.get("content-disposition"),
            `attachment; filename="${name}"; filename*=UTF-8''${name}`,
          );
          const text = await response.text();
          assert(text.startsWith('<?xml version="1.0" encoding="UTF-8"?>'));
          assertStringIncludes(text, request.invoice_number);
          const left = Number(response.headers.get("x-quota-remaining"));
          if (remaining !== undefined) assertEquals(left, remaining - 1);
          remaining = left;
          assertEquals(response.headers.get("idempotent-replayed"), null);
        }
        // An identical retry is free; the body hash includes the format.
        const retry = await server.generate(key, { ...request, format: "cii" });
        assertEquals(retry.status, 200);
        assertEquals(retry.headers.get("idempotent-replayed"), "true");
        assertEquals(Number(retry.headers.get("x-quota-remaining")), remaining);
        await retry.body?.cancel();
      },
    );

    await t.step(
      "format pdf is the plain PDF; UBL credit notes are CreditNote documents",
      async () => {
        const plain = await server.generate(key, { ...request, format: "pdf" });
        const implicit = await server.generate(key, request);
        assertEquals(plain.headers.get("content-type"), "application/pdf");
        assertEquals(
          new Uint8Array(await plain.arrayBuffer()),
          new Uint8Array(await implicit.arrayBuffer()),
        );
        // Same body with and without "format": "pdf" is the same request.
        assertEquals(implicit.headers.get("idempotent-replayed"), "true");
        const credit = corpus_request("credit_note", 2);
        const ubl =
          await (await server.generate(key, { ...credit, format: "ubl" }))
            .text();
        assertMatch(
          ubl,
          /^<\?xml[^>]*>\n<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"/,
        );
        assertStringIncludes(
          ubl,
          "<cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>",
        );
        const cii =
          await (await server.generate(key, { ...credit, format: "cii" }))
            .text();
        assertStringIncludes(cii, "<ram:TypeCode>381</ram:TypeCode>");
      },
    );

    await t.step(
      "400 lists every field a format needs, with its business term",
      async () => {
        // A seed-style request: printable, but no e-invoice.
        const response = await server.generate(key, {
          ...full_invoice(),
          format: "xrechnung-ubl",
        });
        assertEquals(response.status, 400);
        const body = await response.json();
        assertEquals(body.error.code, "invalid_request");
        const details = body.error.details as {
          path: string;
          message: string;
        }[];
        const lines = details.map((d) => `${d.path} ${d.message}`);
        for (
          const expected of [
            "tax_category is required for xrechnung-ubl (BT-151)",
            "sender.country is required for xrechnung-ubl (BT-40)",
            "bill_to.country is required for xrechnung-ubl (BT-55)",
            "sender.tax_id is required for xrechnung-ubl (BT-31), or sender.company_id (BT-30)",
            "sender.electronic_address is required for xrechnung-ubl (BT-34)",
            "bill_to.electronic_address is required for xrechnung-ubl (BT-49)",
            "buyer_reference is required for xrechnung-ubl (BT-10)",
            "sender.contact_name is required for xrechnung-ubl (BT-41)",
            "sender.phone is required for xrechnung-ubl (BT-42)",
            "payment.iban is required for xrechnung-ubl (BT-84)",
          ]
        ) {
          assert(
            lines.some((line) => line.startsWith(expected)),
            `${expected} not in ${JSON.stringify(lines, null, 1)}`,
          );
        }
        assertStringIncludes(body.error.message, "(and ");
        // The same body as a PDF is fine, and Peppol needs less than XRechnung.
        const pdf = await server.generate(key, full_invoice());
        assertEquals(pdf.status, 200);
        await pdf.body?.cancel();
        const ubl = await server.generate(key, {
          ...full_invoice(),
          format: "ubl",
        });
        const ubl_paths = (await ubl.json()).error.details.map((
          d: { path: string },
        ) => d.path);
        assert(!ubl_paths.includes("sender.contact_name"));
        assert(ubl_paths.includes("bill_to.electronic_address"));
      },
    );

    await t.step("an unknown format is a 400 naming the field", async () => {
      const response = await server.generate(key, {
        ...request,
        format: "docx",
      });
      assertEquals(response.status, 400);
      const body = await response.json();
      assertEquals(body.error.details[0].path, "format");
    });

    await t.step(
      "tRPC invoice.generate: xml as text, Factur-X as base64 PDF",
      async () => {
        const client = createTRPCClient<AppRouter>({
          links: [httpLink({
            url: `${server.url}/trpc`,
            headers: { Authorization: `Bearer ${key}` },
          })],
        });
        const xml = await client.invoice.generate.mutate(
          { ...request, format: "ubl" } as never,
        );
        assertEquals(xml.content_type, XML);
        assertEquals(xml.file_name, `invoice-${request.invoice_number}.xml`);
        assert(xml.xml?.includes("<cbc:CustomizationID>"));
        assertEquals(xml.pdf_base64, undefined);
        assertEquals(new TextEncoder().encode(xml.xml).length, xml.byte_length);
        const fx = await client.invoice.generate.mutate(
          { ...request, format: "factur-x" } as never,
        );
        assertEquals(fx.content_type, "application/pdf");
        assertEquals(fx.file_name, `invoice-${request.invoice_number}.pdf`);
        assertEquals(atob(fx.pdf_base64!).slice(0, 8), "%PDF-1.7");
      },
    );

    await t.step({
      name:
        "the visible Factur-X PDF and its XML say the same (pdftotext vs XML)",
      fn: async () => {
        const body = corpus_request("discounts_charges", 3);
        body.amount_paid = 10;
        const response = await server.generate(key, {
          ...body,
          format: "factur-x",
        });
        assertEquals(response.status, 200);
        const pdf = new Uint8Array(await response.arrayBuffer());
        const xml = await pdf_attachment_text(pdf);
        // Numbers as printed, without thousands separators.
        const text = (await pdf_text(pdf)).replace(
          /(\d)[,\u00a0\u202f](?=\d{3})/g,
          "$1",
        );
        const amounts = [
          ...values(xml, "ram:LineTotalAmount"), // BT-131 per line, BT-106
          ...values(xml, "ram:TaxBasisTotalAmount"), // BT-109
          ...values(xml, "ram:TaxTotalAmount"), // BT-110
          ...values(xml, "ram:GrandTotalAmount"), // BT-112
          ...values(xml, "ram:TotalPrepaidAmount"), // BT-113
          ...values(xml, "ram:DuePayableAmount"), // BT-115
          ...values(xml, "ram:CalculatedAmount"), // BT-117
          ...values(xml, "ram:BasisAmount"), // BT-116, BT-93
          ...values(xml, "ram:ActualAmount"), // BT-92, BT-99
        ];
        assert(amounts.length > 8);
        for (const amount of amounts) {
          assertStringIncludes(text, amount, `amount ${amount} not printed`);
        }
        for (const rate of values(xml, "ram:RateApplicablePercent")) {
          assertMatch(text, new RegExp(`\\b${rate.replace(".", "\\.")}\\s?%`));
        }
        const [issue, due] = [
          values(xml, "udt:DateTimeString")[0],
          values(xml, "udt:DateTimeString").at(-1)!,
        ];
        const iso = (d: string) =>
          `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6)}`;
        assertEquals(iso(issue), body.date);
        assertEquals(iso(due), body.due_date);
        assertStringIncludes(text, body.date);
        assertStringIncludes(text, body.due_date);
        const names = values(xml, "ram:Name");
        for (const party of [body.sender.name, body.bill_to.name]) {
          assert(
            names.includes(
              party.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(
                ">",
                "&gt;",
              ),
            ),
          );
          assertStringIncludes(text, party);
        }
        for (const tax_id of [body.sender.tax_id, body.bill_to.tax_id]) {
          assertStringIncludes(xml, `>${tax_id}<`);
          assertStringIncludes(text, tax_id);
        }
        assertStringIncludes(text, body.invoice_number);
        assertEquals(values(xml, "ram:ID")[1], body.invoice_number);
      },
    });

    await t.step("what /generate answers passes the validator", async () => {
      const files = new Map<string, string>();
      for (const scenario of ["reverse_charge", "unicode"] as const) {
        const body = corpus_request(scenario, 9);
        const response = await server.generate(key, {
          ...body,
          format: "xrechnung-cii",
        });
        files.set(scenario, await response.text());
      }
      const run = await validate_xml("cii+xr-cii", files);
      assertEquals(run.fatal, 0, run.output);
    });
  } finally {
    await server.close();
  }
});
