// browser.mjs: open tracestat --html pages in headless Chromium (playwright-core
// driving the system's chromium), offline: fail on a console error, an uncaught
// exception or any request that is not the page itself or a data: URL; click
// every sortable table's first numeric heading and check the rows come out
// ordered; zoom the flame graph by a click; screenshot every section.
//   node browser.mjs PLAYWRIGHT_DIR CHROMIUM OUTDIR PAGE.html...
import { createRequire } from 'module';
import path from 'path';

const [pwDir, chromium, outDir, ...pages] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(pwDir), 'x.js'));
const { chromium: browserType } = require('playwright-core');

const browser = await browserType.launch({ executablePath: chromium, args: ['--no-sandbox'] });
let failures = 0;
const fail = (page, what) => { console.log(`FAIL ${page}: ${what}`); failures++; };
for (const file of pages) {
    const name = path.basename(file, '.html');
    const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 }, offline: true });
    const page = await ctx.newPage();
    page.on('console', m => { if (m.type() === 'error') fail(name, `console: ${m.text()}`); });
    page.on('pageerror', e => fail(name, `exception: ${e.message}`));
    page.on('request', r => {
        const u = r.url();
        if (!u.startsWith('data:') && u !== 'file://' + path.resolve(file)) fail(name, `request ${u}`);
    });
    const t0 = Date.now();
    await page.goto('file://' + path.resolve(file), { waitUntil: 'load' });
    const ms = Date.now() - t0;
    // Sorting: the rows of the first table with a numeric column come out in order.
    const sorted = await page.evaluate(() => {
        const num = s => { const m = /^(-?\d+(?:\.\d+)?)/.exec(s.trim()); return m ? +m[1] : null; };
        let checked = 0, bad = [];
        for (const t of document.querySelectorAll('table.sortable')) {
            if (!t.tBodies[0] || t.tBodies[0].rows.length < 2) continue;
            const heads = t.tHead.rows[0].cells;
            for (let i = 0; i < heads.length; i++) {
                const cells = [...t.tBodies[0].rows].map(r => r.cells[i].textContent);
                if (!cells.every(c => /^\d+$/.test(c.trim()))) continue;
                heads[i].click();
                const after = [...t.tBodies[0].rows].map(r => num(r.cells[i].textContent));
                for (let k = 1; k < after.length; k++) if (after[k - 1] > after[k]) bad.push(heads[i].textContent);
                heads[i].click();
                const back = [...t.tBodies[0].rows].map(r => num(r.cells[i].textContent));
                for (let k = 1; k < back.length; k++) if (back[k - 1] < back[k]) bad.push(heads[i].textContent + ' (down)');
                checked++;
                break;
            }
        }
        return { checked, bad };
    });
    if (sorted.bad.length) fail(name, `columns not sorted: ${sorted.bad.join(', ')}`);
    // The flame graph: its script ran (frames found) and a click zooms.
    const iframe = await page.$('iframe');
    let flame = '';
    if (iframe) {
        const f = await iframe.contentFrame();
        const n = await f.evaluate(() => frames.length);
        if (!(n > 0)) fail(name, 'the flame graph has no frames');
        await f.evaluate(() => frames[frames.length - 1].g.onclick());
        const zoomed = await f.evaluate(() => document.getElementById('unzoom').style.opacity);
        if (zoomed !== '1') fail(name, 'a click on a frame did not zoom');
        flame = `, flame ${n} frames`;
    }
    const ids = await page.$$eval('section', s => s.map(x => x.id));
    for (const id of ids) {
        const el = await page.$(`section#${id}`);
        await el.screenshot({ path: path.join(outDir, `${name}-${id}.png`) });
    }
    console.log(`${name}: loaded in ${ms} ms, sections ${ids.join(' ')}, ${sorted.checked} tables sorted${flame}`);
    await ctx.close();
}
await browser.close();
process.exit(failures ? 1 : 0);
