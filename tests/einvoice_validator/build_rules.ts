/**
 * Compiles the official Schematron XSLTs to SaxonJS SEF files (`xslt3
 * -export … -nogo -relocate:on`, the compiler pinned in deno.json) and writes
 * them gzipped beside their XSLT, with `compiled.json` recording the hashes
 * of source and result. Compiling takes 10–60 s and ~600 MB per stylesheet,
 * so the SEFs are committed and a validation run only loads them.
 *
 * One edit is made on the way (see {@link PATCHES}); the committed XSLTs stay
 * as published.
 *
 *   deno task einvoice-rules            rebuild every SEF whose source changed
 *   deno task einvoice-rules --check    recompile all; exit 1 when a committed
 *                                       SEF differs from what its XSLT gives
 *
 * @module
 */
import { RULE_SETS, RULES_DIR, type RuleSet, sef_path } from "./rule_sets.ts";

/** What `compiled.json` says about one stylesheet. */
export interface CompiledEntry {
  /** The gzipped SEF, relative to the rules folder. */
  readonly sef: string;
  /** sha256 (hex) of the XSLT text compiled: the XSLT with its patches. */
  readonly source_sha256: string;
  /** sha256 (hex) of the SEF's JSON text (uncompressed). */
  readonly sef_sha256: string;
}

/** `compiled.json`: the compiler and one entry per XSLT. */
export interface CompiledManifest {
  readonly compiler: string;
  readonly stylesheets: Record<string, CompiledEntry>;
}

/** Where the manifest lives. */
export const MANIFEST_URL = new URL("compiled.json", RULES_DIR);

/** The compiler's npm specifier, as deno.json pins it. */
export function compiler_specifier(): string {
  const config = JSON.parse(
    Deno.readTextFileSync(new URL("../../deno.json", import.meta.url)),
  );
  return config.imports.xslt3;
}

/** sha256 of bytes or text, hex. */
export async function sha256_hex(data: Uint8Array | string): Promise<string> {
  const bytes = typeof data === "string"
    ? new TextEncoder().encode(data)
    : data;
  const digest = await crypto.subtle.digest(
    "SHA-256",
    bytes as Uint8Array<ArrayBuffer>,
  );
  return [...new Uint8Array(digest)]
    .map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** gzip of text. */
export async function gzip_text(text: string): Promise<Uint8Array> {
  const stream = new Blob([text]).stream()
    .pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Text of gzipped bytes. */
export async function gunzip_text(bytes: Uint8Array): Promise<string> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream()
    .pipeThrough(new DecompressionStream("gzip"));
  return await new Response(stream).text();
}

/** A textual edit of an XSLT before it is compiled. */
export interface SourcePatch {
  readonly xslt: string;
  readonly find: string;
  readonly replace: string;
  /** How often `find` occurs; the build fails when the source differs. */
  readonly count: number;
}

/**
 * SaxonJS represents xs:integer as a JavaScript number, so integers beyond
 * 2^53 lose digits; xs:decimal is exact. XRechnung's IBAN check BR-DE-19
 * takes a 20–40 digit number mod 97 as xs:integer and so fails every valid
 * IBAN under SaxonJS; its twin BR-DE-20 in the same file already uses
 * xs:decimal, which gives the same result in Saxon-HE. BR-DE-19 gets the same,
 * and so does Peppol's copy of it, DE-R-019 (its twin DE-R-020 is xs:decimal
 * too).
 */
export const PATCHES: readonly SourcePatch[] = [
  "xrechnung/XRechnung-CII-validation.xslt",
  "xrechnung/XRechnung-UBL-validation.xslt",
  "peppol/PEPPOL-EN16931-UBL.xslt",
].map((xslt) => ({
  xslt,
  find: "xs:integer(string-join(for $cp in string-to-codepoints(",
  replace: "xs:decimal(string-join(for $cp in string-to-codepoints(",
  count: 2,
}));

/** The XSLT text the compiler gets: the committed one with its patches. */
export function patched_source(rule_set: RuleSet): string {
  let text = Deno.readTextFileSync(new URL(rule_set.xslt, RULES_DIR));
  for (const patch of PATCHES.filter((p) => p.xslt === rule_set.xslt)) {
    const found = text.split(patch.find).length - 1;
    if (found !== patch.count) {
      throw new Error(
        `${patch.xslt}: "${patch.find}" occurs ${found} times, not ${patch.count}: review the patch`,
      );
    }
    text = text.replaceAll(patch.find, patch.replace);
  }
  return text;
}

/**
 * The SEF without what changes from build to build: the build time, the
 * checksum over it, and the temporary folder it was compiled in.
 */
export function comparable_sef(sef_text: string): string {
  const sef = JSON.parse(
    sef_text.replace(/file:\/\/[^"]*\/einvoice-sef-[^"/]*\//g, ""),
  );
  delete sef.buildDateTime;
  delete sef["\u03a3"];
  return JSON.stringify(sef);
}

/** Compiles one rule set's XSLT with the pinned xslt3; returns the SEF text. */
export async function compile_sef(rule_set: RuleSet): Promise<string> {
  const out_dir = await Deno.makeTempDir({ prefix: "einvoice-sef-" });
  try {
    // Compiled from a copy, so the SEF names no folder of this machine.
    const source = `${out_dir}/${rule_set.xslt.split("/").pop()}`;
    await Deno.writeTextFile(source, patched_source(rule_set));
    const out = `${out_dir}/out.sef.json`;
    const result = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read",
        `--allow-write=${out_dir}`,
        "--allow-env",
        "--allow-sys",
        compiler_specifier(),
        `-xsl:${source}`,
        `-export:${out}`,
        "-nogo",
        "-relocate:on",
      ],
      cwd: new URL("../../", import.meta.url).pathname,
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (result.code !== 0) {
      throw new Error(
        `xslt3 failed on ${rule_set.xslt}: ${
          new TextDecoder().decode(result.stderr)
        }`,
      );
    }
    return await Deno.readTextFile(out);
  } finally {
    await Deno.remove(out_dir, { recursive: true });
  }
}

/** The committed manifest, or an empty one. */
export function read_manifest(): CompiledManifest {
  try {
    return JSON.parse(Deno.readTextFileSync(MANIFEST_URL));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    return { compiler: compiler_specifier(), stylesheets: {} };
  }
}

/** The committed SEF text of a rule set. */
export async function committed_sef(rule_set: RuleSet): Promise<string> {
  return await gunzip_text(
    await Deno.readFile(new URL(sef_path(rule_set), RULES_DIR)),
  );
}

async function rebuild(check: boolean): Promise<number> {
  const manifest = read_manifest();
  const compiler = compiler_specifier();
  const stylesheets: Record<string, CompiledEntry> = {};
  let differing = 0;
  for (const set of RULE_SETS) {
    const source_sha256 = await sha256_hex(patched_source(set));
    const entry = manifest.stylesheets[set.xslt];
    const current = entry?.source_sha256 === source_sha256 &&
      manifest.compiler === compiler;
    if (current && !check) {
      stylesheets[set.xslt] = entry;
      console.log(`${set.xslt}: up to date`);
      continue;
    }
    const started = performance.now();
    const sef = await compile_sef(set);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (check) {
      const same = current &&
        comparable_sef(await committed_sef(set)) === comparable_sef(sef);
      console.log(
        `${set.xslt}: ${same ? "matches" : "DIFFERS"} (${seconds} s)`,
      );
      if (!same) differing++;
      continue;
    }
    await Deno.writeFile(
      new URL(sef_path(set), RULES_DIR),
      await gzip_text(sef),
    );
    stylesheets[set.xslt] = {
      sef: sef_path(set),
      source_sha256,
      sef_sha256: await sha256_hex(sef),
    };
    console.log(`${set.xslt}: compiled in ${seconds} s`);
  }
  if (!check) {
    await Deno.writeTextFile(
      MANIFEST_URL,
      JSON.stringify({ compiler, stylesheets }, null, 2) + "\n",
    );
  }
  return differing === 0 ? 0 : 1;
}

if (import.meta.main) {
  Deno.exit(await rebuild(Deno.args.includes("--check")));
}
