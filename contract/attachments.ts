/**
 * Supporting documents attached to an invoice (BG-24): base64 data of the
 * types EN 16931 and XRechnung accept, within a size limit well inside the
 * request body limit, and checked to be what their MIME type says.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { z } from "zod";
import { ATTACHMENT_MIME_TYPES } from "./einvoice_codes.ts";
import {
  INVOICE_LIMITS,
  optional_text,
  required_text,
} from "./invoice_fields.ts";
import { issue_check, type IssueSink } from "./zod_checks.ts";

/** Limits on attachments. */
export const ATTACHMENT_LIMITS = {
  /** Attachments per invoice. */
  max_count: 10,
  /** Decoded bytes of all attachments together (the request body is at most 1 MiB). */
  max_total_bytes: 512 * 1024,
  filename: 200,
} as const;

/** A MIME type of an attachment. */
export type AttachmentMimeType = (typeof ATTACHMENT_MIME_TYPES)[number];

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decoded length of base64 text without whitespace. */
export function base64_decoded_length(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return (data.length / 4) * 3 - padding;
}

/** Base64 text with line breaks and spaces removed. */
export function compact_base64(data: string): string {
  return data.replace(/[\s]+/g, "");
}

const ZIP = [0x50, 0x4b, 0x03, 0x04];

/** First bytes each type starts with; text types are checked as UTF-8. */
const SIGNATURES: Record<AttachmentMimeType, number[] | "text"> = {
  "application/pdf": [0x25, 0x50, 0x44, 0x46, 0x2d],
  "image/png": [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
  "image/jpeg": [0xff, 0xd8, 0xff],
  "text/csv": "text",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ZIP,
  "application/vnd.oasis.opendocument.spreadsheet": ZIP,
  "application/xml": "text",
};

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Why `bytes` are not a file of `mime_type`, or undefined. */
function content_problem(
  bytes: Uint8Array,
  mime_type: AttachmentMimeType,
): string | undefined {
  const signature = SIGNATURES[mime_type];
  if (signature !== "text") {
    return signature.every((byte, i) => bytes[i] === byte)
      ? undefined
      : `is not a ${mime_type} file (its first bytes say otherwise)`;
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return `must be UTF-8 text for ${mime_type}`;
  }
  if (text.includes("\u0000")) return `must be text for ${mime_type}`;
  if (mime_type === "application/xml" && !/^\uFEFF?\s*</.test(text)) {
    return "is not XML (it must start with <)";
  }
  return undefined;
}

interface AttachmentFields {
  data: string;
  mime_type: AttachmentMimeType;
}

function check_attachment(value: AttachmentFields, sink: IssueSink): void {
  const data = compact_base64(value.data);
  if (data.length === 0 || data.length % 4 !== 0 || !BASE64.test(data)) {
    sink.addIssue({ path: ["data"], message: "must be base64 data" });
    return;
  }
  if (base64_decoded_length(data) > ATTACHMENT_LIMITS.max_total_bytes) {
    sink.addIssue({
      path: ["data"],
      message: `must be at most ${
        ATTACHMENT_LIMITS.max_total_bytes / 1024
      } KB decoded`,
    });
    return;
  }
  const problem = content_problem(
    Buffer.from(data, "base64"),
    value.mime_type,
  );
  if (problem) sink.addIssue({ path: ["data"], message: problem });
}

/** One supporting document (BG-24). */
export const AttachmentSchema = z.strictObject({
  id: required_text(
    INVOICE_LIMITS.reference,
    "Reference of the document, e.g. its number (BT-122).",
  ),
  description: optional_text(
    INVOICE_LIMITS.allowance_description,
    "What the document is (BT-123).",
  ),
  filename: required_text(
    ATTACHMENT_LIMITS.filename,
    "File name, e.g. timesheet.pdf (BT-125-2).",
  ).regex(
    // deno-lint-ignore no-control-regex
    /^[^/\\\u0000-\u001f]+$/,
    "must be a file name without / or \\",
  ),
  mime_type: z.enum(ATTACHMENT_MIME_TYPES, {
    error: `must be one of ${ATTACHMENT_MIME_TYPES.join(", ")}`,
  }).describe(
    "MIME type (BT-125-1): application/pdf, image/png, image/jpeg, text/csv, xlsx, ods; " +
      "application/xml in XRechnung only.",
  ),
  data: z.string().max(
    Math.ceil(ATTACHMENT_LIMITS.max_total_bytes / 3) * 4 + 20_000,
    `must be at most ${ATTACHMENT_LIMITS.max_total_bytes / 1024} KB decoded`,
  ).describe("The file, base64 (BT-125)."),
}).check(issue_check(check_attachment)).meta({ id: "Attachment" });
