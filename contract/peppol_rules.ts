/**
 * Peppol BIS Billing 3.0 rules on fields of our request that the EN 16931
 * rules do not check: check digits of identifiers by scheme
 * (PEPPOL-COMMON-R040 … R050) and the national rules of Denmark, Norway and
 * the Netherlands that concern the seller's own data. A `ubl` request that
 * breaks one is a 400 naming the field, never a document Peppol refuses.
 *
 * @module
 */

/** GS1 mod-10 check digit over all digits (GLN, GTIN). */
function gs1(id: string): boolean {
  if (!/^\d{8,14}$/.test(id)) return false;
  const digits = [...id].map(Number);
  const check = digits.pop()!;
  const sum = digits.reverse().reduce(
    (total, digit, i) => total + digit * (i % 2 === 0 ? 3 : 1),
    0,
  );
  return (10 - (sum % 10)) % 10 === check;
}

/** Norwegian organization number: 9 digits, mod 11 with weights 2..7. */
export function norwegian_organization_number(id: string): boolean {
  if (!/^\d{9}$/.test(id) || Number(id) === 0) return false;
  const digits = [...id].map(Number);
  const check = digits.pop()!;
  const sum = digits.reverse().reduce(
    (total, digit, i) => total + digit * ((i % 6) + 2),
    0,
  );
  return (11 - (sum % 11)) % 11 === check;
}

/** Belgian enterprise number: 10 digits, the last two 97 − first eight mod 97. */
function belgian_enterprise_number(id: string): boolean {
  return /^\d{10}$/.test(id) &&
    97 - (Number(id.slice(0, 8)) % 97) === Number(id.slice(8));
}

/** Swedish organization number: 10 digits, Luhn check digit. */
function swedish_organization_number(id: string): boolean {
  if (!/^\d{10}$/.test(id)) return false;
  const sum = [...id.slice(0, 9)].map(Number).reduce((total, digit, i) => {
    const value = i % 2 === 0 ? digit * 2 : digit;
    return total + (value > 9 ? value - 9 : value);
  }, 0);
  return (10 - (sum % 10)) % 10 === Number(id[9]);
}

/** Australian Business Number: 11 digits, weighted mod 89. */
function australian_business_number(id: string): boolean {
  if (!/^\d{11}$/.test(id)) return false;
  const weights = [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19];
  const digits = [...id].map(Number);
  digits[0] -= 1;
  return digits.reduce((sum, digit, i) => sum + digit * weights[i], 0) % 89 ===
    0;
}

/** Identifier schemes Peppol checks, with the check and what it expects. */
const CHECKED_SCHEMES: Record<string, [(id: string) => boolean, string]> = {
  "0088": [gs1, "a GLN: 13 digits with a valid check digit"],
  "0192": [
    norwegian_organization_number,
    "a Norwegian organization number: 9 digits, mod-11 check digit",
  ],
  "0184": [
    (id) => /^(DK)?\d{8}$/.test(id),
    "a Danish CVR number: 8 digits, optionally after DK",
  ],
  "0208": [
    belgian_enterprise_number,
    "a Belgian enterprise number: 10 digits, the last two a mod-97 check",
  ],
  "0007": [
    swedish_organization_number,
    "a Swedish organization number: 10 digits, Luhn check digit",
  ],
  "0151": [
    australian_business_number,
    "an Australian Business Number: 11 digits, mod-89 check",
  ],
};

/** Why `id` is not an identifier of `scheme` as Peppol checks it, or undefined. */
export function peppol_id_problem(
  scheme: string | undefined,
  id: string,
): string | undefined {
  const checked = scheme === undefined ? undefined : CHECKED_SCHEMES[scheme];
  if (checked === undefined || checked[0](id)) return undefined;
  return `must be ${checked[1]} (scheme ${scheme})`;
}

/** The fields of a request the national rules read. */
export interface PeppolCheckedParty {
  country?: string;
  tax_id?: string;
  company_id?: string;
  company_id_scheme?: string;
}

/** A national rule's problem: field path and message (without format). */
export interface NationalProblem {
  path: (string | number)[];
  message: string;
}

const DANISH_MEANS = [
  "1",
  "10",
  "31",
  "42",
  "48",
  "49",
  "50",
  "58",
  "59",
  "93",
  "97",
];
const DUTCH_MEANS = ["30", "48", "49", "57", "58", "59"];

/**
 * The national Peppol rules on the seller's data and the payment means
 * code: Denmark (DK-R-002, DK-R-005, DK-R-014), Norway (NO-R-001) and the
 * Netherlands (NL-R-003, NL-R-008).
 */
export function national_problems(
  sender: PeppolCheckedParty,
  bill_to: PeppolCheckedParty,
  means_code: string | undefined,
): NationalProblem[] {
  const problems: NationalProblem[] = [];
  const domestic = (country: string) =>
    sender.country === country && bill_to.country === country;
  if (sender.country === "DK") {
    if (!sender.company_id) {
      problems.push({
        path: ["sender", "company_id"],
        message:
          "is required when the seller is Danish: its CVR number (DK-R-002)",
      });
    } else if (sender.company_id_scheme !== "0184") {
      problems.push({
        path: ["sender", "company_id_scheme"],
        message:
          "must be 0184 (Danish CVR number) when the seller is Danish (DK-R-014)",
      });
    }
  }
  if (domestic("DK") && means_code && !DANISH_MEANS.includes(means_code)) {
    problems.push({
      path: ["payment", "means_code"],
      message: `must be one of ${
        DANISH_MEANS.join(", ")
      } between Danish parties (DK-R-005)`,
    });
  }
  const vat = sender.tax_id?.replace(/[\s.-]+/g, "").toUpperCase();
  if (
    sender.country === "NO" && vat?.startsWith("NO") &&
    !(/^NO\d{9}MVA$/.test(vat) &&
      norwegian_organization_number(vat.slice(2, 11)))
  ) {
    problems.push({
      path: ["sender", "tax_id"],
      message:
        "must be NO, a valid 9-digit organization number and MVA when the seller is Norwegian (NO-R-001)",
    });
  }
  if (
    sender.country === "NL" && sender.company_id &&
    !["0106", "0190"].includes(sender.company_id_scheme ?? "")
  ) {
    problems.push({
      path: ["sender", "company_id_scheme"],
      message:
        "must be 0106 (KVK) or 0190 (OIN) when the seller is Dutch (NL-R-003)",
    });
  }
  if (domestic("NL") && means_code && !DUTCH_MEANS.includes(means_code)) {
    problems.push({
      path: ["payment", "means_code"],
      message: `must be one of ${
        DUTCH_MEANS.join(", ")
      } between Dutch parties (NL-R-008)`,
    });
  }
  return problems;
}
