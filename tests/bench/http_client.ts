/**
 * A minimal keep-alive HTTP/1.1 client for the load benchmark: one TCP
 * connection per simulated client, one request at a time, so "N concurrent
 * clients" means exactly N connections. `fetch` pools connections as it sees
 * fit and costs more CPU per request, and on a 2-core machine every
 * microsecond the load generator burns is taken from the server.
 *
 * @module
 */

/** One answer: status, the headers we look at, and the body bytes. */
export interface HttpAnswer {
  status: number;
  /** Lower-case header names; repeated headers keep the last value. */
  headers: Map<string, string>;
  body: Uint8Array;
}

const CRLF_CRLF = [13, 10, 13, 10];
const ascii = new TextDecoder("latin1");

/** One keep-alive connection; `request` must not be called concurrently. */
export class HttpConnection {
  readonly #conn: Deno.TcpConn;
  #buffer = new Uint8Array(64 * 1024);
  #start = 0;
  #end = 0;

  private constructor(conn: Deno.TcpConn) {
    this.#conn = conn;
  }

  /** Connects to `host:port` with Nagle off (small requests go out at once). */
  static async open(
    options: { hostname: string; port: number },
  ): Promise<HttpConnection> {
    const conn = await Deno.connect({
      hostname: options.hostname,
      port: options.port,
    });
    conn.setNoDelay(true);
    return new HttpConnection(conn);
  }

  /** Sends one complete request (head and body) and reads the whole answer. */
  async request(bytes: Uint8Array): Promise<HttpAnswer> {
    let written = 0;
    while (written < bytes.length) {
      written += await this.#conn.write(bytes.subarray(written));
    }
    const head_end = await this.#find_head_end();
    const head = ascii.decode(this.#buffer.subarray(this.#start, head_end));
    this.#start = head_end + 4;
    const lines = head.split("\r\n");
    const status = Number(lines[0].split(" ")[1]);
    const headers = new Map<string, string>();
    for (let index = 1; index < lines.length; index++) {
      const colon = lines[index].indexOf(":");
      if (colon <= 0) continue;
      headers.set(
        lines[index].slice(0, colon).trim().toLowerCase(),
        lines[index].slice(colon + 1).trim(),
      );
    }
    const length = headers.get("content-length");
    let body: Uint8Array;
    if (length !== undefined) {
      body = await this.#take(Number(length));
    } else if (headers.get("transfer-encoding")?.includes("chunked")) {
      body = await this.#read_chunked();
    } else {
      throw new Error(`answer without length (status ${status})`);
    }
    return { status, headers, body };
  }

  /** Closes the connection; safe to call twice. */
  close(): void {
    try {
      this.#conn.close();
    } catch {
      // Already closed by the server.
    }
  }

  async #fill(): Promise<void> {
    if (this.#end === this.#buffer.length) {
      if (this.#start > 0) {
        this.#buffer.copyWithin(0, this.#start, this.#end);
        this.#end -= this.#start;
        this.#start = 0;
      } else {
        const bigger = new Uint8Array(this.#buffer.length * 2);
        bigger.set(this.#buffer);
        this.#buffer = bigger;
      }
    }
    const read = await this.#conn.read(this.#buffer.subarray(this.#end));
    if (read === null) throw new Error("connection closed by the server");
    this.#end += read;
  }

  async #find_head_end(): Promise<number> {
    let from = this.#start;
    for (;;) {
      for (let index = from; index + 3 < this.#end; index++) {
        if (
          this.#buffer[index] === CRLF_CRLF[0] &&
          this.#buffer[index + 1] === CRLF_CRLF[1] &&
          this.#buffer[index + 2] === CRLF_CRLF[2] &&
          this.#buffer[index + 3] === CRLF_CRLF[3]
        ) return index;
      }
      // Keep relative position across a compaction in #fill.
      const offset = Math.max(this.#start, this.#end - 3) - this.#start;
      await this.#fill();
      from = this.#start + offset;
    }
  }

  async #take(length: number): Promise<Uint8Array> {
    if (this.#buffer.length < length) {
      const bigger = new Uint8Array(length * 2);
      bigger.set(this.#buffer.subarray(this.#start, this.#end));
      this.#end -= this.#start;
      this.#start = 0;
      this.#buffer = bigger;
    }
    while (this.#end - this.#start < length) await this.#fill();
    const bytes = this.#buffer.slice(this.#start, this.#start + length);
    this.#start += length;
    return bytes;
  }

  async #read_line(): Promise<string> {
    for (;;) {
      for (let index = this.#start; index + 1 < this.#end; index++) {
        if (this.#buffer[index] === 13 && this.#buffer[index + 1] === 10) {
          const line = ascii.decode(this.#buffer.subarray(this.#start, index));
          this.#start = index + 2;
          return line;
        }
      }
      await this.#fill();
    }
  }

  async #read_chunked(): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const size = parseInt(await this.#read_line(), 16);
      if (size === 0) break;
      const part = await this.#take(size);
      parts.push(part);
      total += part.length;
      await this.#read_line();
    }
    // Trailers (none expected) end with an empty line.
    while ((await this.#read_line()) !== "");
    const body = new Uint8Array(total);
    let offset = 0;
    for (const part of parts) {
      body.set(part, offset);
      offset += part.length;
    }
    return body;
  }
}
