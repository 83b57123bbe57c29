/**
 * The invoices of the renderer benchmark (`render_bench.ts`): the 10-item
 * Unicode seed invoice that the HTTP benchmark sends, and the same invoice with
 * each feature added on its own, so a slowdown can be traced to one feature.
 * All but Factur-X go through the contract's schema, as a request would.
 */
import type { Invoice } from "../../contract/invoice_types.ts";
import { InvoiceRequestSchema } from "../../contract/invoice.ts";
import { invoice_with_items } from "../fixtures/invoices.ts";
import { german_invoice } from "../fixtures/einvoices.ts";
import { german_vat_invoice } from "../fixtures/rendered_invoices.ts";
import { noisy_png_logo } from "../helpers/images.ts";
import { script_bench_invoice } from "./script_invoices.ts";

/** One bench row. */
export interface RenderCase {
  /** Row name. */
  name: string;
  /** What the row adds to the seed invoice. */
  what: string;
  /** The invoice, as the render worker receives it. */
  invoice: Invoice;
  /** Factur-X (PDF/A-3 with the CII XML) instead of the plain PDF. */
  factur_x?: boolean;
  /**
   * The seed invoice with one feature (and what that feature needs): held
   * to at most twice the seed row's CPU (`targets.ts`).
   */
  single_feature?: boolean;
}

/** The document a row renders: its Factur-X or the plain PDF. */
export function case_format(c: RenderCase): "pdf" | "factur-x" {
  return c.factur_x ? "factur-x" : "pdf";
}

type Request = Record<string, unknown>;

/** The seed request: `invoice_with_items(10, { unicode: true })`. */
function seed_request(): Request {
  return invoice_with_items(10, { unicode: true }) as unknown as Request;
}

function parsed(request: Request): Invoice {
  return InvoiceRequestSchema.parse(request) as Invoice;
}

/** Seed items with 19 %, 7 % and 0 % tax, a percent discount and shipping. */
function tax_request(): Request {
  const request = seed_request();
  const rates = [19, 7, 0];
  request.currency = "EUR";
  request.items = (request.items as Request[]).map((item, i) => ({
    ...item,
    tax_rate: rates[i % 3],
  }));
  request.discounts = [
    { description: "Loyalty discount", percent: 5, tax_rate: 19 },
  ];
  request.charges = [{ description: "Shipping", amount: 4.9, tax_rate: 19 }];
  return request;
}

/**
 * The seed request as an EN 16931 invoice, with what Factur-X needs beyond
 * it: euros, postal addresses with their countries, both VAT identifiers
 * and one VAT rate (19 %) on every line.
 */
function en16931_seed_request(): Request {
  const request = seed_request();
  request.currency = "EUR";
  request.sender = {
    ...(request.sender as Request),
    address: "Hauptstraße 1",
    city: "Berlin",
    zip: "10115",
    country: "DE",
    tax_id: "DE123456789",
  };
  request.bill_to = {
    ...(request.bill_to as Request),
    address: "Rathausplatz 2",
    city: "Köln",
    zip: "50667",
    country: "DE",
    tax_id: "DE987654321",
  };
  request.items = (request.items as Request[]).map((item) => ({
    ...item,
    tax_rate: 19,
  }));
  return request;
}

/**
 * The Factur-X invoice of `einvoice_bench.ts`: the German invoice with
 * every party field, notes and payment details, 10 items, two VAT rates.
 */
function german_factur_x_invoice(): Invoice {
  const invoice = german_invoice();
  const [a, b] = invoice.items;
  invoice.items = Array.from({ length: 5 }, () => [a, b]).flat();
  invoice.subtotal = "5155.00";
  invoice.tax_breakdown = [
    {
      category: "S",
      rate: "19",
      taxable_amount: "4900.00",
      tax_amount: "931.00",
    },
    { category: "S", rate: "7", taxable_amount: "155.00", tax_amount: "10.85" },
  ];
  invoice.total_without_tax = "5055.00";
  invoice.tax_total = "941.85";
  invoice.total = "5996.85";
  invoice.amount_due = "5996.85";
  return invoice;
}

/**
 * The 10-item invoice with every business field (tax, payment, logo,
 * locale), a 45 KB logo, two tax rates and a QR code (the "all fields"
 * bench row).
 */
function full_featured_invoice(logo: Invoice["logo"]): Invoice {
  const base = german_vat_invoice();
  const items = base.items;
  return {
    ...base,
    items: Array.from({ length: 10 }, (_, i) => ({
      ...items[i % 2],
      description: `${items[i % 2].description} #${i + 1}`,
    })),
    logo,
  };
}

/** Every row of the renderer benchmark, seed first. */
export function render_cases(): RenderCase[] {
  const logo = noisy_png_logo(40_000);
  const logo_kb = Math.round(atob(logo.base64).length / 1000);
  return [
    {
      name: "seed",
      what: "10 items, Unicode (Polish, Greek, Cyrillic), no locale",
      invoice: parsed(seed_request()),
    },
    {
      name: "tax",
      single_feature: true,
      what: "tax breakdown: 19 %, 7 %, 0 %, a 5 % discount, shipping",
      invoice: parsed(tax_request()),
    },
    {
      name: "locale",
      single_feature: true,
      what: "de-DE labels and Intl formats, EUR",
      invoice: parsed({ ...seed_request(), locale: "de-DE", currency: "EUR" }),
    },
    {
      name: "logo",
      single_feature: true,
      what: `${logo_kb} KB PNG logo`,
      invoice: parsed({
        ...seed_request(),
        logo: `data:image/png;base64,${logo.base64}`,
      }),
    },
    {
      name: "qr",
      single_feature: true,
      what: "EUR with IBAN: payment block and EPC QR code",
      invoice: parsed({
        ...seed_request(),
        currency: "EUR",
        payment: {
          iban: "DE89 3704 0044 0532 0130 00",
          bic: "COBADEFFXXX",
        },
      }),
    },
    {
      name: "cjk",
      single_feature: true,
      what: "Japanese names, items and notes (script font, HarfBuzz)",
      invoice: script_bench_invoice("japanese"),
    },
    {
      name: "arabic",
      single_feature: true,
      what: "Arabic names, items and notes (bidi, shaping)",
      invoice: script_bench_invoice("arabic"),
    },
    {
      name: "all fields",
      what: `every business field (de-DE), ${logo_kb} KB logo, 2 rates, QR`,
      invoice: full_featured_invoice(logo),
    },
    {
      name: "factur-x",
      single_feature: true,
      what: "Factur-X: PDF/A-3 with CII XML; EUR, addresses, VAT IDs, 19 %",
      invoice: parsed(en16931_seed_request()),
      factur_x: true,
    },
    {
      name: "factur-x, all fields",
      what: "Factur-X of the German invoice: every party field, QR, 2 rates",
      invoice: german_factur_x_invoice(),
      factur_x: true,
    },
  ];
}
