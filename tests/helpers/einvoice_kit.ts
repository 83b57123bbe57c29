/**
 * Validates many e-invoices at once with the official rules, run in-process
 * by the project's validator (`tests/einvoice_validator/`): XML Schema, then
 * EN 16931 / Factur-X / XRechnung / Peppol Schematron. Needs no Java and
 * nothing outside the repository.
 *
 * @module
 */
import {
  is_fatal,
  report_lines,
  summary_line,
  validate_einvoices,
  type ValidationResult,
} from "../einvoice_validator/mod.ts";

/** One validation run's outcome. */
export interface ValidationRun {
  /** No schema error and no fatal rule in any file. */
  ok: boolean;
  /** Fatal rule and schema failures, counted over all files. */
  fatal: number;
  /** Files with a schema error or a fatal rule. */
  invalid_files: number;
  /** One line per schema error and failed rule, and the summary line. */
  output: string;
  /** Each file's result, by name. */
  results: Map<string, ValidationResult>;
}

/**
 * Validates `files` (name → XML text, or Factur-X PDF bytes) against
 * `ruleset` (e.g. "cii+facturx").
 */
export async function validate_xml(
  ruleset: string,
  files: Map<string, string | Uint8Array>,
): Promise<ValidationRun> {
  const names = [...files.keys()];
  const found = await validate_einvoices([...files.values()], ruleset);
  const lines = found.flatMap((result, index) =>
    report_lines(names[index], result)
  );
  return {
    ok: found.every((result) => result.valid),
    fatal: found.reduce(
      (sum, result) =>
        sum + result.schema_errors.length +
        result.failures.filter(is_fatal).length,
      0,
    ),
    invalid_files: found.filter((result) => !result.valid).length,
    output: [...lines, summary_line(ruleset, found)].join("\n") + "\n",
    results: new Map(names.map((name, index) => [name, found[index]])),
  };
}
