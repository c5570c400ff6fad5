// browser.mjs — what the browser tests (test_pages.mjs, test_plots.mjs, test_notebook.mjs) share: Debian's
// Chromium launched headless through playwright-core, a file opened in a page that notes every console
// error or warning, page error, request for anything but the file itself and dialog, and the number of
// colours in a screenshot. The tests themselves are node:test tests (tests/run.sh runs them with
// `node --test-reporter=tap`, whose "ok"/"not ok" lines it counts).
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

// Chromium as a test wants it: no sandbox (CI runs as root), no GPU, and none of the requests a fresh
// profile makes on its own (updates, sync, the first-run page), so that a page's requests are its own.
export function launch(executablePath) {
  return chromium.launch({
    executablePath,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
           "--disable-component-update", "--disable-sync"],
  });
}

// open(browser, file, {fragment, colorScheme}): a new 1280×800 page showing the file, loaded; problems
// collects what a page that works must not do.
export async function open(browser, file, { fragment = "", colorScheme = "light" } = {}) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme });
  const problems = [];
  const url = pathToFileURL(file).href;
  page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") problems.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("request", (r) => { if (r.url().split("#")[0] !== url) problems.push(`request: ${r.url()}`); });
  page.on("dialog", (d) => { problems.push(`dialog: ${d.message()}`); d.dismiss(); });
  await page.goto(url + fragment);
  await page.waitForLoadState("load");
  return { page, problems, url };
}

// How many different colours a PNG has (every stride-th pixel), counted by the browser itself on a blank
// page: a blank screenshot has one or two.
export async function colours(browser, png, stride = 1) {
  const page = await browser.newPage();
  try {
    return await page.evaluate(async ([b64, step]) => {
      const img = new Image();
      img.src = "data:image/png;base64," + b64;
      await img.decode();
      const c = document.createElement("canvas");
      [c.width, c.height] = [img.width, img.height];
      const ctx = c.getContext("2d");
      ctx.drawImage(img, 0, 0);
      const d = ctx.getImageData(0, 0, c.width, c.height).data;
      const seen = new Set();
      for (let i = 0; i < d.length; i += 4 * step) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
      return seen.size;
    }, [png.toString("base64"), stride]);
  } finally {
    await page.close();
  }
}

// A PNG's width and height, from its header.
export const pngSize = (png) => [png.readUInt32BE(16), png.readUInt32BE(20)];
