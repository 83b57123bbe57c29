/**
 * owned_bytes: a response body gets a buffer nothing else holds.
 */
import { assertEquals, assertNotStrictEquals } from "../assert.ts";
import { owned_bytes } from "../../server/owned_bytes.ts";

Deno.test("owned_bytes: a whole buffer is moved and the given view detached", () => {
  const bytes = new TextEncoder().encode("%PDF-1.7 whole");
  const buffer = bytes.buffer;
  const owned = owned_bytes(bytes);
  assertEquals(new TextDecoder().decode(owned), "%PDF-1.7 whole");
  assertNotStrictEquals(owned.buffer, buffer);
  assertEquals(
    buffer.detached,
    true,
    "the old buffer no longer holds the bytes",
  );
  assertEquals(bytes.byteLength, 0);
});

Deno.test("owned_bytes: a part of a buffer, or a resizable one, is copied and left intact", () => {
  const whole = new TextEncoder().encode("head%PDF-1.7 parttail");
  const part = whole.subarray(4, 17);
  const owned = owned_bytes(part);
  assertEquals(new TextDecoder().decode(owned), "%PDF-1.7 part");
  assertEquals(owned.byteOffset, 0);
  assertEquals(owned.buffer.byteLength, 13);
  assertEquals(whole.buffer.detached, false);
  assertEquals(new TextDecoder().decode(whole), "head%PDF-1.7 parttail");

  const resizable = new ArrayBuffer(4, { maxByteLength: 8 });
  new Uint8Array(resizable).set([1, 2, 3, 4]);
  const copied = owned_bytes(new Uint8Array(resizable));
  assertEquals([...copied], [1, 2, 3, 4]);
  assertEquals(resizable.detached, false);
  assertEquals(copied.buffer.resizable, false);
});
