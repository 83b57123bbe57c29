/**
 * Issue 11 benchmark: invoices in other scripts, in-process, plus the
 * memory the script fonts cost in render workers.
 *
 * ```sh
 * deno bench --allow-read --allow-run tests/bench/scripts_bench.ts
 * ```
 *
 * Rows (medians, warm process, fonts loaded): the 10-item Latin invoice
 * (must not change), 10 items with Japanese / Chinese / Korean names and
 * descriptions (target ≤ 15 ms and ≤ 80 KB), 10 items in Arabic (target
 * ≤ 10 ms), Hindi and Thai; then the first render of each script in a
 * fresh process (font load + HarfBuzz face) and the resident memory of
 * `RENDER_WORKERS`-many workers (default 2 here) that rendered every script
 * against the same number that rendered Latin only (target ≤ 150 MB more).
 */

import type { Invoice } from "../../contract/invoice_types.ts";
import { InvoiceRequestSchema } from "../../contract/invoice.ts";
import {
  load_invoice_fonts,
  render_invoice_pdf,
} from "../../server/pdf/mod.ts";

const SCRIPTS: Record<
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

function median_ms(fn: () => void, warmup = 100, n = 200): number {
  for (let i = 0; i < warmup; i++) fn();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(n / 2)];
}

/** Renders `script` once in a fresh process: first-use cost of its fonts. */
async function first_render_ms(script: string): Promise<number> {
  const code = `
    import { render_invoice_pdf, load_invoice_fonts } from "${
    new URL("../../server/pdf/mod.ts", import.meta.url).href
  }";
    import { script_bench_invoice } from "${import.meta.url}";
    load_invoice_fonts();
    const t = performance.now();
    render_invoice_pdf(script_bench_invoice("${script}"));
    console.log(performance.now() - t);`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", code],
    env: { BENCH_CHILD: "1" },
    stdout: "piped",
    stderr: "inherit",
  }).output();
  return Number(new TextDecoder().decode(out.stdout).trim());
}

/** Process RSS (MB) after `workers` render workers each rendered `scripts`. */
async function worker_rss_mb(
  workers: number,
  scripts: string[],
): Promise<number> {
  const code = `
    import { script_bench_invoice } from "${import.meta.url}";
    const url = "${
    new URL("../../server/render_worker.ts", import.meta.url).href
  }";
    const pool = Array.from({ length: ${workers} }, () => new Worker(url, { type: "module" }));
    for (const w of pool) {
      for (const script of ${JSON.stringify(scripts)}) {
        await new Promise((resolve) => {
          w.onmessage = resolve;
          w.postMessage({ id: 1, invoice: script_bench_invoice(script) });
        });
      }
    }
    console.log(Deno.memoryUsage().rss / 1048576);
    for (const w of pool) w.terminate();`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", code],
    env: { BENCH_CHILD: "1" },
    stdout: "piped",
    stderr: "inherit",
  }).output();
  return Number(new TextDecoder().decode(out.stdout).trim());
}

if (import.meta.main || Deno.env.get("BENCH_CHILD") === undefined) {
  if (Deno.env.get("BENCH_CHILD") === undefined) {
    load_invoice_fonts();
    const report: string[] = [];
    for (const script of Object.keys(SCRIPTS)) {
      const input = script_bench_invoice(script);
      const bytes = render_invoice_pdf(input).length;
      const median = median_ms(() => render_invoice_pdf(input));
      report.push(
        `${script.padEnd(9)} 10 items: median ${
          median.toFixed(2).padStart(6)
        } ms, ${String(bytes).padStart(6)} bytes`,
      );
    }
    for (
      const script of [
        "japanese",
        "chinese",
        "korean",
        "arabic",
        "hindi",
        "thai",
      ]
    ) {
      report.push(
        `${script.padEnd(9)} first render in a fresh process (fonts load): ${
          (await first_render_ms(script)).toFixed(1)
        } ms`,
      );
    }
    const workers = Number(Deno.env.get("RENDER_WORKERS") ?? 2);
    const latin = await worker_rss_mb(workers, ["latin"]);
    const all = await worker_rss_mb(workers, Object.keys(SCRIPTS));
    report.push(
      `RSS with ${workers} workers: Latin only ${latin.toFixed(0)} MB, ` +
        `every script loaded in every worker ${all.toFixed(0)} MB ` +
        `(+${(all - latin).toFixed(0)} MB; target ≤ +150 MB)`,
    );
    console.log(report.join("\n"));

    Deno.bench("japanese 10 items", () => {
      render_invoice_pdf(script_bench_invoice("japanese"));
    });
    Deno.bench("arabic 10 items", () => {
      render_invoice_pdf(script_bench_invoice("arabic"));
    });
  }
}
