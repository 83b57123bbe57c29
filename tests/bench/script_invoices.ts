/**
 * Invoices written in other scripts, for the benchmarks (`scripts_bench.ts`,
 * `render_bench.ts`): names, address, items and notes in one script.
 */

import type { Invoice } from "../../contract/invoice_types.ts";
import { InvoiceRequestSchema } from "../../contract/invoice.ts";

/** Party names, items and notes per script. */
export const SCRIPTS: Record<
  string,
  { party: string[]; items: string[]; notes: string }
> = {
  latin: {
    party: ["Acme Consulting LLC", "Globex Corporation", "1 Main Street"],
    items: [
      "Consulting services, March 2024",
      "Website maintenance and hosting (monthly)",
      "Design review workshop, two days on site",
    ],
    notes: "Payment within 30 days by bank transfer. Thank you!",
  },
  japanese: {
    party: [
      "山田太郎デザイン事務所",
      "株式会社さくら商事",
      "東京都千代田区丸の内1-2-3",
    ],
    items: [
      "ロゴデザイン制作費（ブランドガイドライン含む）",
      "ウェブサイト保守・ホスティング（月額）",
      "デザインレビュー研修、二日間、現地開催",
      "名刺・封筒・請求書テンプレートの作成",
    ],
    notes: "お支払いは請求書発行日から30日以内に銀行振込でお願いいたします。",
  },
  chinese: {
    party: [
      "北京华为科技有限公司",
      "上海浦东发展银行",
      "北京市海淀区中关村大街1号",
    ],
    items: [
      "软件开发服务（三月份）",
      "网站维护与托管（每月）",
      "设计评审研讨会，两天现场",
      "品牌形象设计与标志制作",
    ],
    notes: "请在三十天内通过银行转账付款。谢谢惠顾！",
  },
  korean: {
    party: [
      "주식회사 한빛소프트",
      "김철수 디자인",
      "서울특별시 강남구 테헤란로 123",
    ],
    items: [
      "웹사이트 개발 및 유지보수 (월간)",
      "브랜드 로고 디자인 작업",
      "디자인 검토 워크숍, 이틀간 현장",
    ],
    notes: "30일 이내에 계좌이체로 결제해 주십시오. 감사합니다!",
  },
  arabic: {
    party: [
      "شركة النور للتجارة LLC",
      "محمد عبد الله",
      "شارع الملك فهد 123، الرياض",
    ],
    items: [
      "خدمات استشارية لشهر مارس",
      "صيانة الموقع والاستضافة (شهريا)",
      "ورشة مراجعة التصميم لمدة يومين",
    ],
    notes: "يرجى الدفع خلال 30 يومًا بالتحويل المصرفي. شكرًا لكم!",
  },
  hindi: {
    party: ["राम कुमार शर्मा", "भारतीय सेवा केंद्र", "नई दिल्ली मार्ग 12"],
    items: [
      "सॉफ़्टवेयर विकास सेवाएँ",
      "वेबसाइट रखरखाव (मासिक)",
      "डिज़ाइन समीक्षा कार्यशाला",
    ],
    notes: "कृपया 30 दिनों के भीतर बैंक हस्तांतरण द्वारा भुगतान करें। धन्यवाद!",
  },
  thai: {
    party: ["บริษัท สยาม จำกัด", "สมชาย ใจดี", "ถนนสุขุมวิท กรุงเทพฯ"],
    items: [
      "ค่าบริการที่ปรึกษาเดือนมีนาคม",
      "ค่าดูแลเว็บไซต์รายเดือน",
      "เวิร์กช็อปทบทวนการออกแบบสองวัน",
    ],
    notes: "กรุณาชำระเงินภายใน 30 วันโดยการโอนเงินผ่านธนาคาร ขอบคุณครับ",
  },
};

/** A 10-item invoice written in `script` (names, address, items, notes). */
export function script_bench_invoice(script: string, count = 10): Invoice {
  const s = SCRIPTS[script];
  const items = Array.from({ length: count }, (_, i) => ({
    description: `${s.items[i % s.items.length]} #${i + 1}`,
    quantity: (i % 9) + 1,
    rate: 1250.5,
    amount: ((i % 9) + 1) * 1250.5,
  }));
  return InvoiceRequestSchema.parse({
    invoice_number: "INV-2024-0042",
    date: "2024-03-31",
    due_date: "2024-04-30",
    currency: "EUR",
    sender: {
      name: s.party[0],
      email: "billing@example.com",
      address: s.party[2],
    },
    bill_to: { name: s.party[1], email: "ap@example.com" },
    items,
    notes: s.notes,
  });
}
