/**
 * `deno task validate [--rules SETS] FILE…`: validates e-invoices (XML, or
 * Factur-X PDFs) with the official rules. Prints one line per schema error
 * and failed rule, then a summary line per rule-set combination; exits 0
 * only when no file has a schema error or a fatal rule, 1 otherwise, 2 on
 * bad usage.
 *
 * Rule sets come from each document: CII with the XRechnung identifier →
 * cii+xr-cii, other CII → cii (+facturx for EN 16931's own identifier, and
 * for XML out of a PDF), UBL with the XRechnung identifier → ubl+xr-ubl, UBL
 * with the Peppol BIS Billing 3.0 identifier → ubl+peppol, other UBL → ubl.
 * `--rules cii+facturx` sets them for every file.
 *
 * @module
 */
import {
  einvoice_xml,
  report_lines,
  RULE_SETS,
  rule_sets_for,
  type RuleSetName,
  summary_line,
  validate_einvoices,
} from "./mod.ts";
import { parse_rule_sets } from "./rule_sets.ts";
import { is_pdf } from "./factur_x_pdf.ts";

const USAGE = `usage: deno task validate [--rules SETS] FILE...

Validates e-invoices (UBL, CII, XRechnung, Peppol, Factur-X XML or PDF) with
the official XML Schemas and EN 16931 / Factur-X / XRechnung / Peppol rules.
SETS joins rule sets with "+": ${RULE_SETS.map((set) => set.name).join(", ")}.
Exit status: 0 no schema error and no fatal rule, 1 otherwise, 2 usage.`;

interface Arguments {
  readonly rules?: RuleSetName[];
  readonly files: string[];
}

function parse_arguments(args: string[]): Arguments | string {
  const files: string[] = [];
  let rules: RuleSetName[] | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--help" || arg === "-h") return USAGE;
    const inline = /^--rules=(.*)$/.exec(arg);
    if (inline || arg === "--rules") {
      const value = inline ? inline[1] : args[++i];
      if (value === undefined) return "--rules needs a value";
      try {
        rules = parse_rule_sets(value).map((set) => set.name);
      } catch (error) {
        return (error as Error).message;
      }
    } else if (arg.startsWith("-") && arg !== "-") {
      return `unknown option ${arg}`;
    } else files.push(arg);
  }
  if (files.length === 0) return "no files given";
  return { rules, files };
}

/** A file read and classified, or why it cannot be validated. */
type Prepared =
  | {
    readonly file: string;
    readonly xml: string;
    readonly sets: RuleSetName[];
  }
  | { readonly file: string; readonly problem: string };

async function prepare(
  file: string,
  base: string,
  rules: RuleSetName[] | undefined,
): Promise<Prepared> {
  try {
    const bytes = await Deno.readFile(
      file.startsWith("/") ? file : `${base}/${file}`,
    );
    const from_pdf = is_pdf(bytes);
    const xml = await einvoice_xml(bytes);
    const sets = rules ?? rule_sets_for(xml, from_pdf);
    if (sets === undefined) {
      return {
        file,
        problem: "not a UBL or CII invoice; give --rules to force",
      };
    }
    return { file, xml, sets };
  } catch (error) {
    return { file, problem: (error as Error).message };
  }
}

async function main(args: string[]): Promise<number> {
  const parsed = parse_arguments(args);
  if (typeof parsed === "string") {
    console.error(parsed === USAGE ? USAGE : `${parsed}\n\n${USAGE}`);
    return parsed === USAGE ? 0 : 2;
  }
  // deno task runs in the project folder; INIT_CWD is where it was called.
  const base = Deno.env.get("INIT_CWD") ?? Deno.cwd();
  const prepared = await Promise.all(
    parsed.files.map((file) => prepare(file, base, parsed.rules)),
  );
  let failed = false;
  for (const item of prepared) {
    if ("problem" in item) {
      console.log(`error ${item.file}: ${item.problem}`);
      failed = true;
    }
  }
  const groups = new Map<string, { file: string; xml: string }[]>();
  for (const item of prepared) {
    if ("problem" in item) continue;
    const key = item.sets.join("+");
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  for (const [sets, items] of groups) {
    const results = await validate_einvoices(
      items.map((item) => item.xml),
      sets,
    );
    results.forEach((result, index) => {
      for (const line of report_lines(items[index].file, result)) {
        console.log(line);
      }
    });
    console.log(summary_line(sets, results));
    if (results.some((result) => !result.valid)) failed = true;
  }
  return failed ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
