/**
 * Build-time font subsetting with HarfBuzz's own subsetter
 * (`harfbuzz-subset.wasm` from the npm package `harfbuzzjs`).
 *
 * Used by `build_fonts.ts` for the script fonts (Arabic, CJK, Indic…): unlike
 * our own TrueType subsetter it rewrites the OpenType layout tables
 * (GSUB/GPOS/GDEF) for the kept glyphs, which shaping needs. Never used at
 * render time.
 *
 * @module
 */

import { createRequire } from "node:module";

/** HarfBuzz subset flag: drop TrueType hinting instructions. */
const FLAG_NO_HINTING = 0x1;

interface SubsetExports {
  memory: WebAssembly.Memory;
  malloc(size: number): number;
  free(ptr: number): void;
  hb_blob_create(
    data: number,
    length: number,
    mode: number,
    user_data: number,
    destroy: number,
  ): number;
  hb_blob_destroy(blob: number): void;
  hb_blob_get_length(blob: number): number;
  hb_blob_get_data(blob: number, length_out: number): number;
  hb_face_create(blob: number, index: number): number;
  hb_face_destroy(face: number): void;
  hb_face_reference_blob(face: number): number;
  hb_set_add(set: number, value: number): void;
  hb_subset_input_create_or_fail(): number;
  hb_subset_input_destroy(input: number): void;
  hb_subset_input_unicode_set(input: number): number;
  hb_subset_input_set_flags(input: number, flags: number): void;
  hb_subset_or_fail(face: number, input: number): number;
  _initialize?: () => void;
}

let instance: SubsetExports | undefined;

function subset_exports(): SubsetExports {
  if (instance === undefined) {
    const require = createRequire(import.meta.url);
    const path = require.resolve("harfbuzzjs/dist/harfbuzz-subset.wasm");
    const module = new WebAssembly.Module(Deno.readFileSync(path));
    const exports = new WebAssembly.Instance(module, {})
      .exports as unknown as SubsetExports;
    exports._initialize?.();
    instance = exports;
  }
  return instance;
}

/**
 * Subsets `font` (TrueType bytes) to `code_points` plus every glyph the
 * layout tables can reach from them; hinting is dropped, layout tables are
 * kept and rewritten. Glyph ids are renumbered compactly.
 */
export function hb_subset_font(
  font: Uint8Array,
  code_points: Iterable<number>,
): Uint8Array {
  const hb = subset_exports();
  const data = hb.malloc(font.length);
  new Uint8Array(hb.memory.buffer).set(font, data);
  // Mode 1 = HB_MEMORY_MODE_READONLY: HarfBuzz does not take ownership.
  const blob = hb.hb_blob_create(data, font.length, 1, 0, 0);
  const face = hb.hb_face_create(blob, 0);
  const input = hb.hb_subset_input_create_or_fail();
  if (input === 0) throw new Error("hb_subset_input_create_or_fail failed");
  const unicodes = hb.hb_subset_input_unicode_set(input);
  for (const cp of code_points) hb.hb_set_add(unicodes, cp);
  hb.hb_subset_input_set_flags(input, FLAG_NO_HINTING);
  const result = hb.hb_subset_or_fail(face, input);
  if (result === 0) throw new Error("hb_subset_or_fail failed");
  const result_blob = hb.hb_face_reference_blob(result);
  const length = hb.hb_blob_get_length(result_blob);
  const ptr = hb.hb_blob_get_data(result_blob, 0);
  const out = new Uint8Array(hb.memory.buffer, ptr, length).slice();
  hb.hb_blob_destroy(result_blob);
  hb.hb_face_destroy(result);
  hb.hb_subset_input_destroy(input);
  hb.hb_face_destroy(face);
  hb.hb_blob_destroy(blob);
  hb.free(data);
  return out;
}
