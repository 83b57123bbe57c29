// TEMPORARY: the agreed normalized invoice (/work/wt/invoice_model.md) until
// b9's contract/invoice_types.ts lands; then this file is deleted.
export type TaxCategory = "S" | "Z" | "E" | "AE" | "K" | "G" | "O";
export type DocumentType = "invoice" | "credit_note";
export interface InvoiceParty {
  name: string;
  email: string;
  address?: string;
  address_lines?: string[];
  city?: string;
  state?: string;
  zip?: string;
  country?: string;
  tax_id?: string;
  company_id?: string;
  phone?: string;
  contact_name?: string;
  electronic_address?: { scheme: string; id: string };
}
export interface InvoiceLineItem {
  description: string;
  quantity: number;
  rate: string;
  amount: string;
  unit?: string;
  tax_category?: TaxCategory;
  tax_rate?: string;
  item_id?: string;
  buyer_item_id?: string;
}
export interface AllowanceCharge {
  description: string;
  amount: string;
  percent?: string;
  base_amount?: string;
  tax_category?: TaxCategory;
  tax_rate?: string;
}
export interface TaxBreakdownRow {
  category: TaxCategory;
  rate: string;
  taxable_amount: string;
  tax_amount: string;
  exemption_reason?: string;
}
export interface Invoice {
  invoice_number: string;
  date: string;
  due_date: string;
  currency?: string;
  sender: InvoiceParty;
  bill_to: InvoiceParty;
  items: InvoiceLineItem[];
  notes?: string;
  subtotal: string;
  total: string;
  document_type: DocumentType;
  preceding_invoice_number?: string;
  locale?: string;
  tax_label?: string;
  tax_exemption_reason?: string;
  discounts?: AllowanceCharge[];
  charges?: AllowanceCharge[];
  discount_total?: string;
  charge_total?: string;
  has_tax: boolean;
  tax_breakdown?: TaxBreakdownRow[];
  total_without_tax?: string;
  tax_total?: string;
  amount_paid?: string;
  amount_due: string;
  purchase_order?: string;
  buyer_reference?: string;
  payment_terms?: string;
  payment?: {
    iban?: string;
    bic?: string;
    account_name?: string;
    bank_name?: string;
    reference?: string;
    link?: string;
  };
  delivery_date?: string;
  billing_period?: { start: string; end: string };
}
