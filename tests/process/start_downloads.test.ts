/**
 * What `deno task start` downloads: only the npm packages the serving module
 * graphs import (`main.ts`, its workers, the admin CLI) and what they depend
 * on, never the test, bench, font-building or browser packages of
 * `deno.lock`, nor what serving packages name but never load (TypeScript,
 * jsPDF's HTML and SVG helpers). The start task runs on a Deno cache that holds exactly those
 * packages, with every download sent to a loopback proxy that refuses it, and
 * serves: a PDF in scripts that need shaping (the render worker) and the API
 * reference (Swagger UI's files).
 */
import { assert, assertEquals } from "../assert.ts";
import {
  admin_request,
  CHECKOUT_DIR,
  listening_url,
} from "../helpers/service_process.ts";
import { full_invoice } from "../fixtures/invoices.ts";
import {
  type Lockfile,
  serving_packages,
  START_LOCK_PATH,
  start_lock_text,
} from "../../server/start_lock.ts";

/** What the service needs of the checkout (no tests, no node_modules). */
const NOT_SERVED = new Set([".git", "node_modules", "data", "tests"]);

const ADMIN_TOKEN = "start-downloads-admin-token";

/** The npm registry the lockfile's packages come from. */
const REGISTRY = "https://registry.npmjs.org/";

/** This process's Deno cache of npm packages. */
async function npm_cache_dir(): Promise<string> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
  }).output();
  return JSON.parse(new TextDecoder().decode(output.stdout)).npmCache;
}

async function copy(sources: string[], target: string): Promise<void> {
  const output = await new Deno.Command("cp", {
    args: ["-a", ...sources, target],
    stderr: "piped",
  }).output();
  assert(output.success, new TextDecoder().decode(output.stderr));
}

/**
 * A Deno cache holding `packages` (lockfile ids) from this process's cache,
 * each with the registry document cached with it, and nothing else.
 */
async function cache_with(packages: Set<string>, deno_dir: string) {
  const from = `${await npm_cache_dir()}/registry.npmjs.org`;
  const to = `${deno_dir}/npm/registry.npmjs.org`;
  for (const id of packages) {
    const at = id.indexOf("@", 1);
    const name = id.slice(0, at);
    const version = id.slice(at + 1).split("_")[0];
    const source = `${from}/${name}/${version}`;
    // Packages of other platforms (optional dependencies) are not cached.
    if (!await Deno.stat(source).catch(() => null)) continue;
    const document = `${from}/${name}/registry.json`;
    const has_document = await Deno.stat(document).then(
      () => true,
      () => false,
    );
    await Deno.mkdir(`${to}/${name}`, { recursive: true });
    await copy(has_document ? [source, document] : [source], `${to}/${name}/`);
  }
}

/**
 * An HTTP proxy on loopback that refuses every request and records the
 * request line of each (`CONNECT registry.npmjs.org:443 HTTP/1.1`).
 */
function refusing_proxy() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const requests: string[] = [];
  // Each connection is answered on its own, so that one that never sends
  // its request cannot hold back the others' refusals.
  const refuse = async (connection: Deno.Conn) => {
    const buffer = new Uint8Array(4096);
    const timer = setTimeout(() => connection.close(), 5_000);
    const read = await connection.read(buffer).catch(() => null);
    clearTimeout(timer);
    const text = new TextDecoder().decode(buffer.subarray(0, read ?? 0));
    requests.push(text.split("\r\n")[0] || "(no request line)");
    await connection.write(
      new TextEncoder().encode(
        "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
      ),
    ).catch(() => {});
    try {
      connection.close();
    } catch {
      // Closed by the timer.
    }
  };
  const open = new Set<Promise<void>>();
  const served = (async () => {
    for await (const connection of listener) {
      const refusal = refuse(connection).catch(() => {});
      open.add(refusal);
      refusal.then(() => open.delete(refusal));
    }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    requests,
    async close() {
      listener.close();
      await served;
      await Promise.all(open);
    },
  };
}

Deno.test("start downloads: server/start.lock is deno.lock narrowed to the packages serving imports", async () => {
  const committed = await Deno.readTextFile(
    `${CHECKOUT_DIR}${START_LOCK_PATH}`,
  ).catch(() => "");
  assertEquals(
    committed,
    await start_lock_text(),
    `${START_LOCK_PATH} is not what \`deno task start:lock\` writes`,
  );
});

Deno.test("start downloads: deno task start serves from a cache of only the packages serving imports", async () => {
  const root = await Deno.makeTempDir({ prefix: "invoice-start-downloads-" });
  const proxy = refusing_proxy();
  try {
    const checkout = `${root}/checkout`;
    await Deno.mkdir(checkout);
    const served = [];
    for await (const entry of Deno.readDir(CHECKOUT_DIR)) {
      if (!NOT_SERVED.has(entry.name)) {
        served.push(`${CHECKOUT_DIR}${entry.name}`);
      }
    }
    await copy(served, checkout);
    const lock = JSON.parse(
      await Deno.readTextFile(`${CHECKOUT_DIR}deno.lock`),
    ) as Lockfile;
    const packages = await serving_packages(lock);
    assert(packages.size < Object.keys(lock.npm ?? {}).length);
    const names = [...packages].map((id) => id.slice(0, id.indexOf("@", 1)));
    for (const unused of ["typescript", "html2canvas", "canvg", "core-js"]) {
      assert(!names.includes(unused), `${unused} is not needed for serving`);
    }
    await cache_with(packages, `${root}/deno_dir`);

    const child = new Deno.Command(Deno.execPath(), {
      args: ["task", "start"],
      cwd: checkout,
      clearEnv: true,
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: root,
        DENO_DIR: `${root}/deno_dir`,
        DENO_NO_UPDATE_CHECK: "1",
        NPM_CONFIG_REGISTRY: REGISTRY,
        HTTPS_PROXY: proxy.url,
        HTTP_PROXY: proxy.url,
        NO_PROXY: "127.0.0.1,localhost",
        PORT: "0",
        HOST: "127.0.0.1",
        DATA_DIR: `${root}/data`,
        ADMIN_TOKEN,
      },
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    try {
      // The first start on a new data directory creates the database.
      const service = await listening_url(child, {
        timeout_ms: 120_000,
        name: "deno task start",
      }).catch((error) => {
        throw new Error(
          `${error.message}\nrequests to the registry's proxy: ${
            JSON.stringify(proxy.requests)
          }`,
        );
      });
      const health = await fetch(`${service.url}/healthz`, {
        signal: AbortSignal.timeout(10_000),
      });
      assertEquals(health.status, 200);
      await health.body?.cancel();

      const account = await admin_request(
        service.url,
        ADMIN_TOKEN,
        "/admin/accounts",
        { email: "start-downloads@example.com", plan: "pro" },
      );
      const { key } = await admin_request(
        service.url,
        ADMIN_TOKEN,
        `/admin/accounts/${account.id}/keys`,
        { name: "Start downloads" },
      );
      const invoice = full_invoice();
      invoice.items![0].description = "Workshop · ورشة عمل · कार्यशाला · 研讨会";
      const pdf = await fetch(`${service.url}/generate`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${key}`,
          "Content-Type": "application/json",
        },
        body: JSON.stringify(invoice),
        signal: AbortSignal.timeout(60_000),
      });
      assertEquals(pdf.status, 200, await pdf.clone().text());
      assertEquals(pdf.headers.get("content-type"), "application/pdf");
      assert((await pdf.bytes()).length > 0);

      for (const path of ["/docs", "/docs/swagger-ui-bundle.js"]) {
        const docs = await fetch(`${service.url}${path}`, {
          signal: AbortSignal.timeout(10_000),
        });
        assertEquals(docs.status, 200, path);
        await docs.body?.cancel();
      }
      assertEquals(
        proxy.requests,
        [],
        `deno task start tried to download:\n${service.stderr()}`,
      );
    } finally {
      try {
        child.kill("SIGTERM");
      } catch {
        // It has exited already.
      }
      await child.status;
    }
  } finally {
    await proxy.close();
    await Deno.remove(root, { recursive: true });
  }
});
