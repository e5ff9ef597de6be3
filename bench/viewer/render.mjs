// Viewer render benchmark: a generated SDFG of about 2,000 dataflow nodes (viewer/test/generate.mjs)
// written by `weir view --html` and opened offline in Debian's chromium (playwright-core, as the
// browser tests do). Reports the median over REPEATS page loads of "load to drawn" (navigation until
// window.weirViewer.ready) and the page's own model + layout + SVG time, against ADR 0018's target
// of 3 s. A benchmark, not a test: the browser tests assert that the page is drawn completely; how
// fast is measured here, on a quiet machine.
//   node bench/viewer/render.mjs [--states 40] [--maps 10] [--repeats 5] [--json FILE]
// (from the repository root; WEIR=build/bin/weir, CHROMIUM=/usr/bin/chromium)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const { generateSdfg } = await import(pathToFileURL(join(root, 'viewer', 'test', 'generate.mjs')).href);
const { values } = parseArgs({
  options: {
    states: { type: 'string', default: '40' },
    maps: { type: 'string', default: '10' },
    repeats: { type: 'string', default: '5' },
    json: { type: 'string' },
  },
});
const weir = resolve(process.env.WEIR ?? join(root, 'build', 'bin', 'weir'));
const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
// playwright-core is the viewer's dev dependency (npm ci in viewer/).
const { chromium } = createRequire(join(root, 'viewer', 'package.json'))('playwright-core');

const work = mkdtempSync(join(tmpdir(), 'weir-viewer-bench-'));
const { json, nodes } = generateSdfg({ states: Number(values.states), mapsPerState: Number(values.maps) });
const sdfg = join(work, 'big.sdfg');
const html = join(work, 'big.html');
writeFileSync(sdfg, JSON.stringify(json));
const w = spawnSync(weir, ['view', sdfg, '--html', html], { encoding: 'utf8' });
if (w.status !== 0) {
  console.error(`weir view failed (${w.status}): ${w.stderr}`);
  process.exit(1);
}
const browser = await chromium.launch({
  executablePath: chromiumPath,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
const load = [], inPage = [];
try {
  for (let r = 0; r < Number(values.repeats); r++) {
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 }, offline: true });
    const page = await context.newPage();
    const t0 = performance.now();
    await page.goto(pathToFileURL(html).href);
    await page.waitForFunction(() => window.weirViewer?.ready || window.weirViewer?.error, null, { timeout: 120000 });
    load.push(performance.now() - t0);
    const drawn = await page.evaluate(() => document.querySelectorAll('svg.graph .el.leaf').length);
    if (drawn !== nodes) throw new Error(`drew ${drawn} of ${nodes} nodes`);
    inPage.push(await page.evaluate(() => window.weirViewer.renderMs));
    await context.close();
  }
} finally {
  await browser.close();
  rmSync(work, { recursive: true, force: true });
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const result = {
  nodes,
  repeats: load.length,
  load_to_drawn_ms: { median: median(load), min: Math.min(...load), max: Math.max(...load) },
  model_layout_svg_ms: { median: median(inPage) },
  target_ms: 3000,
};
console.log(`viewer render: ${nodes} nodes, ${load.length} loads: load to drawn median ${result.load_to_drawn_ms.median.toFixed(0)} ms ` +
  `(min ${result.load_to_drawn_ms.min.toFixed(0)}, max ${result.load_to_drawn_ms.max.toFixed(0)}), model + layout + SVG ` +
  `${result.model_layout_svg_ms.median.toFixed(0)} ms; target ${result.target_ms} ms: ` +
  (result.load_to_drawn_ms.median < result.target_ms ? 'met' : 'NOT met'));
if (values.json) writeFileSync(values.json, JSON.stringify(result, null, 2) + '\n');
