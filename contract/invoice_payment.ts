/**
 * Payment instructions of an invoice request (BG-16 to BG-19) and
 * early-payment discounts.
 *
 * @module
 */
import { z } from "zod";
import { normalize_iban } from "./bank.ts";
import { PAYMENT_MEANS_CODES } from "./einvoice_codes.ts";
import {
  bounded_list,
  INVOICE_LIMITS,
  listed_code,
  non_negative_amount,
  optional_text,
  percent,
  required_text,
} from "./invoice_fields.ts";

const iban = z.string().trim().max(42).transform(normalize_iban);

const account_id = z.string().trim().min(1, "must not be empty").max(
  INVOICE_LIMITS.reference,
  `must be at most ${INVOICE_LIMITS.reference} characters`,
);

const bic = z.string().trim().toUpperCase();

/** A further account to pay into (BG-17). */
const AccountSchema = z.strictObject({
  iban: iban.optional().describe("IBAN (give this or `account_id`) (BT-84)."),
  account_id: account_id.optional().describe(
    "Account number that is not an IBAN (BT-84).",
  ),
  bic: bic.optional().describe("BIC (BT-86)."),
  account_name: optional_text(
    INVOICE_LIMITS.account_name,
    "Account holder's name (BT-85).",
  ),
});

/** Payment instructions. */
export const PaymentSchema = z.strictObject({
  iban: iban.optional().describe(
    "IBAN (spaces allowed), checked by length and check digits (BT-84).",
  ),
  bic: bic.optional().describe("BIC (SWIFT code), 8 or 11 characters (BT-86)."),
  account_name: optional_text(
    INVOICE_LIMITS.account_name,
    "Account holder's name (BT-85).",
  ),
  bank_name: optional_text(INVOICE_LIMITS.bank_name, "Bank name."),
  reference: optional_text(
    INVOICE_LIMITS.reference,
    "Remittance text the payer should quote (BT-83).",
  ),
  link: z.string().trim().max(INVOICE_LIMITS.link).optional().describe(
    "An https URL of a payment page, printed as a clickable link.",
  ),
  means_code: listed_code(
    PAYMENT_MEANS_CODES,
    "must be a UNTDID 4461 payment means code such as 30, 58, 48 or 59",
  ).optional().describe(
    "UNTDID 4461 payment means (BT-81): 30 credit transfer, 58 SEPA credit transfer, " +
      "48 bank card, 54 credit card, 59 SEPA direct debit, 10 cash, … " +
      "Default: from the other fields (58 for an EUR IBAN, 30 for other accounts, " +
      "48 for a card, 59 or 49 for a direct debit).",
  ),
  means_text: optional_text(
    INVOICE_LIMITS.reference,
    'How to pay, in words, e.g. "Bank transfer" (BT-82).',
  ),
  account_id: account_id.optional().describe(
    "Account number that is not an IBAN, e.g. a Swedish Bankgiro (BT-84).",
  ),
  additional_accounts: bounded_list(
    AccountSchema,
    INVOICE_LIMITS.accounts,
    "More accounts the buyer may pay into `{iban | account_id, bic?, account_name?}` (BG-17).",
  ),
  card: z.strictObject({
    last4: z.string().trim().regex(
      /^[0-9]{4,6}$/,
      "must be the last 4 to 6 digits of the card number",
    ).describe("Last 4 (to 6) digits of the card number (BT-87)."),
    holder: optional_text(INVOICE_LIMITS.name, "Card holder's name (BT-88)."),
  }).optional().describe("The card the buyer pays with (BG-18)."),
  direct_debit: z.strictObject({
    mandate_reference: required_text(
      INVOICE_LIMITS.reference,
      "The mandate reference (BT-89).",
    ),
    creditor_id: optional_text(
      INVOICE_LIMITS.reference,
      "The seller's (or payee's) SEPA creditor identifier (BT-90; required by XRechnung).",
    ),
    debtor_iban: iban.optional().describe(
      "The account debited (BT-91; required by XRechnung).",
    ),
  }).optional().describe("A direct debit from the buyer's account (BG-19)."),
  discount_terms: bounded_list(
    z.strictObject({
      days: z.number().int("must be a whole number").min(0).max(
        366,
        "must be at most 366",
      ).describe("Days after the invoice date the discount applies."),
      percent: percent.describe("Discount in percent."),
      base_amount: non_negative_amount.optional().describe(
        "Amount the percent is of (default: the amount due).",
      ),
    }),
    INVOICE_LIMITS.discount_terms,
    "Early-payment discounts `{days, percent, base_amount?}`: readable on the PDF, " +
      "`#SKONTO#` lines of the payment terms in XRechnung.",
  ),
}).meta({ id: "Payment" });
