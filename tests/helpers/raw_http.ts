/**
 * A raw HTTP/1.1 client connection for tests of connection handling: it
 * writes exactly the bytes given (half a request head, pipelined requests),
 * reads answers with their headers, and tells when the server closed the
 * connection. Waits never lose bytes: a read that outlives a wait is kept
 * for the next one.
 */

/** One answer as read off the wire. */
export interface RawAnswer {
  status: number;
  /** Lower-case header names; repeated headers keep the last value. */
  headers: Map<string, string>;
  body: Uint8Array;
}

const ascii = new TextDecoder("latin1");
const encoder = new TextEncoder();

/** One client connection. */
export class RawConnection {
  readonly #conn: Deno.TcpConn;
  #buffer = new Uint8Array(0);
  #pending: Promise<Uint8Array | null> | undefined;
  #ended = false;

  private constructor(conn: Deno.TcpConn) {
    this.#conn = conn;
  }

  /** Connects to `127.0.0.1:port` with Nagle off. */
  static async open(port: number): Promise<RawConnection> {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    conn.setNoDelay(true);
    return new RawConnection(conn);
  }

  /** Writes all of `data`; false if the connection was closed. */
  async send(data: string | Uint8Array): Promise<boolean> {
    const bytes = typeof data === "string" ? encoder.encode(data) : data;
    try {
      let written = 0;
      while (written < bytes.length) {
        written += await this.#conn.write(bytes.subarray(written));
      }
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Reads one answer (with `Content-Length` or chunked); `undefined` when
   * the connection closes first. Throws if nothing complete arrives in
   * `limit_ms`.
   */
  async answer(limit_ms = 10_000): Promise<RawAnswer | undefined> {
    const deadline = Date.now() + limit_ms;
    for (;;) {
      const parsed = parse_answer(this.#buffer);
      if (parsed) {
        this.#buffer = this.#buffer.subarray(parsed.length);
        return parsed.answer;
      }
      if (this.#ended) return undefined;
      if (!(await this.#read_until(deadline))) {
        throw new Error(`no complete answer in ${limit_ms} ms`);
      }
    }
  }

  /** True once the server has closed the connection, waiting at most `limit_ms`. */
  async closed_within(limit_ms: number): Promise<boolean> {
    const deadline = Date.now() + limit_ms;
    while (!this.#ended) {
      if (!(await this.#read_until(deadline))) return false;
    }
    return true;
  }

  /** Closes the client side; safe to call twice. */
  close(): void {
    try {
      this.#conn.close();
    } catch {
      // Already closed.
    }
  }

  // One read (kept across waits); false if the deadline came first.
  async #read_until(deadline: number): Promise<boolean> {
    this.#pending ??= this.#read();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const outcome = await Promise.race([
      this.#pending,
      new Promise<"late">((resolve) => {
        timer = setTimeout(
          () => resolve("late"),
          Math.max(0, deadline - Date.now()),
        );
      }),
    ]);
    clearTimeout(timer);
    if (outcome === "late") return false;
    this.#pending = undefined;
    if (outcome === null) {
      this.#ended = true;
    } else {
      const joined = new Uint8Array(this.#buffer.length + outcome.length);
      joined.set(this.#buffer);
      joined.set(outcome, this.#buffer.length);
      this.#buffer = joined;
    }
    return true;
  }

  async #read(): Promise<Uint8Array | null> {
    const chunk = new Uint8Array(64 * 1024);
    try {
      const read = await this.#conn.read(chunk);
      return read === null ? null : chunk.subarray(0, read);
    } catch {
      // Reset by the server: closed all the same.
      return null;
    }
  }
}

function index_of_crlf(bytes: Uint8Array, from: number): number {
  for (let index = from; index + 1 < bytes.length; index++) {
    if (bytes[index] === 13 && bytes[index + 1] === 10) return index;
  }
  return -1;
}

function parse_answer(
  bytes: Uint8Array,
): { answer: RawAnswer; length: number } | undefined {
  let head_end = -1;
  for (let index = 0; index + 3 < bytes.length; index++) {
    if (
      bytes[index] === 13 && bytes[index + 1] === 10 &&
      bytes[index + 2] === 13 && bytes[index + 3] === 10
    ) {
      head_end = index;
      break;
    }
  }
  if (head_end < 0) return undefined;
  const lines = ascii.decode(bytes.subarray(0, head_end)).split("\r\n");
  const status = Number(lines[0].split(" ")[1]);
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) {
      headers.set(
        line.slice(0, colon).trim().toLowerCase(),
        line.slice(colon + 1).trim(),
      );
    }
  }
  const start = head_end + 4;
  if (headers.get("transfer-encoding")?.includes("chunked")) {
    const parts: Uint8Array[] = [];
    let at = start;
    for (;;) {
      const line_end = index_of_crlf(bytes, at);
      if (line_end < 0) return undefined;
      const size = parseInt(ascii.decode(bytes.subarray(at, line_end)), 16);
      at = line_end + 2;
      if (size === 0) {
        // No trailers expected: the chunked body ends with an empty line.
        if (bytes.length < at + 2) return undefined;
        at += 2;
        break;
      }
      if (bytes.length < at + size + 2) return undefined;
      parts.push(bytes.subarray(at, at + size));
      at += size + 2;
    }
    const body = new Uint8Array(
      parts.reduce((sum, part) => sum + part.length, 0),
    );
    let offset = 0;
    for (const part of parts) {
      body.set(part, offset);
      offset += part.length;
    }
    return { answer: { status, headers, body }, length: at };
  }
  const length = Number(headers.get("content-length") ?? 0);
  if (bytes.length < start + length) return undefined;
  return {
    answer: { status, headers, body: bytes.slice(start, start + length) },
    length: start + length,
  };
}

/**
 * Opens a connection to `url`'s port and sends a request head announcing a
 * JSON body of `length` bytes plus the first bytes of that body; the rest
 * is the test's to send (slowly, or never).
 */
export async function open_upload(
  url: string,
  options: {
    path: string;
    headers?: Record<string, string>;
    length: number;
    first: string;
  },
): Promise<RawConnection> {
  const target = new URL(url);
  const connection = await RawConnection.open(Number(target.port));
  const headers = {
    Host: target.host,
    "Content-Type": "application/json",
    ...options.headers,
    "Content-Length": String(options.length),
  };
  await connection.send(
    `POST ${options.path} HTTP/1.1\r\n` +
      Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`)
        .join("") +
      "\r\n" + options.first,
  );
  return connection;
}
