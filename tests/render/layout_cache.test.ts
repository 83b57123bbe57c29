/**
 * The text layout's caches: a line laid out or measured again with the same
 * options is answered from the cache, other options are laid out apart,
 * and the caches stay within their bounds whatever the texts.
 */
import { assert, assertEquals, assertStrictEquals } from "../assert.ts";
import { BoundedCache } from "../../server/pdf/bounded_cache.ts";
import { load_invoice_fonts } from "../../server/pdf/fonts.ts";
import {
  layout_line,
  load_text_layout,
  measure_line,
  type TextLayoutOptions,
} from "../../server/pdf/text_layout.ts";

async function options(
  more: Partial<TextLayoutOptions> = {},
): Promise<TextLayoutOptions> {
  await load_text_layout();
  return { latin: load_invoice_fonts().normal, bold: false, ...more };
}

Deno.test("layout cache: a repeated line is the cached layout; other options are laid out apart", async () => {
  const text = "شركة النور LLC — 株式会社";
  const plain = await options();
  const first = layout_line(text, plain);
  assertStrictEquals(layout_line(text, { ...plain }), first);
  const variants = [
    await options({ bold: true }),
    await options({ locale: "zh-TW" }),
    await options({ direction: "ltr" }),
    { ...plain, latin: load_invoice_fonts().bold },
  ];
  for (const variant of variants) {
    const layout = layout_line(text, variant);
    assert(layout !== first, JSON.stringify(variant.locale));
    assertStrictEquals(layout_line(text, variant), layout);
  }
  // A right-to-left paragraph against a left-to-right one: other orders.
  assert(first.rtl);
  assert(!layout_line(text, variants[2]).rtl);
  // Bold script text is drawn fake-bold.
  assert(layout_line(text, variants[0]).runs.some((run) => run.fake_bold));
});

Deno.test("layout cache: a measured line's width is its layout's width", async () => {
  const plain = await options();
  for (
    const text of ["فاتورة رقم", "ロゴデザイン制作費", "ค่าบริการ", "Ελληνικά"]
  ) {
    const width = measure_line(text, plain);
    assertEquals(measure_line(text, plain), width);
    assertEquals(layout_line(text, plain).width, width);
  }
});

Deno.test("bounded cache: starts afresh at its entry or byte bound and keeps nothing larger than its bound", () => {
  const cache = new BoundedCache<number>({ entries: 3, bytes: 100 });
  cache.set("a", 1, 10);
  cache.set("b", 2, 10);
  cache.set("a", 9, 10); // Already held: kept as it was, not counted twice.
  assertEquals([cache.get("a"), cache.size, cache.bytes], [1, 2, 20]);
  cache.set("c", 3, 10);
  cache.set("d", 4, 10); // A fourth entry: the cache starts afresh with it.
  assertEquals([cache.get("a"), cache.get("d"), cache.size], [undefined, 4, 1]);
  cache.set("e", 5, 85); // 95 bytes: within the bound.
  assertEquals(cache.bytes, 95);
  cache.set("f", 6, 10); // 105 bytes: afresh.
  assertEquals([cache.get("e"), cache.get("f"), cache.bytes], [
    undefined,
    6,
    10,
  ]);
  cache.set("g", 7, 101); // Larger than the bound: not kept, nothing emptied.
  assertEquals([cache.get("g"), cache.get("f"), cache.bytes], [
    undefined,
    6,
    10,
  ]);
});

Deno.test("bounded cache: cached computes a missing value once and counts its bytes", () => {
  const cache = new BoundedCache<string>({ entries: 10, bytes: 100 });
  let computed = 0;
  const value = () =>
    cache.cached("k", () => `v${++computed}`, (v) => v.length);
  assertEquals([value(), value(), computed, cache.bytes], ["v1", "v1", 1, 2]);
});
