/**
 * Supporting documents of an invoice (BG-24): files as base64 data of the
 * types EN 16931 and XRechnung accept, within a size limit well inside the
 * request body limit; or links; or only the document's reference.
 *
 * @module
 */
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

interface AttachmentFields {
  filename?: string;
  mime_type?: AttachmentMimeType;
  data?: string;
  url?: string;
}

function is_web_url(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "https:" || url.protocol === "http:") &&
      url.hostname !== "";
  } catch {
    return false;
  }
}

function check_attachment(value: AttachmentFields, sink: IssueSink): void {
  const file = [value.data, value.filename, value.mime_type];
  if (file.some((v) => v !== undefined) && file.some((v) => v === undefined)) {
    for (const key of ["data", "filename", "mime_type"] as const) {
      if (value[key] === undefined) {
        sink.addIssue({
          path: [key],
          message: "is required with the other fields of an attached file",
        });
      }
    }
  }
  if (value.url !== undefined && !is_web_url(value.url)) {
    sink.addIssue({ path: ["url"], message: "must be an http(s) URL" });
  }
  if (value.data === undefined) return;
  const data = compact_base64(value.data);
  if (data.length === 0 || data.length % 4 !== 0 || !BASE64.test(data)) {
    sink.addIssue({ path: ["data"], message: "must be base64 data" });
  } else if (base64_decoded_length(data) > ATTACHMENT_LIMITS.max_total_bytes) {
    sink.addIssue({
      path: ["data"],
      message: `must be at most ${
        ATTACHMENT_LIMITS.max_total_bytes / 1024
      } KB decoded`,
    });
  }
}

/** One supporting document (BG-24): a file, a link, or only its reference. */
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
  ).optional(),
  mime_type: z.enum(ATTACHMENT_MIME_TYPES, {
    error: `must be one of ${ATTACHMENT_MIME_TYPES.join(", ")}`,
  }).optional().describe(
    "MIME type (BT-125-1): application/pdf, image/png, image/jpeg, text/csv, xlsx, ods; " +
      "application/xml in XRechnung only.",
  ),
  data: z.string().max(
    Math.ceil(ATTACHMENT_LIMITS.max_total_bytes / 3) * 4 + 20_000,
    `must be at most ${ATTACHMENT_LIMITS.max_total_bytes / 1024} KB decoded`,
  ).optional().describe(
    "The file, base64 (BT-125); give it with `filename` and `mime_type`.",
  ),
  url: z.string().trim().max(INVOICE_LIMITS.link).optional().describe(
    "Where the document can be fetched, an http(s) URL (BT-124).",
  ),
}).check(issue_check(check_attachment)).meta({ id: "Attachment" });
