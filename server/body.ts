/**
 * Reading request bodies with size, time and rate limits, before any
 * parsing, and the one JSON reader every JSON entry point uses.
 */
import { ApiError } from "../contract/mod.ts";
import { find_duplicate_key } from "./json_duplicates.ts";
import {
  JSON_MAX_DEPTH,
  JsonDepthScanner,
  within_json_depth,
} from "./json_depth.ts";
import { BODY_EXPANSION, type MemoryLease } from "./memory_budget.ts";

/**
 * Largest JSON body of a request whose credentials have not checked out
 * (sign-up, sign-in and the other `auth.*` calls carry an e-mail address, a
 * password or a token: well under 1 KiB).
 */
export const ANONYMOUS_BODY_MAX_BYTES = 16 * 1024;

/**
 * How long a body may take before the minimum rate applies: covers a
 * client's first round trips (and a lost packet's retransmission).
 */
export const BODY_RATE_GRACE_MS = 2_000;

/** Limits on reading a request body. */
export interface BodyLimits {
  /** Largest body in bytes (413 past it). */
  max_bytes: number;
  /**
   * Largest body while the request is anonymous (its lease has no checked
   * credentials), counted as bytes arrive (413 past it). Default:
   * `max_bytes`.
   */
  anonymous_max_bytes?: number;
  /** Longest the whole body may take to arrive (408 past it). */
  timeout_ms: number;
  /**
   * Slowest average rate, in bytes a second, a body may arrive at once
   * {@link BODY_RATE_GRACE_MS} have passed (408 below it); 0 or unset: no
   * minimum.
   */
  min_bytes_per_second?: number;
  /**
   * The request's share of the memory budget: a known request holds its
   * body from the declared length on (503 when it does not fit, before
   * reading), an anonymous one as bytes arrive.
   */
  lease?: MemoryLease;
  /** Heap bytes each body byte costs until the request ends (default {@link BODY_EXPANSION}). */
  expansion?: number;
}

/**
 * Reads the body as bytes: over `max_bytes` is a 413 without reading the
 * rest; a body still arriving after `timeout_ms`, or arriving slower than
 * `min_bytes_per_second`, is a 408 (slow clients must not hold a connection
 * and its buffers); a body the memory budget has no room for is a 503 (for
 * a known request with a declared length, before any of it is read).
 * `inspect` sees each chunk as it arrives and may throw to stop reading.
 */
export async function read_body_bytes(
  request: Request,
  limits: BodyLimits,
  inspect?: (chunk: Uint8Array) => void,
): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limits.max_bytes) {
    throw too_large(limits.max_bytes);
  }
  if (!request.body) return new Uint8Array(0);
  const lease = limits.lease;
  const expansion = limits.expansion ?? BODY_EXPANSION;
  // Anonymous requests hold what has arrived, never what they announce.
  if (lease && !lease.anonymous && declared !== null && Number(declared) > 0) {
    lease.hold_body(Number(declared), expansion);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  const clock = new BodyClock(limits, () => size, () => {
    reader.cancel().catch(() => {});
  });
  try {
    while (true) {
      const { done, value } = await reader.read();
      clock.check();
      if (done) break;
      size += value.length;
      inspect?.(value);
      const limit = lease?.anonymous
        ? Math.min(limits.max_bytes, limits.anonymous_max_bytes ?? Infinity)
        : limits.max_bytes;
      if (size > limit) throw too_large(limit);
      lease?.hold_body(size, expansion);
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    clock.check();
    throw error;
  } finally {
    clock.stop();
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

/**
 * The deadline of one body: `timeout_ms` after reading began, or earlier
 * when the bytes received fall behind the minimum rate. One timer, re-armed
 * only when it fires early, so a fast body costs no timer work per chunk.
 */
class BodyClock {
  readonly #limits: BodyLimits;
  readonly #received: () => number;
  readonly #cut: () => void;
  readonly #started = performance.now();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #expired: ApiError | undefined;

  constructor(
    limits: BodyLimits,
    received: () => number,
    cut: () => void,
  ) {
    this.#limits = limits;
    this.#received = received;
    this.#cut = cut;
    this.#arm();
  }

  /** Throws the 408 once the deadline passed. */
  check(): void {
    if (this.#expired) throw this.#expired;
  }

  stop(): void {
    clearTimeout(this.#timer);
  }

  #arm(): void {
    const { timeout_ms, min_bytes_per_second: rate = 0 } = this.#limits;
    const now = performance.now();
    const total_deadline = this.#started + timeout_ms;
    // Behind the rate once `received < rate × (elapsed − grace)`.
    const rate_deadline = rate > 0
      ? this.#started + BODY_RATE_GRACE_MS + this.#received() / rate * 1000
      : Infinity;
    if (now >= total_deadline) {
      return this.#expire(
        `The request body did not arrive within ${timeout_ms / 1000} s`,
      );
    }
    if (now >= rate_deadline) {
      return this.#expire(
        `The request body arrived slower than ${rate} bytes a second`,
      );
    }
    const next = Math.min(total_deadline, rate_deadline);
    this.#timer = setTimeout(() => this.#arm(), Math.ceil(next - now));
  }

  #expire(message: string): void {
    this.#expired = new ApiError("request_timeout", message);
    this.#cut();
  }
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
 * Reads and parses a JSON body: wrong content type, invalid UTF-8,
 * malformed JSON and duplicate keys are 400, nesting deeper than
 * {@link JSON_MAX_DEPTH} is 400 `json_too_deep`, an oversized body is 413.
 */
export async function read_json_body(
  request: Request,
  limits: BodyLimits,
): Promise<unknown> {
  return (await read_checked_json(request, limits) as JsonBody).value;
}

/** Why the request's headers rule out a JSON body, if they do. */
function json_header_problem(request: Request): ApiError | undefined {
  const content_type = request.headers.get("content-type") ?? "";
  const media_type = content_type.split(";")[0].trim().toLowerCase();
  const encoding = request.headers.get("content-encoding");
  if (encoding && encoding.trim().toLowerCase() !== "identity") {
    return new ApiError(
      "invalid_request",
      `Content-Encoding "${
        encoding.slice(0, 50)
      }" is not supported; send the JSON uncompressed`,
    );
  }
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(content_type)?.[1];
  if (charset && !/^utf-?8$/i.test(charset)) {
    return new ApiError(
      "invalid_request",
      `Unsupported charset "${charset.slice(0, 50)}"; send the JSON as UTF-8`,
    );
  }
  if (media_type !== "application/json") {
    return new ApiError(
      "invalid_request",
      content_type
        ? `Content-Type must be application/json, got "${
          media_type.slice(0, 100)
        }"`
        : "Content-Type header is missing; send application/json",
    );
  }
  return undefined;
}

function too_deep(source: string): ApiError {
  return new ApiError(
    "json_too_deep",
    `${source} nests arrays and objects deeper than ${JSON_MAX_DEPTH} levels`,
  );
}

/**
 * The one JSON body reader of every entry point (`/generate`, `/trpc`, the
 * REST face): size, time and rate limits, `Content-Encoding`, charset,
 * media type, nesting depth (checked as bytes arrive, before any parsing),
 * strict UTF-8, JSON syntax and duplicate keys. With `allow_empty`, an
 * empty body is `undefined` (tRPC procedures without input), checked no
 * further.
 */
export async function read_checked_json(
  request: Request,
  limits: BodyLimits,
  options: { allow_empty?: boolean } = {},
): Promise<JsonBody | undefined> {
  const header_problem = json_header_problem(request);
  // Nesting is followed only in what the headers say is JSON: other bodies
  // get the header's error once read, as an empty one may be fine.
  const depth = header_problem ? undefined : new JsonDepthScanner();
  const bytes = await read_body_bytes(
    request,
    limits,
    depth &&
      ((chunk) => {
        if (!depth.push(chunk)) throw too_deep("The request body");
      }),
  );
  if (options.allow_empty && bytes.length === 0) return undefined;
  if (header_problem) throw header_problem;
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
  return { text, value: parse_checked_json(text, "The request body", true) };
}

/**
 * Parses JSON text from a request (a body, or tRPC's `input` query
 * parameter) with the same checks and answers as every body: nesting depth
 * before parsing (400 `json_too_deep`), syntax and duplicate keys (400
 * `invalid_request`). `source` names the text in messages.
 */
export function parse_checked_json(
  text: string,
  source: string,
  depth_checked = false,
): unknown {
  if (!depth_checked && !within_json_depth(text)) throw too_deep(source);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof SyntaxError ? `: ${error.message}` : "";
    throw new ApiError(
      "invalid_request",
      `${source} is not valid JSON${reason.slice(0, 200)}`,
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
  return value;
}
