/**
 * Rules across fields of an invoice request that are not arithmetic: tax
 * exemptions and ids, payment identifiers, credit notes, locale, logo, tax
 * currency and attachments. Each problem names its field.
 *
 * @module
 */
import { bic_problem, iban_problem } from "./bank.ts";
import { ImageError, validate_logo } from "./images.ts";
import type { Invoice, TaxCategory } from "./invoice_types.ts";
import { supported_locale, SUPPORTED_LOCALES } from "./locales.ts";
import {
  ATTACHMENT_LIMITS,
  base64_decoded_length,
  compact_base64,
} from "./attachments.ts";
import { EXEMPT_CATEGORIES, vat_identifier } from "./tax.ts";
import type { Computation, Problem } from "./invoice_compute.ts";
import type { ParsedRequest } from "./invoice_request.ts";
import { FACTUR_X_XML_NAME } from "./formats.ts";

/** What the checks found, and the values they produced. */
export interface Checked {
  problems: Problem[];
  locale?: string;
  logo?: Invoice["logo"];
}

const checked = new WeakMap<ParsedRequest, Checked>();

/** The request's cross-field problems; checked once per parsed request. */
export function check_request(
  value: ParsedRequest,
  computation: Computation,
): Checked {
  let result = checked.get(value);
  if (!result) {
    result = check_uncached(value, computation);
    checked.set(value, result);
  }
  return result;
}

function check_uncached(
  value: ParsedRequest,
  computation: Computation,
): Checked {
  const problems: Problem[] = [];
  check_exemptions(value, computation, problems);
  check_tax_ids(value, computation, problems);
  check_payment(value, problems);
  if (
    value.document_type === "credit_note" && !value.preceding_invoice_number &&
    !value.preceding_invoices?.length
  ) {
    problems.push({
      path: ["preceding_invoice_number"],
      message:
        "is required for a credit note: the invoice it corrects (or preceding_invoices)",
    });
  }
  let locale: string | undefined;
  if (value.locale !== undefined) {
    locale = supported_locale(value.locale);
    if (!locale) {
      problems.push({
        path: ["locale"],
        message: `is not supported; use one of ${SUPPORTED_LOCALES.join(", ")}`,
      });
    }
  }
  let logo: Invoice["logo"];
  if (value.logo !== undefined) {
    try {
      logo = validate_logo(value.logo);
    } catch (error) {
      if (!(error instanceof ImageError)) throw error;
      problems.push({
        path: ["logo"],
        message: error.message,
        ...(error.code === "logo_too_large" ? { error_code: error.code } : {}),
      });
    }
  }
  check_tax_currency(value, computation, problems);
  check_attachments(value, problems);
  return { problems, locale, logo };
}

function check_exemptions(
  value: ParsedRequest,
  computation: Computation,
  problems: Problem[],
): void {
  const used = new Set(computation.breakdown.map((row) => row.category));
  const seen = new Set<TaxCategory>();
  (value.tax_exemptions ?? []).forEach((entry, index) => {
    const path = ["tax_exemptions", index];
    const category = entry.tax_category;
    if (seen.has(category)) {
      problems.push({
        path: [...path, "tax_category"],
        message: `names ${category} a second time`,
      });
    }
    seen.add(category);
    if (!used.has(category)) {
      problems.push({
        path: [...path, "tax_category"],
        message: `is ${category}, which no line, discount or charge uses`,
      });
    }
    if (entry.reason === undefined && entry.reason_code === undefined) {
      problems.push({
        path: [...path, "reason"],
        message: 'give "reason", "reason_code" or both',
      });
    }
  });
  const unexplained = computation.breakdown.some((row) =>
    EXEMPT_CATEGORIES.includes(row.category) &&
    row.exemption_reason === undefined &&
    row.exemption_reason_code === undefined
  );
  if (unexplained) {
    problems.push({
      path: ["tax_exemption_reason"],
      message:
        "is required when a line is exempt or not taxed here (E, AE, K, G, O)",
    });
  }
}

function check_tax_ids(
  value: ParsedRequest,
  computation: Computation,
  problems: Problem[],
): void {
  const bill_to = value.bill_to ?? value.recipient;
  if (computation.breakdown.some((row) => row.category === "AE")) {
    for (
      const [party, data] of [["sender", value.sender], [
        value.bill_to ? "bill_to" : "recipient",
        bill_to,
      ]] as const
    ) {
      if (!data?.tax_id) {
        problems.push({
          path: [party, "tax_id"],
          message: "is required for reverse charge (AE): both parties' tax ids",
        });
      }
    }
  }
  const representative = value.tax_representative;
  if (representative && !vat_identifier(representative.vat_id)) {
    problems.push({
      path: ["tax_representative", "vat_id"],
      message:
        "must be a VAT identifier starting with its country code, e.g. DE123456789",
    });
  }
}

function check_account(
  account: { iban?: string; account_id?: string; bic?: string },
  path: (string | number)[],
  problems: Problem[],
  required: boolean,
): void {
  if (account.iban !== undefined && account.account_id !== undefined) {
    problems.push({
      path: [...path, "account_id"],
      message: 'give either "iban" or "account_id", not both',
    });
  } else if (
    required && account.iban === undefined && account.account_id === undefined
  ) {
    problems.push({
      path: [...path, "iban"],
      message: 'give "iban" or "account_id"',
    });
  }
  if (account.iban !== undefined) {
    const problem = iban_problem(account.iban);
    if (problem) problems.push({ path: [...path, "iban"], message: problem });
  }
  if (account.bic !== undefined) {
    const problem = bic_problem(account.bic);
    if (problem) problems.push({ path: [...path, "bic"], message: problem });
  }
}

function check_payment(value: ParsedRequest, problems: Problem[]): void {
  const payment = value.payment;
  if (payment === undefined) return;
  check_account(payment, ["payment"], problems, false);
  if (payment.link !== undefined && !is_https_url(payment.link)) {
    problems.push({
      path: ["payment", "link"],
      message: "must be an https:// URL",
    });
  }
  (payment.additional_accounts ?? []).forEach((account, index) => {
    check_account(
      account,
      ["payment", "additional_accounts", index],
      problems,
      true,
    );
  });
  if (
    payment.additional_accounts?.length && payment.iban === undefined &&
    payment.account_id === undefined
  ) {
    problems.push({
      path: ["payment", "iban"],
      message:
        'is required with additional_accounts (or "account_id"): the first account',
    });
  }
  if (payment.direct_debit?.debtor_iban !== undefined) {
    const problem = iban_problem(payment.direct_debit.debtor_iban);
    if (problem) {
      problems.push({
        path: ["payment", "direct_debit", "debtor_iban"],
        message: problem,
      });
    }
  }
}

function is_https_url(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "https:" && url.hostname !== "";
  } catch {
    return false;
  }
}

function check_tax_currency(
  value: ParsedRequest,
  computation: Computation,
  problems: Problem[],
): void {
  const { tax_currency, tax_total_in_tax_currency } = value;
  if (
    (tax_currency === undefined) !== (tax_total_in_tax_currency === undefined)
  ) {
    problems.push({
      path: [
        tax_currency === undefined
          ? "tax_currency"
          : "tax_total_in_tax_currency",
      ],
      message: 'give "tax_currency" and "tax_total_in_tax_currency" together',
    });
    return;
  }
  if (tax_currency === undefined || tax_total_in_tax_currency === undefined) {
    return;
  }
  if (value.currency === undefined) {
    problems.push({
      path: ["currency"],
      message: "is required with tax_currency",
    });
  } else if (tax_currency === value.currency) {
    problems.push({
      path: ["tax_currency"],
      message: `must differ from currency (${value.currency})`,
    });
  }
  const tax_total = computation.tax_total;
  if (
    tax_total !== 0n && tax_total_in_tax_currency !== 0 &&
    (tax_total > 0n) !== (tax_total_in_tax_currency > 0)
  ) {
    problems.push({
      path: ["tax_total_in_tax_currency"],
      message: "must have the sign of the tax total",
    });
  }
}

function check_attachments(value: ParsedRequest, problems: Problem[]): void {
  const attachments = value.attachments ?? [];
  const names = new Set<string>([FACTUR_X_XML_NAME]);
  let total = 0;
  attachments.forEach((attachment, index) => {
    if (attachment.data === undefined || attachment.filename === undefined) {
      return;
    }
    total += base64_decoded_length(compact_base64(attachment.data));
    if (names.has(attachment.filename)) {
      problems.push({
        path: ["attachments", index, "filename"],
        message: attachment.filename === FACTUR_X_XML_NAME
          ? `must not be ${FACTUR_X_XML_NAME} (the Factur-X invoice's name)`
          : "must differ from the other attachments' file names",
      });
    }
    names.add(attachment.filename);
  });
  if (total > ATTACHMENT_LIMITS.max_total_bytes) {
    problems.push({
      path: ["attachments"],
      message: `must be at most ${
        ATTACHMENT_LIMITS.max_total_bytes / 1024
      } KB decoded together (got ${Math.ceil(total / 1024)} KB)`,
    });
  }
}
