/**
 * The payment and business parts of the PDF: EPC QR code (read back with `zbarimg` from
 * zbar-tools), logo (`pdfimages -list` and the page content), payment link
 * annotation, credit notes, tax lines, and that an invoice without these
 * fields renders exactly as one with their defaults spelled out.
 */

import {
  assert,
  assertEquals,
  assertGreater,
  assertStringIncludes,
} from "../assert.ts";
import { pdf_page_count, pdf_text, qpdf_check } from "../helpers/pdf_text.ts";
import { logo_of, noisy_png_logo } from "../helpers/images.ts";
import {
  credit_note,
  german_vat_invoice,
  uk_reverse_charge_invoice,
  us_sales_tax_invoice,
} from "../fixtures/rendered_invoices.ts";
import type { Invoice } from "../../contract/invoice_types.ts";
import { render_invoice_pdf } from "../../server/pdf/mod.ts";
import {
  clear_logo_cache,
  LOGO_CACHE_BYTES,
  logo_cache_stats,
} from "../../server/pdf/logo.ts";
import { epc_payload } from "../../server/pdf/epc_qr.ts";

// deno-lint-ignore no-explicit-any
type Loose = any;

async function run(
  command: string,
  args: string[],
): Promise<{ code: number; stdout: Uint8Array; stderr: string }> {
  try {
    const out = await new Deno.Command(command, {
      args,
      stdout: "piped",
      stderr: "piped",
    }).output();
    return {
      code: out.code,
      stdout: out.stdout,
      stderr: new TextDecoder().decode(out.stderr),
    };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new Error(
        `${command} is not installed: apt-get install poppler-utils zbar-tools (.ci/run does this)`,
      );
    }
    throw error;
  }
}

async function with_dir<T>(use: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "invoice-qr-" });
  try {
    return await use(dir);
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** Every QR code zbarimg finds on the pages, as exact UTF-8 text. */
function decode_qr_codes(pdf: Uint8Array): Promise<string[]> {
  return with_dir(async (dir) => {
    await Deno.writeFile(`${dir}/in.pdf`, pdf);
    const raster = await run("pdftoppm", [
      "-png",
      "-r",
      "150",
      `${dir}/in.pdf`,
      `${dir}/page`,
    ]);
    assertEquals(raster.code, 0, raster.stderr);
    const found: string[] = [];
    for (
      const entry of [...Deno.readDirSync(dir)].sort((a, b) =>
        a.name < b.name ? -1 : 1
      )
    ) {
      if (!entry.name.endsWith(".png")) continue;
      // -Sbinary: the symbol's bytes as they are (zbar would otherwise guess
      // a character set and may take UTF-8 for Shift JIS).
      const result = await run("zbarimg", [
        "--raw",
        "-q",
        "-Sbinary",
        `${dir}/${entry.name}`,
      ]);
      if (result.code === 4) continue; // no symbol on this page
      assertEquals(result.code, 0, result.stderr);
      found.push(new TextDecoder().decode(result.stdout).replace(/\n$/, ""));
    }
    return found;
  });
}

/** `pdfimages -list` rows: page, type, width, height. */
function list_images(
  pdf: Uint8Array,
): Promise<{ page: number; type: string; width: number; height: number }[]> {
  return with_dir(async (dir) => {
    await Deno.writeFile(`${dir}/in.pdf`, pdf);
    const result = await run("pdfimages", ["-list", `${dir}/in.pdf`]);
    assertEquals(result.code, 0, result.stderr);
    const lines = new TextDecoder().decode(result.stdout).split("\n").slice(2);
    return lines.filter((l) => l.trim() !== "").map((line) => {
      const cols = line.trim().split(/\s+/);
      return {
        page: Number(cols[0]),
        type: cols[2],
        width: Number(cols[3]),
        height: Number(cols[4]),
      };
    });
  });
}

/**
 * Where images are painted, per page: the `cm` matrix in front of each
 * `/I… Do` in the uncompressed content streams (qpdf --qdf).
 */
function image_placements(
  pdf: Uint8Array,
): Promise<{ page: number; w: number; h: number; x: number; y: number }[]> {
  return with_dir(async (dir) => {
    await Deno.writeFile(`${dir}/in.pdf`, pdf);
    const result = await run("qpdf", [
      "--qdf",
      "--object-streams=disable",
      `${dir}/in.pdf`,
      `${dir}/out.pdf`,
    ]);
    assert(result.code === 0 || result.code === 3, result.stderr);
    const text = new TextDecoder("latin1").decode(
      await Deno.readFile(`${dir}/out.pdf`),
    );
    const placements: {
      page: number;
      w: number;
      h: number;
      x: number;
      y: number;
    }[] = [];
    // qpdf --qdf labels each page's content stream "Contents for page N".
    const parts = text.split(/%% Contents for page (\d+)/);
    for (let i = 1; i < parts.length; i += 2) {
      const page = Number(parts[i]);
      const body = parts[i + 1].split("endstream")[0];
      const re =
        /([\d.-]+) 0 0 ([\d.-]+) ([\d.-]+) ([\d.-]+) cm\s*\n?\/I\w+ Do/g;
      for (const m of body.matchAll(re)) {
        placements.push({
          page,
          w: Number(m[1]),
          h: Number(m[2]),
          x: Number(m[3]),
          y: Number(m[4]),
        });
      }
    }
    return placements;
  });
}

const PAGE_HEIGHT = 841.89;
/** The right edge of the content box on A4 (the logo box ends there). */
const LOGO_RIGHT = 595.28 - 48;

Deno.test("EPC QR code decodes to exactly the GiroCode payload of the invoice", async () => {
  const invoice = german_vat_invoice();
  const codes = await decode_qr_codes(render_invoice_pdf(invoice));
  assertEquals(codes, [
    [
      "BCD",
      "002",
      "1",
      "SCT",
      "COBADEFFXXX",
      "Müller & Söhne GmbH",
      "DE89370400440532013000",
      "EUR1074.65", // the amount due, after the 300.00 already paid
      "",
      "",
      "RE-2026-0042",
    ].join("\n"),
  ]);
});

Deno.test("EPC QR: creditor reference goes to the structured field; no BIC, name falls back to the sender", async () => {
  const invoice: Loose = german_vat_invoice();
  invoice.payment = {
    iban: "DE89370400440532013000",
    reference: "RF18 5390 0754 7034",
  };
  invoice.amount_paid = undefined;
  invoice.amount_due = invoice.total;
  const codes = await decode_qr_codes(render_invoice_pdf(invoice));
  assertEquals(codes, [
    "BCD\n002\n1\nSCT\n\nMüller & Söhne GmbH\nDE89370400440532013000\nEUR1374.65\n\nRF18539007547034",
  ]);
});

Deno.test("no QR code without EUR, without IBAN, on credit notes or with nothing due", async () => {
  const gbp = uk_reverse_charge_invoice(); // has an IBAN, but GBP
  assertEquals(await decode_qr_codes(render_invoice_pdf(gbp)), []);
  const no_iban: Loose = german_vat_invoice();
  no_iban.payment = { account_name: "Müller & Söhne GmbH" };
  assertEquals(await decode_qr_codes(render_invoice_pdf(no_iban)), []);
  const paid: Loose = german_vat_invoice();
  paid.amount_paid = paid.total;
  paid.amount_due = "0.00";
  assertEquals(await decode_qr_codes(render_invoice_pdf(paid)), []);
  const credit: Loose = credit_note();
  credit.payment = { iban: "FR1420041010050500013M02606" };
  assertEquals(await decode_qr_codes(render_invoice_pdf(credit)), []);
});

Deno.test("epc_payload: amount limits and field lengths", () => {
  const base = { name: "A", iban: "DE89370400440532013000", amount: "1.00" };
  assertEquals(epc_payload({ ...base, amount: "0.00" }), undefined);
  assertEquals(epc_payload({ ...base, amount: "-5.00" }), undefined);
  assertEquals(
    epc_payload({ ...base, amount: "999999999.99" }),
    "BCD\n002\n1\nSCT\n\nA\nDE89370400440532013000\nEUR999999999.99",
  );
  assertEquals(epc_payload({ ...base, amount: "1000000000.00" }), undefined);
  const long = epc_payload({
    ...base,
    name: "N".repeat(100),
    reference: "R".repeat(200),
  })!.split("\n");
  assertEquals(long[5].length, 70);
  assertEquals(long[10].length, 140);
});

Deno.test("payment block: IBAN in groups of four, BIC, bank, reference, and a clickable link", async () => {
  const invoice = german_vat_invoice();
  const pdf = render_invoice_pdf(invoice);
  const text = await pdf_text(pdf);
  for (
    const line of [
      "Bankverbindung",
      "Kontoinhaber Müller & Söhne GmbH",
      "IBAN DE89 3704 0044 0532 0130 00",
      "BIC COBADEFFXXX",
      "Kreditinstitut Commerzbank Berlin",
      "Verwendungszweck RE-2026-0042",
      "Online bezahlen https://pay.example/i/RE-2026-0042",
    ]
  ) {
    assert(text.split(/[\n\f]/).includes(line), `"${line}" in\n${text}`);
  }
  const raw = new TextDecoder("latin1").decode(pdf);
  assertStringIncludes(raw, "/Subtype /Link");
  assertStringIncludes(raw, "/URI (https://pay.example/i/RE-2026-0042)");
  assert((await qpdf_check(pdf)).ok);
});

Deno.test("logo: one image, drawn inside its box on page 1 only, aspect ratio kept (PNG with alpha)", async () => {
  const invoice: Loose = german_vat_invoice();
  // Enough items for three pages.
  invoice.items = Array.from({ length: 60 }, (_, i) => ({
    ...invoice.items[0],
    description: `Line ${i + 1}`,
  }));
  const pdf = render_invoice_pdf(invoice);
  assertGreater(await pdf_page_count(pdf), 2);
  const images = await list_images(pdf);
  // The colour image and its soft mask (alpha), both on page 1.
  assertEquals(
    images.map((i) => [i.page, i.type, i.width, i.height]),
    [[1, "image", 240, 80], [1, "smask", 240, 80]],
  );
  const placements = await image_placements(pdf);
  assertEquals(placements.length, 1);
  const [p] = placements;
  assertEquals(p.page, 1);
  // Box: 150 × 40 pt at the top-right margin, beside the title.
  const top = PAGE_HEIGHT - p.y - p.h;
  assert(
    p.x >= LOGO_RIGHT - 150 - 0.01 && p.x + p.w <= LOGO_RIGHT + 0.01,
    `x ${p.x} w ${p.w}`,
  );
  assert(
    top >= 36 - 0.01 && top + p.h <= 36 + 40 + 0.01,
    `top ${top} h ${p.h}`,
  );
  assert(Math.abs(p.w / p.h - 240 / 80) < 0.01, "aspect ratio kept");
  assert(Math.abs(p.h - 40) < 0.01, "as large as the box allows");
});

/** Width and height from a JPEG's start-of-frame marker. */
function jpeg_size(bytes: Uint8Array): { width: number; height: number } {
  let at = 2;
  while (at < bytes.length) {
    const marker = bytes[at + 1];
    const length = (bytes[at + 2] << 8) | bytes[at + 3];
    if (marker >= 0xc0 && marker <= 0xc3) {
      return {
        height: (bytes[at + 5] << 8) | bytes[at + 6],
        width: (bytes[at + 7] << 8) | bytes[at + 8],
      };
    }
    at += 2 + length;
  }
  throw new Error("no SOF marker");
}

Deno.test("logo: a JPEG is embedded as a JPEG (DCT) image, inside its box", async () => {
  // A real JPEG made by poppler from a rendered page.
  const jpeg = await with_dir(async (dir) => {
    await Deno.writeFile(`${dir}/in.pdf`, render_invoice_pdf(credit_note()));
    const result = await run("pdftoppm", [
      "-jpeg",
      "-r",
      "12",
      "-singlefile",
      `${dir}/in.pdf`,
      `${dir}/logo`,
    ]);
    assertEquals(result.code, 0, result.stderr);
    return await Deno.readFile(`${dir}/logo.jpg`);
  });
  const size = jpeg_size(jpeg);
  const invoice: Loose = uk_reverse_charge_invoice();
  invoice.logo = logo_of(jpeg, { mime: "image/jpeg", ...size });
  const pdf = render_invoice_pdf(invoice);
  const images = await list_images(pdf);
  assertEquals(images.length, 1);
  assertEquals([images[0].page, images[0].width, images[0].height], [
    1,
    size.width,
    size.height,
  ]);
  const raw = new TextDecoder("latin1").decode(pdf);
  assertStringIncludes(raw, "/Filter /DCTDecode");
  const [p] = await image_placements(pdf);
  const top = PAGE_HEIGHT - p.y - p.h;
  // A portrait page: limited by the box height.
  assert(Math.abs(p.h - 40) < 0.01 && p.w <= 150, `w ${p.w} h ${p.h}`);
  assert(top >= 36 - 0.01 && p.x + p.w <= LOGO_RIGHT + 0.01);
  assert(Math.abs(p.w / p.h - size.width / size.height) < 0.01);
});

Deno.test("logo cache: decoded once per content hash, identical output, bounded by bytes", () => {
  clear_logo_cache();
  const invoice: Loose = german_vat_invoice();
  const first = render_invoice_pdf(invoice);
  assertEquals(logo_cache_stats().entries, 1);
  const second = render_invoice_pdf(invoice);
  assertEquals(logo_cache_stats().entries, 1);
  assertEquals(second, first, "a cached logo renders the same bytes");
  // Many large distinct logos never grow the cache past its bound.
  for (let i = 0; i < 8; i++) {
    const big = noisy_png_logo(1_500_000 + i);
    render_invoice_pdf({ ...invoice, logo: big } as Invoice);
    assert(logo_cache_stats().bytes <= LOGO_CACHE_BYTES);
  }
  assertGreater(logo_cache_stats().entries, 0);
  clear_logo_cache();
});

Deno.test("credit note: title, its number, the corrected invoice, no due date", async () => {
  const text = await pdf_text(render_invoice_pdf(credit_note()));
  const lines = text.split(/[\n\f]/);
  assertEquals(lines[0], "AVOIR", text);
  assert(lines.includes("N° d'avoir AV-2026-003"), text);
  assert(lines.includes("Facture d'origine F-2026-118"), text);
  assert(!text.includes("Date d'échéance"), text);
  assert(lines.includes("Total TTC 348,00 €"), text);
});

Deno.test("tax: columns, totals and the breakdown per rate; exemption reason for reverse charge", async () => {
  const de = (await pdf_text(render_invoice_pdf(german_vat_invoice()))).split(
    /[\n\f]/,
  );
  for (
    const line of [
      "Bezeichnung Menge Einheit Einzelpreis USt. Betrag",
      "Beratung Webshop-Relaunch 12 Std. 95,00 19 % 1.140,00",
      "Zwischensumme 1.219,80 €",
      "Treuerabatt (5 %) -60,99 €",
      "Versand 4,90 €",
      "Nettobetrag 1.163,71 €",
      "Summe USt. 210,94 €",
      "Gesamtbetrag 1.374,65 €",
      "Bereits bezahlt -300,00 €",
      "Zahlbetrag 1.074,65 €",
      "USt.-Satz Bemessungsgrundlage USt.-Betrag",
      "19 % 1.079,01 € 205,01 €",
      "7 % 84,70 € 5,93 €",
      "USt-IdNr. DE123456789",
      "Tel. +49 30 1234567",
      "Bestellnummer PO-7781",
      "Ihr Zeichen Frau Schmidt",
      "Zahlungsbedingungen: 14 Tage netto",
    ]
  ) {
    assert(de.includes(line), `"${line}" in\n${de.join("\n")}`);
  }
  // Wrapped in the party column.
  assertStringIncludes(
    de.join(" "),
    "Handelsregister HRB 12345 B, AG Charlottenburg",
  );
  const uk = (await pdf_text(render_invoice_pdf(uk_reverse_charge_invoice())))
    .split(/[\n\f]/);
  for (
    const line of [
      "0% · Reverse charge £4,250.00 £0.00",
      "VAT reg. no. NL123456789B01",
      "Netherlands",
    ]
  ) {
    assert(uk.includes(line), `"${line}" in\n${uk.join("\n")}`);
  }
  // Wrapped in the breakdown beside the totals.
  assertStringIncludes(
    uk.join(" "),
    "Reverse charge: customer to account for VAT (Article 196, Council Directive 2006/112/EC)",
  );
});

Deno.test("tax_label overrides the locale's name of the tax", async () => {
  const invoice: Loose = uk_reverse_charge_invoice();
  invoice.tax_label = "GST";
  const text = await pdf_text(render_invoice_pdf(invoice));
  assertStringIncludes(text, "GST rate");
  assertStringIncludes(text, "Total GST £0.00");
  assert(!text.includes("VAT rate"));
});

Deno.test("unit column and tax column appear only when used", async () => {
  const invoice: Loose = us_sales_tax_invoice();
  const with_both = await pdf_text(render_invoice_pdf(invoice));
  assertStringIncludes(with_both, "Description Qty Unit Rate Tax Amount");
  invoice.items = invoice.items.map((item: Loose) => ({
    ...item,
    unit: undefined,
  }));
  invoice.has_tax = false;
  invoice.tax_breakdown = undefined;
  invoice.total_without_tax = undefined;
  invoice.tax_total = undefined;
  const neither = await pdf_text(render_invoice_pdf(invoice));
  assertStringIncludes(neither, "Description Qty Rate Amount");
  assert(!neither.includes("Sales tax"), neither);
  assert(!neither.includes("Taxable amount"), neither);
});

Deno.test("an invoice without the business fields renders byte-identically with their defaults spelled out", () => {
  const seed: Loose = {
    invoice_number: "INV-7",
    date: "2026-01-05",
    due_date: "2026-02-04",
    currency: "USD",
    sender: {
      name: "Jo Freelance",
      email: "jo@example.com",
      address: "1 Main St",
    },
    bill_to: { name: "Al Client", email: "al@example.com", city: "Oslo" },
    items: [{ description: "Thing", quantity: 2, rate: "5", amount: "10.00" }],
    notes: "Thanks",
    subtotal: "10.00",
    total: "10.00",
  };
  const with_defaults: Loose = {
    ...seed,
    sender: { ...seed.sender, address_lines: ["1 Main St"] },
    document_type: "invoice",
    has_tax: false,
    amount_due: "10.00",
  };
  assertEquals(render_invoice_pdf(with_defaults), render_invoice_pdf(seed));
  // A new field changes the document (and its /ID).
  assert(
    render_invoice_pdf({ ...with_defaults, purchase_order: "PO-1" }).length !==
      render_invoice_pdf(seed).length,
  );
});

Deno.test("a seed-style invoice with a locale prints no tax lines", async () => {
  const invoice: Loose = {
    invoice_number: "N-1",
    date: "2026-01-05",
    due_date: "2026-02-04",
    currency: "EUR",
    locale: "de-DE",
    sender: { name: "A", email: "a@example.com" },
    bill_to: { name: "B", email: "b@example.com" },
    items: [{ description: "X", quantity: 1, rate: "5", amount: "5.00" }],
    subtotal: "5.00",
    total: "5.00",
    has_tax: false,
    amount_due: "5.00",
    document_type: "invoice",
  };
  const text = await pdf_text(render_invoice_pdf(invoice));
  for (const absent of ["USt", "Nettobetrag", "Bemessungsgrundlage", "IBAN"]) {
    assert(!text.includes(absent), `unexpected "${absent}"`);
  }
  assertStringIncludes(text, "Gesamtbetrag 5,00 €");
});
