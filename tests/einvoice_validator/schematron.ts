/**
 * Runs the official Schematron rules (XSLT compiled to SEF, see
 * `build_rules.ts`) with SaxonJS and reads the failed asserts from the SVRL
 * report, as the validation kit does with Saxon-HE: the flag is `@flag`, else
 * `@role`, else "fatal"; the message is the assert's text, whitespace
 * collapsed. Successful reports are not failures and are not returned.
 *
 * @module
 */
import SaxonJS from "saxon-js";
import { RULES_DIR, type RuleSet } from "./rule_sets.ts";
import { committed_sef } from "./build_rules.ts";

/** One failed assert. */
export interface RuleFailure {
  /** The rule set's label, e.g. "EN16931-CII". */
  readonly rules: string;
  /** "fatal", "warning" or "information", as the rule says. */
  readonly flag: string;
  /** The rule id, e.g. "BR-CO-15". */
  readonly id: string;
  readonly message: string;
  /** XPath of the element the rule failed on. */
  readonly location: string;
}

/** A parsed document, ready for any number of rule sets. */
export interface RuleSource {
  readonly node: unknown;
}

/** The SaxonJS surface used here (the package ships no types). */
interface SaxonApi {
  getPlatform(): { parseXmlFromString(xml: string): unknown };
  transform(options: Record<string, unknown>): { principalResult: unknown };
  XPath: {
    evaluate(
      xpath: string,
      context: unknown,
      options: Record<string, unknown>,
    ): unknown;
  };
}

const saxon = SaxonJS as unknown as SaxonApi;
const SVRL = "http://purl.oclc.org/dsdl/svrl";
const FAILED_ASSERTS = "array { //svrl:failed-assert ! map {" +
  " 'flag': string((@flag[. ne ''], @role[. ne ''], 'fatal')[1])," +
  " 'id': string(@id)," +
  " 'message': normalize-space(string(svrl:text))," +
  " 'location': string(@location) } }";

const stylesheets = new Map<string, Promise<unknown>>();

/** The parsed SEF of a rule set, loaded once per process. */
function stylesheet(rule_set: RuleSet): Promise<unknown> {
  let loaded = stylesheets.get(rule_set.xslt);
  if (loaded === undefined) {
    loaded = committed_sef(rule_set).then((text) => JSON.parse(text));
    stylesheets.set(rule_set.xslt, loaded);
  }
  return loaded;
}

/** Parses XML for the rules; throws with the parser's message when not well-formed. */
export function rule_source(xml: string): RuleSource {
  return { node: saxon.getPlatform().parseXmlFromString(xml) };
}

/** Runs one rule set over a parsed document. */
export async function failed_rules(
  rule_set: RuleSet,
  source: RuleSource,
): Promise<RuleFailure[]> {
  const result = saxon.transform({
    stylesheetInternal: await stylesheet(rule_set),
    // Relative document() calls (Factur-X's code lists) resolve beside the XSLT.
    stylesheetBaseURI: new URL(rule_set.xslt, RULES_DIR).href,
    sourceNode: source.node,
    destination: "document",
  });
  const failures = saxon.XPath.evaluate(
    FAILED_ASSERTS,
    result.principalResult,
    {
      namespaceContext: { svrl: SVRL },
    },
  ) as Omit<RuleFailure, "rules">[];
  return failures.map((failure) => ({ rules: rule_set.label, ...failure }));
}
