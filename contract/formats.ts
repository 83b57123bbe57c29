/**
 * The output formats of `POST /generate`, as one table: what each is
 * called, its syntax and profile, the content type and file extension it
 * answers with, whether it is a PDF, and which rule sets decide the fields
 * it requires. Everything that depends on the format reads this table.
 *
 * Plain data without schemas: the render worker loads it without zod.
 *
 * @module
 */

/** Output formats; `pdf` is the plain PDF. */
export const INVOICE_FORMATS = [
  "pdf",
  "factur-x",
  "xrechnung-cii",
  "xrechnung-ubl",
  "ubl",
  "cii",
] as const;

/** An output format. */
export type InvoiceFormat = (typeof INVOICE_FORMATS)[number];

/** The `Content-Type` of an answer, by what its format outputs. */
export const OUTPUT_CONTENT_TYPES = {
  pdf: "application/pdf",
  xml: "application/xml; charset=utf-8",
} as const;

/** Content type of a rendered document. */
export type DocumentContentType =
  (typeof OUTPUT_CONTENT_TYPES)[keyof typeof OUTPUT_CONTENT_TYPES];

/** The content type of the XML formats. */
export const XML_CONTENT_TYPE: DocumentContentType = OUTPUT_CONTENT_TYPES.xml;

/** Name of the XML inside a Factur-X PDF; attachments may not take it. */
export const FACTUR_X_XML_NAME = "factur-x.xml";

/** Which rule sets decide the fields a format requires (`format_problems`). */
export interface FormatRules {
  /** EN 16931 (BT-5, BT-40, BT-55, BT-151 …); every e-invoice format. */
  en16931: boolean;
  /** Both parties' electronic addresses (BT-34, BT-49). */
  electronic_addresses: boolean;
  /** Peppol BIS Billing 3.0 (PEPPOL-EN16931-R*, national rules). */
  peppol: boolean;
  /** XRechnung (BR-DE-*); Peppol applies them between German parties too. */
  xrechnung: boolean;
  /** XML attachments (BR-CL-24): only XRechnung takes them. */
  xml_attachments: boolean;
}

/** The XML syntax a format writes, and the profile of it the XML follows. */
export type XmlSyntax =
  | { syntax: "cii"; profile: "en16931" | "factur-x" | "xrechnung" }
  | { syntax: "ubl"; profile: "peppol" | "xrechnung" }
  | { syntax: null; profile: null };

/** What the table says of one format. */
export type InvoiceFormatInfo = XmlSyntax & {
  /** The name people know it by. */
  name: string;
  /** A PDF (possibly with the XML inside), or XML alone. */
  pdf: boolean;
  content_type: DocumentContentType;
  extension: "pdf" | "xml";
  /** What the request field's description says the format is. */
  summary: string;
  rules: FormatRules;
};

const NO_RULES: FormatRules = {
  en16931: false,
  electronic_addresses: false,
  peppol: false,
  xrechnung: false,
  xml_attachments: false,
};

const EN16931: FormatRules = { ...NO_RULES, en16931: true };

const XRECHNUNG: FormatRules = {
  ...EN16931,
  electronic_addresses: true,
  xrechnung: true,
  xml_attachments: true,
};

const XML = {
  pdf: false,
  content_type: XML_CONTENT_TYPE,
  extension: "xml",
} as const;
const PDF = {
  pdf: true,
  content_type: OUTPUT_CONTENT_TYPES.pdf,
  extension: "pdf",
} as const;

/** Every output format. */
export const INVOICE_FORMAT_TABLE: Record<InvoiceFormat, InvoiceFormatInfo> = {
  pdf: {
    name: "PDF",
    syntax: null,
    profile: null,
    ...PDF,
    summary: "the plain PDF",
    rules: NO_RULES,
  },
  "factur-x": {
    name: "Factur-X / ZUGFeRD (PDF with XML)",
    syntax: "cii",
    profile: "factur-x",
    ...PDF,
    summary: "PDF/A-3 with the invoice as EN 16931 CII XML inside",
    rules: EN16931,
  },
  "xrechnung-cii": {
    name: "XRechnung 3.0, CII (XML)",
    syntax: "cii",
    profile: "xrechnung",
    ...XML,
    summary: "XRechnung 3.0 XML",
    rules: XRECHNUNG,
  },
  "xrechnung-ubl": {
    name: "XRechnung 3.0, UBL (XML)",
    syntax: "ubl",
    profile: "xrechnung",
    ...XML,
    summary: "XRechnung 3.0 XML",
    rules: XRECHNUNG,
  },
  ubl: {
    name: "Peppol BIS Billing 3.0, UBL (XML)",
    syntax: "ubl",
    profile: "peppol",
    ...XML,
    summary: "Peppol BIS Billing 3.0 UBL XML",
    rules: { ...EN16931, electronic_addresses: true, peppol: true },
  },
  cii: {
    name: "EN 16931, CII (XML)",
    syntax: "cii",
    profile: "en16931",
    ...XML,
    summary: "EN 16931 CII XML",
    rules: EN16931,
  },
};

/** Whether a format answers a PDF (the plain PDF and Factur-X). */
export function is_pdf_format(format: InvoiceFormat): boolean {
  return INVOICE_FORMAT_TABLE[format].pdf;
}

/**
 * The description of the request field `format`, from the table: each
 * format but the default with its summary, formats of one summary together.
 */
export function invoice_format_description(): string {
  const groups: { ids: string[]; summary: string }[] = [];
  for (const id of INVOICE_FORMATS.slice(1)) {
    const { summary } = INVOICE_FORMAT_TABLE[id];
    const last = groups.at(-1);
    if (last?.summary === summary) last.ids.push(`\`${id}\``);
    else groups.push({ ids: [`\`${id}\``], summary });
  }
  const listed = groups.map((group) =>
    `${group.ids.join(" / ")} (${group.summary})`
  );
  return `Output format (default \`${INVOICE_FORMATS[0]}\`): ${
    listed.join(", ")
  }. XML formats answer \`${XML_CONTENT_TYPE}\`.`;
}
