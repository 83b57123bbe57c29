/**
 * The service's log: one JSON record per line on standard output.
 *
 * Written straight to the file descriptor, not through `console.log`, whose
 * formatting takes about three times as long as the write itself (about 5
 * against 2 µs a line, on every request). A line that cannot be written (a
 * closed pipe) is dropped: logging never fails a request.
 *
 * @module
 */

const encoder = new TextEncoder();

/** Writes `record` as one line of JSON to standard output. */
export function write_log_line(record: Record<string, unknown>): void {
  const bytes = encoder.encode(`${JSON.stringify(record)}\n`);
  try {
    let written = 0;
    while (written < bytes.length) {
      written += Deno.stdout.writeSync(bytes.subarray(written));
    }
  } catch {
    // Standard output is gone; the service goes on.
  }
}
