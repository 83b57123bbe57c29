/**
 * The request fields of the e-invoice formats: the field `format` and a
 * party's electronic address. The formats themselves are the table in
 * `formats.ts`; what each needs is `format_rules.ts`.
 *
 * @module
 */
import { z } from "zod";
import { issue_check, type IssueSink } from "./zod_checks.ts";
import { invoice_format_description, INVOICE_FORMATS } from "./formats.ts";

/** The request field `format`. */
export const InvoiceFormatSchema = z.enum(INVOICE_FORMATS).describe(
  invoice_format_description(),
);

/**
 * Electronic address schemes (CEF EAS code list, as the EN 16931 rule
 * BR-CL-25 of validation artefacts 1.3.16 accepts them).
 */
export const EAS_CODES = [
  "0002",
  "0007",
  "0009",
  "0037",
  "0060",
  "0088",
  "0096",
  "0097",
  "0106",
  "0130",
  "0135",
  "0142",
  "0147",
  "0151",
  "0154",
  "0158",
  "0170",
  "0177",
  "0183",
  "0184",
  "0188",
  "0190",
  "0191",
  "0192",
  "0193",
  "0194",
  "0195",
  "0196",
  "0198",
  "0199",
  "0200",
  "0201",
  "0202",
  "0203",
  "0204",
  "0205",
  "0208",
  "0209",
  "0210",
  "0211",
  "0212",
  "0213",
  "0215",
  "0216",
  "0217",
  "0218",
  "0219",
  "0220",
  "0221",
  "0225",
  "0230",
  "0235",
  "0240",
  "0242",
  "0244",
  "0245",
  "0246",
  "0248",
  "9910",
  "9913",
  "9914",
  "9915",
  "9918",
  "9919",
  "9920",
  "9922",
  "9923",
  "9924",
  "9925",
  "9926",
  "9927",
  "9928",
  "9929",
  "9930",
  "9931",
  "9932",
  "9933",
  "9934",
  "9935",
  "9936",
  "9937",
  "9938",
  "9939",
  "9940",
  "9941",
  "9942",
  "9943",
  "9944",
  "9945",
  "9946",
  "9947",
  "9948",
  "9949",
  "9950",
  "9951",
  "9952",
  "9953",
  "9957",
  "9959",
  "AN",
  "AQ",
  "AS",
  "AU",
  "EM",
] as const; // deno-fmt-ignore

/** A party's electronic address (BT-34 seller, BT-49 buyer). */
export const ElectronicAddressSchema = z.strictObject({
  scheme: z.enum(EAS_CODES, {
    error:
      "must be a CEF EAS code such as 0088 (GLN), 0204 (Leitweg-ID), 9930 (German VAT id) or EM (e-mail)",
  }).describe("CEF EAS scheme code, e.g. `0088` (GLN), `0204` (Leitweg-ID), `EM` (e-mail)."),
  id: z.string().trim().min(1, "must not be empty").max(
    254,
    "must be at most 254 characters",
  ).describe("The address within the scheme, e.g. a GLN or an e-mail address."),
}).check(issue_check(check_electronic_address)).meta({
  id: "ElectronicAddress",
});

/** Why `id` is not an identifier of `scheme` with valid check digits, if it is not. */
function checked_id_problem(scheme: string, id: string): string | undefined {
  return scheme === "0088" && !is_gln(id)
    ? "must be a GLN: 13 digits with a valid check digit (scheme 0088)"
    : scheme === "0208" && !is_belgian_enterprise_number(id)
    ? "must be a Belgian enterprise number: 10 digits, the last two a mod-97 check (scheme 0208)"
    : undefined;
}

function check_electronic_address(
  address: { scheme: string; id: string },
  sink: IssueSink,
): void {
  // Check digits that Peppol verifies (PEPPOL-COMMON-R040, -R043).
  const problem = checked_id_problem(address.scheme, address.id);
  if (problem) sink.addIssue({ path: ["id"], message: problem });
}

/** A GS1 Global Location Number (13 digits, mod-10 check digit). */
function is_gln(id: string): boolean {
  if (!/^\d{13}$/.test(id)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(id[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(id[12]);
}

/** A Belgian enterprise number (10 digits; 97 − first eight mod 97 = last two). */
function is_belgian_enterprise_number(id: string): boolean {
  if (!/^[01]\d{9}$/.test(id)) return false;
  return 97 - (Number(id.slice(0, 8)) % 97) === Number(id.slice(8));
}
