/**
 * Build step: cuts Noto Sans Regular and Bold (npm package
 * `@expo-google-fonts/noto-sans`, SIL OFL 1.1) down to the characters in
 * {@link SUPPORTED_UNICODE_RANGES}, without hinting or layout tables, and
 * writes them to `server/pdf/fonts/` next to the license text.
 *
 * The output is committed, so the server never parses the 630 KB originals;
 * run this again only after changing the supported ranges or the font
 * package version:
 *
 * ```sh
 * deno run --allow-read --allow-write server/pdf/build_fonts.ts
 * ```
 *
 * The output is deterministic: the same input fonts give identical files.
 *
 * @module
 */

import { createRequire } from "node:module";
import { createHash } from "node:crypto";
import { parse_truetype, read_name, type TrueTypeFont } from "./truetype.ts";
import { build_font_subset } from "./truetype_writer.ts";
import {
  is_ignorable_format_character,
  supported_range_code_points,
} from "./unicode_coverage.ts";
import { hb_subset_font } from "./hb_subset.ts";
import {
  SCRIPT_FONT_IDS,
  SCRIPT_FONT_SOURCES,
  type ScriptFontId,
} from "./script_fonts.ts";

const FONT_PACKAGE = "@expo-google-fonts/noto-sans";
const OUT_DIR = new URL("./fonts/", import.meta.url);

/** Source file in the npm package and output file name of each weight. */
const WEIGHTS = [
  {
    source: "400Regular/NotoSans_400Regular.ttf",
    output: "NotoSans-Regular.subset.ttf",
    style: "Regular",
  },
  {
    source: "700Bold/NotoSans_700Bold.ttf",
    output: "NotoSans-Bold.subset.ttf",
    style: "Bold",
  },
] as const;

function sha256(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Code points of the supported ranges that every given font draws, in range order. */
function common_code_points(fonts: readonly TrueTypeFont[]): number[] {
  return supported_range_code_points().filter((cp) =>
    !is_ignorable_format_character(cp) && fonts.every((f) => f.cmap.has(cp))
  );
}

function main(): void {
  const require = createRequire(import.meta.url);
  const sources = WEIGHTS.map((w) => {
    const path = require.resolve(`${FONT_PACKAGE}/${w.source}`);
    const bytes = Deno.readFileSync(path);
    return { ...w, bytes, font: parse_truetype(bytes) };
  });
  const code_points = common_code_points(sources.map((s) => s.font));
  Deno.mkdirSync(OUT_DIR, { recursive: true });
  for (const s of sources) {
    const names = new Map<number, string>([
      [0, read_name(s.font, 0) ?? "Copyright 2022 The Noto Project Authors"],
      [1, "Noto Sans"],
      [2, s.style],
      [3, `NotoSans-${s.style}-invoice-subset`],
      [4, `Noto Sans ${s.style}`],
      [5, `${read_name(s.font, 5) ?? "Version"}; invoice subset, unhinted`],
      [6, `NotoSans-${s.style}`],
      [13, read_name(s.font, 13) ?? "SIL Open Font License, Version 1.1"],
      [14, read_name(s.font, 14) ?? "https://openfontlicense.org"],
    ]);
    const subset = build_font_subset(s.font, code_points, { names });
    // Round-trip checks. Every kept character must map to a glyph of its
    // own: PDFs address glyphs, and text extraction maps each glyph back to
    // one character, so two characters sharing a glyph could not both be
    // extracted correctly.
    const check = parse_truetype(subset);
    const owner = new Map<number, number>();
    for (const cp of code_points) {
      const gid = check.cmap.get(cp);
      if (gid === undefined) {
        throw new Error(`U+${cp.toString(16)} lost in subset`);
      }
      const other = owner.get(gid);
      if (other !== undefined) {
        throw new Error(
          `U+${cp.toString(16)} and U+${other.toString(16)} share a glyph`,
        );
      }
      owner.set(gid, cp);
    }
    Deno.writeFileSync(new URL(s.output, OUT_DIR), subset);
    console.log(
      `${s.output}: ${subset.length} bytes, ${check.num_glyphs} glyphs, ` +
        `${code_points.length} characters (source ${s.source}, ` +
        `${s.bytes.length} bytes, sha256 ${sha256(s.bytes)}), sha256 ${
          sha256(subset)
        }`,
    );
  }
  const license = Deno.readFileSync(
    require.resolve(`${FONT_PACKAGE}/LICENSE_FONT`),
  );
  Deno.writeFileSync(new URL("OFL.txt", OUT_DIR), license);
  for (const id of SCRIPT_FONT_IDS) build_script_font(id);
}

/**
 * Characters of a legacy double-byte character set: every two-byte
 * sequence `lead` × `trail` decoded with the WHATWG decoder `encoding`.
 * That is how the CJK fonts' build-time subsets are chosen: the national
 * standard sets (GB 2312, Big5, JIS X 0208, KS X 1001) hold the characters
 * names and addresses use in practice.
 */
function charset_code_points(
  encoding: string,
  lead: [number, number],
  trail: [number, number],
): number[] {
  const decoder = new TextDecoder(encoding);
  const out: number[] = [];
  for (let a = lead[0]; a <= lead[1]; a++) {
    for (let b = trail[0]; b <= trail[1]; b++) {
      const text = decoder.decode(new Uint8Array([a, b]));
      const cp = text.codePointAt(0)!;
      if ([...text].length === 1 && cp > 0x7f && cp !== 0xfffd) out.push(cp);
    }
  }
  return out;
}

function range(start: number, end: number): number[] {
  return Array.from({ length: end - start + 1 }, (_, i) => start + i);
}

/** CJK punctuation, kana, full- and half-width forms: in every CJK font. */
const CJK_COMMON = [
  ...range(0x3000, 0x30ff),
  ...range(0x31f0, 0x31ff),
  ...range(0xff00, 0xffef),
];

/** The characters each script font keeps (see SCRIPT_FONT_SOURCES.coverage). */
function script_code_points(id: ScriptFontId, font: TrueTypeFont): number[] {
  switch (id) {
    case "sc": // GB 2312 rows 1–87 (EUC-CN)
      return [
        ...charset_code_points("gbk", [0xa1, 0xf7], [0xa1, 0xfe]),
        ...CJK_COMMON,
      ];
    case "tc": // Big5 levels 1 and 2 with symbols
      return [
        ...charset_code_points("big5", [0xa1, 0xf9], [0x40, 0xfe]),
        ...CJK_COMMON,
      ];
    case "jp": // JIS X 0208 (EUC-JP rows 1–84)
      return [
        ...charset_code_points("euc-jp", [0xa1, 0xf4], [0xa1, 0xfe]),
        ...CJK_COMMON,
      ];
    case "kr": // KS X 1001 (EUC-KR) plus every modern syllable and jamo
      return [
        ...charset_code_points("euc-kr", [0xa1, 0xfe], [0xa1, 0xfe]),
        ...range(0xac00, 0xd7a3),
        ...range(0x1100, 0x11ff),
        ...range(0x3130, 0x318f),
        ...CJK_COMMON,
      ];
    default:
      return [...font.cmap.keys()];
  }
}

/**
 * Subsets one script font with HarfBuzz (layout tables kept for shaping,
 * hinting dropped) and checks that every kept character still has a glyph.
 */
function build_script_font(id: ScriptFontId): void {
  const source = SCRIPT_FONT_SOURCES[id];
  const require = createRequire(import.meta.url);
  const at = source.package.lastIndexOf("@");
  const name = source.package.slice(0, at);
  const bytes = Deno.readFileSync(
    require.resolve(`${name}/${source.source}`),
  );
  const font = parse_truetype(bytes);
  const wanted = script_code_points(id, font).filter((cp) =>
    font.cmap.has(cp) && !is_ignorable_format_character(cp)
  );
  const subset = hb_subset_font(bytes, new Set(wanted));
  const check = parse_truetype(subset);
  for (const cp of wanted) {
    if (!check.cmap.has(cp)) {
      throw new Error(`${id}: U+${cp.toString(16)} lost in subset`);
    }
  }
  Deno.writeFileSync(new URL(source.file, OUT_DIR), subset);
  console.log(
    `${source.file}: ${subset.length} bytes, ${check.num_glyphs} glyphs, ` +
      `${check.cmap.size} characters (${source.package}/${source.source}, ` +
      `${bytes.length} bytes, sha256 ${sha256(bytes)}), sha256 ${
        sha256(subset)
      }`,
  );
}

if (import.meta.main) main();
