/**
 * Wrapped text in other scripts is cached per worker: a repeated text wraps
 * to the lines first computed, each caller gets its own array, and another
 * size, width, font or setting wraps apart.
 */
import { assert, assertEquals } from "../assert.ts";
import { load_invoice_fonts } from "../../server/pdf/fonts.ts";
import { load_text_layout } from "../../server/pdf/text_layout.ts";
import {
  DocumentFont,
  wrap_text,
  type WrapOptions,
} from "../../server/pdf/document_font.ts";

const JAPANESE =
  "ロゴデザイン制作費とウェブサイトの保守管理および関連する技術支援";

/** Every line fits, and the lines joined give the text back. */
function assert_wrapped(lines: string[], text: string, options: WrapOptions) {
  assert(lines.length > 1, `${lines.length} lines`);
  for (const line of lines) {
    const width = options.font.width_of_string(line, options.size);
    assert(width <= options.max_width + 1e-9, `${line}: ${width}`);
  }
  assertEquals(lines.join(""), text);
}

Deno.test("wrap cache: a repeated text wraps to the same lines, each call its own array", async () => {
  await load_text_layout();
  const options = {
    font: new DocumentFont(load_invoice_fonts().normal),
    size: 10,
    max_width: 60,
  };
  const first = wrap_text(JAPANESE, options);
  assert_wrapped(first, JAPANESE, options);
  const again = wrap_text(JAPANESE, { ...options });
  assertEquals(again, first);
  assert(again !== first);
  again.push("changed by a caller");
  assertEquals(wrap_text(JAPANESE, options), first);
  // Paragraphs given as a list wrap as the text joined by line breaks.
  assertEquals(
    wrap_text([JAPANESE, "Latin"], options),
    wrap_text(`${JAPANESE}\nLatin`, options),
  );
});

Deno.test("wrap cache: another width, size, font or locale wraps apart", async () => {
  await load_text_layout();
  const fonts = load_invoice_fonts();
  const base = {
    font: new DocumentFont(fonts.normal),
    size: 10,
    max_width: 60,
  };
  const lines = wrap_text(JAPANESE, base);
  const variants: WrapOptions[] = [
    { ...base, max_width: 120 },
    { ...base, size: 14 },
    { ...base, font: new DocumentFont(fonts.bold) },
    { ...base, font: new DocumentFont(fonts.normal, { locale: "zh-TW" }) },
  ];
  for (const options of variants) {
    const wrapped = wrap_text(JAPANESE, options);
    assert_wrapped(wrapped, JAPANESE, options);
    assertEquals(wrap_text(JAPANESE, options), wrapped);
  }
  assert(wrap_text(JAPANESE, variants[0]).length < lines.length);
  assert(wrap_text(JAPANESE, variants[1]).length > lines.length);
});
