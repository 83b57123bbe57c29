/**
 * What the UBL and CII readers of `convert.ts` share: the request shape
 * they build, and the few decisions that do not depend on the syntax.
 *
 * @module
 */
import { iban_problem, normalize_iban } from "../../contract/bank.ts";

/** A request body (JSON). */
// deno-lint-ignore no-explicit-any
export type Request = Record<string, any>;

/** A JSON number of a decimal text. */
export function number(text: string | undefined): number | undefined {
  return text === undefined ? undefined : Number(text);
}

/** Keys whose value is undefined, empty arrays and empty objects removed, deeply. */
export function clean<T>(value: T): T {
  if (Array.isArray(value)) {
    return value.map(clean).filter((v) => v !== undefined) as T;
  }
  if (value !== null && typeof value === "object") {
    const out: Request = {};
    for (const [key, v] of Object.entries(value)) {
      const cleaned = clean(v);
      if (cleaned === undefined) continue;
      if (Array.isArray(cleaned) && cleaned.length === 0) continue;
      if (
        cleaned !== null && typeof cleaned === "object" &&
        !Array.isArray(cleaned) && Object.keys(cleaned).length === 0
      ) continue;
      out[key] = cleaned;
    }
    return out as T;
  }
  return value;
}

/** An account id as the request takes it: an IBAN, else an account number. */
export function account(id: string | undefined): Request {
  if (id === undefined) return {};
  const compact = normalize_iban(id);
  return iban_problem(compact) === undefined
    ? { iban: compact }
    : { account_id: id };
}

const SKONTO =
  /^#SKONTO#TAGE=([0-9]+)#PROZENT=([0-9]+\.[0-9]{2})(?:#BASISBETRAG=(-?[0-9]+\.[0-9]{2}))?#$/;

/** Payment terms text: its `#SKONTO#` lines as discount terms, the rest as text. */
export function split_payment_terms(
  text: string | undefined,
): { payment_terms?: string; discount_terms?: Request[] } {
  if (text === undefined) return {};
  const rest: string[] = [];
  const terms: Request[] = [];
  for (const line of text.split(/\r?\n/)) {
    const match = SKONTO.exec(line.trim());
    if (match) {
      terms.push({
        days: Number(match[1]),
        percent: Number(match[2]),
        ...(match[3] !== undefined ? { base_amount: Number(match[3]) } : {}),
      });
    } else rest.push(line);
  }
  const payment_terms = rest.join("\n").trim();
  return {
    ...(payment_terms !== "" ? { payment_terms } : {}),
    ...(terms.length > 0 ? { discount_terms: terms } : {}),
  };
}

/** A UBL note "#ADU#text" as subject code and text. */
export function subject_note(
  text: string,
): { subject_code?: string; text: string } {
  const match = /^#([A-Z]{3})#([\s\S]*)$/.exec(text);
  return match ? { subject_code: match[1], text: match[2].trim() } : { text };
}

/** Notes as the request takes them: a first note without subject is `notes`. */
export function notes_fields(
  notes: { subject_code?: string; text: string }[],
): Request {
  if (notes.length === 0) return {};
  if (notes[0].subject_code === undefined) {
    return {
      notes: notes[0].text,
      ...(notes.length > 1 ? { additional_notes: notes.slice(1) } : {}),
    };
  }
  return { additional_notes: notes };
}

/** An e-mail address, or the placeholder for parties whose XML has none. */
export function email_or_placeholder(email: string | undefined): string {
  return email ?? "no-email@invalid.example";
}

/** An xs:boolean charge indicator: "true" or "1" is a charge. */
export function is_charge(indicator: string | undefined): boolean {
  return indicator === "true" || indicator === "1";
}

const DOCUMENT_TYPES: Record<string, string | undefined> = {
  "380": undefined,
  "381": "credit_note",
  "384": "corrected_invoice",
  "389": "self_billed_invoice",
};

/** The request's `document_type` of a UNTDID 1001 code (BT-3). */
export function document_type(code: string | undefined): string | undefined {
  if (code === undefined || !(code in DOCUMENT_TYPES)) {
    throw new Error(`document type code ${code} has no document_type`);
  }
  return DOCUMENT_TYPES[code];
}
