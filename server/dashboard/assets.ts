/**
 * The dashboard's static files (styles, scripts, fonts, images), read once at
 * start-up and served from `/assets/`.
 *
 * Caching: every reference to `/assets/<file>` inside our own HTML, CSS and
 * JS is rewritten to `/assets/<file>?v=<content hash>`, and a request naming
 * the current hash is cached for a year as immutable. A changed file gets a
 * new hash, and so does everything that refers to it, so a deploy is never
 * half-cached. Unversioned requests revalidate with the ETag.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { ApiError } from "../../contract/mod.ts";

/** One static file, ready to serve. */
export interface Asset {
  body: Uint8Array;
  content_type: string;
  /** Short content hash (after rewriting references): the `?v=` value and ETag. */
  version: string;
}

/** Content types by file extension; other files are not served. */
const CONTENT_TYPES: Record<string, string> = {
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  svg: "image/svg+xml",
  woff2: "font/woff2",
  txt: "text/plain; charset=utf-8",
};

const TEXT_TYPES = new Set(["css", "js"]);
const ASSET_REFERENCE = /\/assets\/([A-Za-z0-9_./-]+)/g;

function extension(name: string): string {
  return name.slice(name.lastIndexOf(".") + 1).toLowerCase();
}

async function list_files(root: URL, prefix = ""): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(new URL(prefix, root))) {
    const name = `${prefix}${entry.name}`;
    if (entry.isDirectory) names.push(...await list_files(root, `${name}/`));
    else if (entry.isFile && CONTENT_TYPES[extension(name)]) names.push(name);
  }
  return names;
}

function rewrite(
  text: string,
  lookup: (name: string) => Asset | undefined,
): string {
  return text.replace(ASSET_REFERENCE, (whole, name: string) => {
    const asset = lookup(name);
    return asset ? `/assets/${name}?v=${asset.version}` : whole;
  });
}

function short_hash(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("base64url").slice(0, 16);
}

/** The static files of a folder, with references between them versioned. */
export class AssetStore {
  readonly #assets: Map<string, Asset>;

  private constructor(assets: Map<string, Asset>) {
    this.#assets = assets;
  }

  /** Reads every servable file under `root` (a folder URL ending in `/`). */
  static async load(root: URL): Promise<AssetStore> {
    const raw = new Map<string, Uint8Array>();
    for (const name of await list_files(root)) {
      raw.set(name, await Deno.readFile(new URL(name, root)));
    }
    const assets = new Map<string, Asset>();
    const resolving = new Set<string>();
    const resolve = (name: string): Asset => {
      const done = assets.get(name);
      if (done) return done;
      if (resolving.has(name)) {
        throw new Error(`assets refer to each other in a cycle at ${name}`);
      }
      resolving.add(name);
      const kind = extension(name);
      let body = raw.get(name)!;
      if (TEXT_TYPES.has(kind)) {
        const text = new TextDecoder().decode(body);
        body = new TextEncoder().encode(
          rewrite(
            text,
            (reference) => raw.has(reference) ? resolve(reference) : undefined,
          ),
        );
      }
      const asset = {
        body,
        content_type: CONTENT_TYPES[kind],
        version: short_hash(body),
      };
      assets.set(name, asset);
      resolving.delete(name);
      return asset;
    };
    for (const name of raw.keys()) resolve(name);
    return new AssetStore(assets);
  }

  /** Rewrites `/assets/…` references in a page to their versioned URLs. */
  version_references(text: string): string {
    return rewrite(text, (name) => this.#assets.get(name));
  }

  /** Answers `GET /assets/<name>`; throws a 404 `ApiError` for an unknown file. */
  respond(request: Request, url: URL): Response {
    const name = url.pathname.slice("/assets/".length);
    const asset = this.#assets.get(name);
    if (!asset) throw new ApiError("not_found", "No such file");
    const etag = `"${asset.version}"`;
    const headers = new Headers({
      "Content-Type": asset.content_type,
      "ETag": etag,
      "Cache-Control": url.searchParams.get("v") === asset.version
        ? "public, max-age=31536000, immutable"
        : "no-cache",
    });
    if (request.headers.get("if-none-match") === etag) {
      return new Response(null, { status: 304, headers });
    }
    headers.set("Content-Length", String(asset.body.length));
    return new Response(
      request.method === "HEAD" ? null : asset.body as Uint8Array<ArrayBuffer>,
      { headers },
    );
  }
}
