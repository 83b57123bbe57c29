/**
 * XML Schema validation with libxml2 compiled to WebAssembly
 * (`libxml2-wasm`), so no native xmllint is needed. Each schema is compiled
 * once per process (seconds for UBL); a document then takes about a
 * millisecond. Schemas read their imports from the rules folder only, through
 * an in-memory input provider: documents can make libxml2 read no file.
 *
 * @module
 */
import {
  type ErrorDetail,
  XmlBufferInputProvider,
  XmlDocument,
  XmlLibError,
  xmlRegisterInputProvider,
  XsdValidator,
} from "libxml2-wasm";
import { RULES_DIR, type SchemaChoice } from "./rule_sets.ts";
import { root_name } from "./document_kind.ts";

/** One schema error in a document. */
export interface SchemaError {
  /** The schema's file name, e.g. "UBL-Invoice-2.1.xsd", or "XML" when not well-formed. */
  readonly schema: string;
  /** Line in the document, when libxml2 gives one. */
  readonly line: number | null;
  readonly message: string;
}

/** Where the schema files appear to libxml2. */
const SCHEMA_BASE = "file:///einvoice-rules/";

let provider_registered = false;

/** Offers every .xsd of the rules folder to libxml2, once. */
function register_schema_files(): void {
  if (provider_registered) return;
  const files: Record<string, Uint8Array> = {};
  const walk = (relative: string) => {
    for (const entry of Deno.readDirSync(new URL(relative, RULES_DIR))) {
      const path = `${relative}${entry.name}`;
      if (entry.isDirectory) walk(`${path}/`);
      else if (entry.name.endsWith(".xsd")) {
        files[`${SCHEMA_BASE}${path}`] = Deno.readFileSync(
          new URL(path, RULES_DIR),
        );
      }
    }
  };
  walk("");
  xmlRegisterInputProvider(new XmlBufferInputProvider(files));
  provider_registered = true;
}

const validators = new Map<string, XsdValidator>();

/** The compiled schema of a file in the rules folder, kept for the process. */
function validator(schema: string): XsdValidator {
  let found = validators.get(schema);
  if (found === undefined) {
    register_schema_files();
    const url = `${SCHEMA_BASE}${schema}`;
    const document = XmlDocument.fromBuffer(
      Deno.readFileSync(new URL(schema, RULES_DIR)),
      { url },
    );
    found = XsdValidator.fromDoc(document);
    validators.set(schema, found);
  }
  return found;
}

/** The schema file for a document: UBL picks Invoice or CreditNote by root. */
export function schema_file(choice: SchemaChoice, xml: string): string {
  if (choice.kind === "file") return `${choice.folder}/${choice.file}`;
  return `${choice.folder}/${
    root_name(xml) === "CreditNote" ? choice.credit_note : choice.invoice
  }`;
}

function as_errors(schema: string, details: ErrorDetail[]): SchemaError[] {
  return details.map((detail) => ({
    schema,
    line: detail.line > 0 ? detail.line : null,
    message: detail.message.trim(),
  }));
}

/**
 * Validates a document against the schema file `schema` (a path inside the
 * rules folder, from {@link schema_file}); no errors means valid.
 */
export function schema_errors(schema: string, xml: string): SchemaError[] {
  const name = schema.split("/").pop()!;
  const compiled = validator(schema);
  let document: XmlDocument;
  try {
    document = XmlDocument.fromString(xml, { url: "document.xml" });
  } catch (error) {
    if (error instanceof XmlLibError) {
      return as_errors("XML", error.details);
    }
    return [{ schema: "XML", line: null, message: (error as Error).message }];
  }
  try {
    compiled.validate(document);
    return [];
  } catch (error) {
    if (error instanceof XmlLibError) return as_errors(name, error.details);
    throw error;
  } finally {
    document.dispose();
  }
}
