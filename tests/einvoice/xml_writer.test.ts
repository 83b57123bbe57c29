/**
 * The XML writer: every text and attribute value is escaped, characters XML
 * forbids are dropped, and what it writes parses back (xmllint) to exactly
 * the text given.
 */
import { assertEquals, assertThrows } from "../assert.ts";
import {
  escape_xml_attribute,
  escape_xml_text,
  XmlWriter,
} from "../../server/einvoice/mod.ts";

Deno.test("escape_xml_text escapes markup and keeps other text", () => {
  assertEquals(
    escape_xml_text("plain text, ÄÖÜ ß € 😀"),
    "plain text, ÄÖÜ ß € 😀",
  );
  assertEquals(
    escape_xml_text("Tom & Jerry <b>\"x\"</b> ]]> 'y'"),
    "Tom &amp; Jerry &lt;b&gt;\"x\"&lt;/b&gt; ]]&gt; 'y'",
  );
  assertEquals(escape_xml_text("&amp;"), "&amp;amp;");
  assertEquals(escape_xml_text("a\r\nb\tc\nd"), "a&#13;\nb\tc\nd");
});

Deno.test("escape_xml_text drops characters XML 1.0 forbids", () => {
  assertEquals(escape_xml_text("a\u0000b\u0001c\u001fd\u000be"), "abcde");
  assertEquals(escape_xml_text("x\ufffey\uffff"), "xy");
  // Lone surrogates go; a surrogate pair (one character) stays.
  assertEquals(escape_xml_text("a\ud800b\udc00c"), "abc");
  assertEquals(escape_xml_text("\ud83d\ude00"), "😀");
});

Deno.test("escape_xml_attribute also escapes quotes and whitespace", () => {
  assertEquals(
    escape_xml_attribute('say "hi" & <go>\n\t\r'),
    "say &quot;hi&quot; &amp; &lt;go&gt;&#10;&#9;&#13;",
  );
  assertEquals(escape_xml_attribute("it's"), "it's");
});

Deno.test("XmlWriter nests elements and refuses unbalanced or bad names", () => {
  const xml = new XmlWriter();
  xml.open("a:root", { "xmlns:a": "urn:x", skip: undefined })
    .leaf("a:b", "1 < 2", { id: '"q"' })
    .optional("a:c", undefined).optional("a:d", "  ").optional("a:e", "e")
    .close();
  assertEquals(
    xml.finish(),
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
      '<a:root xmlns:a="urn:x"><a:b id="&quot;q&quot;">1 &lt; 2</a:b><a:e>e</a:e></a:root>',
  );
  assertThrows(() => new XmlWriter().open("a").finish(), Error, "unclosed");
  assertThrows(() => new XmlWriter().close(), Error, "no open element");
  assertThrows(
    () => new XmlWriter().leaf("a b", "x"),
    Error,
    "not an XML name",
  );
  assertThrows(
    () => new XmlWriter().leaf("a", "x", { "b<": "y" }),
    Error,
    "not an XML name",
  );
});

Deno.test("hostile text round-trips through a real XML parser", async () => {
  const nasty = [
    "<script>alert(1)</script>",
    "]]><![CDATA[x]]>",
    "&lt;&#x41;&unknown;",
    "\"'\"'",
    '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>&e;',
    "Zażółć 😀 \u202e RTL \u00a0 nbsp",
    "line 1\nline 2\ttab",
  ];
  const xml = new XmlWriter();
  xml.open("root");
  nasty.forEach((text, i) => xml.leaf("t", text, { n: String(i), v: text }));
  xml.close();
  const path = await Deno.makeTempFile({ suffix: ".xml" });
  try {
    await Deno.writeTextFile(path, xml.finish());
    // xmllint (Debian libxml2-utils) parses and re-serialises the texts.
    const out = await new Deno.Command("xmllint", {
      args: ["--xpath", "//t", path],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assertEquals(new TextDecoder().decode(out.stderr), "");
    assertEquals(out.code, 0);
    const texts = [
      ...new TextDecoder().decode(out.stdout).matchAll(
        /<t n="(\d+)" v="[^"]*">([^<]*)<\/t>/g,
      ),
    ].map((m) =>
      m[2].replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll(
        "&amp;",
        "&",
      )
    );
    assertEquals(texts, nasty);
  } finally {
    await Deno.remove(path);
  }
});
