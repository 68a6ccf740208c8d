import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** Checks of a rendered page shared by the portal's browser tests. */

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/**
 * Runs axe-core on the page; fails on any serious or critical violation, naming it. axe-core is injected as an
 * inline script, which the portal's CSP (rightly) forbids: the page's context must bypass CSP.
 */
export async function checkAccessibility(page: Page, name: string): Promise<void> {
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run(): Promise<{ violations: any[] }> } }).axe.run();
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n: any) => n.target.join(' ')) }));
  });
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious, `${name}: ${JSON.stringify(serious, null, 2)}`).toEqual([]);
}

/**
 * Keyboard only: Tab from the top of the page reaches every visible control (links, buttons, fields, focusable
 * blocks) in turn and comes back round, and each one shows where the focus is (a visible focus style).
 */
export async function checkKeyboard(page: Page, name: string): Promise<void> {
  const controls = await page.evaluate(() => {
    const selector = 'a[href], button, input:not([type="hidden"]), select, textarea, summary, [tabindex="0"]';
    const visible = [...document.querySelectorAll<HTMLElement>(selector)].filter(
      (el) =>
        el.getClientRects().length > 0 && !el.closest('[hidden], details:not([open]) > :not(summary)') && !el.hasAttribute('disabled'),
    );
    visible.forEach((el, i) => el.setAttribute('data-kb', String(i)));
    (document.activeElement as HTMLElement | null)?.blur();
    return visible.length;
  });
  const reached = new Set<string>();
  const unstyled: string[] = [];
  for (let i = 0; i < controls + 5 && reached.size < controls; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el || el === document.body) return undefined;
      const style = getComputedStyle(el);
      const shown = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
      return { kb: el.getAttribute('data-kb'), shown: shown || style.boxShadow !== 'none', what: el.outerHTML.slice(0, 80) };
    });
    if (!focused?.kb) continue;
    reached.add(focused.kb);
    if (!focused.shown) unstyled.push(focused.what);
  }
  const missed = await page.evaluate(
    (seen) =>
      [...document.querySelectorAll('[data-kb]')]
        .filter((el) => !seen.includes(el.getAttribute('data-kb')!))
        .map((el) => el.outerHTML.slice(0, 80)),
    [...reached],
  );
  expect(missed, `${name}: controls the keyboard never reaches`).toEqual([]);
  expect(unstyled, `${name}: controls without a visible focus`).toEqual([]);
}

/** The page is no wider than the window: nothing is cut off or needs the whole page scrolled sideways. */
export async function checkFitsWidth(page: Page, name: string): Promise<void> {
  const overflow = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    // Inside a box that scrolls sideways (a wide table), overflowing is the box's business, not the page's.
    const scrollsItself = (el: Element) => {
      for (let p = el.parentElement; p; p = p.parentElement) {
        const x = getComputedStyle(p).overflowX;
        if (x === 'auto' || x === 'scroll' || x === 'hidden') return true;
      }
      return false;
    };
    return {
      page: document.documentElement.scrollWidth - width,
      elements: [...document.querySelectorAll('body *')]
        .filter((el) => el.getBoundingClientRect().right > width + 1 && !scrollsItself(el))
        .map((el) => `${el.tagName.toLowerCase()}: ${(el.textContent ?? '').trim().slice(0, 50)}`)
        .slice(0, 5),
    };
  });
  expect(overflow.elements, `${name}: elements past the right edge`).toEqual([]);
  expect(overflow.page, `${name}: the page scrolls sideways`).toBeLessThanOrEqual(0);
}

/**
 * Screenshots for people to look at. Always under `test-output/<folder>/` (git ignores it); with
 * UPDATE_SCREENSHOTS=1, the ones named `keep` are written to docs/images/ too, so a run of the tests never changes
 * the documentation by itself.
 */
export function screenshots(folder: string) {
  const dir = path.resolve('test-output', folder);
  fs.mkdirSync(dir, { recursive: true });
  const update = process.env.UPDATE_SCREENSHOTS === '1';
  return {
    dir,
    /** `upTo`: from the top of the page down to the end of the element it selects, rather than the whole page. */
    async take(page: Page, name: string, options: { keep?: string; upTo?: string } = {}): Promise<void> {
      const file = path.join(dir, `${name}.png`);
      const bottom = options.upTo
        ? await page.locator(options.upTo).evaluate((el) => el.getBoundingClientRect().bottom + window.scrollY)
        : undefined;
      const width = page.viewportSize()?.width ?? 1280;
      await page.screenshot({
        path: file,
        fullPage: true,
        ...(bottom ? { clip: { x: 0, y: 0, width, height: Math.ceil(bottom) + 16 } } : {}),
      });
      if (update && options.keep) fs.copyFileSync(file, path.resolve('docs', 'images', options.keep));
    },
  };
}
