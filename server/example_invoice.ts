/**
 * The example invoice, written once: the OpenAPI document sends it as the
 * request example of `POST /generate` (as is, dated), and the dashboard's
 * Try it page starts from it (carried in the page, see `pages.ts`), dated
 * today in the browser. tests/contract/example_invoice.test.ts checks that it passes
 * the contract's schemas and that both show this same object.
 *
 * @module
 */
import type { GenerateRequest } from "../contract/mod.ts";

/**
 * A valid invoice to start from: US sales tax, a discount, payment terms.
 * The Try it page moves `date` to today, `due_date` as many days after it,
 * and the year in `invoice_number` (the year of `date` here) to this year.
 */
export const EXAMPLE_INVOICE = {
  invoice_number: "INV-2026-0001",
  date: "2026-11-23",
  due_date: "2026-12-23",
  currency: "USD",
  sender: {
    name: "Northwind Studio LLC",
    email: "billing@northwind.example",
    address: "500 Market Street, Suite 200",
    city: "San Francisco",
    state: "CA",
    zip: "94105",
    country: "US",
  },
  bill_to: {
    name: "Globex Corporation",
    email: "accounts@globex.example",
    address: "42 Harbor Road",
    city: "Boston",
    state: "MA",
    zip: "02110",
    country: "US",
  },
  tax_rate: 7.25,
  tax_label: "Sales tax",
  items: [
    {
      description: "Website redesign (fixed fee)",
      quantity: 1,
      rate: 4800,
      amount: 4800,
    },
    {
      description: "Managed hosting, monthly",
      quantity: 12,
      rate: 25,
      amount: 300,
    },
    { description: "Support hours", quantity: 6, rate: 95.5, amount: 573 },
  ],
  discounts: [{ description: "Returning-customer discount", percent: 5 }],
  payment_terms: "Net 30",
  notes:
    "Thank you for your business. Payment within 30 days by bank transfer.",
} satisfies GenerateRequest;
