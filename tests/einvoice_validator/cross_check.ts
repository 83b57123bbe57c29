/**
 * Runs the same documents through the Java validation kit (`../shared/einvoice`
 * or EINVOICE_KIT: xmllint + Saxon-HE) and through this validator, and prints
 * per rule-set combination and file whether they agree: the same failed rule
 * ids with the same flags and counts, and schema errors in both or neither.
 * For re-checking after the artefacts or the engines change; not a test (it
 * needs Java and the kit).
 *
 *   deno run -A tests/einvoice_validator/cross_check.ts [--details] [SETS…]
 *
 * SETS (e.g. `peppol`, `ubl+xr-ubl`) limits the runs to those rule sets.
 *
 * Documents: the e-invoice corpus and the German fixture invoice in every
 * format (Factur-X as the PDF for this validator, as its XML for the kit),
 * each with mutations that break schema and rules, and the kit's official
 * examples under every rule-set combination of their syntax.
 *
 * The kit has no Peppol rules: for `peppol` the reference is Saxon-HE (Java,
 * the kit's SAXON_JAR) running the committed XSLT as published, unpatched.
 *
 * @module
 */
import { corpus } from "../fixtures/einvoice_corpus.ts";
import { german_invoice } from "../fixtures/einvoices.ts";
import { InvoiceRequestSchema } from "../../contract/mod.ts";
import type { Invoice } from "../../contract/invoice_types.ts";
import {
  type DocumentFormat,
  invoice_xml,
  render_invoice_document,
} from "../../server/einvoice/mod.ts";
import { type EinvoiceInput, is_fatal, validate_einvoices } from "./mod.ts";
import { rule_set, RULES_DIR } from "./rule_sets.ts";

/** One document: what this validator gets, and the XML the kit gets. */
interface Case {
  readonly name: string;
  readonly input: EinvoiceInput;
  readonly xml: string;
}

/** Rule ids and schema verdict of one file, comparable across validators. */
interface Verdict {
  rules: string[];
  schema: boolean;
}

const FORMATS: [DocumentFormat, string][] = [
  ["factur-x", "cii+facturx"],
  ["cii", "cii"],
  ["ubl", "ubl"],
  ["xrechnung-cii", "cii+xr-cii"],
  ["xrechnung-ubl", "ubl+xr-ubl"],
];

/** Edits that break a document: [name, pattern, replacement]. */
const MUTATIONS: [string, RegExp, string][] = [
  // Totals that do not add up (BR-CO-15 and friends).
  [
    "total",
    /(<(?:cbc:TaxInclusiveAmount|ram:GrandTotalAmount)[^>]*>)[^<]*/,
    "$11.00",
  ],
  // No buyer reference (XRechnung BR-DE-15, Peppol R003).
  ["buyer-ref", /<(cbc|ram):BuyerReference>[^<]*<\/\1:BuyerReference>/, ""],
  // An unknown currency (BR-CL-04) and an unknown type code (BR-CL-01).
  [
    "codes",
    /(<(?:cbc:DocumentCurrencyCode|ram:InvoiceCurrencyCode)>)[^<]*/,
    "$1XXX",
  ],
  [
    "type",
    /(<(?:cbc:InvoiceTypeCode|cbc:CreditNoteTypeCode|ram:TypeCode)>)[^<]*/,
    "$1999",
  ],
  // A date that is no date: a schema error in UBL, a rule in CII.
  [
    "date",
    /(<cbc:IssueDate>|<udt:DateTimeString format="102">)[^<]*/,
    "$12026-13-45",
  ],
  // An element the schema does not allow.
  ["element", /(<\/(?:cbc:ID|ram:ID)>)/, "$1<Unexpected>1</Unexpected>"],
  // No seller electronic address (Peppol R020), and an e-mail one (CL008).
  ["endpoint", /<cbc:EndpointID[^>]*>[^<]*<\/cbc:EndpointID>/, ""],
  ["email-endpoint", /schemeID="9930"/, 'schemeID="EM"'],
];

function invoices(): [string, Invoice][] {
  const list: [string, Invoice][] = corpus(4).map((request) => [
    request.invoice_number as string,
    InvoiceRequestSchema.parse(request),
  ]);
  list.push(["german", german_invoice()]);
  return list;
}

function generated_cases(format: DocumentFormat): Case[] {
  const cases: Case[] = [];
  invoices().forEach(([name, invoice], index) => {
    const xml = invoice_xml(invoice, { format });
    // Every fourth Factur-X goes in as its PDF, to check the extraction.
    const input = format === "factur-x" && index % 4 === 0
      ? render_invoice_document(invoice, { format }).bytes
      : xml;
    cases.push({ name, input, xml });
    if (index % 13 !== 0) return;
    for (const [label, pattern, replacement] of MUTATIONS) {
      const broken = xml.replace(pattern, replacement);
      if (broken !== xml) {
        cases.push({ name: `${name}~${label}`, input: broken, xml: broken });
      }
    }
  });
  return cases;
}

/** The official examples in `folder` whose names start with `prefix`. */
function example_cases(folder: string, prefix: string): Case[] {
  const dir = new URL(`${folder}/`, RULES_DIR);
  return [...Deno.readDirSync(dir)]
    .filter((entry) =>
      entry.name.startsWith(prefix) && entry.name.endsWith(".xml")
    )
    .map((entry) => {
      const xml = Deno.readTextFileSync(new URL(entry.name, dir));
      return { name: entry.name, input: xml, xml };
    });
}

/** The kit's verdicts, one per case, from one run of its script. */
async function kit_verdicts(
  kit: string,
  rule_sets: string,
  cases: Case[],
): Promise<Verdict[]> {
  const dir = await Deno.makeTempDir({ prefix: "cross-check-" });
  try {
    const paths = cases.map((_, index) => `${dir}/${index}.xml`);
    cases.forEach(({ xml }, index) =>
      Deno.writeTextFileSync(paths[index], xml)
    );
    const out = await new Deno.Command(`${kit}/validate`, {
      args: [rule_sets, ...paths],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    const verdicts: Verdict[] = cases.map(() => ({ rules: [], schema: false }));
    for (const line of text.split("\n")) {
      const rule = /^(\w+) .*\/(\d+)\.xml: ([^:]+): \[([^\]]*)\]/.exec(line);
      if (rule) {
        const flag = rule[1] === "error" ? "fatal" : rule[1];
        verdicts[Number(rule[2])].rules.push(`${flag} ${rule[3]} ${rule[4]}`);
      }
      const schema = /^schema: .*\/(\d+)\.xml/.exec(line);
      if (schema) verdicts[Number(schema[1])].schema = true;
      if (/could not run/.test(line)) throw new Error(line);
    }
    return verdicts;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Saxon-HE (Java) running the Peppol XSLT as published, one JVM for all cases. */
async function saxon_peppol_verdicts(cases: Case[]): Promise<Verdict[]> {
  const jar = Deno.env.get("SAXON_JAR") ?? "/usr/share/java/Saxon-HE.jar";
  const set = rule_set("peppol");
  const dir = await Deno.makeTempDir({ prefix: "cross-check-" });
  try {
    await Deno.mkdir(`${dir}/in`);
    await Deno.mkdir(`${dir}/out`);
    cases.forEach(({ xml }, index) =>
      Deno.writeTextFileSync(`${dir}/in/${index}.xml`, xml)
    );
    const out = await new Deno.Command("java", {
      args: [
        "-cp",
        jar,
        "net.sf.saxon.Transform",
        `-s:${dir}/in`,
        `-xsl:${new URL(set.xslt, RULES_DIR).pathname}`,
        `-o:${dir}/out`,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (out.code !== 0) throw new Error(new TextDecoder().decode(out.stderr));
    return cases.map((_, index) => {
      const svrl = Deno.readTextFileSync(`${dir}/out/${index}.xml`);
      const rules = [...svrl.matchAll(/<svrl:failed-assert\b[^>]*>/g)].map(
        ([tag]) => {
          const attr = (name: string) =>
            new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1] ?? "";
          const flag = attr("flag") || attr("role") || "fatal";
          return `${flag === "error" ? "fatal" : flag} ${set.label} ${
            attr("id")
          }`;
        },
      );
      return { rules, schema: false };
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** This validator's verdicts. */
async function our_verdicts(
  rule_sets: string,
  cases: Case[],
): Promise<Verdict[]> {
  const results = await validate_einvoices(
    cases.map(({ input }) => input),
    rule_sets,
  );
  return results.map((result) => ({
    rules: result.failures.map((failure) =>
      `${
        is_fatal(failure) ? "fatal" : failure.flag
      } ${failure.rules} ${failure.id}`
    ),
    schema: result.schema_errors.length > 0,
  }));
}

function same(a: Verdict, b: Verdict): boolean {
  return a.schema === b.schema &&
    JSON.stringify([...a.rules].sort()) === JSON.stringify([...b.rules].sort());
}

async function main(): Promise<number> {
  const kit = Deno.env.get("EINVOICE_KIT") ??
    new URL("../../../shared/einvoice", import.meta.url).pathname;
  const details = Deno.args.includes("--details");
  const runs: [string, string, Case[]][] = [
    ...FORMATS.map(([format, sets]): [string, string, Case[]] => [
      format,
      sets,
      generated_cases(format),
    ]),
    ...["cii", "cii+facturx", "cii+xr-cii"].map((
      sets,
    ): [string, string, Case[]] => [
      "examples CII",
      sets,
      example_cases("examples", "CII_"),
    ]),
    ...["ubl", "ubl+xr-ubl"].map((sets): [string, string, Case[]] => [
      "examples UBL",
      sets,
      example_cases("examples", "UBL_"),
    ]),
    ["ubl", "peppol", generated_cases("ubl")],
    ["examples Peppol", "ubl", example_cases("peppol", "")],
    ["examples Peppol", "peppol", example_cases("peppol", "")],
  ];
  const only = Deno.args.filter((arg) => !arg.startsWith("--"));
  let disagreements = 0;
  console.log(
    "| documents | rule sets | files | invalid (kit / ours) | fatal ids (kit / ours) | agree | kit s | ours s |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  for (const [label, sets, cases] of runs) {
    if (only.length > 0 && !only.includes(sets)) continue;
    let started = performance.now();
    const kit_found = sets === "peppol"
      ? await saxon_peppol_verdicts(cases)
      : await kit_verdicts(kit, sets, cases);
    const kit_seconds = (performance.now() - started) / 1000;
    started = performance.now();
    const ours = await our_verdicts(sets, cases);
    const our_seconds = (performance.now() - started) / 1000;
    const invalid = (verdicts: Verdict[]) =>
      verdicts.filter((v) =>
        v.schema || v.rules.some((r) => r.startsWith("fatal"))
      ).length;
    const fatal = (verdicts: Verdict[]) =>
      verdicts.flatMap((v) => v.rules).filter((r) => r.startsWith("fatal"))
        .length;
    const agreeing = cases.filter((_, i) => same(kit_found[i], ours[i])).length;
    disagreements += cases.length - agreeing;
    console.log(
      `| ${label} | ${sets} | ${cases.length} | ${invalid(kit_found)} / ${
        invalid(ours)
      } | ` +
        `${fatal(kit_found)} / ${
          fatal(ours)
        } | ${agreeing}/${cases.length} | ` +
        `${kit_seconds.toFixed(1)} | ${our_seconds.toFixed(1)} |`,
    );
    cases.forEach((c, i) => {
      if (!same(kit_found[i], ours[i]) || details) {
        console.log(
          `  ${same(kit_found[i], ours[i]) ? "same" : "DIFFERS"} ${c.name}:`,
        );
        console.log(`    kit:  ${JSON.stringify(kit_found[i])}`);
        console.log(`    ours: ${JSON.stringify(ours[i])}`);
      }
    });
  }
  console.log(
    disagreements === 0 ? "all agree" : `${disagreements} files disagree`,
  );
  return disagreements === 0 ? 0 : 1;
}

if (import.meta.main) Deno.exit(await main());
