/**
 * The shaping cache is bounded by bytes, not only by entries: invoices full
 * of distinct long non-Latin texts cannot grow a render worker's memory
 * without limit, and caching still answers a repeated text at once.
 */
import { assert, assertEquals, assertStrictEquals } from "../assert.ts";
import { load_script_font } from "../../server/pdf/script_fonts.ts";
import {
  load_shaping,
  shape_text,
  shaping_cache_bytes,
  SHAPING_CACHE_BYTES_LIMIT,
} from "../../server/pdf/shaping.ts";

Deno.test("shaping cache: distinct long texts stay within its byte bound, repeats are cache hits", async () => {
  await load_shaping();
  const arabic = load_script_font("arabic");
  const word = "مرحبا بكم في فاتورة ";
  const long_text = (n: number) => `${n} ${word.repeat(100)}`; // ~2,000 chars
  const first = shape_text(arabic, long_text(0), { rtl: true });
  assertStrictEquals(shape_text(arabic, long_text(0), { rtl: true }), first);
  let peak = 0;
  // About 175 KB each: 300 of them would hold about 50 MB unbounded.
  for (let n = 1; n <= 300; n++) {
    shape_text(arabic, long_text(n), { rtl: true });
    peak = Math.max(peak, shaping_cache_bytes());
    assert(shaping_cache_bytes() <= SHAPING_CACHE_BYTES_LIMIT);
  }
  assert(peak > SHAPING_CACHE_BYTES_LIMIT / 2, `peak ${peak} bytes`);
  // Shaped afresh after the cache started over: the same glyphs.
  const again = shape_text(arabic, long_text(0), { rtl: true });
  assertEquals([...again.glyphs], [...first.glyphs]);
  assertEquals(again.width, first.width);
  assertStrictEquals(shape_text(arabic, long_text(0), { rtl: true }), again);
});

Deno.test("shaping cache: a run carries the text of each glyph, found once per cached run", async () => {
  await load_shaping();
  const arabic = load_script_font("arabic");
  const text = "فاتورة لا إله";
  const run = shape_text(arabic, text, { rtl: true });
  assertEquals(run.texts.length, run.glyphs.length);
  // Visual order is right to left: reversed, the texts read as written.
  assertEquals(run.texts.toReversed().join(""), text);
  assertStrictEquals(shape_text(arabic, text, { rtl: true }).texts, run.texts);
});
