/**
 * The in-project e-invoice validator (`tests/einvoice_validator/`): the
 * official examples pass, broken documents fail with the rule that catches
 * them, Peppol documents get the Peppol rules, Factur-X PDFs are read, `deno task validate` reports and exits as
 * documented, and the committed compiled rules are what their XSLT gives.
 */
import {
  assert,
  assertEquals,
  assertMatch,
  assertStringIncludes,
} from "../assert.ts";
import {
  factur_x_xml,
  is_fatal,
  rule_sets_for,
  validate_einvoice,
  validate_einvoices,
  type ValidationResult,
} from "../einvoice_validator/mod.ts";
import {
  RULE_SETS,
  RULES_DIR,
  sef_path,
} from "../einvoice_validator/rule_sets.ts";
import {
  committed_sef,
  comparable_sef,
  compile_sef,
  compiler_specifier,
  patched_source,
  read_manifest,
  sha256_hex,
} from "../einvoice_validator/build_rules.ts";
import { german_invoice } from "../fixtures/einvoices.ts";
import {
  type DocumentFormat,
  invoice_xml,
  render_invoice_document,
} from "../../server/einvoice/mod.ts";

function example(name: string): string {
  return Deno.readTextFileSync(new URL(`examples/${name}`, RULES_DIR));
}

function peppol_example(name: string): string {
  return Deno.readTextFileSync(new URL(`peppol/${name}`, RULES_DIR));
}

/** "flag rules id" of every failed rule. */
function failed(result: ValidationResult): string[] {
  return result.failures.map((f) => `${f.flag} ${f.rules} ${f.id}`);
}

function fatal_ids(result: ValidationResult): string[] {
  return result.failures.filter(is_fatal).map((f) => f.id).sort();
}

/** Replaces exactly one occurrence, so a fixture change cannot void the test. */
function replace_once(xml: string, pattern: RegExp, by: string): string {
  const matches = xml.match(new RegExp(pattern, "g")) ?? [];
  assertEquals(matches.length, 1, `${pattern} in the document`);
  return xml.replace(pattern, by);
}

Deno.test("the official examples pass the rules of their syntax", async () => {
  const cii = [
    "CII_business_example_01.xml",
    "CII_example1.xml",
    "CII_example5.xml",
  ];
  const ubl = ["UBL_guide-example1.xml", "UBL_ubl-tc434-example1.xml"];
  const peppol = ["base-example.xml", "base-creditnote-correction.xml"];
  for (
    const [names, read, sets] of [
      [cii, example, "cii+facturx"],
      [ubl, example, "ubl"],
      [peppol, peppol_example, "ubl+peppol"],
    ] as const
  ) {
    const results = await validate_einvoices(names.map(read), sets);
    results.forEach((result, index) => {
      assertEquals(result.schema_errors, [], names[index]);
      assertEquals(fatal_ids(result), [], names[index]);
      assert(result.valid, names[index]);
    });
  }
});

Deno.test("broken documents are invalid, with the rule that catches them", async () => {
  const cii = example("CII_example1.xml");
  const ubl = example("UBL_guide-example1.xml");
  // Totals that do not add up: EN 16931 BR-CO-15 (total with VAT).
  const cii_total = await validate_einvoice(
    replace_once(cii, /(<ram:GrandTotalAmount>)[^<]*/, "$11.00"),
    "cii",
  );
  assert(!cii_total.valid);
  assertEquals(cii_total.schema_errors, []);
  // …and BR-CO-16 (amount due = total with VAT − paid + rounding).
  assertEquals(fatal_ids(cii_total), ["BR-CO-15", "BR-CO-16"]);
  const failure = cii_total.failures.find((f) => f.id === "BR-CO-15")!;
  assertEquals([failure.flag, failure.rules], ["fatal", "EN16931-CII"]);
  assertStringIncludes(failure.message, "Invoice total amount with VAT");
  assertMatch(failure.location, /^\/\*:CrossIndustryInvoice\[/);

  const ubl_total = await validate_einvoice(
    replace_once(
      ubl,
      /(<cbc:TaxInclusiveAmount currencyID="EUR">)[^<]*/,
      "$11.00",
    ),
    "ubl",
  );
  assertEquals(fatal_ids(ubl_total), ["BR-CO-15", "BR-CO-16"]);

  // A type code outside the code list: Factur-X looks it up in its code lists.
  const fx_type = await validate_einvoice(
    replace_once(cii, /(<ram:TypeCode>)380</, "$1999<"),
    "cii+facturx",
  );
  assert(
    fatal_ids(fx_type).includes("FX-SCH-A-000555"),
    failed(fx_type).join(),
  );
  assert(fatal_ids(fx_type).includes("BR-CL-01"), failed(fx_type).join());

  // An element the schema does not know: a schema error with its line.
  const schema = await validate_einvoice(
    replace_once(
      ubl,
      /(<cbc:ID>12115118<\/cbc:ID>)/,
      "$1<cbc:Bogus>1</cbc:Bogus>",
    ),
    "ubl",
  );
  assert(!schema.valid);
  assertEquals(
    schema.schema_errors.length,
    1,
    JSON.stringify(schema.schema_errors),
  );
  assertEquals(schema.schema_errors[0].schema, "UBL-Invoice-2.1.xsd");
  assertEquals(schema.schema_errors[0].line, 14);
  assertStringIncludes(schema.schema_errors[0].message, "Bogus");

  // Not XML at all.
  const broken = await validate_einvoice("<Invoice><cbc:ID>1</Invoice>", "ubl");
  assert(!broken.valid);
  assert(broken.schema_errors.length > 0);
});

Deno.test("XRechnung rules: BR-DE-15 is fatal; the IBAN check needs exact big integers", async () => {
  const xml = invoice_xml(german_invoice(), { format: "xrechnung-ubl" });
  const good = await validate_einvoice(xml, "ubl+xr-ubl");
  assertEquals(failed(good), []);
  assert(good.valid);
  const no_reference = await validate_einvoice(
    replace_once(xml, /<cbc:BuyerReference>[^<]*<\/cbc:BuyerReference>/, ""),
    "ubl+xr-ubl",
  );
  assertEquals(fatal_ids(no_reference), ["BR-DE-15"]);
  // BR-DE-19 takes the IBAN as a 24-digit number mod 97: a wrong check
  // digit is a warning, the right one none (SaxonJS's xs:integer would
  // round the number and warn about every IBAN).
  const wrong_iban = await validate_einvoice(
    xml.replaceAll("DE89370400440532013000", "DE88370400440532013000"),
    "ubl+xr-ubl",
  );
  assertEquals(failed(wrong_iban), ["warning XRechnung-UBL BR-DE-19"]);
  assert(wrong_iban.valid);
});

Deno.test("Peppol rules: our ubl output passes; a missing or e-mail endpoint is fatal", async () => {
  const xml = invoice_xml(german_invoice(), { format: "ubl" });
  assertEquals(rule_sets_for(xml), ["ubl", "peppol"]);
  const good = await validate_einvoice(xml, "ubl+peppol");
  assertEquals(failed(good), []);
  assert(good.valid);
  // BT-34 absent: Peppol requires the seller's electronic address.
  const no_endpoint = await validate_einvoice(
    replace_once(
      xml,
      /<cbc:EndpointID schemeID="9930">DE123456789<\/cbc:EndpointID>/,
      "",
    ),
    "ubl+peppol",
  );
  assert(!no_endpoint.valid);
  assertEquals(fatal_ids(no_endpoint), ["PEPPOL-EN16931-R020"]);
  const r020 = no_endpoint.failures[0];
  assertEquals([r020.flag, r020.rules], ["fatal", "PEPPOL-EN16931-UBL"]);
  assertStringIncludes(r020.message, "Seller electronic address");
  // EN 16931 allows an e-mail address (EAS code EM); Peppol's code list does not.
  const email_xml = replace_once(xml, /schemeID="9930"/, 'schemeID="EM"');
  const email = await validate_einvoice(email_xml, "ubl+peppol");
  assertEquals(fatal_ids(email), ["PEPPOL-EN16931-CL008"]);
  assert((await validate_einvoice(email_xml, "ubl")).valid);
  // DE-R-019, Peppol's copy of XRechnung's IBAN check, needs exact integers
  // as BR-DE-19 does: a wrong check digit warns, the right one does not.
  const wrong_iban = await validate_einvoice(
    xml.replaceAll("DE89370400440532013000", "DE88370400440532013000"),
    "ubl+peppol",
  );
  assertEquals(failed(wrong_iban), ["warning PEPPOL-EN16931-UBL DE-R-019"]);
});

Deno.test("a Factur-X PDF is validated by the XML inside it", async () => {
  const invoice = german_invoice();
  const pdf = render_invoice_document(invoice, { format: "factur-x" }).bytes;
  const xml = invoice_xml(invoice, { format: "factur-x" });
  assertEquals(await factur_x_xml(pdf), xml);
  assertEquals(rule_sets_for(xml, true), ["cii", "facturx"]);
  const result = await validate_einvoice(pdf, "cii+facturx");
  assertEquals(result.schema_errors, []);
  assertEquals(fatal_ids(result), []);
  // A plain PDF has no invoice inside.
  const plain = render_invoice_document(invoice, { format: "pdf" }).bytes;
  let refused = "";
  await factur_x_xml(plain).catch((error) => refused = error.message);
  assertStringIncludes(refused, "not a Factur-X PDF");
});

Deno.test("rule sets follow the document's syntax and specification identifier", () => {
  const invoice = german_invoice();
  const expected: [DocumentFormat, string[]][] = [
    ["factur-x", ["cii", "facturx"]],
    ["cii", ["cii", "facturx"]],
    ["xrechnung-cii", ["cii", "xr-cii"]],
    ["ubl", ["ubl", "peppol"]],
    ["xrechnung-ubl", ["ubl", "xr-ubl"]],
  ];
  for (const [format, sets] of expected) {
    assertEquals(rule_sets_for(invoice_xml(invoice, { format })), sets, format);
  }
  assertEquals(rule_sets_for("<html><body/></html>"), undefined);
  // A Peppol extension (a national CIUS) is still Peppol; other UBL is not.
  const ubl = invoice_xml(invoice, { format: "ubl" });
  const id = "poacc:billing:3.0</cbc:CustomizationID>";
  for (
    const [suffix, sets] of [["#conformant#urn:x", ["ubl", "peppol"]], [".1", [
      "ubl",
    ]]] as const
  ) {
    assertEquals(
      rule_sets_for(ubl.replace(id, id.replace("3.0", `3.0${suffix}`))),
      sets,
    );
  }
});

/** Runs `deno task validate` as a user would, from another folder. */
async function validate_task(args: string[], cwd: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "task",
      "--quiet",
      "--config",
      new URL("../../deno.json", import.meta.url).pathname,
      "validate",
      ...args,
    ],
    cwd,
    // `deno task` keeps an INIT_CWD it inherits (the suite runs under
    // `deno task test`), and the task reads its files from INIT_CWD.
    env: { INIT_CWD: cwd },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    lines: new TextDecoder().decode(out.stdout).trim().split("\n"),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

Deno.test("deno task validate: one line per failed rule, a summary, exit 1 only when invalid", async () => {
  const dir = await Deno.makeTempDir({ prefix: "validate-task-" });
  try {
    const invoice = german_invoice();
    await Deno.writeTextFile(
      `${dir}/good.xml`,
      invoice_xml(invoice, { format: "xrechnung-cii" }),
    );
    await Deno.writeFile(
      `${dir}/good.pdf`,
      render_invoice_document(invoice, { format: "factur-x" }).bytes,
    );
    const bad = replace_once(
      replace_once(
        invoice_xml(invoice, { format: "ubl" }),
        /(<cbc:TaxInclusiveAmount currencyID="EUR">)[^<]*/,
        "$11.00",
      ),
      /<cbc:EndpointID schemeID="9930">[^<]*<\/cbc:EndpointID>/,
      "",
    );
    await Deno.writeTextFile(`${dir}/bad.xml`, bad);

    const good = await validate_task(["good.xml", "good.pdf"], dir);
    assertEquals(good.code, 0, `${good.lines.join("\n")}\n${good.stderr}`);
    assertEquals(good.lines.sort(), [
      "cii+facturx: 1 files, 0 invalid; 0 fatal, 0 warnings",
      "cii+xr-cii: 1 files, 0 invalid; 0 fatal, 0 warnings",
    ]);

    const mixed = await validate_task(["good.xml", "bad.xml"], dir);
    assertEquals(mixed.code, 1, `${mixed.lines.join("\n")}\n${mixed.stderr}`);
    assertEquals(
      mixed.lines.filter((line) => line.startsWith("fatal")).map((line) =>
        line.replace(/\] .*/, "]")
      ),
      [
        "fatal bad.xml: EN16931-UBL: [BR-CO-15]",
        "fatal bad.xml: EN16931-UBL: [BR-CO-16]",
        "fatal bad.xml: PEPPOL-EN16931-UBL: [PEPPOL-EN16931-R020]",
      ],
    );
    assert(
      mixed.lines.includes(
        "ubl+peppol: 1 files, 1 invalid; 3 fatal, 0 warnings",
      ),
    );

    const forced = await validate_task(["--rules", "cii", "good.pdf"], dir);
    assertEquals(forced.lines, [
      "cii: 1 files, 0 invalid; 0 fatal, 0 warnings",
    ]);

    const missing = await validate_task(["nothing.xml"], dir);
    assertEquals(missing.code, 1);
    assertStringIncludes(missing.lines[0], "error nothing.xml:");
    assertEquals((await validate_task([], dir)).code, 2);
    assertEquals(
      (await validate_task(["--rules", "ebinterface", "good.xml"], dir)).code,
      2,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the committed compiled rules are those of the committed XSLT", async () => {
  const manifest = read_manifest();
  assertEquals(manifest.compiler, compiler_specifier());
  assertEquals(
    Object.keys(manifest.stylesheets).sort(),
    RULE_SETS.map((set) => set.xslt).sort(),
  );
  for (const set of RULE_SETS) {
    const entry = manifest.stylesheets[set.xslt];
    assertEquals(entry.sef, sef_path(set));
    assertEquals(
      entry.source_sha256,
      await sha256_hex(patched_source(set)),
      set.xslt,
    );
    assertEquals(
      entry.sef_sha256,
      await sha256_hex(await committed_sef(set)),
      set.xslt,
    );
  }
});

Deno.test("compiling XRechnung-CII's XSLT again gives the committed SEF", async () => {
  // The smallest stylesheet (10–20 s); `deno task einvoice-rules --check` does all.
  const set = RULE_SETS.find((set) => set.name === "xr-cii")!;
  assertEquals(
    comparable_sef(await compile_sef(set)),
    comparable_sef(await committed_sef(set)),
  );
});

Deno.test("the service's module graph loads no part of the validator", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "info",
      "--json",
      new URL("../../main.ts", import.meta.url).pathname,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
  const modules: { specifier: string }[] =
    JSON.parse(new TextDecoder().decode(out.stdout)).modules;
  assert(modules.some((m) => m.specifier.includes("jspdf")));
  const validator = modules.map((m) => m.specifier).filter((specifier) =>
    /saxon-js|libxml2-wasm|xslt3|einvoice_validator|einvoice_rules/.test(
      specifier,
    )
  );
  assertEquals(validator, []);
});
