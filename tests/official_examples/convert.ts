/**
 * Development tool: an official example e-invoice (UBL or CII XML) as our
 * invoice request JSON, business term by business term. The committed
 * fixtures (`tests/fixtures/official_examples/requests/`) were made with it
 * and are the test's input; this tool is not run by the tests.
 *
 * ```sh
 * deno run -A tests/official_examples/convert.ts OUT_DIR FILE.xml …
 * ```
 *
 * Where the XML says something our request cannot, the request says the
 * nearest thing it can (see the README of the fixtures' folder): a percent
 * whose amount we would compute differently is sent as its amount, a party
 * without an e-mail address gets a placeholder address.
 *
 * @module
 */
import { read_xml, syntax_of } from "./xml_view.ts";
import { clean, email_or_placeholder, type Request } from "./request_parts.ts";
import {
  bic_problem,
  iban_problem,
  normalize_iban,
} from "../../contract/bank.ts";
import { request_from_ubl } from "./convert_ubl.ts";
import { request_from_cii } from "./convert_cii.ts";
import {
  decimal_from_number,
  divide_rounded,
  percent_of,
  to_cents,
} from "../../contract/money.ts";

/** A request and what it says differently from its XML, and why. */
export interface Conversion {
  request: Request;
  deviations: string[];
}

/** The request an official example's XML says. */
export function request_from_xml(xml: string): Conversion {
  const raw = read_xml(
    xml,
    (root) =>
      syntax_of(root) === "cii"
        ? request_from_cii(root)
        : request_from_ubl(root),
  );
  const deviations: string[] = [];
  return { request: settle(clean(raw), deviations), deviations };
}

/** quantity × rate ÷ base quantity − discounts + charges, exactly (as a fraction of cents). */
function line_fraction(item: Request): { n: bigint; d: bigint } {
  const q = decimal_from_number(item.quantity);
  const r = decimal_from_number(item.rate);
  const b = decimal_from_number(item.base_quantity ?? 1);
  const d = b.units * 10n ** BigInt(q.scale + r.scale);
  let n = q.units * r.units * 10n ** BigInt(b.scale) * 100n;
  const sum = (list: Request[] | undefined) =>
    (list ?? []).reduce((t, e) => t + to_cents(e.amount ?? 0), 0n);
  n += (sum(item.charges) - sum(item.discounts)) * d;
  return { n, d };
}

function fits(item: Request): boolean {
  const { n, d } = line_fraction(item);
  const off = to_cents(item.amount) * d - n;
  return (off < 0n ? -off : off) <= d;
}

/** quantity × rate ÷ base quantity in cents, rounded. */
function line_base(item: Request): bigint {
  const q = decimal_from_number(item.quantity);
  const r = decimal_from_number(item.rate);
  const b = decimal_from_number(item.base_quantity ?? 1);
  return divide_rounded(
    q.units * r.units * 10n ** BigInt(b.scale) * 100n,
    b.units * 10n ** BigInt(q.scale + r.scale),
  );
}

/**
 * A line whose amount is not quantity × price in the XML (EN 16931 does not
 * check it; our request does): the nearest line that is.
 */
function fit_line(
  original: Request,
  at: string,
  deviations: string[],
): Request {
  if (fits(original)) return original;
  let item = original;
  if (
    item.base_quantity !== undefined &&
    item.base_quantity === Math.abs(item.rate)
  ) {
    deviations.push(
      `${at}: its price base quantity equals its price (left out)`,
    );
    item = clean({ ...item, base_quantity: undefined });
    if (fits(item)) return item;
  }
  const flipped = { ...item, rate: -item.rate };
  if (fits(flipped)) {
    deviations.push(
      `${at}: its amount has the opposite sign of quantity × price (the price is negated)`,
    );
    return flipped;
  }
  const adjustment = line_fraction({ ...item, quantity: 0 });
  const product = to_cents(item.amount) - adjustment.n / adjustment.d;
  const rate = Number(product) / 100 / item.quantity *
    (item.base_quantity ?? 1);
  const priced = { ...item, rate: Number(rate.toFixed(6)) };
  if (fits(priced)) {
    deviations.push(
      `${at}: quantity × price (${item.quantity} × ${item.rate}${
        item.base_quantity ? ` ÷ ${item.base_quantity}` : ""
      }) is not its amount ${item.amount}; the price is written as ${priced.rate}`,
    );
    return priced;
  }
  deviations.push(
    `${at}: quantity × price is not its amount ${item.amount}; written as 1 × ${item.amount}`,
  );
  return clean({
    ...item,
    quantity: 1,
    rate: item.amount,
    base_quantity: undefined,
    discounts: undefined,
    charges: undefined,
  });
}

/**
 * An allowance or charge as the request takes it: a percent (with its base
 * where the request has one) when it gives the amount of the XML, else the
 * amount.
 */
function settle_adjustment(
  entry: Request,
  base: bigint | undefined,
  has_base_field: boolean,
  at: string,
  deviations: string[],
): Request {
  const { amount, percent, base_amount, ...rest } = entry;
  if (percent !== undefined && amount !== undefined) {
    const explicit = base_amount !== undefined ? to_cents(base_amount) : base;
    if (
      explicit !== undefined &&
      percent_of(explicit, decimal_from_number(percent)) === to_cents(amount) &&
      (has_base_field || base_amount === undefined ||
        to_cents(base_amount) === base)
    ) {
      return {
        ...rest,
        percent,
        ...(has_base_field && base_amount !== undefined ? { base_amount } : {}),
      };
    }
    deviations.push(
      `${at}: ${percent} % of ${
        base_amount ?? "its base"
      } is not its amount ${amount} (or has no base here); sent as the amount`,
    );
  }
  if (amount !== undefined) return { ...rest, amount };
  return { ...rest, percent, ...(has_base_field ? { base_amount } : {}) };
}

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const CATEGORIES = ["S", "Z", "E", "AE", "K", "G", "O"];

function settle_party(
  party: Request,
  at: string,
  deviations: string[],
): Request {
  const out = { ...party };
  if (out.email === email_or_placeholder(undefined)) {
    deviations.push(
      `${at}.email: none in the XML; a placeholder address (our request requires one)`,
    );
  } else if (!EMAIL.test(out.email)) {
    deviations.push(
      `${at}.email: "${out.email}" is not an e-mail address; a placeholder address`,
    );
    out.email = email_or_placeholder(undefined);
  }
  if (out.phone !== undefined && (out.phone.match(/[0-9]/g) ?? []).length < 3) {
    deviations.push(`${at}.phone: "${out.phone}" has no digits; left out`);
    delete out.phone;
  }
  return out;
}

function settle_payment(
  payment: Request | undefined,
  deviations: string[],
): Request | undefined {
  if (payment === undefined) return undefined;
  const drop_bic = (account: Request, at: string) => {
    if (account.bic !== undefined && bic_problem(account.bic) !== undefined) {
      deviations.push(`${at}.bic: "${account.bic}" is not a BIC; left out`);
      const { bic: _, ...rest } = account;
      return rest;
    }
    return account;
  };
  const debtor = payment.direct_debit?.debtor_iban;
  if (debtor !== undefined && iban_problem(normalize_iban(debtor))) {
    deviations.push(
      `payment.direct_debit.debtor_iban: "${debtor}" is not a valid IBAN; left out`,
    );
    payment = { ...payment, direct_debit: { ...payment.direct_debit } };
    delete payment.direct_debit.debtor_iban;
  }
  return clean({
    ...drop_bic(payment, "payment"),
    additional_accounts: payment.additional_accounts?.map((
      a: Request,
      i: number,
    ) => drop_bic(a, `payment.additional_accounts[${i}]`)),
  });
}

function settle(request: Request, deviations: string[]): Request {
  const items = (request.items ?? []).map((item: Request, index: number) => {
    const at = `items[${index}]`;
    if (item.tax_category && !CATEGORIES.includes(item.tax_category)) {
      deviations.push(
        `${at}: VAT category ${item.tax_category} is not one our request has; NOT PRODUCIBLE`,
      );
    }
    const base = line_base(item);
    const adjust = (list: Request[] | undefined, kind: string) =>
      list?.map((entry, i) =>
        settle_adjustment(entry, base, false, `${at}.${kind}[${i}]`, deviations)
      );
    return fit_line(
      clean({
        ...item,
        discounts: adjust(item.discounts, "discounts"),
        charges: adjust(item.charges, "charges"),
        // A price of 1 unit needs no base quantity.
        base_quantity: item.base_quantity === 1
          ? undefined
          : item.base_quantity,
      }),
      at,
      deviations,
    );
  });
  const adjust = (list: Request[] | undefined, kind: string) =>
    list?.map((entry, i) =>
      settle_adjustment(entry, undefined, true, `${kind}[${i}]`, deviations)
    );
  const out: Request = {
    ...request,
    sender: settle_party(request.sender, "sender", deviations),
    bill_to: settle_party(request.bill_to, "bill_to", deviations),
    items,
    discounts: adjust(request.discounts, "discounts"),
    charges: adjust(request.charges, "charges"),
    payment: settle_payment(request.payment, deviations),
  };
  if (out.due_date === undefined) {
    deviations.push(
      "due_date: none in the XML (our request requires one); the invoice date",
    );
    out.due_date = out.date;
  } else if (out.due_date < out.date) {
    deviations.push(
      `due_date: ${out.due_date} is before the invoice date (our request refuses that); the invoice date`,
    );
    out.due_date = out.date;
  }
  if (out.tax_point_date_code !== undefined) {
    deviations.push(
      `tax point date code (BT-8) ${out.tax_point_date_code}: not in our request; left out`,
    );
    delete out.tax_point_date_code;
  }
  if (out.tax_currency !== undefined && out.tax_currency === out.currency) {
    deviations.push("tax_currency: the invoice currency itself; left out");
    delete out.tax_currency;
    delete out.tax_total_in_tax_currency;
  }
  if (
    out.document_type === "credit_note" &&
    out.preceding_invoice_number === undefined &&
    !out.preceding_invoices?.length
  ) {
    deviations.push(
      "preceding_invoices: the credit note names no invoice (our credit notes must); its own number",
    );
    out.preceding_invoice_number = out.invoice_number;
  }
  out.attachments = out.attachments?.map((attachment: Request, i: number) => {
    const size = attachment.data ? attachment.data.length * 3 / 4 : 0;
    if (size > 512 * 1024) {
      deviations.push(
        `attachments[${i}]: ${attachment.filename} is ${
          Math.round(size / 1024)
        } KB, over our 512 KB; its reference is kept, the file left out`,
      );
      const { data: _d, filename: _f, mime_type: _m, ...rest } = attachment;
      return rest;
    }
    return attachment;
  });
  return clean(out);
}

if (import.meta.main) {
  const [out, ...files] = Deno.args;
  for (const file of files) {
    const { request, deviations } = request_from_xml(
      await Deno.readTextFile(file),
    );
    const name = file.split("/").pop()!.replace(/\.xml$/i, "");
    await Deno.writeTextFile(
      `${out}/${name}.json`,
      JSON.stringify(request, null, 2) + "\n",
    );
    console.log(`${name}\n${deviations.map((d) => `  - ${d}`).join("\n")}`);
  }
}
