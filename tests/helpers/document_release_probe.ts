/**
 * A probe for `tests/render/document_release.test.ts`, run with
 * `--v8-flags=--expose-gc`: draws a line into a document, outputs it while
 * the document object stays referenced (as jsPDF's own functions keep it
 * until a full collection finds them dead), collects garbage and prints, as
 * JSON, whether the document's font and text settings were let go and how
 * many properties the document object kept.
 */
import {
  create_document_with_fonts,
  draw_text_lines,
  font_handle,
  output_document_with_fonts,
} from "../../server/pdf/fonts.ts";
import type { jsPDF } from "jspdf";

/** What the probe prints. */
export interface ReleaseProbeResult {
  font_released: boolean;
  settings_released: boolean;
  document_properties: number;
  pdf_bytes: number;
}

const collect = (globalThis as { gc?: (options?: object) => void }).gc;
if (collect === undefined) throw new Error("run with --v8-flags=--expose-gc");

function render(): {
  doc: jsPDF;
  font: WeakRef<object>;
  settings: WeakRef<object>;
  bytes: Uint8Array;
} {
  const settings = { context: () => "Invoice text" };
  const doc = create_document_with_fonts({ format: "a4" }, settings);
  const { font, resource } = font_handle(doc, "normal");
  draw_text_lines(doc, ["Invoice 2026-0042", "Total 1,234.50"], {
    x: 40,
    y: 60,
    align: "left",
    font,
    resource,
    size: 10,
    line_height: 12,
    fill: "0 0 0 rg",
  });
  const bytes = output_document_with_fonts(doc);
  return {
    doc,
    font: new WeakRef(font),
    settings: new WeakRef(settings),
    bytes,
  };
}

const { doc, font, settings, bytes } = render();
// WeakRef targets stay alive until the current job ends.
await new Promise((resolve) => setTimeout(resolve, 0));
collect({ type: "major", execution: "sync" });
console.log(JSON.stringify(
  {
    font_released: font.deref() === undefined,
    settings_released: settings.deref() === undefined,
    document_properties: Object.keys(doc).length,
    pdf_bytes: bytes.length,
  } satisfies ReleaseProbeResult,
));
