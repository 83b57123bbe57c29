/**
 * What an e-invoice is, read from its root element and its specification
 * identifier (CII `GuidelineSpecifiedDocumentContextParameter/ID`, UBL
 * `CustomizationID`), and so which rule sets check it.
 *
 * @module
 */
import type { RuleSetName } from "./rule_sets.ts";

/** The local name of a document's root element ("" when there is none). */
export function root_name(xml: string): string {
  const body = xml.replace(
    /<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>/g,
    "",
  );
  return /<(?:[A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)/.exec(body)?.[1] ?? "";
}

/** The specification identifier (BT-24), or "" when absent. */
export function specification_id(xml: string): string {
  const cii =
    /GuidelineSpecifiedDocumentContextParameter>\s*<(?:[\w.-]+:)?ID[^>]*>([^<]*)</
      .exec(xml);
  const ubl = /<(?:[\w.-]+:)?CustomizationID[^>]*>([^<]*)</.exec(xml);
  return (cii ?? ubl)?.[1].trim() ?? "";
}

/** One row: documents with this root and a matching identifier get these rule sets. */
interface Kind {
  readonly roots: readonly string[];
  readonly id: RegExp;
  readonly rule_sets: readonly RuleSetName[];
}

const CII = ["CrossIndustryInvoice"];
const UBL = ["Invoice", "CreditNote"];

/** First matching row wins. */
const KINDS: readonly Kind[] = [
  { roots: CII, id: /xrechnung/i, rule_sets: ["cii", "xr-cii"] },
  // The Factur-X / ZUGFeRD EN 16931 profile's identifier is EN 16931's own.
  {
    roots: CII,
    id: /^urn:cen\.eu:en16931:2017$/,
    rule_sets: ["cii", "facturx"],
  },
  { roots: CII, id: /(?:)/, rule_sets: ["cii"] },
  { roots: UBL, id: /xrechnung/i, rule_sets: ["ubl", "xr-ubl"] },
  // Peppol BIS Billing 3.0, alone or extended ("…billing:3.0#conformant#…").
  {
    roots: UBL,
    id:
      /^urn:cen\.eu:en16931:2017#compliant#urn:fdc:peppol\.eu:2017:poacc:billing:3\.0(?:#|$)/,
    rule_sets: ["ubl", "peppol"],
  },
  { roots: UBL, id: /(?:)/, rule_sets: ["ubl"] },
];

/**
 * The rule sets for a document (XML text), or undefined when it is no
 * e-invoice we know. `from_pdf`: it came out of a PDF, so it is Factur-X.
 */
export function rule_sets_for(
  xml: string,
  from_pdf = false,
): RuleSetName[] | undefined {
  const root = root_name(xml);
  const id = specification_id(xml);
  const kind = KINDS.find((row) => row.roots.includes(root) && row.id.test(id));
  if (kind === undefined) return undefined;
  const sets = [...kind.rule_sets];
  if (from_pdf && !sets.includes("facturx")) sets.splice(1, 0, "facturx");
  return sets;
}
