/**
 * Validation results as text, in the validation kit's line format: one line
 * per schema error and failed rule, and a summary line per run.
 *
 * @module
 */
import type { RuleFailure } from "./schematron.ts";
import type { SchemaError } from "./schema.ts";

/** What a report needs of a result (a `ValidationResult`). */
export interface Reportable {
  readonly schema_errors: readonly SchemaError[];
  readonly failures: readonly RuleFailure[];
  readonly valid: boolean;
}

/** Flags that make a document invalid (the kit counts "error" as fatal too). */
export function is_fatal(failure: RuleFailure): boolean {
  return failure.flag === "fatal" || failure.flag === "error";
}

/**
 * `schema FILE:LINE: message (schema.xsd)` per schema error, then
 * `FLAG FILE: RULES: [ID] message` per failed rule.
 */
export function report_lines(name: string, result: Reportable): string[] {
  return [
    ...result.schema_errors.map((error) =>
      `schema ${name}${
        error.line === null ? "" : `:${error.line}`
      }: ${error.message} (${error.schema})`
    ),
    ...result.failures.map((failure) =>
      `${failure.flag} ${name}: ${failure.rules}: [${failure.id}] ${failure.message}`
    ),
  ];
}

/** `SETS: N files, K invalid; F fatal, W warnings` (schema errors count as fatal). */
export function summary_line(
  rule_sets: string,
  results: readonly Reportable[],
): string {
  let fatal = 0;
  let warnings = 0;
  for (const result of results) {
    fatal += result.schema_errors.length;
    for (const failure of result.failures) {
      if (is_fatal(failure)) fatal++;
      else warnings++;
    }
  }
  const invalid = results.filter((result) => !result.valid).length;
  return `${rule_sets}: ${results.length} files, ${invalid} invalid; ${fatal} fatal, ${warnings} warnings`;
}
