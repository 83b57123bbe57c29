/**
 * The migrated database every in-memory test PGlite starts from: `initdb`
 * and all migrations cost about 3 s of CPU, loading a dump of their result
 * about 0.5 s. Test files run in isolates of their own (and in parallel), so
 * the dump is kept on disk in `tests/artifacts/cache/`, named by a hash of the
 * migrations and the PGlite version: a changed migration makes a new one.
 *
 * @module
 */
import { MIGRATIONS_FOLDER } from "../../db/migrations_folder.ts";
import { start_pglite } from "../../db/pglite_start.ts";

const CACHE_DIR = new URL("../artifacts/cache/", import.meta.url);
const DENO_JSON = new URL("../../deno.json", import.meta.url);

let template: Promise<Blob> | undefined;

/** A `dumpDataDir` of a freshly migrated in-memory PGlite. */
export function migrated_pglite_template(): Promise<Blob> {
  template ??= cached_template();
  return template;
}

async function cached_template(): Promise<Blob> {
  const file = new URL(`pglite-${await template_key()}.tar`, CACHE_DIR);
  try {
    return new Blob([await Deno.readFile(file)]);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const dump = await fresh_dump();
  // Written aside and renamed, so a parallel test file never reads half.
  await Deno.mkdir(CACHE_DIR, { recursive: true });
  const partial = new URL(`${file.pathname}.${crypto.randomUUID()}`, file);
  await Deno.writeFile(partial, new Uint8Array(await dump.arrayBuffer()));
  await Deno.rename(partial, file);
  return dump;
}

async function fresh_dump(): Promise<Blob> {
  const client = await start_pglite("memory://");
  try {
    return await client.dumpDataDir("none");
  } finally {
    await client.close();
  }
}

/** SHA-256 over the migration files and the pinned PGlite package. */
async function template_key(): Promise<string> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(MIGRATIONS_FOLDER)) {
    if (entry.isFile) names.push(entry.name);
  }
  const parts = [
    JSON.parse(await Deno.readTextFile(DENO_JSON)).imports[
      "@electric-sql/pglite"
    ],
  ];
  for (const name of names.sort()) {
    parts.push(name, await Deno.readTextFile(`${MIGRATIONS_FOLDER}/${name}`));
  }
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(parts.join("\0")),
  );
  return Array.from(new Uint8Array(digest).slice(0, 12))
    .map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
