import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { ContextModule } from '../../../src/platform/context-module';
import { CONSOLE_ROOT, ensureConsoleBuilt } from '../../../src/platform/http/console';
import type { Session } from '../../support/auth';
import { startTestPlatform, type TestPlatform } from '../../support/platform';

/**
 * The console in a real browser: Playwright (playwright-core) drives Debian's Chromium
 * against the real platform. `CONSOLE_SCREENSHOTS=1` also writes docs/screenshots/.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = process.env.CONSOLE_SCREENSHOTS === '1' ? path.resolve(__dirname, '../../../docs/screenshots') : null;
const AXE = createRequire(__filename).resolve('axe-core');

export interface ConsoleBrowser {
  t: TestPlatform;
  browser: Browser;
  /** The public listener as `localhost` (the Secure session cookie is honoured over http there). */
  base: string;
  as(session: Session | null, width?: number): Promise<{ context: BrowserContext; page: Page }>;
  shot(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

/** Null when Chromium is absent (the caller skips). `contexts` defaults to the product's. */
export async function startConsoleBrowser(
  env: Record<string, string> = {},
  contexts?: ContextModule[],
): Promise<ConsoleBrowser | null> {
  if (!existsSync(CHROMIUM)) return null;
  await ensureConsoleBuilt(CONSOLE_ROOT);
  const { chromium } = await import('playwright-core');
  const t = await startTestPlatform({ env, contexts });
  const base = t.publicUrl.replace('127.0.0.1', 'localhost');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  return {
    t,
    browser,
    base,
    async as(session, width = 1280) {
      const context = await browser.newContext({ viewport: { width, height: 860 } });
      if (session)
        await context.addCookies([
          { name: 'svc_token', value: session.token, url: base, httpOnly: true, secure: true, sameSite: 'Lax' },
        ]);
      const page = await context.newPage();
      return { context, page };
    },
    async shot(page, name) {
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: false });
    },
    async close() {
      await browser.close();
      await t.close();
    },
  };
}

/** The pager reads `a–b of total` once the page for the current filters has loaded. */
export const pager = (page: Page, total: number) =>
  page
    .getByRole('navigation', { name: 'Pages' })
    .getByText(new RegExp(`of ${total}$`))
    .waitFor();

interface AxeResult {
  violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }>;
}

/** axe-core on the page as it is now (WCAG 2.x A and AA rules): no serious or critical violation. */
export async function expectAccessible(page: Page, where: string): Promise<void> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE });
  const result = await page.evaluate(() =>
    (window as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<unknown> } }).axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    }),
  );
  const severe = (result as AxeResult).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(
    severe.map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} — ${v.nodes
          .slice(0, 3)
          .map((n) => JSON.stringify(n.target))
          .join(', ')}`,
    ),
    `axe on ${where}`,
  ).to.deep.equal([]);
}
