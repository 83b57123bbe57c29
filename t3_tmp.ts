import { render_invoice_pdf } from "/work/wt/s11/server/pdf/mod.ts";
const inv = JSON.parse(Deno.readTextFileSync(Deno.args[0]));
const t = performance.now();
const pdf = render_invoice_pdf(inv);
console.log("ms", performance.now() - t, pdf.length);
Deno.writeFileSync(Deno.args[1], pdf);
