/**
 * What a request needs beyond the official example to be written in a
 * format: XRechnung and Peppol ask for fields an EN 16931 example may lack
 * (a Leitweg-ID, electronic addresses, a seller contact, payment
 * instructions). The service answers 400 naming each (`format_problems`);
 * this fills exactly those fields with fixed sample values, so each example
 * can be written in every format and nothing else changes.
 *
 * @module
 */
import {
  format_problems,
  type InvoiceFormat,
  InvoiceRequestSchema,
} from "../../contract/mod.ts";
import type { Request } from "./request_parts.ts";

/** Sample values for fields a format needs. */
const FILLS: [RegExp, (request: Request, path: string[]) => void][] = [
  [/^buyer_reference$/, (r) => r.buyer_reference = "04011000-12345-03"],
  [/^(sender|bill_to)\.electronic_address/, (r, [party]) => {
    // GLNs with valid check digits: a scheme every rule set accepts.
    r[party].electronic_address = {
      scheme: "0088",
      id: party === "sender" ? "4000001000005" : "4000002000004",
    };
  }],
  [/^sender\.contact_name$/, (r) => r.sender.contact_name = "Accounts"],
  [/^sender\.phone$/, (r) => r.sender.phone = "+49 30 1234567"],
  [/^(sender|bill_to|deliver_to)\.city$/, (r, [p]) => r[p].city = "Berlin"],
  [/^(sender|bill_to|deliver_to)\.zip$/, (r, [p]) => r[p].zip = "10115"],
  [/^payment\.iban$/, (r) => r.payment = { ...r.payment, means_code: "ZZZ" }],
  [/^payment\.direct_debit\.creditor_id$/, (r) => {
    if (r.payment.direct_debit) {
      r.payment.direct_debit.creditor_id = "DE98ZZZ09999999999";
    }
  }],
  [/^payment\.direct_debit\.debtor_iban$/, (r) => {
    if (r.payment.direct_debit) {
      r.payment.direct_debit.debtor_iban = "DE89370400440532013000";
    }
  }],
  // Peppol BIS Billing has no self-billing: the invoice goes as an invoice.
  [/^document_type$/, (r) => delete r.document_type],
  // Peppol's national rules on the seller (DK-R-002, DK-R-014, NL-R-003).
  [/^sender\.company_id$/, (r) => {
    if (r.sender.company_id === undefined) {
      r.sender.company_id = "12345674";
      r.sender.company_id_scheme = "0184";
    } else delete r.sender.company_id_scheme;
  }],
  [
    /^sender\.company_id_scheme$/,
    (r) =>
      r.sender.company_id_scheme = r.sender.country === "NL" ? "0106" : "0184",
  ],
  [/^bill_to\.company_id$/, (r) => delete r.bill_to.company_id_scheme],
  [/^payee\.company_id$/, (r) => delete r.payee.company_id_scheme],
  // Peppol: a Norwegian VAT id is NO, an organization number and MVA (NO-R-001).
  [/^sender\.tax_id$/, (r) => r.sender.tax_id = "NO974760673MVA"],
  // Peppol's national lists of payment means (DK-R-005, NL-R-008).
  [
    /^payment\.means_code$/,
    (r) => r.payment.means_code = r.sender.country === "NL" ? "30" : "1",
  ],
  // Peppol checks GLN check digits: a placeholder GLN loses its scheme.
  [
    /^(sender|bill_to)\.identifiers\.(\d+)\.id$/,
    (r, [party, , index]) => delete r[party].identifiers[Number(index)].scheme,
  ],
  [/^payee\.identifier\.id$/, (r) => delete r.payee.identifier.scheme],
  // XRechnung takes one kind of payment: a direct debit beside accounts goes.
  [/^payment$/, (r) => delete r.payment.direct_debit],
  [
    /^attachments\.(\d+)\.mime_type$/,
    (r, [, index]) => r.attachments[Number(index)].drop = true,
  ],
];

/** The request as written in `format`, and the fields added for it. */
export function fill_for_format(
  request: Request,
  format: InvoiceFormat,
): { request: Request; added: string[] } {
  const out: Request = structuredClone(request);
  const added: string[] = [];
  for (let round = 0; round < 3; round++) {
    const invoice = InvoiceRequestSchema.parse(out);
    const problems = format_problems(invoice, format);
    if (problems.length === 0) break;
    for (const problem of problems) {
      const path = problem.path.map(String);
      const key = path.join(".");
      const fill = FILLS.find(([pattern]) => pattern.test(key));
      if (!fill) {
        throw new Error(`no sample value for ${key}: ${problem.message}`);
      }
      fill[1](out, path);
      added.push(key);
    }
    if (out.attachments) {
      out.attachments = out.attachments.filter((a: Request) => !a.drop);
    }
  }
  return { request: out, added };
}
