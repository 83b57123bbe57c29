/**
 * The text layout's bidi levels equal the Unicode Bidirectional Algorithm's
 * (npm `bidi-js`) for every line, including those it resolves without the
 * full analysis: Latin-only text, and right-to-left letters with marks,
 * digits and punctuation in a right-to-left paragraph.
 */
import { assertEquals, assertGreater } from "../assert.ts";
import type { Bidi } from "bidi-js";
import bidi_factory from "bidi-js";
import {
  embedding_levels,
  load_text_layout,
} from "../../server/pdf/text_layout.ts";
import { right_to_left_levels } from "../../server/pdf/right_to_left_levels.ts";

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

// Every character the shortcut accepts, and some it must not: Latin
// letters, other scripts, Arabic number signs, bidi controls, a tab.
const RIGHT_TO_LEFT_ALPHABET = [
  ...code_points(0x0591, 0x05f4),
  ...code_points(0x0620, 0x065f),
  ...code_points(0x0660, 0x066c),
  ...code_points(0x066e, 0x06d5),
  ...code_points(0x06f0, 0x06f9),
  ...code_points(0x20, 0x40),
  ...code_points(0x5b, 0x60),
  ...code_points(0x7b, 0x7e),
  ...code_points(0xa2, 0xa5),
  ...code_points(0xb0, 0xb1),
  ...code_points(0x20a0, 0x20bf),
  "\u00a0",
  "\u060c",
  "\u061b",
  "\u061f",
];
// What a line of numbers is made of, drawn more often in the random lines.
const NUMBER_PARTS = [
  ..."0123456789+-,./:%#$ \u00a0\u060c\u066a\u066b\u066c\u20ac\u00b0",
  ...code_points(0x0660, 0x0669),
  ...code_points(0x06f0, 0x06f9),
  "\u064b",
  "\u05b0",
];
const OUTSIDERS = [
  "\u0600",
  "\u066d",
  "\u06d6",
  "\u06fa",
  "\u00a1",
  "\u00b2",
  "\u20c0",
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

Deno.test("bidi levels: each character the right-to-left shortcut accepts, alone, between letters and next to numbers, as bidi-js resolves it", async () => {
  await load_text_layout();
  for (const c of [...RIGHT_TO_LEFT_ALPHABET, ...OUTSIDERS]) {
    for (
      const text of [
        c,
        `${c}\u0628`,
        `\u05d0${c}`,
        `\u0628 ${c} \u0628`,
        ` ${c} `,
        `1${c}2`,
        `\u0628 1${c}2`,
        `\u05d0 ${c}1`,
        `\u0661${c}\u0662`,
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

Deno.test("bidi levels: 6,000 random lines of right-to-left letters, marks, digits, punctuation and a few outsiders, as bidi-js resolves them", async () => {
  await load_text_layout();
  // A fixed linear congruential sequence: the same lines on every run.
  let state = 20261127;
  const next = (n: number) => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state % n;
  };
  let right_to_left_only = 0;
  let resolved_with_digits = 0;
  for (let line = 0; line < 6000; line++) {
    const length = 1 + next(24);
    const with_outsider = next(3) === 0;
    let text = "";
    for (let i = 0; i < length; i++) {
      text += with_outsider && next(6) === 0
        ? OUTSIDERS[next(OUTSIDERS.length)]
        : next(2) === 0
        ? NUMBER_PARTS[next(NUMBER_PARTS.length)]
        : RIGHT_TO_LEFT_ALPHABET[next(RIGHT_TO_LEFT_ALPHABET.length)];
    }
    if (!OUTSIDERS.some((c) => text.includes(c))) right_to_left_only++;
    const direction = DIRECTIONS[next(3)];
    if (
      /[0-9\u0660-\u0669\u06f0-\u06f9]/.test(text) &&
      right_to_left_levels(text, direction)
    ) {
      resolved_with_digits++;
    }
    assertEquals(
      ours(text, direction),
      reference(text, direction),
      `${JSON.stringify(text)} ${direction}`,
    );
  }
  assertGreater(right_to_left_only, 3000);
  // The shortcut itself resolved many of the lines with numbers.
  assertGreater(resolved_with_digits, 1500);
});
