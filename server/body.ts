/**
 * Reading request bodies with a size limit, before any parsing.
 */
import { ApiError } from "../contract/mod.ts";
import { find_duplicate_key } from "./json_duplicates.ts";
import type { MemoryLease } from "./memory_budget.ts";

/** Limits on reading a request body. */
export interface BodyLimits {
  /** Largest body in bytes (413 past it). */
  max_bytes: number;
  /** Longest the whole body may take to arrive (408 past it). */
  timeout_ms: number;
  /**
   * The request's share of the memory budget: the body is held in it from
   * its declared length on (503 when it does not fit, before reading).
   */
  lease?: MemoryLease;
}

/**
 * Reads the body as bytes: over `max_bytes` is a 413 without reading the
 * rest; a body still arriving after `timeout_ms` is a 408 (slow clients must
 * not hold a connection and its buffers forever); a body the memory budget
 * has no room for is a 503 (with a declared length, before any of it is
 * read).
 */
export async function read_body_bytes(
  request: Request,
  limits: BodyLimits,
): Promise<Uint8Array> {
  const limit = limits.max_bytes;
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) {
    throw too_large(limit);
  }
  if (!request.body) return new Uint8Array(0);
  const lease = limits.lease;
  if (lease && declared !== null && Number(declared) > 0) {
    lease.hold_body(Number(declared));
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  let timed_out = false;
  const timer = setTimeout(() => {
    timed_out = true;
    reader.cancel().catch(() => {});
  }, limits.timeout_ms);
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (timed_out) throw too_slow(limits.timeout_ms);
      if (done) break;
      size += value.length;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        throw too_large(limit);
      }
      if (lease) {
        try {
          lease.hold_body(size);
        } catch (error) {
          await reader.cancel().catch(() => {});
          throw error;
        }
      }
      chunks.push(value);
    }
  } catch (error) {
    if (timed_out) throw too_slow(limits.timeout_ms);
    throw error;
  } finally {
    clearTimeout(timer);
  }
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

function too_slow(timeout_ms: number): ApiError {
  return new ApiError(
    "request_timeout",
    `The request body did not arrive within ${timeout_ms / 1000} s`,
  );
}

function too_large(limit: number): ApiError {
  return new ApiError(
    "payload_too_large",
    `The request body is larger than ${limit} bytes`,
  );
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** A checked JSON body: its text as sent and the parsed value. */
export interface JsonBody {
  text: string;
  value: unknown;
}

/**
 * Reads and parses a JSON body: wrong content type, invalid UTF-8 and
 * malformed JSON are 400, an oversized body is 413.
 */
export async function read_json_body(
  request: Request,
  limits: BodyLimits,
): Promise<unknown> {
  return (await read_checked_json(request, limits) as JsonBody).value;
}

/**
 * The one JSON body reader of every entry point (`/generate`, `/trpc`, the
 * REST face): size and time limits, `Content-Encoding`, charset, media type,
 * strict UTF-8, JSON syntax and duplicate keys. With `allow_empty`, an empty
 * body is `undefined` (tRPC procedures without input), checked no further.
 */
export async function read_checked_json(
  request: Request,
  limits: BodyLimits,
  options: { allow_empty?: boolean } = {},
): Promise<JsonBody | undefined> {
  const content_type = request.headers.get("content-type") ?? "";
  const media_type = content_type.split(";")[0].trim().toLowerCase();
  const bytes = await read_body_bytes(request, limits);
  if (options.allow_empty && bytes.length === 0) return undefined;
  const encoding = request.headers.get("content-encoding");
  if (encoding && encoding.trim().toLowerCase() !== "identity") {
    throw new ApiError(
      "invalid_request",
      `Content-Encoding "${
        encoding.slice(0, 50)
      }" is not supported; send the JSON uncompressed`,
    );
  }
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(content_type)?.[1];
  if (charset && !/^utf-?8$/i.test(charset)) {
    throw new ApiError(
      "invalid_request",
      `Unsupported charset "${charset.slice(0, 50)}"; send the JSON as UTF-8`,
    );
  }
  if (media_type !== "application/json") {
    throw new ApiError(
      "invalid_request",
      content_type
        ? `Content-Type must be application/json, got "${
          media_type.slice(0, 100)
        }"`
        : "Content-Type header is missing; send application/json",
    );
  }
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw new ApiError(
      "invalid_request",
      "The request body is not valid UTF-8",
    );
  }
  if (text.trim() === "") {
    throw new ApiError(
      "invalid_request",
      "The request body is empty; send the invoice as JSON",
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof SyntaxError ? `: ${error.message}` : "";
    throw new ApiError(
      "invalid_request",
      `The request body is not valid JSON${reason.slice(0, 200)}`,
    );
  }
  const duplicate = find_duplicate_key(text);
  if (duplicate !== undefined) {
    throw new ApiError(
      "invalid_request",
      `Invalid request: ${duplicate} appears more than once`,
      { details: [{ path: duplicate, message: "appears more than once" }] },
    );
  }
  return { text, value };
}
