/**
 * The marks of previews and test documents: the drawn words of
 * `page_marks.ts` from the first page on, one more letter between the
 * sections, and a "not valid for accounting" line above every page's
 * footer, as real text (it extracts and reads aloud).
 *
 * @module
 */

import { type PageMark, PageMarker } from "../page_marks.ts";
import type { Layout } from "../layout.ts";
import { draw_text } from "../draw.ts";
import { MARGINS, MARKS, SIZES, TEXT } from "../styles.ts";

/** The marks of one document while it is drawn. */
export interface Marks {
  /** Call after each section. */
  between_sections(): void;
  /** Call after the last drawing (the page footers included). */
  finish(): void;
}

/** Starts marking the document of `layout` (call before any section). */
export function start_marks(layout: Layout, mark: PageMark): Marks {
  const marker = new PageMarker(layout.doc, mark, {
    mirrored: layout.mirrored,
  });
  return {
    between_sections: () => marker.between_sections(),
    finish() {
      draw_mark_footers(layout, mark);
      marker.finish();
    },
  };
}

function draw_mark_footers(layout: Layout, mark: PageMark): void {
  const { doc, page } = layout;
  const pages = doc.getNumberOfPages();
  for (let number = 1; number <= pages; number++) {
    doc.setPage(number);
    draw_text(layout, mark.footer, {
      x: page.width / 2,
      y: page.height - MARGINS.footer_baseline -
        SIZES.footer * MARKS.footer_raise,
      style: TEXT.mark_footer,
      align: "center",
    });
  }
}
