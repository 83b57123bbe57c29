/**
 * Reading e-invoice XML (UBL and CII) by XPath, for tests and tools:
 * parsed by libxml2 (WASM), with the namespace prefixes of both syntaxes.
 *
 * @module
 */
import { XmlDocument, type XmlElement, type XmlNode } from "libxml2-wasm";

/** Namespace prefixes usable in every XPath here. */
export const NAMESPACES = {
  cbc: "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
  cac:
    "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
  inv: "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2",
  cn: "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2",
  rsm: "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100",
  ram:
    "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100",
  udt: "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100",
  qdt: "urn:un:unece:uncefact:data:standard:QualifiedDataType:100",
};

/** A node to read from. */
export class View {
  constructor(readonly node: XmlNode) {}

  /** The trimmed text at `xpath`, undefined when absent or empty. */
  text(xpath: string): string | undefined {
    const found = this.node.get(xpath, NAMESPACES);
    if (found === null) return undefined;
    const text = found.content.trim();
    return text === "" ? undefined : text;
  }

  /** The text at `xpath` without trimming (payment terms keep their line breaks). */
  raw(xpath: string): string | undefined {
    const found = this.node.get(xpath, NAMESPACES);
    return found === null || found.content.trim() === ""
      ? undefined
      : found.content;
  }

  /** An attribute of the element at `xpath`. */
  attr(xpath: string, name: string): string | undefined {
    const found = this.node.get(xpath, NAMESPACES) as XmlElement | null;
    if (found === null) return undefined;
    const value = found.attrs.find((a) => a.name === name)?.value?.trim();
    return value === "" ? undefined : value;
  }

  /** Every element at `xpath`. */
  all(xpath: string): View[] {
    return this.node.find(xpath, NAMESPACES).map((node) => new View(node));
  }

  /** The first element at `xpath`. */
  one(xpath: string): View | undefined {
    const found = this.node.get(xpath, NAMESPACES);
    return found === null ? undefined : new View(found);
  }
}

/** Parses `xml` and gives its root to `read`; the document is freed after. */
export function read_xml<T>(xml: string, read: (root: View) => T): T {
  const document = XmlDocument.fromString(xml);
  try {
    return read(new View(document.root));
  } finally {
    document.dispose();
  }
}

/** The syntax of an e-invoice: UBL Invoice, UBL CreditNote or CII. */
export function syntax_of(root: View): "ubl" | "cii" {
  return root.one("/rsm:CrossIndustryInvoice") ? "cii" : "ubl";
}
