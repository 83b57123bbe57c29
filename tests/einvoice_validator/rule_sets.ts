/**
 * The rule sets the validator knows, one row each: the XML Schema a document
 * must satisfy and the official Schematron (compiled to XSLT, run from its
 * SEF) whose failed asserts are reported. Names are the validation kit's;
 * `peppol` (Peppol BIS Billing 3.0) is one the kit lacks.
 * The artefacts live in `tests/fixtures/einvoice_rules/` (see its README).
 *
 * @module
 */

/** A rule set's name. */
export type RuleSetName =
  | "cii"
  | "facturx"
  | "ubl"
  | "xr-cii"
  | "xr-ubl"
  | "peppol";

/** The XML Schema of a rule set: one file, or the UBL pair picked by root. */
export type SchemaChoice =
  | { readonly kind: "file"; readonly folder: string; readonly file: string }
  | {
    readonly kind: "ubl";
    readonly folder: string;
    readonly invoice: string;
    readonly credit_note: string;
  };

/** One rule set. */
export interface RuleSet {
  readonly name: RuleSetName;
  /** What the report calls the rules, e.g. "EN16931-CII". */
  readonly label: string;
  /** Schema validated before the rules; absent for CIUS rule sets. */
  readonly schema?: SchemaChoice;
  /** The Schematron XSLT, relative to the rules folder. */
  readonly xslt: string;
}

/** The folder of the official artefacts. */
export const RULES_DIR = new URL(
  "../fixtures/einvoice_rules/",
  import.meta.url,
);

/** Every rule set, in the order a report lists them. */
export const RULE_SETS: readonly RuleSet[] = [
  {
    name: "cii",
    label: "EN16931-CII",
    schema: {
      kind: "file",
      folder: "cii-d16b",
      file: "CrossIndustryInvoice_100pD16B.xsd",
    },
    xslt: "en16931/EN16931-CII-validation.xslt",
  },
  {
    name: "facturx",
    label: "Factur-X EN16931",
    schema: { kind: "file", folder: "facturx", file: "FACTUR-X_EN16931.xsd" },
    xslt: "facturx/FACTUR-X_EN16931.xslt",
  },
  {
    name: "ubl",
    label: "EN16931-UBL",
    schema: {
      kind: "ubl",
      folder: "ubl-2.1",
      invoice: "maindoc/UBL-Invoice-2.1.xsd",
      credit_note: "maindoc/UBL-CreditNote-2.1.xsd",
    },
    xslt: "en16931/EN16931-UBL-validation.xslt",
  },
  {
    name: "xr-cii",
    label: "XRechnung-CII",
    xslt: "xrechnung/XRechnung-CII-validation.xslt",
  },
  {
    name: "xr-ubl",
    label: "XRechnung-UBL",
    xslt: "xrechnung/XRechnung-UBL-validation.xslt",
  },
  {
    name: "peppol",
    label: "PEPPOL-EN16931-UBL",
    xslt: "peppol/PEPPOL-EN16931-UBL.xslt",
  },
];

/** The compiled stylesheet (gzipped SEF) beside its XSLT. */
export function sef_path(rule_set: RuleSet): string {
  return rule_set.xslt.replace(/\.xslt$/, ".sef.json.gz");
}

/** The rule set called `name`; throws for unknown names. */
export function rule_set(name: string): RuleSet {
  const found = RULE_SETS.find((set) => set.name === name);
  if (found === undefined) {
    throw new Error(
      `unknown rule set "${name}" (known: ${
        RULE_SETS.map((set) => set.name).join(", ")
      })`,
    );
  }
  return found;
}

/** "cii+facturx" or ["cii", "facturx"] → the rule sets, each once, in order. */
export function parse_rule_sets(
  names: string | readonly string[],
): RuleSet[] {
  const list = typeof names === "string" ? names.split("+") : names;
  const sets = new Set(list.map((name) => rule_set(name.trim())));
  return RULE_SETS.filter((set) => sets.has(set));
}
