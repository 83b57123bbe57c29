/**
 * Hands a response body its own buffer.
 *
 * Why: a rendered document arrives from a render worker as a transferred
 * ArrayBuffer that the request's promises, context and message event still
 * point at after the response is sent. V8 counts its bytes as external memory
 * until those objects are collected, which for objects promoted to the old
 * generation means the next full collection; at 200 requests a second that
 * memory alone started a full collection about every second
 * (tests/bench/README.md, Decisions). Moving the bytes into a fresh buffer
 * detaches the old one, so only the response owns them.
 *
 * @module
 */

/**
 * The same bytes in a buffer nothing else references: `bytes`' whole buffer
 * is moved (no copy) and `bytes` is left detached (length 0); a view of part
 * of a buffer, or of a resizable or shared one, is copied instead.
 */
export function owned_bytes(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const buffer = bytes.buffer;
  if (
    buffer instanceof ArrayBuffer && !buffer.resizable &&
    bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength
  ) {
    return new Uint8Array(buffer.transfer());
  }
  return bytes.slice();
}
