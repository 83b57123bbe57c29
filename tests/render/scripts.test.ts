/**
 * Every script on the invoice. For each supported script an invoice whose
 * parties, descriptions and notes are written in it renders, passes `qpdf
 * --check`, and `pdftotext` gives the original strings back; shaping (joining,
 * lam-alef, matras, Thai marks), bidi order, script-aware line breaking and
 * per-script font embedding are checked unit by unit.
 */

import {
  assert,
  assertEquals,
  assertGreater,
  assertLess,
  assertNotEquals,
  assertStringIncludes,
} from "../assert.ts";
import {
  pdf_fonts_of,
  pdf_text,
  pdf_words,
  qpdf_check,
} from "../helpers/pdf_text.ts";
import { locale_texts } from "../../server/pdf/locales.ts";
import type { Invoice } from "../../contract/invoice_types.ts";
import { InvoiceRequestSchema } from "../../contract/invoice.ts";
import { render_invoice_pdf } from "../../server/pdf/mod.ts";
import { full_invoice } from "../fixtures/invoices.ts";
import { load_invoice_fonts } from "../../server/pdf/fonts.ts";
import { layout_line } from "../../server/pdf/text_layout.ts";
import { load_script_font } from "../../server/pdf/script_fonts.ts";
import { shape_text } from "../../server/pdf/shaping.ts";
import {
  grapheme_clusters,
  wrap_paragraph,
} from "../../server/pdf/line_break.ts";

/** Sample texts per script: sender, bill-to, address, description, notes. */
export const SCRIPT_SAMPLES: Record<string, string[]> = {
  "Chinese (Simplified)": [
    "北京华为科技有限公司",
    "上海浦东发展银行",
    "北京市海淀区中关村大街",
    "软件开发服务",
    "感谢您的惠顾",
  ],
  "Chinese (Traditional)": [
    "臺灣積體電路製造公司",
    "台北市信義區市府路",
    "顧問服務費用",
    "謝謝您的惠顧",
    "高雄市鳳山區",
  ],
  Japanese: [
    "山田太郎",
    "株式会社さくら商事",
    "東京都千代田区丸の内",
    "ロゴデザイン制作",
    "お支払いは銀行振込で",
  ],
  Korean: [
    "김철수",
    "주식회사 한빛소프트",
    "서울특별시 강남구 테헤란로",
    "웹사이트 개발",
    "감사합니다",
  ],
  Arabic: [
    "شركة النور",
    "محمد عبد الله",
    "شارع الملك فهد",
    "تصميم شعار لا إله",
    "شكرا لكم",
  ],
  "Persian and Urdu letters": [
    "فروشگاه پارسی",
    "ژاله چهره",
    "ٹیکسی ڈرائیور",
    "خدمات گچ کاری",
    "بہت شکریہ",
  ],
  Hebrew: [
    "דוד כהן",
    "חברת אור",
    "רחוב הרצל",
    "ייעוץ עסקי",
    "תודה רבה",
  ],
  "Devanagari (Hindi, Marathi)": [
    "राम कुमार शर्मा",
    "भारतीय सेवा केंद्र",
    "नई दिल्ली मार्ग",
    "सॉफ़्टवेयर विकास",
    "महाराष्ट्र धन्यवाद",
  ],
  Bengali: [
    "রবীন্দ্রনাথ ঠাকুর",
    "কলকাতা সেবা",
    "ঢাকা রোড",
    "পরামর্শ সেবা",
    "ধন্যবাদ",
  ],
  Tamil: [
    "முருகன் ஸ்டோர்ஸ்",
    "சென்னை சாலை",
    "கோயம்புத்தூர்",
    "ஆலோசனை சேவை",
    "நன்றி",
  ],
  Thai: [
    "บริษัท สยาม จำกัด",
    "สมชาย ใจดี",
    "ถนนสุขุมวิท",
    "ค่าบริการที่ปรึกษา",
    "ขอบคุณครับ",
  ],
  Armenian: [
    "Արամ Խաչատրյան",
    "Երևան",
    "Աբովյան փողոց",
    "Խորհրդատվություն",
    "Շնորհակալություն",
  ],
  Georgian: [
    "გიორგი ბერიძე",
    "თბილისი",
    "რუსთაველის ქუჩა",
    "კონსულტაცია",
    "მადლობა",
  ],
};

/** An invoice whose sender, bill-to, descriptions and notes are `samples`. */
export function script_invoice(samples: string[]): Invoice {
  const base = full_invoice();
  return InvoiceRequestSchema.parse({
    ...base,
    sender: { ...base.sender, name: samples[0], address: samples[2] },
    bill_to: { ...base.bill_to, name: samples[1] },
    items: [
      { description: samples[3], quantity: 1, rate: 10, amount: 10 },
      { description: samples[4], quantity: 2, rate: 5, amount: 10 },
    ],
    notes: samples[4],
  });
}

/** Extracted text without bidi controls, whitespace squeezed. */
function readable(text: string): string {
  return text.replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "")
    .replace(/\s+/g, " ");
}

for (const [script, samples] of Object.entries(SCRIPT_SAMPLES)) {
  Deno.test(`${script}: invoice renders, passes qpdf and extracts as written`, async () => {
    const pdf = render_invoice_pdf(script_invoice(samples));
    assert((await qpdf_check(pdf)).ok, "qpdf --check");
    const text = readable(await pdf_text(pdf, { mode: "reading" }));
    for (const sample of samples) {
      assertStringIncludes(text, sample.normalize("NFC"), script);
    }
    // Deterministic, like every other invoice.
    assertEquals(pdf, render_invoice_pdf(script_invoice(samples)));
  });
}

Deno.test("only the scripts an invoice uses are embedded", async () => {
  const latin = await pdf_fonts_of(
    render_invoice_pdf(InvoiceRequestSchema.parse(full_invoice())),
  );
  assert(latin.every((f) => f.includes("NotoSans-")), latin.join());
  const arabic = await pdf_fonts_of(
    render_invoice_pdf(script_invoice(SCRIPT_SAMPLES.Arabic)),
  );
  assert(arabic.some((f) => f.includes("NotoSansArabic")), arabic.join());
  assert(!arabic.some((f) => /NotoSans(SC|TC|JP|KR|Hebrew)/.test(f)));
  const japanese = await pdf_fonts_of(
    render_invoice_pdf(script_invoice(SCRIPT_SAMPLES.Japanese)),
  );
  assert(japanese.some((f) => f.includes("NotoSansJP")), japanese.join());
  assert(!japanese.some((f) => /NotoSans(SC|TC|KR|Arabic)/.test(f)));
});

Deno.test("Latin-only invoices take no new path: no script font, no ActualText", () => {
  const pdf = render_invoice_pdf(InvoiceRequestSchema.parse(full_invoice()));
  const raw = new TextDecoder("latin1").decode(pdf);
  assert(!raw.includes("ActualText"));
  assert(!raw.includes("CIDToGIDMap 1"), "Latin fonts keep /Identity");
});

const layout_options = () => ({
  latin: load_invoice_fonts().normal,
  bold: false,
});

Deno.test("Arabic letters join and lam-alef becomes one ligature glyph", () => {
  const arabic = load_script_font("arabic");
  // Noto Sans Arabic draws the dots as marks: compare the letter bodies
  // (the glyphs that advance).
  const bodies = (text: string): number[] => {
    const run = shape_text(arabic, text, { rtl: true });
    return [...run.glyphs].filter((_, i) => run.advances[i] > 0);
  };
  const [isolated] = bodies("ب");
  const joined = bodies("ببب");
  // Final, medial and initial forms (visual order): not the isolated one.
  assertEquals(joined.length, 3);
  for (const g of joined) assertNotEquals(g, isolated);
  assertNotEquals(joined[0], joined[1]);
  assertNotEquals(joined[1], joined[2]);
  // Lam-alef: the font's mandatory ligature (rlig) replaces lam + alef by
  // its lam-alef form, unlike lam before another letter or alef after one.
  const lam_alef = bodies("لا"); // visual order: alef part, lam part
  const lam_initial = bodies("لم")[1];
  const alef_final = bodies("ما")[0];
  assert(lam_alef.length === 1 || lam_alef.length === 2);
  assert(!lam_alef.includes(lam_initial), "lam takes its lam-alef form");
  assert(!lam_alef.includes(alef_final), "alef takes its lam-alef form");
});

Deno.test("Devanagari: the i-matra is drawn before its consonant, conjuncts form", () => {
  const font = load_script_font("devanagari");
  const ki = shape_text(font, "कि", { rtl: false });
  // The vowel sign (logically second) is the first glyph drawn.
  assertEquals(ki.glyphs.length, 2);
  assertEquals(ki.clusters[0], 0);
  const matra_alone = shape_text(font, "\u093F", { rtl: false }).glyphs;
  assert(matra_alone.includes(ki.glyphs[0]) || ki.glyphs[0] !== ki.glyphs[1]);
  const ka = shape_text(font, "क", { rtl: false }).glyphs[0];
  assertEquals(ki.glyphs[1], ka);
  // क्ष is one conjunct glyph, not ka + virama + ssa.
  assertEquals(shape_text(font, "क्ष", { rtl: false }).glyphs.length, 1);
});

Deno.test("Thai: a tone mark above an upper vowel is stacked higher", () => {
  const font = load_script_font("thai");
  const plain = shape_text(font, "ท่", { rtl: false }); // tone mark on base
  const stacked = shape_text(font, "ที่", { rtl: false }); // on sara ii
  const tone_plain = { g: plain.glyphs.at(-1), y: plain.y_offsets.at(-1) };
  const tone_stacked = {
    g: stacked.glyphs.at(-1),
    y: stacked.y_offsets.at(-1),
  };
  // Either a raised glyph variant or a positive vertical offset.
  assert(
    tone_plain.g !== tone_stacked.g || tone_stacked.y! > tone_plain.y!,
    JSON.stringify({ tone_plain, tone_stacked }),
  );
});

Deno.test("bidi: Arabic name with a Latin suffix lays out right to left", () => {
  const layout = layout_line("شركة النور LLC", layout_options());
  assert(layout.rtl);
  // Visual order, left to right: "LLC", the space, then the Arabic words.
  assertEquals(layout.runs[0].texts.join(""), "LLC");
  assertEquals(layout.runs.at(-1)!.font.postscript, "NotoSansArabic-Regular");
  // Hebrew address with a house number: digits keep their order.
  const hebrew = layout_line("רחוב הרצל 12", layout_options());
  assertEquals(hebrew.runs[0].texts.join(""), "12");
  // Brackets in right-to-left text are mirrored.
  const brackets = layout_line("(مع دليل)", layout_options());
  assertEquals(brackets.runs[0].texts.join(""), ")");
});

Deno.test("line breaking: CJK between characters, Thai between words, never inside a cluster", () => {
  const font = load_invoice_fonts().normal;
  const measure = (t: string): number =>
    layout_line(t, { latin: font, bold: false }).width;
  const cjk = "ロゴデザイン制作費ブランドガイドライン含む";
  const lines = wrap_paragraph(cjk, { measure, max_width: 5000 });
  assertGreater(lines.length, 1);
  assertEquals(lines.join(""), cjk);
  for (const line of lines) assertLess(measure(line), 5000.001);
  const thai = "ค่าบริการที่ปรึกษาด้านการออกแบบระบบ";
  const thai_lines = wrap_paragraph(thai, { measure, max_width: 3000 });
  assertGreater(thai_lines.length, 1);
  assertEquals(thai_lines.join(""), thai);
  const clusters = new Set(
    grapheme_clusters(thai).map((_, i, all) =>
      all.slice(0, i + 1).join("").length
    ),
  );
  let offset = 0;
  for (const line of thai_lines) {
    offset += line.length;
    assert(clusters.has(offset), `break at ${offset} splits a cluster`);
  }
  const hindi = "सॉफ़्टवेयरविकाससेवाकेंद्रनईदिल्ली";
  const hindi_lines = wrap_paragraph(hindi, { measure, max_width: 2500 });
  assertEquals(hindi_lines.join(""), hindi);
  for (const line of hindi_lines) {
    assertEquals(grapheme_clusters(line).join(""), line);
    assert(!/^[\u093e-\u094d\u0902\u0903]/.test(line), line);
  }
});

const ARTIFACTS = new URL("../artifacts/scripts/", import.meta.url);

/** Invoices a person should look at: Japanese, Arabic, Hindi and Thai. */
export function artifact_invoices(): Record<string, Invoice> {
  const base = full_invoice();
  const make = (
    fields: {
      sender: string;
      address: string;
      bill_to: string;
      items: string[];
      notes: string;
      locale?: string;
    },
  ): Invoice =>
    InvoiceRequestSchema.parse({
      ...base,
      ...(fields.locale === undefined ? {} : { locale: fields.locale }),
      sender: { ...base.sender, name: fields.sender, address: fields.address },
      bill_to: { ...base.bill_to, name: fields.bill_to },
      items: fields.items.map((description, i) => ({
        description,
        quantity: i + 1,
        rate: 1250.5,
        amount: (i + 1) * 1250.5,
      })),
      notes: fields.notes,
    });
  return {
    japanese: make({
      sender: "山田太郎デザイン事務所",
      address: "東京都千代田区丸の内1-2-3",
      bill_to: "株式会社さくら商事",
      items: [
        "ロゴデザイン制作費（ブランドガイドライン含む）。長い説明文は文字の間で改行されます。",
        "名刺デザイン",
      ],
      notes: "お支払いは30日以内に銀行振込でお願いいたします。",
      locale: "ja-JP",
    }),
    arabic: make({
      sender: "شركة النور LLC",
      address: "شارع الملك فهد 123، الرياض",
      bill_to: "محمد عبد الله",
      items: [
        "تصميم شعار لا إله إلا (مع دليل الهوية) بسعر 1,250.00 ر.س",
        "استشارات فارسی: می‌خواهم، اردو: ٹیکسی",
      ],
      notes: "يرجى الدفع خلال 30 يومًا. شكرًا لكم!",
      locale: "ar-SA",
    }),
    hindi: make({
      sender: "राम कुमार शर्मा",
      address: "नई दिल्ली मार्ग 12, क्षेत्र",
      bill_to: "भारतीय सेवा केंद्र",
      items: [
        "सॉफ़्टवेयर विकास कि की कु कू के कै क्ष त्र ज्ञ श्र",
        "हिन्दी और मराठी: महाराष्ट्र",
      ],
      notes: "कृपया 30 दिनों के भीतर भुगतान करें। धन्यवाद!",
      locale: "hi-IN",
    }),
    thai: make({
      sender: "บริษัท สยาม จำกัด",
      address: "ถนนสุขุมวิท กรุงเทพฯ",
      bill_to: "สมชาย ใจดี",
      items: ["ค่าบริการที่ปรึกษา ที่ นี่ ปั้น ผู้ ญี่ปุ่น", "เวิร์กช็อปทบทวนการออกแบบสองวัน"],
      notes: "กรุณาชำระเงินภายใน 30 วัน ขอบคุณครับ",
      locale: "th-TH",
    }),
  };
}

Deno.test("PNGs of a Japanese, an Arabic, a Hindi and a Thai invoice go to tests/artifacts/scripts/", async () => {
  await Deno.mkdir(ARTIFACTS, { recursive: true });
  for (const [name, invoice] of Object.entries(artifact_invoices())) {
    for (const entry of Deno.readDirSync(ARTIFACTS)) {
      if (entry.name.startsWith(`${name}-`)) {
        await Deno.remove(new URL(entry.name, ARTIFACTS));
      }
    }
    const pdf = render_invoice_pdf(invoice);
    assert((await qpdf_check(pdf)).ok, name);
    const pdf_path = new URL(`${name}.pdf`, ARTIFACTS).pathname;
    await Deno.writeFile(pdf_path, pdf);
    const result = await new Deno.Command("pdftoppm", {
      args: ["-png", "-r", "110", pdf_path, new URL(name, ARTIFACTS).pathname],
      stderr: "piped",
    }).output();
    assertEquals(result.code, 0, new TextDecoder().decode(result.stderr));
    const png = await Deno.readFile(new URL(`${name}-1.png`, ARTIFACTS));
    assertEquals([...png.subarray(1, 4)], [80, 78, 71]); // "PNG"
    assertGreater(png.length, 10_000);
  }
});

/** An invoice in `locale` whose parties and items are written in its script. */
function rtl_invoice(locale: string, samples: {
  sender: string;
  address: string;
  bill_to: string;
  item: string;
}): Invoice {
  const base = full_invoice();
  return InvoiceRequestSchema.parse({
    ...base,
    locale,
    sender: {
      ...base.sender,
      name: samples.sender,
      address: samples.address,
      phone: "+49 30 1234567",
    },
    bill_to: { ...base.bill_to, name: samples.bill_to },
    items: [{
      description: samples.item,
      quantity: 2,
      rate: 1250.5,
      amount: 2501,
    }],
    notes: samples.item,
  });
}

const ARABIC_RTL = {
  sender: "شركة النور LLC",
  address: "شارع الملك فهد 123",
  bill_to: "محمد عبد الله",
  item: "تصميم شعار ودليل الهوية",
};
const HEBREW_RTL = {
  sender: "דוד כהן בע״מ",
  address: "רחוב הרצל 12",
  bill_to: "חברת אור",
  item: "ייעוץ עסקי לחודש מרץ",
};

for (
  const [locale, samples] of [
    ["ar-SA", ARABIC_RTL],
    ["he-IL", HEBREW_RTL],
  ] as const
) {
  Deno.test(`${locale}: the layout is mirrored — title and sender on the right, columns right to left`, async () => {
    const pdf = render_invoice_pdf(rtl_invoice(locale, samples));
    assert((await qpdf_check(pdf)).ok);
    const { pages, words } = await pdf_words(pdf);
    const centre = pages[0].width / 2;
    const page_one = words.filter((w) => w.page === 1);
    const at = (text: string) => {
      const word = page_one.find((w) => w.text === text);
      assert(word !== undefined, `${text} not found`);
      return word;
    };
    // The title is the tallest text; it sits right of centre.
    const height = (w: { y_min: number; y_max: number }) => w.y_max - w.y_min;
    const tallest = Math.max(...page_one.map(height));
    const title_glyphs = page_one.filter((w) => height(w) > tallest * 0.9);
    assertGreater(Math.min(...title_glyphs.map((w) => w.x_min)), centre);
    // Sender block on the right, bill-to on its left.
    assertGreater(at("billing@wrobel.example").x_min, centre);
    assertLess(
      at("accounts@balanescu.example").x_max,
      at("billing@wrobel.example").x_min,
    );
    // A phone number after a right-to-left label keeps its own order.
    const phone = ["+49", "30", "1234567"].map(at);
    assertLess(phone[0].x_max, phone[1].x_min);
    assertLess(phone[1].x_max, phone[2].x_min);
    // Amounts stay numbers with Western digits, in the leftmost column
    // (the page footer's reference aside).
    const amounts = page_one.filter((w) =>
      w.text === "2,501.00" && w.y_max < pages[0].height - 100
    );
    assertGreater(amounts.length, 0);
    for (const amount of amounts) assertLess(amount.x_max, centre);
    // A left-to-right invoice with the same text is not mirrored.
    const ltr = render_invoice_pdf(
      InvoiceRequestSchema.parse({
        ...full_invoice(),
        sender: { ...full_invoice().sender, name: samples.sender },
      }),
    );
    const ltr_words = (await pdf_words(ltr)).words;
    const invoice_title = ltr_words.find((w) => w.text === "INVOICE");
    assertLess(invoice_title!.x_max, centre);
  });

  Deno.test(`${locale}: mixed-direction lines keep their logical order`, async () => {
    const pdf = render_invoice_pdf(rtl_invoice(locale, samples));
    const text = readable(await pdf_text(pdf, { mode: "reading" }));
    // Latin suffix and house number after the right-to-left words, as written.
    assertStringIncludes(text, samples.sender);
    assertStringIncludes(text, samples.address);
    assertStringIncludes(text, samples.bill_to);
    assertStringIncludes(text, samples.item);
  });
}

Deno.test("the locales in other scripts print their translated labels", async () => {
  const locales = [
    "zh-CN",
    "zh-TW",
    "ja-JP",
    "ko-KR",
    "ar-SA",
    "ar-AE",
    "he-IL",
    "hi-IN",
    "th-TH",
  ];
  for (const locale of locales) {
    const labels = locale_texts(locale).labels;
    const pdf = render_invoice_pdf(
      InvoiceRequestSchema.parse({ ...full_invoice(), locale }),
    );
    assert((await qpdf_check(pdf)).ok, locale);
    const text = readable(await pdf_text(pdf, { mode: "reading" }));
    for (
      const key of ["invoice", "description", "quantity", "bill_to"] as const
    ) {
      const expected = labels[key].toLocaleUpperCase(locale);
      assert(
        text.includes(labels[key]) || text.includes(expected),
        `${locale}: ${key} "${labels[key]}" in ${text.slice(0, 300)}`,
      );
    }
  }
});

Deno.test("script font subsets are reused per glyph set: any render order gives the same files, each with its own text", async () => {
  const first = script_invoice(SCRIPT_SAMPLES.Japanese);
  const second = script_invoice([
    "佐藤花子",
    "有限会社みどり",
    "大阪府大阪市北区",
    "ウェブ保守",
    "ありがとうございます",
  ]);
  const first_pdf = render_invoice_pdf(first);
  const second_pdf = render_invoice_pdf(second);
  assertEquals(render_invoice_pdf(first), first_pdf);
  assertEquals(render_invoice_pdf(second), second_pdf);
  const text = readable(await pdf_text(second_pdf, { mode: "reading" }));
  for (const sample of ["佐藤花子", "有限会社みどり", "ありがとうございます"]) {
    assertStringIncludes(text, sample);
  }
  assertStringIncludes(
    readable(await pdf_text(render_invoice_pdf(first), { mode: "reading" })),
    "株式会社さくら商事",
  );
});
