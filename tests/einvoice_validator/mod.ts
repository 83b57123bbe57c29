/**
 * Validates e-invoices the way receiving platforms do, with no Java and no
 * native tools: XML Schema first (libxml2 in WebAssembly), then the official
 * EN 16931, Factur-X, XRechnung and Peppol BIS Billing 3.0 Schematron rules
 * (compiled to SEF, run by SaxonJS). The artefacts are the validation kit's
 * and OpenPeppol's, in `tests/fixtures/einvoice_rules/`; the results read as
 * the kit's: schema errors and failed rules with flag, id and message.
 *
 * It is the oracle of the e-invoice tests and the engine of
 * `deno task validate FILE…`; the service itself never loads it.
 *
 * @example
 * ```ts
 * import { validate_einvoice } from "./tests/einvoice_validator/mod.ts";
 * const result = await validate_einvoice(xml, ["cii", "xr-cii"]);
 * if (!result.valid) console.log(result.schema_errors, result.failures);
 * ```
 *
 * @module
 */
import {
  parse_rule_sets,
  type RuleSet,
  type RuleSetName,
} from "./rule_sets.ts";
import { schema_errors, schema_file, type SchemaError } from "./schema.ts";
import { failed_rules, rule_source, type RuleFailure } from "./schematron.ts";
import { factur_x_xml, is_pdf } from "./factur_x_pdf.ts";
import { is_fatal } from "./report.ts";

export { RULE_SETS, type RuleSetName } from "./rule_sets.ts";
export type { SchemaError } from "./schema.ts";
export type { RuleFailure } from "./schematron.ts";
export { rule_sets_for, specification_id } from "./document_kind.ts";
export { factur_x_xml, is_pdf } from "./factur_x_pdf.ts";
export { is_fatal, report_lines, summary_line } from "./report.ts";

/** What validation found in one document. */
export interface ValidationResult {
  /** XML Schema errors (and "not well-formed"); each one makes it invalid. */
  readonly schema_errors: SchemaError[];
  /** Failed rules of every rule set, fatal or not. */
  readonly failures: RuleFailure[];
  /** No schema error and no fatal rule. */
  readonly valid: boolean;
}

/** A document: XML text, or bytes of XML or of a Factur-X PDF. */
export type EinvoiceInput = string | Uint8Array;

/** The XML of an input: a PDF's embedded CII, or the bytes as UTF-8. */
export async function einvoice_xml(input: EinvoiceInput): Promise<string> {
  if (typeof input === "string") return input;
  if (is_pdf(input)) return await factur_x_xml(input);
  return new TextDecoder().decode(input);
}

/** Runs every rule set over one document. */
async function validate_xml_text(
  xml: string,
  sets: readonly RuleSet[],
): Promise<ValidationResult> {
  const schema_found: SchemaError[] = [];
  for (const set of sets) {
    if (set.schema === undefined) continue;
    const errors = schema_errors(schema_file(set.schema, xml), xml);
    schema_found.push(...errors);
    // Not well-formed: one report is enough.
    if (errors.some((error) => error.schema === "XML")) break;
  }
  let source;
  try {
    source = rule_source(xml);
  } catch (error) {
    if (schema_found.length === 0) {
      schema_found.push({
        schema: "XML",
        line: null,
        message: `not well-formed: ${(error as Error).message}`,
      });
    }
    return { schema_errors: schema_found, failures: [], valid: false };
  }
  const failures: RuleFailure[] = [];
  for (const set of sets) {
    try {
      failures.push(...await failed_rules(set, source));
    } catch (error) {
      // As the kit: rules that cannot run are a fatal failure, not a pass.
      failures.push({
        rules: set.label,
        flag: "fatal",
        id: "rules-not-run",
        message: `the rules could not run: ${(error as Error).message}`,
        location: "",
      });
    }
  }
  return {
    schema_errors: schema_found,
    failures,
    valid: schema_found.length === 0 && !failures.some(is_fatal),
  };
}

/**
 * Validates many documents against the same rule sets ("cii+facturx" or a
 * list). Results in input order.
 */
export async function validate_einvoices(
  inputs: readonly EinvoiceInput[],
  rule_set_names: string | readonly RuleSetName[],
): Promise<ValidationResult[]> {
  const sets = parse_rule_sets(rule_set_names);
  const results: ValidationResult[] = [];
  for (const input of inputs) {
    results.push(await validate_xml_text(await einvoice_xml(input), sets));
  }
  return results;
}

/** Validates one document against rule sets ("ubl+xr-ubl" or a list). */
export async function validate_einvoice(
  input: EinvoiceInput,
  rule_set_names: string | readonly RuleSetName[],
): Promise<ValidationResult> {
  return (await validate_einvoices([input], rule_set_names))[0];
}
