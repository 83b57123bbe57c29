/**
 * `server/start.lock`, the lockfile `deno task start` (and `deno task admin`)
 * runs with: the part of `deno.lock` that serving needs.
 *
 * Deno downloads every package of the lockfile it runs with, whatever the
 * program imports, so the serving tasks read this narrower lockfile (with
 * `--node-modules-dir=none --frozen`) and a fresh clone downloads only the
 * packages the service imports and what they depend on. It is derived, never
 * edited: `deno task start:lock` writes it from `deno.lock` and the module
 * graphs of the serving entry points.
 *
 * @module
 */

/** The checkout this file belongs to. */
const CHECKOUT = new URL("../", import.meta.url);

/**
 * The modules the serving tasks run: `main.ts`, the workers it starts (module
 * graphs of their own) and the operator CLI.
 */
export const SERVING_ENTRY_POINTS = [
  "main.ts",
  "server/render_worker.ts",
  "db/pglite_init_worker.ts",
  "server/admin_cli.ts",
] as const;

/**
 * Packages that lockfile entries of serving packages name but serving never
 * loads, left out of `start.lock` together with those entries' mention of
 * them: each with why it is never loaded. `deno task start` would download
 * them all (about 50 MB) for nothing.
 */
export const NOT_LOADED_WHEN_SERVING: Readonly<Record<string, string>> = {
  typescript:
    "a peer dependency of @trpc/server for its type declarations; nothing is type-checked when serving",
  canvg:
    "an optional dependency of jsPDF, required only by its SVG images (addSvgAsImage), which the renderer never calls",
  "core-js": "an optional dependency of jsPDF, for canvg",
  dompurify:
    "an optional dependency of jsPDF, required only by its html() method, which the renderer never calls",
  html2canvas:
    "an optional dependency of jsPDF, required only by its html() method, which the renderer never calls",
};

/** Whether a dependency entry (`name` or `name@version…`) names a package serving never loads. */
function never_loaded(dependency: string): boolean {
  const at = dependency.indexOf("@", 1);
  return Object.hasOwn(
    NOT_LOADED_WHEN_SERVING,
    at > 0 ? dependency.slice(0, at) : dependency,
  );
}

/** Where the serving lockfile is, relative to the checkout. */
export const START_LOCK_PATH = "server/start.lock";

/** One package of a lockfile's `npm` section. */
interface LockedPackage {
  dependencies?: string[];
  optionalDependencies?: string[];
  optionalPeers?: string[];
  [field: string]: unknown;
}

/** The parts of a `deno.lock` (version 5) this module reads. */
export interface Lockfile {
  version: string;
  specifiers?: Record<string, string>;
  npm?: Record<string, LockedPackage>;
  [section: string]: unknown;
}

/** The package name of a lockfile package id (`@scope/name@1.2.3_peer@4`). */
function package_name(id: string): string {
  return id.slice(0, id.indexOf("@", 1));
}

/**
 * The npm packages (lockfile ids) the module graph of `entry` imports, read
 * with `deno info --json` against `deno.lock` without installing anything
 * into `node_modules`.
 */
export async function imported_npm_packages(
  entry: string,
  checkout: URL = CHECKOUT,
): Promise<string[]> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "info",
      "--json",
      "--node-modules-dir=none",
      "--frozen",
      "--lock=deno.lock",
      entry,
    ],
    cwd: checkout.pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(
      `deno info ${entry} failed:\n${new TextDecoder().decode(output.stderr)}`,
    );
  }
  const info = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    modules: { kind?: string; npmPackage?: string }[];
  };
  const ids = info.modules.flatMap((module) =>
    module.kind === "npm" && module.npmPackage ? [module.npmPackage] : []
  );
  return [...new Set(ids)].sort();
}

/** The lockfile id a dependency entry (`name` or `name@version…`) means. */
function resolve_dependency(
  packages: Record<string, LockedPackage>,
  from: string,
  dependency: string,
): string {
  if (dependency in packages) return dependency;
  const versioned = dependency.indexOf("@", 1) > 0;
  const candidates = Object.keys(packages).filter((id) =>
    versioned
      ? id.startsWith(`${dependency}_`)
      : package_name(id) === dependency
  );
  if (candidates.length !== 1) {
    throw new Error(
      `deno.lock: ${from} depends on ${dependency}, which names ${candidates.length} packages`,
    );
  }
  return candidates[0];
}

/**
 * `ids` and every package they need, by the lockfile: dependencies, peers and
 * the optional dependencies of every platform (Deno downloads only the ones
 * of the platform it runs on), except the packages serving never loads
 * ({@linkcode NOT_LOADED_WHEN_SERVING}).
 */
export function lockfile_closure(
  lock: Lockfile,
  ids: Iterable<string>,
): Set<string> {
  const packages = lock.npm ?? {};
  const needed = new Set<string>();
  const pending = [...ids];
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (needed.has(id)) continue;
    const locked = packages[id];
    if (!locked) throw new Error(`deno.lock has no npm package ${id}`);
    needed.add(id);
    for (
      const dependency of [
        ...locked.dependencies ?? [],
        ...locked.optionalDependencies ?? [],
        ...locked.optionalPeers ?? [],
      ]
    ) {
      if (never_loaded(dependency)) continue;
      pending.push(resolve_dependency(packages, id, dependency));
    }
  }
  return needed;
}

/**
 * `lock` with only `keep` in its `npm` section (their mentions of packages
 * serving never loads removed) and only the `npm:` specifiers that resolve
 * to them; every other section as it is.
 */
export function narrow_lockfile(lock: Lockfile, keep: Set<string>): Lockfile {
  const specifiers = Object.fromEntries(
    Object.entries(lock.specifiers ?? {}).filter(([specifier, version]) => {
      if (!specifier.startsWith("npm:")) return true;
      const name = specifier.slice(4, specifier.lastIndexOf("@"));
      return keep.has(`${name}@${version}`);
    }),
  );
  const npm = Object.fromEntries(
    Object.entries(lock.npm ?? {}).filter(([id]) => keep.has(id)).map((
      [id, locked],
    ) => [id, without_never_loaded(locked)]),
  );
  return { ...lock, specifiers, npm };
}

/** A lockfile package without its mentions of packages serving never loads. */
function without_never_loaded(locked: LockedPackage): LockedPackage {
  const narrowed: LockedPackage = { ...locked };
  for (
    const field of [
      "dependencies",
      "optionalDependencies",
      "optionalPeers",
    ] as const
  ) {
    const list = locked[field];
    if (list === undefined) continue;
    const kept = list.filter((dependency) => !never_loaded(dependency));
    if (kept.length > 0) narrowed[field] = kept;
    else delete narrowed[field];
  }
  return narrowed;
}

/** The npm packages serving needs (lockfile ids), by `deno.lock`. */
export async function serving_packages(
  lock: Lockfile,
  checkout: URL = CHECKOUT,
): Promise<Set<string>> {
  const imported: string[] = [];
  for (const entry of SERVING_ENTRY_POINTS) {
    imported.push(...await imported_npm_packages(entry, checkout));
  }
  return lockfile_closure(lock, imported);
}

/** The text of `server/start.lock` for the checkout's current `deno.lock`. */
export async function start_lock_text(
  checkout: URL = CHECKOUT,
): Promise<string> {
  const lock = JSON.parse(
    await Deno.readTextFile(new URL("deno.lock", checkout)),
  ) as Lockfile;
  const narrowed = narrow_lockfile(
    lock,
    await serving_packages(lock, checkout),
  );
  // Laid out as Deno writes lockfiles: `os` and `cpu` lists on one line.
  return JSON.stringify(narrowed, null, 2).replace(
    /"(os|cpu)": \[\s*([^\]]*?)\s*\]/g,
    (_, field: string, items: string) =>
      `"${field}": [${items.split(/,\s*/).join(", ")}]`,
  ) + "\n";
}

if (import.meta.main) {
  const target = new URL(START_LOCK_PATH, CHECKOUT);
  await Deno.writeTextFile(target, await start_lock_text());
  console.log(`wrote ${target.pathname}`);
}
