import { chromium } from 'playwright-core';
import { mkdtempSync } from 'node:fs';
import { startUiServer } from '../../src/ui/uiServer.ts';
const ui = await startUiServer({ playDir: '/tmp/uiplay' });
for (const p of process.argv.slice(3)) await ui.catalog.add(p);
const browser = await chromium.launchPersistentContext(mkdtempSync('/tmp/chr-'), { headless: true, executablePath: '/usr/bin/chromium', viewport: { width: 1280, height: 900 }, args: ['--headless','--no-sandbox','--disable-gpu','--disable-quic','--no-first-run','--disable-background-networking','--disable-component-update','--disable-sync'] });
const page = await browser.newPage();
page.on('console', (m) => console.log('console:', m.text()));
page.on('pageerror', (e) => console.log('pageerror:', e.message));
for (const h of process.argv[2].split(',')) {
  await page.goto(`${ui.url}/#${h}`);
  await page.waitForTimeout(700);
  const name = h.replace(/[^a-z0-9]+/gi, '_');
  await page.screenshot({ path: `/tmp/shot_${name}.png`, fullPage: true });
  console.log('shot', `/tmp/shot_${name}.png`);
}
await browser.close(); await ui.close();
