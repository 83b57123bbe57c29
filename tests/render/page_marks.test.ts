/**
 * The PREVIEW and TEST marks survive the edits that strip a mark drawn as
 * one text object in one colour: qpdf's QDF form and a regular expression
 * deleting the mark's text objects, whitening or deleting one of its
 * colours, or cutting what is drawn after the page's own content. After
 * each edit every page, rendered by pdftoppm, still differs visibly from the
 * same invoice rendered without a mark. Invoices without a mark carry none
 * of the marks' drawing.
 */
import { assert, assertEquals, assertGreater } from "../assert.ts";
import {
  color_pattern,
  colors_of,
  content_streams,
  differing_pixels,
  edit_content_streams,
  from_qdf,
  type Raster,
  render_page,
  text_objects,
  to_qdf,
} from "../helpers/pdf_pixels.ts";
import { pdf_page_texts } from "../helpers/pdf_text.ts";
import {
  type PageMark,
  PREVIEW_MARK,
  render_invoice_pdf,
  TEST_MARK,
} from "../../server/pdf/mod.ts";
import type { Invoice } from "../../contract/invoice_types.ts";
import { german_vat_invoice } from "../fixtures/rendered_invoices.ts";

/**
 * Pixels (at 40 dpi, 331 × 468 a page) by which a marked page must differ
 * from the unmarked one: a mark stripped clean leaves none (the content is
 * the same); the marks left after each edit below differ in 9,000 to 18,000.
 */
const VISIBLE_MARK_PIXELS = 3_000;

interface Attack {
  name: string;
  edit(qdf: string): string;
}

/** Deletes every text object that paints in one of `colors`. */
function without_colored_text(qdf: string, colors: string[]): string {
  return edit_content_streams(qdf, (stream) =>
    text_objects(stream).reduce(
      (rest, object) =>
        colors.some((color) => color_pattern(color).test(object))
          ? rest.replace(object, "")
          : rest,
      stream,
    ));
}

/** The edits someone would try, given the unmarked file to compare with. */
function attacks(marked_qdf: string, plain_qdf: string): Attack[] {
  const plain_colors = colors_of(plain_qdf);
  const mark_colors = [...colors_of(marked_qdf)].filter((color) =>
    !plain_colors.has(color)
  );
  const texts = (qdf: string) => without_colored_text(qdf, mark_colors);
  const plain_text_objects = new Set(
    content_streams(plain_qdf).flatMap(text_objects),
  );
  const list: Attack[] = [
    { name: "the mark's text objects deleted", edit: texts },
    {
      name:
        "text objects deleted, then everything after the page's own content",
      edit: (qdf) =>
        edit_content_streams(texts(qdf), (stream) => {
          const own = text_objects(stream).filter((object) =>
            plain_text_objects.has(object)
          ).at(-1);
          return own === undefined
            ? stream
            : stream.slice(0, stream.lastIndexOf(own) + own.length);
        }),
    },
  ];
  for (const color of mark_colors) {
    list.push({
      name: `text objects deleted, colour ${color} made white`,
      edit: (qdf) =>
        texts(qdf).replace(color_pattern(color), (_, op) => `1 1 1 ${op}`),
    }, {
      name: `text objects deleted, blocks painting in ${color} deleted`,
      edit: (qdf) =>
        texts(qdf).replace(
          new RegExp(
            `\\bq\\b(?:(?!\\bQ\\b)[\\s\\S])*?${
              color_pattern(color).source
            }[\\s\\S]*?\\bQ\\b`,
            "g",
          ),
          "",
        ),
    });
  }
  return list;
}

async function page_count(pdf: Uint8Array): Promise<number> {
  return (await pdf_page_texts(pdf)).length;
}

async function assert_marks_survive(
  invoice: Invoice,
  mark: PageMark,
): Promise<void> {
  const plain = render_invoice_pdf(invoice);
  const marked = render_invoice_pdf(invoice, { mark });
  const pages = await page_count(plain);
  assertEquals(await page_count(marked), pages);
  const plain_pages: Raster[] = [];
  for (let page = 1; page <= pages; page++) {
    plain_pages.push(await render_page(plain, page));
  }
  const plain_qdf = await to_qdf(plain);
  const marked_qdf = await to_qdf(marked);
  const list = attacks(marked_qdf, plain_qdf);
  assertGreater(list.length, 2, "the mark has colours of its own");
  for (const attack of list) {
    const edited = attack.edit(marked_qdf);
    assert(edited !== marked_qdf, `${attack.name}: the edit changes the file`);
    const pdf = await from_qdf(edited);
    for (let page = 1; page <= pages; page++) {
      const differing = differing_pixels(
        await render_page(pdf, page),
        plain_pages[page - 1],
      );
      assert(
        differing >= VISIBLE_MARK_PIXELS,
        `${mark.watermark}, ${attack.name}: page ${page} of ${pages} differs ` +
          `from the unmarked page in only ${differing} pixels`,
      );
    }
  }
}

Deno.test("the PREVIEW mark survives deleting its text objects, one colour or what is drawn last", async () => {
  await assert_marks_survive(german_vat_invoice(), PREVIEW_MARK);
});

Deno.test("the TEST mark survives deleting its text objects, one colour or what is drawn last", async () => {
  await assert_marks_survive(german_vat_invoice(), TEST_MARK);
});

Deno.test("marks on a mirrored (right-to-left) page survive the same edits", async () => {
  await assert_marks_survive(
    { ...german_vat_invoice(), locale: "ar-SA" },
    TEST_MARK,
  );
});

Deno.test("the marks are drawn as shapes, not text: only the footer line extracts", async () => {
  const invoice = german_vat_invoice();
  const marked = render_invoice_pdf(invoice, { mark: PREVIEW_MARK });
  const pages = await pdf_page_texts(marked);
  for (const [index, text] of pages.entries()) {
    // A word drawn as rotated text extracts one letter a line.
    assertEquals(
      text.match(/P\s*R\s*E\s*V\s*I\s*E\s*W/g),
      ["PREVIEW"],
      `page ${index + 1}: the footer line only`,
    );
    assert(text.includes("PREVIEW \u2014 not valid for accounting"));
  }
  // Without a mark, none of the marks' drawing is in the page content.
  const plain_streams = content_streams(
    await to_qdf(render_invoice_pdf(invoice)),
  );
  assert(plain_streams.every((stream) => !/\bcm\n[\d -]+ m\n/.test(stream)));
});
