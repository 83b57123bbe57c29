/**
 * axe-core (npm, pinned in `deno.json`) in the browser tests: the WCAG 2.0
 * and 2.1 level A and AA rules over a page as it is shown. The engine is
 * evaluated through the DevTools protocol, so the pages' strict CSP (no
 * inline scripts) stays on while it runs.
 */
import axe from "axe-core";
import type { Page } from "playwright-core";

/** The rule sets checked: WCAG 2.0 and 2.1, levels A and AA. */
export const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/** One rule an audit leaves out, and why (see {@link AuditOptions.skip}). */
export interface SkippedRule {
  rule: string;
  /** CSS selectors of the only nodes skipped; none: the rule is skipped on the page. */
  selectors?: string[];
  reason: string;
}

/** Options of {@link audit_page}. */
export interface AuditOptions {
  /** Rules (or rules on some nodes) that are not ours to fix, each with its reason. */
  skip?: SkippedRule[];
}

/** One violation, in a form that reads well in a failed assertion. */
export interface Violation {
  rule: string;
  impact: string | null;
  help: string;
  nodes: { target: string; summary: string }[];
}

interface AxeNode {
  target: unknown[];
  failureSummary?: string;
}

interface AxeResult {
  id: string;
  impact?: string | null;
  help: string;
  nodes: AxeNode[];
}

/** The engine's source, to evaluate in a page. */
const AXE_SOURCE: string = (axe as unknown as { source: string }).source;

/** Runs axe-core's WCAG 2.0/2.1 A and AA rules over the page; returns the violations. */
export async function audit_page(
  page: Page,
  options: AuditOptions = {},
): Promise<Violation[]> {
  const loaded = await page.evaluate("typeof window.axe === 'object'");
  if (!loaded) await page.evaluate(AXE_SOURCE);
  const skip = options.skip ?? [];
  const whole_rules = skip.filter((entry) => !entry.selectors)
    .map((entry) => entry.rule);
  // Strings, not functions: this file is type-checked without the DOM types.
  const run = `axe.run(document, ${
    JSON.stringify({
      runOnly: { type: "tag", values: WCAG_TAGS },
      rules: Object.fromEntries(
        whole_rules.map((rule) => [rule, { enabled: false }]),
      ),
      resultTypes: ["violations"],
    })
  }).then((outcome) => outcome.violations)`;
  const results = await page.evaluate(run) as AxeResult[];
  const violations: Violation[] = [];
  for (const result of results) {
    const skipped_selectors = skip.filter((entry) =>
      entry.rule === result.id && entry.selectors
    ).flatMap((entry) => entry.selectors ?? []);
    const nodes = [];
    for (const node of result.nodes) {
      const target = node.target.map(String).join(" ");
      if (await matches_any(page, node.target, skipped_selectors)) continue;
      nodes.push({ target, summary: node.failureSummary ?? "" });
    }
    if (nodes.length === 0) continue;
    violations.push({
      rule: result.id,
      impact: result.impact ?? null,
      help: result.help,
      nodes,
    });
  }
  return violations;
}

/** Whether the node axe names by `target` lies inside one matching `selectors`. */
async function matches_any(
  page: Page,
  target: unknown[],
  selectors: string[],
): Promise<boolean> {
  if (selectors.length === 0 || target.length !== 1) return false;
  return await page.evaluate(
    `((node) => node !== null && ${JSON.stringify(selectors)}.some((selector) =>
      node.closest(selector)))(document.querySelector(${
      JSON.stringify(String(target[0]))
    }))`,
  ) as boolean;
}
