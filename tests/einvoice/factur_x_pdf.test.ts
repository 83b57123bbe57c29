/**
 * The Factur-X PDF: PDF/A-3b structure as qpdf, pdfinfo and pdfdetach see
 * it, the embedded XML byte for byte, the same pages as the plain PDF, and
 * determinism. The XML inside is checked by the validator in
 * tests/einvoice/validation.test.ts.
 */
import {
  assert,
  assertEquals,
  assertGreater,
  assertMatch,
  assertStringIncludes,
} from "../assert.ts";
import { pdf_info, pdf_text, qpdf_check } from "../helpers/pdf_text.ts";
import { german_invoice } from "../fixtures/einvoices.ts";
import { command_stdout } from "../helpers/command.ts";
import {
  FACTUR_X_FILE_NAME,
  invoice_xml,
  render_invoice_document,
} from "../../server/einvoice/mod.ts";

async function with_file<T>(
  bytes: Uint8Array,
  use: (path: string) => Promise<T>,
): Promise<T> {
  const path = await Deno.makeTempFile({ suffix: ".pdf" });
  try {
    await Deno.writeFile(path, bytes);
    return await use(path);
  } finally {
    await Deno.remove(path).catch(() => {});
  }
}

type PdfObjects = Record<
  string,
  { value?: unknown; stream?: { dict: Record<string, unknown> } }
>;

/** Every object of the file (qpdf's JSON, stream data left out). */
function pdf_objects(bytes: Uint8Array): Promise<PdfObjects> {
  return with_file(bytes, async (path) => {
    const text = await command_stdout("qpdf", [
      "--json=2",
      "--json-key=qpdf",
      path,
    ]);
    // qpdf copies reals as written; jsPDF writes e.g. "134." in link rects.
    const json = JSON.parse(text.replace(/(\d)\.(?=[\s,\]])/g, "$1.0"));
    return json.qpdf[1] as PdfObjects;
  });
}

function dict_of(objects: PdfObjects, ref: unknown): Record<string, unknown> {
  const entry = objects[`obj:${ref}`];
  const dict = entry?.value ?? entry?.stream?.dict;
  if (typeof dict !== "object" || dict === null) {
    throw new Error(`no object ${ref}`);
  }
  return dict as Record<string, unknown>;
}

const invoice = german_invoice();
const facturx = render_invoice_document(invoice, { format: "factur-x" });
const plain = render_invoice_document(invoice, { format: "pdf" });

Deno.test("Factur-X is application/pdf, qpdf-clean, PDF 1.7", async () => {
  assertEquals(facturx.content_type, "application/pdf");
  const check = await qpdf_check(facturx.bytes);
  assert(check.ok, check.stdout + check.stderr);
  assertStringIncludes(check.stdout, "PDF Version: 1.7");
  assertStringIncludes(check.stdout, "File is not encrypted");
});

Deno.test("pdfdetach extracts factur-x.xml byte for byte", async () => {
  await with_file(facturx.bytes, async (path) => {
    assertEquals(
      (await command_stdout("pdfdetach", ["-list", path])).trim().split("\n"),
      ["1 embedded files", `1: ${FACTUR_X_FILE_NAME}`],
    );
    const out = `${path}.xml`;
    await command_stdout("pdfdetach", ["-save", "1", "-o", out, path]);
    try {
      const expected = new TextEncoder().encode(
        invoice_xml(invoice, { format: "factur-x" }),
      );
      assertEquals(await Deno.readFile(out), expected);
    } finally {
      await Deno.remove(out).catch(() => {});
    }
  });
});

Deno.test("catalog: /AF, embedded file spec, sRGB output intent, XMP; trailer /ID", async () => {
  const objects = await pdf_objects(facturx.bytes);
  const trailer = objects["trailer"].value as Record<string, unknown>;
  const id = trailer["/ID"] as string[];
  assertEquals(id.length, 2);
  assertMatch(id[0], /^b:[0-9a-f]{32}$/);
  assert(trailer["/Encrypt"] === undefined);
  const catalog = dict_of(objects, trailer["/Root"]);
  assertEquals(catalog["/Type"], "/Catalog");

  const [spec_ref] = catalog["/AF"] as string[];
  const names = (catalog["/Names"] as Record<string, Record<string, unknown>>)[
    "/EmbeddedFiles"
  ]["/Names"];
  assertEquals(names, [`u:${FACTUR_X_FILE_NAME}`, spec_ref]);
  const spec = dict_of(objects, spec_ref);
  assertEquals(spec["/Type"], "/Filespec");
  assertEquals(spec["/F"], `u:${FACTUR_X_FILE_NAME}`);
  assertEquals(spec["/UF"], `u:${FACTUR_X_FILE_NAME}`);
  assertEquals(spec["/AFRelationship"], "/Alternative");
  const file = dict_of(objects, (spec["/EF"] as Record<string, string>)["/F"]);
  assertEquals(file["/Type"], "/EmbeddedFile");
  assertEquals(file["/Subtype"], "/text/xml"); // qpdf decodes #2F
  const params = file["/Params"] as Record<string, unknown>;
  assertEquals(params["/ModDate"], "u:D:20261102000000+00'00'");

  const [intent_ref] = catalog["/OutputIntents"] as string[];
  const intent = dict_of(objects, intent_ref);
  assertEquals(intent["/S"], "/GTS_PDFA1");
  const profile = dict_of(objects, intent["/DestOutputProfile"]);
  assertEquals(profile["/N"], 3);
  assertEquals(profile["/Filter"], "/FlateDecode");

  const metadata = dict_of(objects, catalog["/Metadata"]);
  assertEquals(metadata["/Type"], "/Metadata");
  assertEquals(metadata["/Subtype"], "/XML");
  assertEquals(metadata["/Filter"], undefined); // PDF/A: readable as is
});

/** An invoice with two attached files (one with a non-ASCII name) and a link. */
function invoice_with_attachments() {
  const invoice = german_invoice();
  const bytes = (text: string) => new TextEncoder().encode(text);
  invoice.attachments = [
    {
      id: "STD-1",
      description: "Stundenzettel",
      filename: "stunden.pdf",
      mime_type: "application/pdf",
      data: btoa("%PDF-1.4\n%%EOF\n"),
      size: bytes("%PDF-1.4\n%%EOF\n").length,
    },
    {
      id: "CSV-2",
      filename: "Übersicht.csv",
      mime_type: "text/csv",
      data: btoa("a;b\n1;2\n"),
      size: 8,
    },
    { id: "LINK-3", url: "https://docs.example/3" },
  ];
  return invoice;
}

Deno.test("attachments are associated files with /AFRelationship /Supplement beside factur-x.xml", async () => {
  const invoice = invoice_with_attachments();
  const { bytes } = render_invoice_document(invoice, { format: "factur-x" });
  const check = await qpdf_check(bytes);
  assert(check.ok, check.stdout + check.stderr);
  await with_file(bytes, async (path) => {
    const listed = (await command_stdout("pdfdetach", ["-list", path])).trim()
      .split("\n");
    assertEquals(listed[0], "3 embedded files");
    assertEquals(listed.slice(1).map((line) => line.replace(/^\d+: /, "")), [
      FACTUR_X_FILE_NAME,
      "stunden.pdf",
      "Übersicht.csv",
    ]);
    const out = `${path}.att`;
    await command_stdout("pdfdetach", ["-save", "2", "-o", out, path]);
    try {
      assertEquals(
        new TextDecoder().decode(await Deno.readFile(out)),
        "%PDF-1.4\n%%EOF\n",
      );
    } finally {
      await Deno.remove(out).catch(() => {});
    }
  });
  const objects = await pdf_objects(bytes);
  const trailer = objects["trailer"].value as Record<string, unknown>;
  const catalog = dict_of(objects, trailer["/Root"]);
  const specs = (catalog["/AF"] as string[]).map((ref) =>
    dict_of(objects, ref)
  );
  assertEquals(specs.map((spec) => spec["/AFRelationship"]), [
    "/Alternative",
    "/Supplement",
    "/Supplement",
  ]);
  assertEquals(specs[1]["/Desc"], "u:Stundenzettel");
  assertEquals(specs[2]["/UF"], "u:Übersicht.csv");
  const file = dict_of(
    objects,
    (specs[2]["/EF"] as Record<string, string>)["/F"],
  );
  assertEquals(file["/Subtype"], "/text/csv");
  assert((file["/Params"] as Record<string, unknown>)["/ModDate"]);
  // The name tree lists its keys in byte order: ASCII names before UTF-16 ones.
  const names = (catalog["/Names"] as Record<string, Record<string, unknown>>)[
    "/EmbeddedFiles"
  ]["/Names"] as string[];
  assertEquals(names.filter((_, i) => i % 2 === 0), [
    `u:${FACTUR_X_FILE_NAME}`,
    "u:stunden.pdf",
    "u:Übersicht.csv",
  ]);
  // The XML inside is the CII of the same invoice, attachments included.
  assertStringIncludes(
    invoice_xml(invoice, { format: "factur-x" }),
    'filename="stunden.pdf"',
  );
});

/** An Arabic-script, right-to-left invoice with Japanese lines: more fonts. */
function arabic_invoice() {
  const invoice = german_invoice();
  invoice.locale = "ar-SA";
  invoice.bill_to = { ...invoice.bill_to, name: "شركة المثال للتجارة" };
  invoice.items = invoice.items.map((item, i) => ({
    ...item,
    description: i === 0 ? "استشارات فنية" : "請求書の翻訳",
  }));
  return invoice;
}

Deno.test("every font is embedded; no JavaScript, no transparency", async () => {
  const arabic = render_invoice_document(arabic_invoice(), {
    format: "factur-x",
  }).bytes;
  assert((await qpdf_check(arabic)).ok);
  await check_fonts_and_transparency(facturx.bytes);
  await check_fonts_and_transparency(arabic);
});

async function check_fonts_and_transparency(bytes: Uint8Array): Promise<void> {
  const objects = await pdf_objects(bytes);
  let fonts = 0;
  for (const dict of all_dicts(objects)) {
    if (dict["/Type"] === "/FontDescriptor") {
      fonts++;
      assert(dict["/FontFile2"] !== undefined, "font program embedded");
    }
    if (dict["/Type"] === "/Font" && dict["/Subtype"] !== "/Type0") {
      assertEquals(dict["/Subtype"], "/CIDFontType2");
    }
    for (
      const key of ["/JS", "/JavaScript", "/SMask", "/CA", "/ca", "/Group"]
    ) {
      assertEquals(dict[key], undefined, `${key} found`);
    }
  }
  assertGreater(fonts, 0);
}

Deno.test("XMP: PDF/A-3B, Factur-X extension schema, same title, author and dates as Info", async () => {
  const info = await pdf_info(facturx.bytes);
  const xmp = await with_file(
    facturx.bytes,
    (path) => command_stdout("pdfinfo", ["-meta", path]),
  );
  assertStringIncludes(xmp, "<pdfaid:part>3</pdfaid:part>");
  assertStringIncludes(xmp, "<pdfaid:conformance>B</pdfaid:conformance>");
  assertStringIncludes(xmp, "<fx:DocumentType>INVOICE</fx:DocumentType>");
  assertStringIncludes(
    xmp,
    "<fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>",
  );
  assertStringIncludes(xmp, "<fx:Version>1.0</fx:Version>");
  assertStringIncludes(
    xmp,
    "<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>",
  );
  assertStringIncludes(
    xmp,
    "<pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#</pdfaSchema:namespaceURI>",
  );
  for (
    const name of [
      "DocumentFileName",
      "DocumentType",
      "Version",
      "ConformanceLevel",
    ]
  ) {
    assertStringIncludes(xmp, `<pdfaProperty:name>${name}</pdfaProperty:name>`);
  }
  const escape = (s: string) =>
    s.replaceAll("&", "&amp;").replaceAll("<", "&lt;");
  assertEquals(info["Title"], "Invoice RE-2026-0815");
  assertStringIncludes(
    xmp,
    `<rdf:li xml:lang="x-default">${escape(info["Title"])}</rdf:li>`,
  );
  assertEquals(info["Author"], "Müller & Söhne GmbH");
  assertStringIncludes(
    xmp,
    `<dc:creator><rdf:Seq><rdf:li>${escape(info["Author"])}</rdf:li>`,
  );
  assertStringIncludes(xmp, `<pdf:Producer>${info["Producer"]}</pdf:Producer>`);
  assertStringIncludes(
    xmp,
    `<xmp:CreatorTool>${info["Creator"]}</xmp:CreatorTool>`,
  );
  assertStringIncludes(
    xmp,
    "<xmp:CreateDate>2026-11-02T00:00:00+00:00</xmp:CreateDate>",
  );
  assertStringIncludes(info["CreationDate"], "Nov  2 00:00:00 2026");
});

Deno.test("Factur-X shows exactly the plain PDF's pages, deterministically", async () => {
  assertEquals(await pdf_text(facturx.bytes), await pdf_text(plain.bytes));
  assertEquals(
    await pdf_text(facturx.bytes, { mode: "layout" }),
    await pdf_text(plain.bytes, { mode: "layout" }),
  );
  const again = render_invoice_document(invoice, { format: "factur-x" });
  assertEquals(again.bytes, facturx.bytes);
});

Deno.test("Factur-X costs at most 10 KB more than the plain PDF", () => {
  const extra = facturx.bytes.length - plain.bytes.length;
  assertGreater(extra, 0);
  assert(extra <= 10 * 1024, `${extra} bytes more`);
});

/** Every dictionary in the file, direct ones inside others included. */
function all_dicts(objects: PdfObjects): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === "object" && value !== null) {
      out.push(value as Record<string, unknown>);
      Object.values(value).forEach(walk);
    }
  };
  for (const entry of Object.values(objects)) {
    walk(entry.value ?? entry.stream?.dict);
  }
  return out;
}

Deno.test("the payment link annotation is printable (PDF/A: /F 4)", async () => {
  const linked = german_invoice();
  linked.payment = { ...linked.payment, link: "https://pay.example/i/0815" };
  const bytes = render_invoice_document(linked, { format: "factur-x" }).bytes;
  const links = all_dicts(await pdf_objects(bytes)).filter((dict) =>
    dict["/Subtype"] === "/Link"
  );
  assertEquals(links.length, 1);
  assertEquals(links[0]["/F"], 4);
  assert((await qpdf_check(bytes)).ok);
  // The plain PDF keeps jsPDF's annotation as it was.
  const plain_links = all_dicts(
    await pdf_objects(render_invoice_document(linked, { format: "pdf" }).bytes),
  ).filter((dict) => dict["/Subtype"] === "/Link");
  assertEquals(plain_links.length, 1);
  assertEquals(plain_links[0]["/F"], undefined);
});
