/**
 * Binary strings to bytes: the native paths of `binary_string_to_bytes`
 * give the bytes of the plain loop jsPDF uses (one byte per character, the
 * low byte of a character above 0xFF).
 */

import { assertEquals } from "../assert.ts";
import { binary_string_to_bytes } from "../../server/pdf/pdf_syntax.ts";

function loop_bytes(data: string): Uint8Array {
  const bytes = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i++) bytes[i] = data.charCodeAt(i);
  return bytes;
}

Deno.test("binary strings convert to the same bytes on every path", () => {
  const all_bytes = Array.from({ length: 256 }, (_, i) => i);
  const cases = [
    "",
    "0 0 1 rg",
    "BT /F1 9 Tf 1 0 0 1 56.69 700.5 Tm <0012002A> Tj ET\n".repeat(20),
    String.fromCharCode(...all_bytes).repeat(3),
    "q 1 0 0 1 0 0 cm ".repeat(10) + "\xe9\xff\x80",
    "\x7f".repeat(100) + "\x80",
    "text above one byte: \u0142\u20ac\ud83d\ude00 ".repeat(5),
    "\ud800".repeat(70),
  ];
  for (const data of cases) {
    assertEquals(binary_string_to_bytes(data), loop_bytes(data));
  }
});
