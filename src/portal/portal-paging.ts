import { h } from './portal-layout.js';

/** A page number from the address: a positive integer, else `fallback`. */
export function positiveInt(value: unknown, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 && n <= 1_000_000 ? n : fallback;
}

/** A pager for a list page: previous/next links keeping the other parameters. */
export function pager(base: string, params: Record<string, string | undefined>, page: number, total: number, pageSize: number): string {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const link = (p: number, label: string, rel: string) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
    q.set('page', String(p));
    return `<a href="${h(`${base}?${q}`)}" rel="${rel}">${h(label)}</a>`;
  };
  return `<nav class="pager" aria-label="Pages">${page > 1 ? link(page - 1, 'Previous page', 'prev') : ''}<span>Page ${page} of ${pages} (${total} in all)</span>${
    page < pages ? link(page + 1, 'Next page', 'next') : ''
  }</nav>`;
}
