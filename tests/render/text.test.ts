/**
 * Unit tests of the renderer's text helpers: number formatting, sanitizing
 * for the embedded font, line wrapping and the per-document font subset.
 */

import { assert, assertEquals, assertGreater, assertLess } from "../assert.ts";
import {
  format_decimal,
  format_money,
  format_quantity,
} from "../../server/pdf/format.ts";
import { load_invoice_fonts } from "../../server/pdf/fonts.ts";
import { DocumentFont, wrap_text } from "../../server/pdf/document_font.ts";
import { sanitize_text } from "../../server/pdf/sanitize.ts";
import { parse_truetype } from "../../server/pdf/truetype.ts";
import { encode_glyph_subset } from "../../server/pdf/truetype_writer.ts";
import {
  SUPPORTED_UNICODE_RANGES,
  UNSUPPORTED_CHARACTER_PLACEHOLDER as P,
} from "../../server/pdf/mod.ts";

Deno.test("format_decimal groups thousands and keeps at least two decimals", () => {
  const cases: [string, string][] = [
    ["0", "0.00"],
    ["5", "5.00"],
    ["1250.5", "1,250.50"],
    ["1234567.5", "1,234,567.50"],
    ["1234567.50", "1,234,567.50"],
    ["-20", "-20.00"],
    ["-1234.5", "-1,234.50"],
    ["0.125", "0.125"],
    ["0.1250", "0.125"],
    ["007.10", "7.10"],
    ["999999999999.99", "999,999,999,999.99"],
    ["100", "100.00"],
    ["1000", "1,000.00"],
    [".5", "0.50"],
  ];
  for (const [input, expected] of cases) {
    assertEquals(format_decimal(input), expected, input);
  }
  // Not a decimal: shown as given rather than failing the invoice.
  assertEquals(format_decimal("1e5"), "1e5");
  assertEquals(format_decimal(""), "");
});

Deno.test("format_quantity and format_money", () => {
  assertEquals(format_quantity(1), "1");
  assertEquals(format_quantity(12000), "12,000");
  assertEquals(format_quantity(1234567), "1,234,567");
  assertEquals(format_money("2501", "EUR"), "EUR 2,501.00");
  assertEquals(format_money("2501", undefined), "2,501.00");
});

Deno.test("sanitize_text keeps supported text exactly", () => {
  const text =
    "Zażółć gęślą jaźń · Științe · Árvíztűrő · Ελληνικά · Ёлка — €1 “quoted” №5";
  assertEquals(sanitize_text(text), text);
  // Decomposed input is composed (the font has the precomposed glyph).
  assertEquals(sanitize_text("e\u0301"), "é");
  assertEquals(sanitize_text("line1\r\nline2\rline3"), "line1\nline2\nline3");
  assertEquals(sanitize_text("a\tb"), "a b");
});

Deno.test("sanitize_text in other scripts: kept as it is, with separators, tabs, joiners and format characters handled as in Latin text", () => {
  for (const text of ["日本語の請求書", "فاتورة رقم ٤٢", "חשבונית", "नमस्ते"]) {
    assertEquals(sanitize_text(text), text);
  }
  assertEquals(sanitize_text("日本\t語"), "日本 語");
  assertEquals(sanitize_text("مرحبا\u2028بك\u0085!"), "مرحبا\nبك\n!");
  assertEquals(sanitize_text("請求\r\n書"), "請求\n書");
  assertEquals(sanitize_text("漢\u200b字\u00ad"), "漢字");
  assertEquals(sanitize_text("日本\u200d語"), "日本\u200d語");
  assertEquals(sanitize_text("日本 ሰ"), `日本 ${P}`);
});

Deno.test("sanitize_text replaces each unsupported grapheme with one placeholder", () => {
  // Scripts without a font (Ethiopic, Khmer) and emoji; CJK, Arabic… have fonts.
  assertEquals(sanitize_text("ሰላም"), `${P}${P}${P}`);
  assertEquals(sanitize_text("日本 עברית"), "日本 עברית");
  assertEquals(sanitize_text("ok 👍🏽 done"), `ok ${P} done`);
  assertEquals(sanitize_text("👨‍👩‍👧‍👦"), P);
  assertEquals(sanitize_text("🇵🇱"), P);
  assertEquals(sanitize_text("x\u0000y"), `x${P}y`);
  // Invisible format characters are dropped, not shown.
  assertEquals(
    sanitize_text("soft\u00ADhyphen zero\u200Bwidth \uFEFFbom"),
    "softhyphen zerowidth bom",
  );
  // Deterministic.
  assertEquals(
    sanitize_text("mixed 漢字 and ✓"),
    sanitize_text("mixed 漢字 and ✓"),
  );
});

Deno.test("every character of the supported ranges that the font has survives", () => {
  const { normal } = load_invoice_fonts();
  let kept = 0;
  for (const range of SUPPORTED_UNICODE_RANGES) {
    for (let cp = range.start; cp <= range.end; cp++) {
      if (normal.code_map[cp] === 0) continue;
      const ch = String.fromCodePoint(cp);
      if (ch.normalize("NFC") !== ch) continue; // composed elsewhere
      assertEquals(sanitize_text(ch), ch, `U+${cp.toString(16)}`);
      kept++;
    }
  }
  assertGreater(kept, 1500);
});

Deno.test("wrap_text breaks at spaces and cuts words longer than a line", () => {
  const font = new DocumentFont(load_invoice_fonts().normal);
  const size = 10;
  const width = 100;
  const lines = wrap_text(
    "The quick brown fox jumps over the lazy dog again and again",
    { font, size, max_width: width },
  );
  assertGreater(lines.length, 1);
  for (const line of lines) {
    assert(font.width_of_string(line, size) <= width, line);
  }
  assertEquals(
    lines.join(" "),
    "The quick brown fox jumps over the lazy dog again and again",
  );

  const word = "W".repeat(200);
  const cut = wrap_text(word, { font, size, max_width: width });
  assertGreater(cut.length, 10);
  for (const line of cut) {
    assertLess(font.width_of_string(line, size), width + 0.001);
  }
  assertEquals(cut.join(""), word);

  assertEquals(wrap_text("a\nb\n\nc", { font, size, max_width: width }), [
    "a",
    "b",
    "",
    "c",
  ]);
  // Even an impossibly narrow column makes progress, one character a line.
  assertEquals(wrap_text("abc", { font, size, max_width: 1 }), ["a", "b", "c"]);
});

Deno.test("per-document font subset keeps glyph ids, outlines and metrics", () => {
  const { normal } = load_invoice_fonts();
  const ttf = normal.ttf;
  const used = new Map<number, number>();
  for (const ch of "Invoice Łódź Ελλάδα Москва") {
    const cp = ch.codePointAt(0)!;
    used.set(cp, ttf.cmap.get(cp)!);
  }
  const subset = parse_truetype(
    encode_glyph_subset(ttf, { glyphs: used.values(), cmap: used }),
  );
  const glyf = ttf.tables.get("glyf")!;
  const sub_glyf = subset.tables.get("glyf")!;
  for (const [cp, gid] of used) {
    assertEquals(subset.cmap.get(cp), gid);
    assertEquals(subset.advances[gid], ttf.advances[gid]);
    const original = glyf.subarray(ttf.glyph_starts[gid], ttf.glyph_ends[gid]);
    const copied = sub_glyf.subarray(
      subset.glyph_starts[gid],
      subset.glyph_ends[gid],
    );
    assertEquals(copied.subarray(0, original.length), original);
  }
  // Much smaller than the whole font.
  assertLess(subset.tables.get("glyf")!.length, glyf.length / 10);
});

Deno.test("encode_hex writes four hex digits per glyph id and records each glyph's character, for any length of text", () => {
  const fonts = load_invoice_fonts();
  for (const length of [0, 1, 7, 5000]) {
    const font = new DocumentFont(fonts.normal);
    const text = "Aé€z 0".repeat(Math.ceil(length / 6)).slice(0, length);
    const expected = Array.from(
      text,
      (ch) =>
        fonts.normal.code_map[ch.charCodeAt(0)].toString(16).toUpperCase()
          .padStart(4, "0"),
    ).join("");
    assertEquals(font.encode_hex(text), expected, `length ${length}`);
    for (const ch of new Set(text)) {
      const gid = fonts.normal.code_map[ch.charCodeAt(0)];
      assertEquals(font.to_unicode[gid], ch.charCodeAt(0));
    }
  }
});
