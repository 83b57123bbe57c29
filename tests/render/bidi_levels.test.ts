/**
 * The text layout's bidi levels equal the Unicode Bidirectional Algorithm's
 * (npm `bidi-js`) for every line, including those it resolves without the
 * full analysis: Latin-only text, and right-to-left letters with marks and
 * punctuation in a right-to-left paragraph.
 */
import { assertEquals, assertGreater } from "../assert.ts";
import type { Bidi } from "bidi-js";
import bidi_factory from "bidi-js";
import {
  embedding_levels,
  load_text_layout,
} from "../../server/pdf/text_layout.ts";

const bidi = (bidi_factory as unknown as () => Bidi)();

function reference(text: string, direction: "ltr" | "rtl" | undefined) {
  const { levels, paragraphs } = bidi.getEmbeddingLevels(text, direction);
  return {
    levels: Array.from(levels),
    base: paragraphs[0]?.level ?? (direction === "rtl" ? 1 : 0),
  };
}

function ours(text: string, direction: "ltr" | "rtl" | undefined) {
  const { levels, base } = embedding_levels(text, direction);
  return { levels: Array.from(levels), base };
}

function code_points(from: number, to: number): string[] {
  return Array.from(
    { length: to - from + 1 },
    (_, i) => String.fromCodePoint(from + i),
  );
}

// Every character the shortcut accepts, and some it must not: digits
// (European, Arabic-Indic, extended), Arabic number signs and separators,
// Latin letters, bidi controls.
const RIGHT_TO_LEFT_ALPHABET = [
  ...code_points(0x0591, 0x05f4),
  ...code_points(0x0620, 0x065f),
  ...code_points(0x066e, 0x06d5),
  ...code_points(0x20, 0x2f),
  ...code_points(0x3a, 0x40),
  ...code_points(0x5b, 0x60),
  ...code_points(0x7b, 0x7e),
  "\u00a0",
  "\u060c",
  "\u061b",
  "\u061f",
];
const OUTSIDERS = [
  "0",
  "7",
  "\u0660",
  "\u0669",
  "\u06f0",
  "\u0600",
  "\u066b",
  "\u066c",
  "a",
  "Z",
  "\u00e9",
  "\u4e2d",
  "\u2067",
  "\u2069",
  "\u202b",
  "\u200f",
  "\t",
];
const DIRECTIONS = [undefined, "rtl", "ltr"] as const;

Deno.test("bidi levels: each character the right-to-left shortcut accepts, alone and between letters, as bidi-js resolves it", async () => {
  await load_text_layout();
  for (const c of [...RIGHT_TO_LEFT_ALPHABET, ...OUTSIDERS]) {
    for (
      const text of [
        c,
        `${c}\u0628`,
        `\u05d0${c}`,
        `\u0628 ${c} \u0628`,
        ` ${c} `,
      ]
    ) {
      for (const direction of DIRECTIONS) {
        assertEquals(
          ours(text, direction),
          reference(text, direction),
          `${JSON.stringify(text)} ${direction}`,
        );
      }
    }
  }
});

Deno.test("bidi levels: 6,000 random lines of right-to-left letters, marks, punctuation and a few outsiders, as bidi-js resolves them", async () => {
  await load_text_layout();
  // A fixed linear congruential sequence: the same lines on every run.
  let state = 20261127;
  const next = (n: number) => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state % n;
  };
  let right_to_left_only = 0;
  for (let line = 0; line < 6000; line++) {
    const length = 1 + next(24);
    const with_outsider = next(3) === 0;
    let text = "";
    for (let i = 0; i < length; i++) {
      text += with_outsider && next(6) === 0
        ? OUTSIDERS[next(OUTSIDERS.length)]
        : RIGHT_TO_LEFT_ALPHABET[next(RIGHT_TO_LEFT_ALPHABET.length)];
    }
    if (!OUTSIDERS.some((c) => text.includes(c))) right_to_left_only++;
    const direction = DIRECTIONS[next(3)];
    assertEquals(
      ours(text, direction),
      reference(text, direction),
      `${JSON.stringify(text)} ${direction}`,
    );
  }
  assertGreater(right_to_left_only, 3000);
});
