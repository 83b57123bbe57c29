/**
 * The page estimate counts what each script takes on a line and stays a
 * lower bound: no character, conjunct or ligature is narrower on the page
 * than in the estimate, and real documents never have fewer pages than it
 * says (so nothing that fits is refused).
 */
import { assert } from "../assert.ts";
import { InvoiceRequestSchema } from "../../contract/mod.ts";
import { load_text_layout, render_invoice_pdf } from "../../server/pdf/mod.ts";
import { measure_line } from "../../server/pdf/text_layout.ts";
import { load_invoice_fonts } from "../../server/pdf/fonts.ts";
import {
  estimate_document,
  MAX_PAGES,
  measure_min_width,
} from "../../server/pdf/page_budget.ts";
import {
  is_han_or_cjk_symbol,
  load_script_font,
  script_font_for_block,
  SCRIPT_FONT_IDS,
} from "../../server/pdf/script_fonts.ts";
import {
  invoice_with_items,
  mixed_script_invoice,
} from "../fixtures/invoices.ts";
import { pdf_page_count } from "../helpers/pdf_text.ts";

await load_text_layout();
const latin = load_invoice_fonts().normal;

function assert_lower_bound(text: string): void {
  const estimate = measure_min_width(text).width;
  const real = measure_line(text, { latin, bold: false });
  assert(
    estimate <= real + 0.01,
    `${JSON.stringify(text)}: estimate ${estimate} > drawn ${real}`,
  );
}

Deno.test("page estimate: no character is narrower on the page than in the estimate", () => {
  const seen = new Set<number>();
  for (const font of [load_invoice_fonts().normal, load_invoice_fonts().bold]) {
    for (const [cp] of font.ttf.cmap) {
      if (cp === 0x0a || seen.has(cp)) continue;
      seen.add(cp);
      assert_lower_bound(String.fromCodePoint(cp).repeat(3));
    }
  }
  for (const id of SCRIPT_FONT_IDS) {
    const font = load_script_font(id);
    const cjk = ["sc", "tc", "jp", "kr"].includes(id);
    let n = 0;
    for (const [cp] of font.prepared.ttf.cmap) {
      const routed = script_font_for_block(cp) === id ||
        (cjk && is_han_or_cjk_symbol(cp));
      if (!routed || seen.has(cp)) continue;
      // Every character of the other scripts, every seventh CJK one.
      if (cjk && n++ % 7 !== 0) continue;
      seen.add(cp);
      assert_lower_bound(String.fromCodePoint(cp).repeat(3));
    }
  }
  assert(seen.size > 8000, `${seen.size} characters checked`);
});

Deno.test("page estimate: conjuncts, reph, ligatures and marks stay within the bound", () => {
  for (
    const text of [
      // Devanagari, Bengali, Tamil: conjuncts, half forms, reph stacks.
      "क्षक्षक्ष",
      "त्रत्रत्र",
      "र्र्र्र्र्",
      "क्क्क्क्क",
      "ज्ञ ज्ञ",
      "क़्ष",
      "र्क र्क र्क",
      "তির্যক র্র্র্র্ ক্ষক্ষ",
      "க்ஷக்ஷ ஸ்ரீஸ்ரீ",
      // Arabic: lam-alef, the Allah ligature, tatweel, harakat.
      "لالالالا",
      "اللهاللهالله",
      "ـــــ",
      "بِسْمِ ٱللَّٰهِ",
      "ﻻﻻﻻ ﷲﷲ",
      // Thai stacks, Hebrew points, Greek and Latin narrow letters.
      "กิ่กิ่ ฯฯฯ ใใใใ",
      "שָׁלוֹם עוֹלָם",
      "'''''''' ||||||| iiiiii ḭḭḭ ʹʹʹ",
      // Sentences of each script, and mixed ones.
      "Consulting services and project management for the quarter",
      "第三季度的咨询服务和项目管理工作以及相关的技术支持与培训课程",
      "四半期のコンサルティングサービスとプロジェクト管理",
      "분기별 컨설팅 서비스 및 프로젝트 관리",
      "خدمات استشارية وإدارة المشاريع للربع الثالث",
      "तिमाही के लिए परामर्श सेवाएँ और परियोजना प्रबंधन कार्य",
      "বাংলা পরামর্শ সেবা এবং প্রকল্প ব্যবস্থাপনা",
      "காலாண்டுக்கான ஆலோசனை சேவைகள் மற்றும் திட்ட மேலாண்மை",
      "บริการให้คำปรึกษาและการบริหารโครงการสำหรับไตรมาสที่สาม",
      "שירותי ייעוץ וניהול פרויקטים לרבעון השלישי",
      "Ծառայություններ და მომსახურება",
      "Consulting 顧問服務 استشارات परामर्श सेवाएँ บริการให้คำปรึกษา 디자인",
    ]
  ) {
    assert_lower_bound(text);
  }
});

Deno.test("page estimate: an invoice of 80-100 real pages is within the limit, and no document has fewer pages than estimated", async () => {
  const fits = InvoiceRequestSchema.parse(mixed_script_invoice(2));
  const pages = await pdf_page_count(render_invoice_pdf(fits));
  assert(pages >= 80 && pages <= MAX_PAGES, `${pages} pages`);
  const estimate = estimate_document(fits);
  assert(estimate.min_pages <= pages, `estimate ${estimate.min_pages}`);
  for (
    const body of [
      invoice_with_items(1),
      invoice_with_items(300),
      invoice_with_items(300, { unicode: true }),
      { ...invoice_with_items(40), notes: "第三季度\n".repeat(400) },
    ]
  ) {
    const invoice = InvoiceRequestSchema.parse(body);
    const real = await pdf_page_count(render_invoice_pdf(invoice));
    assert(estimate_document(invoice).min_pages <= real, `${real} pages`);
  }
  // "\r" and "\r\n" break lines too, not "\n" alone (the old estimate saw
  // one line here).
  const breaks = InvoiceRequestSchema.parse({
    ...invoice_with_items(1),
    notes: "x\r".repeat(2000),
  });
  const estimated = estimate_document(breaks).min_pages;
  assert(estimated >= 34, `estimate ${estimated}`);
  assert(
    estimated <= await pdf_page_count(render_invoice_pdf(breaks)),
    "a lower bound",
  );
});

Deno.test("page estimate: text below U+0300, measured without normalizing, is in NFC already (every character and pair)", () => {
  for (let first = 0; first < 0x300; first++) {
    const one = String.fromCharCode(first);
    assert(one.normalize("NFC") === one, `U+${first.toString(16)}`);
    for (let second = 0; second < 0x300; second++) {
      const pair = one + String.fromCharCode(second);
      assert(
        pair.normalize("NFC") === pair,
        `U+${first.toString(16)} U+${second.toString(16)}`,
      );
    }
  }
});
