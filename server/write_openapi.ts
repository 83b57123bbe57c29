/**
 * Writes `openapi/openapi.json` from the router (`deno task openapi`).
 */
import { build_openapi_document } from "./openapi.ts";

/** Serialises the document exactly as committed. */
export function openapi_json(): string {
  return JSON.stringify(build_openapi_document(), null, 2) + "\n";
}

if (import.meta.main) {
  const target = new URL("../openapi/openapi.json", import.meta.url);
  await Deno.writeTextFile(target, openapi_json());
  console.log(`wrote ${target.pathname}`);
}
