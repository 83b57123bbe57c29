/**
 * The API reference at `/docs`: Swagger UI (npm `swagger-ui-dist`, served
 * from the installed package, no CDN) rendering `/openapi.json`, with a
 * Content-Security-Policy that allows only our own scripts and styles.
 *
 * @module
 */
import swagger_ui_path from "swagger-ui-dist/absolute-path.js";

/** The reference page's CSP: no inline script or style, nothing off-site. */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
};

/** `/docs/<name>` → where the file lives. */
function sources(): Record<string, URL | string> {
  const vendor = String(swagger_ui_path());
  return {
    "/docs": new URL("./page.html", import.meta.url),
    "/docs/docs.js": new URL("./docs.js", import.meta.url),
    "/docs/docs.css": new URL("./docs.css", import.meta.url),
    "/docs/swagger-ui-bundle.js": `${vendor}/swagger-ui-bundle.js`,
    "/docs/swagger-ui.css": `${vendor}/swagger-ui.css`,
  };
}

/** Serves `/docs` and its files; undefined for other paths. */
export function create_docs(): (
  request: Request,
  url: URL,
) => Promise<Response | undefined> {
  const files = sources();
  // Read on first use: most processes never serve the 1.7 MB bundle.
  const cache = new Map<string, Promise<Uint8Array>>();
  return async function serve_docs(request, url) {
    const path = url.pathname === "/docs/" ? "/docs" : url.pathname;
    const source = files[path];
    if (!source) return undefined;
    if (request.method !== "GET" && request.method !== "HEAD") {
      return new Response(
        JSON.stringify({
          error: {
            code: "method_not_allowed",
            message: "Use GET for the API reference",
            details: [],
          },
        }),
        {
          status: 405,
          headers: {
            Allow: "GET, HEAD",
            "Content-Type": "application/json; charset=utf-8",
          },
        },
      );
    }
    let bytes = cache.get(path);
    if (!bytes) {
      bytes = Deno.readFile(source);
      cache.set(path, bytes);
      bytes.catch(() => cache.delete(path));
    }
    const extension = path === "/docs"
      ? ".html"
      : path.slice(path.lastIndexOf("."));
    const body = await bytes;
    return new Response(
      request.method === "HEAD" ? null : body as Uint8Array<ArrayBuffer>,
      {
        headers: {
          "Content-Type": TYPES[extension],
          "Content-Security-Policy": DOCS_CSP,
          // The page is tiny; the files change only with a deploy.
          "Cache-Control": path === "/docs"
            ? "no-cache"
            : "public, max-age=3600",
        },
      },
    );
  };
}
