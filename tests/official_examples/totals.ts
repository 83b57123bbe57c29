/**
 * The totals (BG-22) and VAT breakdown (BG-23) of an e-invoice, read from
 * its XML (UBL or CII), as decimal strings with two places: what a test
 * compares between an official example and our output.
 *
 * @module
 */
import { read_xml, syntax_of, type View } from "./xml_view.ts";

/** Totals and breakdown of one e-invoice. */
export interface Totals {
  /** BT-106 */
  line_total: string;
  /** BT-107 */
  allowance_total: string;
  /** BT-108 */
  charge_total: string;
  /** BT-109 */
  tax_basis_total: string;
  /** BT-110 */
  tax_total: string;
  /** BT-112 */
  grand_total: string;
  /** BT-113 */
  prepaid: string;
  /** BT-114 */
  rounding: string;
  /** BT-115 */
  due: string;
  /** BG-23: category, rate, taxable amount (BT-116), tax (BT-117). */
  breakdown: { category: string; rate: string; taxable: string; tax: string }[];
}

/** A decimal text as a plain string with two decimals ("7" → "7.00", "-.5" → "-0.50"). */
export function two_places(text: string | undefined): string {
  if (text === undefined) return "0.00";
  const negative = text.trim().startsWith("-");
  const [whole, fraction = ""] = text.trim().replace(/^[-+]/, "").split(".");
  const cents = BigInt((whole || "0") + fraction.padEnd(2, "0").slice(0, 2));
  if (fraction.length > 2 && /[1-9]/.test(fraction.slice(2))) {
    throw new Error(`more than two decimals: ${text}`);
  }
  const magnitude = cents.toString().padStart(3, "0");
  const value = `${magnitude.slice(0, -2)}.${magnitude.slice(-2)}`;
  return negative && cents !== 0n ? `-${value}` : value;
}

/** A rate as a plain decimal without trailing zeros ("19.00" → "19"). */
export function plain_rate(text: string | undefined): string {
  if (text === undefined) return "0";
  const [whole, fraction = ""] = text.trim().split(".");
  const trimmed = fraction.replace(/0+$/, "");
  return `${BigInt(whole || "0")}${trimmed ? `.${trimmed}` : ""}`;
}

function ubl_totals(root: View): Totals {
  const total = root.one("cac:LegalMonetaryTotal")!;
  const tax_total =
    root.all("cac:TaxTotal").find((t) => t.all("cac:TaxSubtotal").length > 0) ??
      root.one("cac:TaxTotal");
  return {
    line_total: two_places(total.text("cbc:LineExtensionAmount")),
    allowance_total: two_places(total.text("cbc:AllowanceTotalAmount")),
    charge_total: two_places(total.text("cbc:ChargeTotalAmount")),
    tax_basis_total: two_places(total.text("cbc:TaxExclusiveAmount")),
    tax_total: two_places(tax_total?.text("cbc:TaxAmount")),
    grand_total: two_places(total.text("cbc:TaxInclusiveAmount")),
    prepaid: two_places(total.text("cbc:PrepaidAmount")),
    rounding: two_places(total.text("cbc:PayableRoundingAmount")),
    due: two_places(total.text("cbc:PayableAmount")),
    breakdown: (tax_total?.all("cac:TaxSubtotal") ?? []).map((row) => ({
      category: row.text("cac:TaxCategory/cbc:ID") ?? "",
      rate: plain_rate(row.text("cac:TaxCategory/cbc:Percent")),
      taxable: two_places(row.text("cbc:TaxableAmount")),
      tax: two_places(row.text("cbc:TaxAmount")),
    })),
  };
}

function cii_totals(root: View): Totals {
  const settlement = root.one(
    "rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement",
  )!;
  const total = settlement.one(
    "ram:SpecifiedTradeSettlementHeaderMonetarySummation",
  )!;
  const currency = settlement.text("ram:InvoiceCurrencyCode");
  const tax_amounts = total.all("ram:TaxTotalAmount");
  const tax_total =
    tax_amounts.find((amount) => amount.attr(".", "currencyID") === currency) ??
      tax_amounts[0];
  return {
    line_total: two_places(total.text("ram:LineTotalAmount")),
    allowance_total: two_places(total.text("ram:AllowanceTotalAmount")),
    charge_total: two_places(total.text("ram:ChargeTotalAmount")),
    tax_basis_total: two_places(total.text("ram:TaxBasisTotalAmount")),
    tax_total: two_places(tax_total?.text(".")),
    grand_total: two_places(total.text("ram:GrandTotalAmount")),
    prepaid: two_places(total.text("ram:TotalPrepaidAmount")),
    rounding: two_places(total.text("ram:RoundingAmount")),
    due: two_places(total.text("ram:DuePayableAmount")),
    breakdown: settlement.all("ram:ApplicableTradeTax").map((row) => ({
      category: row.text("ram:CategoryCode") ?? "",
      rate: plain_rate(row.text("ram:RateApplicablePercent")),
      taxable: two_places(row.text("ram:BasisAmount")),
      tax: two_places(row.text("ram:CalculatedAmount")),
    })),
  };
}

/** The totals and breakdown of an e-invoice's XML. */
export function read_totals(xml: string): Totals {
  return read_xml(
    xml,
    (root) => syntax_of(root) === "cii" ? cii_totals(root) : ubl_totals(root),
  );
}
