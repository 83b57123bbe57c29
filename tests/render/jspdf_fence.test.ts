/**
 * The jsPDF fence (`server/pdf/jspdf_fence.ts`) is written against one
 * jsPDF version: these tests pin it, check that the private members it
 * relies on exist, and keep every other renderer module on jsPDF's public
 * API. Upgrading jsPDF means reading the fence against the new version's
 * source first, then changing the pinned versions here and in `deno.json`.
 */
import { createRequire } from "node:module";
import { jsPDF } from "jspdf";
import { assertEquals } from "../assert.ts";
import {
  JSPDF_VERSION,
  missing_jspdf_members,
} from "../../server/pdf/jspdf_fence.ts";

const config = JSON.parse(
  Deno.readTextFileSync(new URL("../../deno.json", import.meta.url)),
) as { imports: Record<string, string> };

/** The version in the installed package's package.json. */
function installed_version(name: string): string {
  let folder = createRequire(import.meta.url).resolve(name);
  while (!folder.endsWith(`/node_modules/${name}`)) {
    folder = folder.slice(0, folder.lastIndexOf("/"));
  }
  return JSON.parse(Deno.readTextFileSync(`${folder}/package.json`)).version;
}

Deno.test("jsPDF is the version the fence is written against", () => {
  assertEquals(jsPDF.version, JSPDF_VERSION);
  assertEquals(installed_version("jspdf"), JSPDF_VERSION);
  assertEquals(config.imports["jspdf"], `npm:jspdf@${JSPDF_VERSION}`);
});

Deno.test("every private jsPDF member the fence uses exists", () => {
  assertEquals(missing_jspdf_members(), []);
});

Deno.test("no renderer module outside the fence reaches into jsPDF's internals", () => {
  const private_use =
    /\.internal\b|__private__|jsPDF\.API|jspdf-autotable|\bprocess(PNG|JPEG)\b/;
  const offenders: string[] = [];
  for (const folder of ["../../server/pdf/", "../../server/einvoice/"]) {
    for (const entry of Deno.readDirSync(new URL(folder, import.meta.url))) {
      if (!entry.isFile || !entry.name.endsWith(".ts")) continue;
      if (entry.name === "jspdf_fence.ts") continue;
      const source = Deno.readTextFileSync(
        new URL(folder + entry.name, import.meta.url),
      );
      source.split("\n").forEach((line, index) => {
        const code = line.replace(/\/\/.*$|^\s*\*.*$/, "");
        if (private_use.test(code)) {
          offenders.push(`${entry.name}:${index + 1}: ${line.trim()}`);
        }
      });
    }
  }
  assertEquals(offenders, []);
});

Deno.test("documents subscribe only the jsPDF handlers the renderer uses: link annotations and the font plugin", async () => {
  const { render_invoice_pdf } = await import("../../server/pdf/mod.ts");
  const { invoice_with_items } = await import("../fixtures/invoices.ts");
  const { InvoiceRequestSchema } = await import("../../contract/mod.ts");
  render_invoice_pdf(InvoiceRequestSchema.parse(invoice_with_items(2)));
  const events = (jsPDF.API as unknown as { events: [string, unknown][] })
    .events.map(([name]) => name);
  assertEquals(events, [
    "addPage",
    "putPage",
    "addFonts",
    "addFont",
    "putFont",
  ]);
});
