// A real Chromium (Debian's, or $BONSAI_CHROMIUM) driven by playwright-core, for the web
// view's tests and benchmark. One browser is shared by a whole test; pages are cheap.
import { type Browser, chromium } from "playwright-core";

/** Where Chromium is: $BONSAI_CHROMIUM, else the first of the usual paths that exists. */
export function chromiumPath(): string | null {
  const candidates = [
    Deno.env.get("BONSAI_CHROMIUM"),
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
  ];
  for (const path of candidates) {
    if (!path) continue;
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // not there: try the next
    }
  }
  return null;
}

/**
 * Starts headless Chromium with no network of its own (no background services, no
 * component updates: this machine's network is closed and they would only log failures).
 */
export async function launchBrowser(): Promise<Browser & AsyncDisposable> {
  const executablePath = chromiumPath();
  if (!executablePath) {
    throw new Error("Chromium is not installed (apt-get install -y chromium, or $BONSAI_CHROMIUM)");
  }
  const browser = await chromium.launch({
    executablePath,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
  return Object.assign(browser, {
    async [Symbol.asyncDispose]() {
      await browser.close();
    },
  });
}
