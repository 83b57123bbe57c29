/**
 * Debian's Chromium driven by playwright-core for the dashboard's browser
 * tests. No browser is ever downloaded: a missing `/usr/bin/chromium` fails
 * the test with the command that installs it.
 */
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { assertEquals } from "../assert.ts";

/** Where Debian's `chromium` package puts the browser. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

/**
 * Headless flags for Debian's Chromium on a closed network: without the
 * background-networking ones it keeps trying (and failing) to phone home.
 */
export const CHROMIUM_ARGS: string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

/** Where tests save screenshots (gitignored). */
export const ARTIFACTS_DIR = new URL(
  "../artifacts/dashboard/",
  import.meta.url,
);

/** Desktop and phone viewports the screenshots are taken at. */
export const VIEWPORTS = {
  desktop: { width: 1280, height: 860 },
  phone: { width: 390, height: 844 },
} as const;

/** A running browser with a fresh profile. */
export interface TestBrowser {
  context: BrowserContext;
  page: Page;
  /** Console errors and page errors seen so far (CSP violations show up here). */
  problems: string[];
  close(): Promise<void>;
}

/** Throws a clear error when Debian's Chromium is not installed. */
export async function require_chromium(): Promise<void> {
  try {
    const info = await Deno.stat(CHROMIUM_PATH);
    if (info.isFile) return;
  } catch {
    // Reported below.
  }
  throw new Error(
    `Chromium is not installed at ${CHROMIUM_PATH}. The dashboard's browser ` +
      "tests need Debian's package: `apt-get update && apt-get install -y " +
      "--no-install-recommends chromium` (.ci/run does this).",
  );
}

/** Launches headless Chromium with a fresh `--user-data-dir` and one page. */
export async function launch_browser(): Promise<TestBrowser> {
  await require_chromium();
  const profile = await Deno.makeTempDir({ prefix: "dashboard-chromium-" });
  // launchPersistentContext passes `profile` as --user-data-dir.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport: VIEWPORTS.desktop,
    args: CHROMIUM_ARGS,
  });
  const page = context.pages()[0] ?? await context.newPage();
  const problems: string[] = [];
  page.on("console", (message) => {
    // Answers like 400 or 401 are expected in tests; Chromium logs each one.
    if (
      message.type() === "error" &&
      !message.text().startsWith("Failed to load resource")
    ) {
      problems.push(message.text());
    }
  });
  page.on("pageerror", (error) => problems.push(String(error)));
  return {
    context,
    page,
    problems,
    async close() {
      await context.close();
      await Deno.remove(profile, { recursive: true }).catch(() => {});
    },
  };
}

/** Options of {@link screenshot_both}. */
export interface ScreenshotOptions {
  /** The whole page (default) or only the viewport (for modal dialogs). */
  full_page?: boolean;
  /** Runs at each width after resizing, before the picture (e.g. re-render a PDF). */
  before_each?: () => Promise<void>;
}

const NEXT_FRAME =
  "new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))";

/** Saves a screenshot at desktop and phone width, then restores desktop. */
export async function screenshot_both(
  page: Page,
  name: string,
  options: ScreenshotOptions = {},
): Promise<void> {
  await Deno.mkdir(ARTIFACTS_DIR, { recursive: true });
  for (const [label, size] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(size);
    // Let layout (and the usage chart's resize redraw) settle.
    await page.evaluate(NEXT_FRAME);
    if (options.full_page ?? true) {
      // A viewport as tall as the page instead of Playwright's full-page
      // capture, which resizes behind the page's back: sticky headers then
      // land mid-page and the PDF viewer paints only part of the document.
      const height = await page.evaluate(
        "window.scrollTo(0, 0), document.documentElement.scrollHeight",
      ) as number;
      await page.setViewportSize({
        width: size.width,
        height: Math.max(size.height, height),
      });
      await page.evaluate(NEXT_FRAME);
    }
    await options.before_each?.();
    await page.screenshot({
      path: new URL(`${name}-${label}.png`, ARTIFACTS_DIR).pathname,
      animations: "disabled",
    });
  }
  await page.setViewportSize(VIEWPORTS.desktop);
}

/**
 * Runs `action` (which shows a PDF in a frame) and waits until Chromium's PDF
 * viewer has loaded it, plus a moment for the viewer to paint: the viewer
 * draws on its own schedule and only the screenshots depend on it.
 */
export async function show_pdf(
  page: Page,
  action: () => Promise<void>,
): Promise<void> {
  const viewer = page.waitForEvent("framenavigated", {
    predicate: (frame) => frame.url().startsWith("chrome-extension://"),
  });
  await action();
  await viewer;
  await page.waitForTimeout(1000);
}

/**
 * Asserts that the dashboard's header names `email` as the signed-in account.
 * The page's script fills the header from the session after load, so this
 * waits for it first; a header that never shows `email` fails on the wait.
 */
export async function assert_signed_in_as(
  page: Page,
  email: string,
): Promise<void> {
  const header = page.locator("[data-account-email]");
  await header.filter({ hasText: email }).waitFor();
  assertEquals(await header.innerText(), email);
}
