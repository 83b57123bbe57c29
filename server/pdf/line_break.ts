/**
 * Line breaking for text in any script: at spaces; CJK (ideographs, kana,
 * hangul) also between characters; Thai, Lao, Khmer and Myanmar — written
 * without spaces — at the word boundaries of `Intl.Segmenter` (ICU's
 * dictionary) and otherwise between grapheme clusters. A word wider than
 * the line is cut between grapheme clusters. No line ever splits a
 * grapheme cluster.
 *
 * @module
 */

/** Options of {@link wrap_paragraph}. */
export interface WrapParagraphOptions {
  /** Width of a piece of text, in the caller's unit. */
  measure: (text: string) => number;
  /** Longest line, in the same unit. */
  max_width: number;
}

let graphemes: Intl.Segmenter | undefined;
let words: Intl.Segmenter | undefined;

/** Characters between which a CJK line may break. */
const CJK_BREAKABLE =
  /[\u2e80-\u2fdf\u3000-\u30ff\u3130-\u318f\u31f0-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]|[\ud840-\ud87f][\udc00-\udfff]/;
const SOUTHEAST_ASIAN = /[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]/;

/** The grapheme clusters of `text`. */
export function grapheme_clusters(text: string): string[] {
  graphemes ??= new Intl.Segmenter("en", { granularity: "grapheme" });
  return Array.from(graphemes.segment(text), (s) => s.segment);
}

/**
 * Splits a space-free word into pieces between which a line may break
 * (CJK characters, Thai words); joined they give the word back.
 */
function break_pieces(word: string): string[] {
  if (SOUTHEAST_ASIAN.test(word)) {
    words ??= new Intl.Segmenter("th", { granularity: "word" });
    const out: string[] = [];
    for (const { segment } of words.segment(word)) {
      out.push(...split_cjk(segment));
    }
    return out;
  }
  return split_cjk(word);
}

function split_cjk(word: string): string[] {
  if (!CJK_BREAKABLE.test(word)) return [word];
  const out: string[] = [];
  let current = "";
  let previous_cjk = false;
  for (const cluster of grapheme_clusters(word)) {
    const cjk = CJK_BREAKABLE.test(cluster);
    // Break before and after each CJK character, not inside Latin words.
    if (current !== "" && (cjk || previous_cjk)) {
      out.push(current);
      current = "";
    }
    current += cluster;
    previous_cjk = cjk;
  }
  if (current !== "") out.push(current);
  return out;
}

/**
 * Breaks one paragraph (no "\n") into lines no wider than `max_width`.
 * Lines joined give the paragraph back, minus the spaces broken at.
 */
export function wrap_paragraph(
  paragraph: string,
  { measure, max_width }: WrapParagraphOptions,
): string[] {
  if (measure(paragraph) <= max_width) return [paragraph];
  const lines: string[] = [];
  let line = "";
  let line_width = 0;
  const space = measure(" ");
  const push_piece = (piece: string, joiner: string): void => {
    const w = measure(piece);
    const extra = line === "" ? 0 : (joiner === " " ? space : 0);
    if (line !== "" && line_width + extra + w <= max_width) {
      line += joiner + piece;
      line_width += extra + w;
      return;
    }
    if (line !== "") lines.push(line);
    if (w <= max_width) {
      line = piece;
      line_width = w;
      return;
    }
    // Wider than a line: cut between grapheme clusters.
    line = "";
    line_width = 0;
    for (const cluster of grapheme_clusters(piece)) {
      const cw = measure(cluster);
      if (line !== "" && line_width + cw > max_width) {
        lines.push(line);
        line = "";
        line_width = 0;
      }
      line += cluster;
      line_width += cw;
    }
  };
  let first_word = true;
  for (const word of paragraph.split(" ")) {
    const pieces = break_pieces(word);
    if (pieces.length === 0) pieces.push("");
    pieces.forEach((piece, k) => {
      push_piece(piece, k === 0 && !first_word ? " " : "");
    });
    first_word = false;
  }
  lines.push(line);
  return lines;
}
