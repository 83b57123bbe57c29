/**
 * Runs the e-invoice validation kit (`../shared/einvoice/validate`, or the
 * folder in env var EINVOICE_KIT) over many XML files at once: one Java
 * start per rule set, so a corpus of hundreds of files costs seconds.
 *
 * @module
 */

const ROOT = new URL("../../", import.meta.url);

/** The kit's folder, or undefined when it is not there. */
export function einvoice_kit(): string | undefined {
  const dir = Deno.env.get("EINVOICE_KIT") ??
    new URL("../shared/einvoice", ROOT).pathname;
  try {
    Deno.statSync(`${dir}/validate`);
    return dir;
  } catch {
    return undefined;
  }
}

/** Why kit tests are ignored, printed once per test file; undefined when present. */
export function kit_missing_reason(): string | undefined {
  if (einvoice_kit() !== undefined) return undefined;
  const reason =
    "e-invoice kit not found at ../shared/einvoice (set EINVOICE_KIT): validator tests ignored";
  console.warn(reason);
  return reason;
}

/** One validation run's outcome. */
export interface ValidationRun {
  /** Exit status 0: no schema error and no fatal rule in any file. */
  ok: boolean;
  /** Fatal rule and schema failures counted by the kit. */
  fatal: number;
  /** Files the kit found invalid. */
  invalid_files: number;
  /** Everything the kit printed. */
  output: string;
}

/**
 * Validates `files` (name → XML text) against `ruleset` (e.g. "cii+facturx")
 * in one call of the kit.
 */
export async function validate_xml(
  ruleset: string,
  files: Map<string, string>,
): Promise<ValidationRun> {
  const kit = einvoice_kit();
  if (kit === undefined) throw new Error("e-invoice kit not found");
  const dir = await Deno.makeTempDir({ prefix: "einvoice-" });
  try {
    const paths: string[] = [];
    for (const [name, xml] of files) {
      const path = `${dir}/${name.replace(/[^A-Za-z0-9._-]/g, "_")}.xml`;
      await Deno.writeTextFile(path, xml);
      paths.push(path);
    }
    const out = await new Deno.Command(`${kit}/validate`, {
      args: [ruleset, ...paths],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const output = new TextDecoder().decode(out.stdout) +
      new TextDecoder().decode(out.stderr);
    const summary = /(\d+) invalid; (\d+) fatal/.exec(output);
    return {
      ok: out.code === 0,
      fatal: summary ? Number(summary[2]) : -1,
      invalid_files: summary ? Number(summary[1]) : -1,
      output: output.replaceAll(`${dir}/`, ""),
    };
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
