/**
 * The parties of an invoice request: seller (`sender`), buyer (`bill_to`),
 * where the goods go (`deliver_to`), who is paid (`payee`) and the seller's
 * tax representative.
 *
 * @module
 */
import { z } from "zod";
import { ElectronicAddressSchema } from "./einvoice.ts";
import {
  address,
  bounded_list,
  country,
  einvoice_country,
  email,
  icd_scheme,
  INVOICE_LIMITS,
  optional_text,
  required_text,
  scheme_identifier,
} from "./invoice_fields.ts";

/** A party (sender or billed party). */
export const PartySchema = z.strictObject({
  name: required_text(INVOICE_LIMITS.name, "Business or personal name."),
  email: email.describe("Contact e-mail address."),
  address: address.optional(),
  city: optional_text(INVOICE_LIMITS.city, "City."),
  state: optional_text(INVOICE_LIMITS.state, "State, province or region."),
  zip: optional_text(INVOICE_LIMITS.zip, "Postal code."),
  country: country.optional().describe(
    "ISO 3166-1 alpha-2 country code, e.g. DE (BT-40 / BT-55).",
  ),
  tax_id: optional_text(
    INVOICE_LIMITS.tax_id,
    "VAT, GST or sales-tax registration, e.g. DE123456789 (BT-31 / BT-48); " +
      'a VAT id may contain spaces, dots or dashes ("DE 123 456 789").',
  ),
  company_id: optional_text(
    INVOICE_LIMITS.company_id,
    "Legal registration number, e.g. HRB 12345 (BT-30 / BT-47).",
  ),
  company_id_scheme: icd_scheme.optional().describe(
    "ISO/IEC 6523 ICD scheme of `company_id`, e.g. 0184 (Danish CVR) (BT-30-1 / BT-47-1).",
  ),
  phone: z.string().trim().max(40, "must be at most 40 characters").regex(
    // deno-lint-ignore no-control-regex
    /^(?:[^0-9\u0000-\u001f]*[0-9]){3}[^\u0000-\u001f]*$/,
    "must be a phone number with at least 3 digits",
  ).optional().describe("Phone number (contact BT-42 / BT-57 in e-invoices)."),
  contact_name: optional_text(
    INVOICE_LIMITS.name,
    "Contact person (seller contact BT-41 / buyer contact BT-56 in e-invoices).",
  ),
  electronic_address: ElectronicAddressSchema.optional().describe(
    "Electronic address where the party receives e-invoices (BT-34 / BT-49).",
  ),
  trading_name: optional_text(
    INVOICE_LIMITS.name,
    "Name the party trades under, when it differs from `name` (BT-28 / BT-45).",
  ),
  identifiers: bounded_list(
    scheme_identifier("An identifier of the party, e.g. a GLN."),
    INVOICE_LIMITS.list_entries,
    "Identifiers of the party `{scheme?, id}` (seller BT-29, buyer BT-46; " +
      "the buyer has at most one in e-invoices).",
  ),
}).meta({ id: "Party" });

/** The seller: a party with its tax number and legal information. */
export const SenderSchema = PartySchema.extend({
  tax_number: optional_text(
    INVOICE_LIMITS.tax_id,
    "The seller's local tax number beside the VAT id, e.g. a German Steuernummer (BT-32).",
  ),
  legal_info: optional_text(
    INVOICE_LIMITS.legal_info,
    "The seller's additional legal information: register court and number, " +
      "directors, share capital (BT-33). Printed small in the footer of every " +
      `page: at most ${INVOICE_LIMITS.legal_info_lines} lines and ` +
      `${INVOICE_LIMITS.legal_info} characters.`,
  ).refine(
    (value) =>
      value === undefined ||
      value.split("\n").length <= INVOICE_LIMITS.legal_info_lines,
    `must be at most ${INVOICE_LIMITS.legal_info_lines} lines (it is printed in the page footer)`,
  ),
}).meta({ id: "Sender" });

/** Where the goods or services are delivered (BG-13, BG-15). */
export const DeliverToSchema = z.strictObject({
  name: optional_text(INVOICE_LIMITS.name, "Deliver-to party name (BT-70)."),
  address: address.optional(),
  city: optional_text(INVOICE_LIMITS.city, "City (BT-77)."),
  zip: optional_text(INVOICE_LIMITS.zip, "Postal code (BT-78)."),
  state: optional_text(INVOICE_LIMITS.state, "Region (BT-79)."),
  country: einvoice_country.describe(
    "ISO 3166-1 alpha-2 country code (BT-80).",
  ),
  location_id: scheme_identifier(
    "Deliver-to location `{scheme?, id}`, e.g. a GLN (BT-71).",
  ).optional(),
}).meta({ id: "DeliverTo" });

/** The party paid, when it is not the seller (BG-10). */
export const PayeeSchema = z.strictObject({
  name: required_text(INVOICE_LIMITS.name, "Payee name (BT-59)."),
  identifier: scheme_identifier("Payee identifier `{scheme?, id}` (BT-60).")
    .optional(),
  company_id: optional_text(
    INVOICE_LIMITS.company_id,
    "Payee legal registration number (BT-61).",
  ),
  company_id_scheme: icd_scheme.optional().describe(
    "ISO/IEC 6523 ICD scheme of `company_id` (BT-61-1).",
  ),
}).meta({ id: "Payee" });

/** The seller's tax representative (BG-11, BG-12). */
export const TaxRepresentativeSchema = z.strictObject({
  name: required_text(INVOICE_LIMITS.name, "Tax representative name (BT-62)."),
  vat_id: required_text(
    INVOICE_LIMITS.tax_id,
    "Tax representative VAT identifier with country prefix (BT-63).",
  ),
  address: address.optional(),
  city: optional_text(INVOICE_LIMITS.city, "City (BT-66)."),
  zip: optional_text(INVOICE_LIMITS.zip, "Postal code (BT-67)."),
  state: optional_text(INVOICE_LIMITS.state, "Region (BT-68)."),
  country: einvoice_country.describe(
    "ISO 3166-1 alpha-2 country code (BT-69).",
  ),
}).meta({ id: "TaxRepresentative" });
