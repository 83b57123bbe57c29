/**
 * What each e-invoice format needs from the request beyond a printable
 * invoice.
 *
 * The rules here are the receivers' (EN 16931 BR-*, XRechnung BR-DE-*,
 * Peppol BIS PEPPOL-EN16931-*): a request that lacks a field a format
 * needs is answered 400 listing every missing field with its business term,
 * never with an e-invoice the receiver would reject. Which rule sets apply
 * to a format is data of the format table (`formats.ts`).
 *
 * Plain code without schemas: the e-invoice writers load it without zod.
 *
 * @module
 */
import { REC20_UNIT_CODES } from "./rec20_units.ts";
import {
  PEPPOL_EAS_CODES,
  XRECHNUNG_ONLY_MIME_TYPE,
} from "./einvoice_codes.ts";
import { INVOICE_FORMAT_TABLE, type InvoiceFormat } from "./formats.ts";
import { vat_identifier } from "./tax.ts";
import { national_problems, peppol_id_problem } from "./peppol_rules.ts";

/** UNTDID 5305 VAT category codes used by EN 16931. */
type TaxCategory = "S" | "Z" | "E" | "AE" | "K" | "G" | "O";

interface PartyFields {
  name: string;
  email: string;
  city?: string;
  zip?: string;
  country?: string;
  tax_id?: string;
  company_id?: string;
  phone?: string;
  contact_name?: string;
  electronic_address?: { scheme: string; id: string };
  identifiers?: { scheme?: string; id: string }[];
  tax_number?: string;
  company_id_scheme?: string;
}

/**
 * The fields of the normalized invoice (contract/invoice_types.ts)
 * that decide whether a format can be written.
 */
export interface FormatCheckedInvoice {
  document_type?: string;
  currency?: string;
  has_tax: boolean;
  sender: PartyFields;
  bill_to: PartyFields;
  items: { tax_category?: TaxCategory; unit?: string }[];
  discounts?: { tax_category?: TaxCategory }[];
  charges?: { tax_category?: TaxCategory }[];
  delivery_date?: string;
  billing_period?: { start: string; end: string };
  buyer_reference?: string;
  purchase_order?: string;
  payment_terms?: string;
  payment?: {
    iban?: string;
    account_id?: string;
    means_code?: string;
    card?: unknown;
    direct_debit?: { creditor_id?: string; debtor_iban?: string };
    additional_accounts?: unknown[];
  };
  deliver_to?: { city?: string; zip?: string };
  tax_representative?: { vat_id: string };
  payee?: {
    identifier?: { scheme?: string; id: string };
    company_id?: string;
    company_id_scheme?: string;
  };
  attachments?: { mime_type?: string }[];
}

/** One missing or unusable field for a format. */
export interface FormatProblem {
  path: (string | number)[];
  message: string;
}

function categories_of(invoice: FormatCheckedInvoice): Set<TaxCategory> {
  const out = new Set<TaxCategory>();
  for (const item of invoice.items) {
    if (item.tax_category) out.add(item.tax_category);
  }
  for (const entry of [...invoice.discounts ?? [], ...invoice.charges ?? []]) {
    if (entry.tax_category) out.add(entry.tax_category);
  }
  return out;
}

function blank(value: string | undefined): boolean {
  return value === undefined || value.trim() === "";
}

let currencies: Set<string> | undefined;

/** Records that a field is required for the format, with its business term. */
type Need = (path: (string | number)[], term: string, why?: string) => void;

/**
 * Every field `format` needs that `invoice` lacks, with path and business
 * term; empty when the invoice can be written in that format.
 */
export function format_problems(
  invoice: FormatCheckedInvoice,
  format: InvoiceFormat,
): FormatProblem[] {
  const { rules } = INVOICE_FORMAT_TABLE[format];
  if (!rules.en16931) return [];
  const problems: FormatProblem[] = [];
  const need: Need = (path, term, why = "") => {
    problems.push({
      path,
      message: `is required for ${format} (${term})${why}`,
    });
  };
  const { sender, bill_to } = invoice;
  core_problems(invoice, format, need, problems);
  tax_category_problems(invoice, format, need, problems);
  if ((bill_to.identifiers ?? []).length > 1) {
    problems.push({
      path: ["bill_to", "identifiers"],
      message: `must have at most one entry for ${format} (BT-46)`,
    });
  }
  payment_problems(invoice, format, problems);

  if (rules.electronic_addresses) {
    if (sender.electronic_address === undefined) {
      need(["sender", "electronic_address"], "BT-34");
    }
    if (bill_to.electronic_address === undefined) {
      need(["bill_to", "electronic_address"], "BT-49");
    }
  }
  if (rules.peppol) peppol_problems(invoice, problems);
  // Peppol applies XRechnung's rules between German parties (DE-R-*).
  const german_peppol = rules.peppol && sender.country === "DE" &&
    bill_to.country === "DE";
  if (!rules.xml_attachments) attachment_problems(invoice, format, problems);
  if (rules.xrechnung || german_peppol) {
    xrechnung_problems(invoice, format, need, problems);
  }
  return problems;
}

/** Currency, VAT categories, the parties' countries and the line units. */
function core_problems(
  invoice: FormatCheckedInvoice,
  format: InvoiceFormat,
  need: Need,
  problems: FormatProblem[],
): void {
  if (blank(invoice.currency)) need(["currency"], "BT-5");
  else {
    currencies ??= new Set(Intl.supportedValuesOf("currency"));
    if (!currencies.has(invoice.currency!)) {
      problems.push({
        path: ["currency"],
        message: `must be an ISO 4217 currency code for ${format} (BT-5)`,
      });
    }
  }
  if (!invoice.has_tax) {
    need(
      ["tax_category"],
      "BT-151",
      ": every e-invoice line carries a VAT category; give `tax_category` and `tax_rate` on the invoice or on each item",
    );
  }
  if (blank(invoice.sender.country)) need(["sender", "country"], "BT-40");
  if (blank(invoice.bill_to.country)) need(["bill_to", "country"], "BT-55");

  invoice.items.forEach((item, index) => {
    if (item.unit !== undefined && !REC20_UNIT_CODES.has(item.unit)) {
      problems.push({
        path: ["items", index, "unit"],
        message:
          `must be a UN/ECE Recommendation 20 unit code for ${format} (BT-130), e.g. C62, HUR, DAY, KGM`,
      });
    }
  });
}

/**
 * What the VAT categories used ask for: O alone, the seller's tax
 * identity, and a delivery date for intra-community supplies.
 */
function tax_category_problems(
  invoice: FormatCheckedInvoice,
  format: InvoiceFormat,
  need: Need,
  problems: FormatProblem[],
): void {
  const categories = categories_of(invoice);
  const outside_scope = categories.has("O");
  if (outside_scope && categories.size > 1) {
    problems.push({
      path: ["tax_category"],
      message:
        `O (not subject to VAT) cannot be combined with other categories in ${format} (BR-O-11)`,
    });
  }
  seller_tax_problems(invoice, format, categories, problems);
  if (
    categories.has("K") && invoice.delivery_date === undefined &&
    invoice.billing_period === undefined
  ) {
    need(
      ["delivery_date"],
      "BT-72",
      ", or billing_period (BG-14): intra-community supplies state when they were delivered",
    );
  }
}

/** Only XRechnung accepts XML attachments (BR-CL-24). */
function attachment_problems(
  invoice: FormatCheckedInvoice,
  format: InvoiceFormat,
  problems: FormatProblem[],
): void {
  (invoice.attachments ?? []).forEach((attachment, index) => {
    if (attachment.mime_type === XRECHNUNG_ONLY_MIME_TYPE) {
      problems.push({
        path: ["attachments", index, "mime_type"],
        message:
          `must not be ${XRECHNUNG_ONLY_MIME_TYPE} for ${format}: only XRechnung accepts XML attachments (BR-CL-24)`,
      });
    }
  });
}

/**
 * Who the seller is for tax (BR-CO-26, BR-S-02 … BR-G-02, BR-O-02): taxed
 * lines need the seller's VAT id, tax number or tax representative; reverse
 * charge, intra-community supply and export a VAT id; "not subject to VAT"
 * none, but an identifier or legal registration number.
 */
function seller_tax_problems(
  invoice: FormatCheckedInvoice,
  format: InvoiceFormat,
  categories: Set<TaxCategory>,
  problems: FormatProblem[],
): void {
  const { sender, bill_to } = invoice;
  const need = (path: string[], message: string) =>
    problems.push({ path, message: `is required for ${format} ${message}` });
  const must_be_vat = (path: string[], term: string) =>
    problems.push({
      path,
      message:
        `must be a VAT identifier starting with its country code for ${format} (${term})`,
    });
  const seller_vat = !blank(sender.tax_id) && vat_identifier(sender.tax_id!);
  const representative = invoice.tax_representative !== undefined;
  const identified = !blank(sender.company_id) ||
    (sender.identifiers ?? []).length > 0;
  if (categories.has("O")) {
    // O with other categories is refused as such (BR-O-11).
    if (categories.size > 1) return;
    if (representative) {
      problems.push({
        path: ["tax_representative"],
        message:
          `must not be given for ${format} when a line is not subject to VAT (O) (BR-O-02)`,
      });
    }
    if (!identified) {
      need(
        ["sender", "company_id"],
        "(BT-30), or sender.identifiers (BT-29): invoices not subject to VAT carry no VAT identifier, so another seller identifier (BR-CO-26)",
      );
    }
    return;
  }
  const vat_needed = (["AE", "K", "G"] as TaxCategory[]).filter((c) =>
    categories.has(c)
  );
  const taxed = [...categories];
  const vat_message = (list: TaxCategory[], alternatives: string) =>
    `(BT-31): lines in category ${
      list.join(", ")
    } need the seller's VAT identifier${alternatives}`;
  let flagged = true;
  if (
    taxed.length > 0 && blank(sender.tax_id) && blank(sender.tax_number) &&
    !representative
  ) {
    need(
      ["sender", "tax_id"],
      vat_message(
        taxed,
        vat_needed.length > 0 ? "" : " (or sender.tax_number, BT-32)",
      ),
    );
  } else if (vat_needed.length > 0 && !seller_vat && !representative) {
    if (blank(sender.tax_id)) {
      need(["sender", "tax_id"], vat_message(vat_needed, ""));
    } else must_be_vat(["sender", "tax_id"], "BT-31");
  } else if (taxed.length === 0 && blank(sender.tax_id) && !identified) {
    need(["sender", "tax_id"], "(BT-31), or sender.company_id (BT-30)");
  } else flagged = false;
  if (!flagged && !seller_vat && !identified) {
    need(
      ["sender", "company_id"],
      "(BT-30), or sender.identifiers (BT-29), or a VAT identifier in sender.tax_id (BT-31): the seller must be identified (BR-CO-26)",
    );
  }
  if (categories.has("AE") || categories.has("K")) {
    if (blank(bill_to.tax_id)) {
      need(
        ["bill_to", "tax_id"],
        "(BT-48): reverse charge and intra-community supply need the buyer's VAT identifier",
      );
    } else if (!vat_identifier(bill_to.tax_id!)) {
      must_be_vat(["bill_to", "tax_id"], "BT-48");
    }
  }
}

/**
 * The payment means code (BT-81) an e-invoice states: the request's
 * `means_code`; else 58 (SEPA credit transfer) for an EUR IBAN, 30 (credit
 * transfer) for other accounts, 48 (bank card) for a card, 59 (SEPA direct
 * debit) in EUR or 49 for a direct debit; none without payment details.
 */
export function payment_means_code(
  invoice: Pick<FormatCheckedInvoice, "currency" | "payment">,
): string | undefined {
  const payment = invoice.payment;
  if (payment === undefined) return undefined;
  if (payment.means_code !== undefined) return payment.means_code;
  if (payment.iban !== undefined) {
    return invoice.currency === "EUR" ? "58" : "30";
  }
  if (
    payment.account_id !== undefined ||
    (payment.additional_accounts ?? []).length > 0
  ) {
    return "30";
  }
  if (payment.card !== undefined) return "48";
  if (payment.direct_debit !== undefined) {
    return invoice.currency === "EUR" ? "59" : "49";
  }
  return undefined;
}

const CREDIT_TRANSFER_CODES = ["30", "58"];
const CARD_CODES = ["48", "54", "55"];
const DIRECT_DEBIT_CODES = ["49", "59"];

/** A payment means code needs what it names (BR-61, BR-DE-23 … BR-DE-25). */
function payment_problems(
  invoice: FormatCheckedInvoice,
  format: InvoiceFormat,
  problems: FormatProblem[],
): void {
  const payment = invoice.payment;
  const code = payment?.means_code;
  if (payment === undefined || code === undefined) return;
  const missing = CREDIT_TRANSFER_CODES.includes(code) &&
      payment.iban === undefined && payment.account_id === undefined
    ? ["payment.iban or payment.account_id", "BT-84"]
    : CARD_CODES.includes(code) && payment.card === undefined
    ? ["payment.card", "BG-18"]
    : DIRECT_DEBIT_CODES.includes(code) && payment.direct_debit === undefined
    ? ["payment.direct_debit", "BG-19"]
    : undefined;
  if (missing) {
    problems.push({
      path: ["payment", "means_code"],
      message: `is ${code}, which needs ${missing[0]} for ${format} (${
        missing[1]
      })`,
    });
  }
}

/** Peppol BIS Billing 3.0 rules on our fields. */
function peppol_problems(
  invoice: FormatCheckedInvoice,
  problems: FormatProblem[],
): void {
  if (invoice.document_type === "self_billed_invoice") {
    problems.push({
      path: ["document_type"],
      message:
        "must not be self_billed_invoice for ubl: Peppol BIS Billing has no self-billed invoices (PEPPOL-EN16931-P0100)",
    });
  }
  if (blank(invoice.buyer_reference) && blank(invoice.purchase_order)) {
    problems.push({
      path: ["buyer_reference"],
      message: "is required for ubl (BT-10), or purchase_order (BT-13)",
    });
  }
  const ids: [(string | number)[], string | undefined, string | undefined][] =
    [];
  for (const party of ["sender", "bill_to"] as const) {
    const p = invoice[party];
    (p.identifiers ?? []).forEach((id, index) =>
      ids.push([[party, "identifiers", index, "id"], id.scheme, id.id])
    );
    ids.push([[party, "company_id"], p.company_id_scheme, p.company_id]);
    ids.push([
      [party, "electronic_address", "id"],
      p.electronic_address?.scheme,
      p.electronic_address?.id,
    ]);
  }
  const payee = invoice.payee;
  ids.push([
    ["payee", "identifier", "id"],
    payee?.identifier?.scheme,
    payee?.identifier?.id,
  ]);
  ids.push([
    ["payee", "company_id"],
    payee?.company_id_scheme,
    payee?.company_id,
  ]);
  for (const [path, scheme, id] of ids) {
    const problem = id === undefined
      ? undefined
      : peppol_id_problem(scheme, id);
    if (problem) {
      problems.push({ path, message: `${problem} for ubl (PEPPOL-COMMON)` });
    }
  }
  for (
    const problem of national_problems(
      invoice.sender,
      invoice.bill_to,
      payment_means_code(invoice),
    )
  ) {
    problems.push({
      path: problem.path,
      message: `${problem.message} for ubl`,
    });
  }
  for (const party of ["sender", "bill_to"] as const) {
    const address = invoice[party].electronic_address;
    if (address !== undefined && !PEPPOL_EAS_CODES.has(address.scheme)) {
      problems.push({
        path: [party, "electronic_address", "scheme"],
        message: `must be a scheme Peppol accepts for ubl (BT-${
          party === "sender" ? 34 : 49
        }, PEPPOL-EN16931-CL008), e.g. 0088 (GLN), 0192, 9930 (German VAT id); not ${address.scheme}`,
      });
    }
  }
}

const SKONTO_LINE =
  /^#SKONTO#TAGE=[0-9]+#PROZENT=[0-9]+\.[0-9]{2}(#BASISBETRAG=-?[0-9]+\.[0-9]{2})?#$/;

/** XRechnung's own rules (BR-DE-*) on our fields. */
function xrechnung_problems(
  invoice: FormatCheckedInvoice,
  format: InvoiceFormat,
  need: Need,
  problems: FormatProblem[],
): void {
  const { sender, bill_to } = invoice;
  const peppol = INVOICE_FORMAT_TABLE[format].rules.peppol;
  if (blank(invoice.buyer_reference)) {
    need(
      ["buyer_reference"],
      "BT-10",
      peppol
        ? ": Peppol requires it between German parties (DE-R-015)"
        : ": the Leitweg-ID of public buyers",
    );
  }
  if (blank(sender.contact_name)) need(["sender", "contact_name"], "BT-41");
  if (blank(sender.phone)) need(["sender", "phone"], "BT-42");
  if (blank(sender.city)) need(["sender", "city"], "BT-37");
  if (blank(sender.zip)) need(["sender", "zip"], "BT-38");
  if (blank(bill_to.city)) need(["bill_to", "city"], "BT-52");
  if (blank(bill_to.zip)) need(["bill_to", "zip"], "BT-53");
  const payment = invoice.payment;
  if (
    blank(payment?.iban) && blank(payment?.account_id) &&
    payment?.card === undefined && payment?.direct_debit === undefined &&
    blank(payment?.means_code)
  ) {
    need(
      ["payment", "iban"],
      "BT-84",
      `, or payment.account_id, card, direct_debit or means_code: ${
        peppol ? "between German parties Peppol" : "XRechnung"
      } requires payment instructions (BG-16)`,
    );
  }
  const kinds = [
    [
      "iban or account_id",
      !blank(payment?.iban) || !blank(payment?.account_id) ||
      (payment?.additional_accounts ?? []).length > 0,
    ],
    ["card", payment?.card !== undefined],
    ["direct_debit", payment?.direct_debit !== undefined],
  ].filter(([, given]) => given).map(([name]) => name);
  if (kinds.length > 1 && !peppol) {
    problems.push({
      path: ["payment"],
      message: `may give only one of ${
        kinds.join(", ")
      } for ${format}: XRechnung takes one kind of payment instructions (BR-DE-23, BR-DE-24, BR-DE-25)`,
    });
  }
  if (payment?.direct_debit !== undefined) {
    if (blank(payment.direct_debit.creditor_id)) {
      need(["payment", "direct_debit", "creditor_id"], "BT-90", " (BR-DE-30)");
    }
    if (blank(payment.direct_debit.debtor_iban)) {
      need(["payment", "direct_debit", "debtor_iban"], "BT-91", " (BR-DE-31)");
    }
  }
  if (invoice.deliver_to !== undefined) {
    if (blank(invoice.deliver_to.city)) {
      need(["deliver_to", "city"], "BT-77");
    }
    if (blank(invoice.deliver_to.zip)) need(["deliver_to", "zip"], "BT-78");
  }
  const coded = (invoice.payment_terms ?? "").split(/\r?\n/)
    .map((line) => line.trim()).filter((line) => line.startsWith("#"));
  if (coded.some((line) => !SKONTO_LINE.test(line))) {
    problems.push({
      path: ["payment_terms"],
      message:
        `must not have lines starting with # other than #SKONTO#TAGE=n#PROZENT=n.nn# lines for ${format} (BR-DE-18)`,
    });
  }
}
