/**
 * A flowing table lays out its body rows one at a time, as it reaches them
 * (the items table of a long invoice): a row is laid out only once the row
 * before it was drawn, so rows die young instead of all living until the
 * table ends.
 */
import { assert, assertEquals, assertGreater } from "../assert.ts";
import { create_document_with_fonts } from "../../server/pdf/fonts.ts";
import { cell_style } from "../../server/pdf/styles.ts";
import {
  draw_flowing_table,
  table_cell,
  table_context,
  table_row,
  type TableBody,
  type TableRow,
} from "../../server/pdf/table.ts";

Deno.test("a flowing table lays out each body row after the row before it was drawn, over several pages", () => {
  const doc = create_document_with_fonts({ format: "a4" });
  const context = table_context(doc, { page_top: 40, bottom: 800 });
  const style = cell_style({});
  const count = 300;
  const events: string[] = [];
  const index_of = new WeakMap<TableRow, number>();
  const body: TableBody = {
    length: count,
    row(index) {
      events.push(`lay out ${index}`);
      const row = table_row([
        table_cell(context, `Row ${index}`, { width: 200, style }),
      ]);
      index_of.set(row, index);
      return row;
    },
  };
  draw_flowing_table(context, body, {
    left: 40,
    top: 40,
    split: "tall_only",
    before_row: (row) => events.push(`draw ${index_of.get(row)}`),
  });
  assertGreater(doc.getNumberOfPages(), 2);
  // Each row is laid out once, the first included (it also decides where
  // the table starts).
  assertEquals(
    events.filter((event) => event.startsWith("lay out ")).length,
    count,
  );
  const drawn = events.filter((event) => event.startsWith("draw "));
  assertEquals(drawn, Array.from({ length: count }, (_, i) => `draw ${i}`));
  for (let index = 1; index < count; index++) {
    const laid_out = events.lastIndexOf(`lay out ${index}`);
    assert(
      laid_out > events.indexOf(`draw ${index - 1}`),
      `row ${index} was laid out before row ${index - 1} was drawn`,
    );
  }
});
