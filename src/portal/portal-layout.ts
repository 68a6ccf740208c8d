import type { FastifyReply } from 'fastify';
import { escapeHtml, pageHead } from '../docs/html.js';
import { portalAssets } from './portal-assets.js';
import { formatDate } from './portal-format.js';

export const h = escapeHtml;

/**
 * Headers of every portal page: no caching, no framing, scripts and styles from the portal only (no inline code),
 * forms posting only to the portal, no referrer (addresses carry company ids).
 */
export const PORTAL_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

export type Section = 'companies' | 'webhooks' | 'settings' | 'keys';

const SECTIONS: { key: Section; href: string; label: string }[] = [
  { key: 'companies', href: '/portal/companies', label: 'Companies' },
  { key: 'webhooks', href: '/portal/webhooks', label: 'Webhooks' },
  { key: 'settings', href: '/portal/settings', label: 'Settings' },
  { key: 'keys', href: '/portal/keys', label: 'API keys and usage' },
];

/** What a signed-in page needs from the session. */
export interface PageContext {
  clientName: string;
  csrfToken: string;
}

export interface Notice {
  kind: 'success' | 'error' | 'info';
  /** Plain text. */
  text: string;
}

/** The hidden field every form carries (checked on every POST). */
export function csrfField(ctx: Pick<PageContext, 'csrfToken'>): string {
  return `<input type="hidden" name="_csrf" value="${h(ctx.csrfToken)}">`;
}

/** A one-button form posting to `action` (delete, revoke, replay…), with `fields` as hidden inputs. */
export function buttonForm(
  ctx: PageContext,
  action: string,
  label: string,
  options: { danger?: boolean; secondary?: boolean; name?: string; fields?: Record<string, string> } = {},
): string {
  const cls = options.danger ? ' class="danger"' : options.secondary ? ' class="secondary"' : '';
  const aria = options.name ? ` aria-label="${h(`${label} ${options.name}`)}"` : '';
  const hidden = Object.entries(options.fields ?? {})
    .map(([name, value]) => `<input type="hidden" name="${h(name)}" value="${h(value)}">`)
    .join('');
  return `<form class="inline" method="post" action="${h(action)}">${csrfField(ctx)}${hidden}<button type="submit"${cls}${aria}>${h(label)}</button></form>`;
}

function noticeHtml(notice: Notice | undefined): string {
  if (!notice) return '';
  const role = notice.kind === 'error' ? 'alert' : 'status';
  return `<div class="notice ${notice.kind}" role="${role}">${h(notice.text)}</div>`;
}

function documentHtml(title: string, body: string, withCharts: boolean): string {
  const { css, script, chartJs } = portalAssets();
  const scripts = withCharts
    ? `<script src="/portal/assets/${chartJs.name}" defer></script>\n<script src="/portal/assets/${script.name}" defer></script>`
    : '';
  const head = `<link rel="stylesheet" href="/portal/assets/${css.name}">\n${scripts}`;
  return `${pageHead({ title: `${title} – Ledgerport portal`, noindex: true, head })}
${body}
</html>
`;
}

/** A signed-in page: navigation, sign-out, the notice, then `main` (already-escaped HTML). */
export function portalPage(
  ctx: PageContext,
  options: { title: string; section?: Section; main: string; notice?: Notice; charts?: boolean },
): string {
  const nav = SECTIONS.map(
    (s) => `<li><a href="${s.href}"${s.key === options.section ? ' aria-current="page"' : ''}>${h(s.label)}</a></li>`,
  ).join('');
  const body = `<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top"><div class="bar">
<span class="name">Ledgerport <span class="sr-only">portal for</span><span aria-hidden="true">·</span> ${h(ctx.clientName)}</span>
<nav aria-label="Portal"><ul>${nav}</ul></nav>
<form method="post" action="/portal/sign-out">${csrfField(ctx)}<button type="submit">Sign out</button></form>
</div></header>
<main id="main" tabindex="-1">
<h1>${h(options.title)}</h1>
${noticeHtml(options.notice)}
${options.main}
</main>
</body>`;
  return documentHtml(options.title, body, options.charts ?? false);
}

/** A page outside the session (sign-in, errors before sign-in). */
export function plainPage(options: { title: string; main: string; notice?: Notice }): string {
  const body = `<body>
<main id="main" class="sign-in">
<h1>${h(options.title)}</h1>
${noticeHtml(options.notice)}
${options.main}
</main>
</body>`;
  return documentHtml(options.title, body, false);
}

export function sendPortalPage(reply: FastifyReply, html: string, status = 200): FastifyReply {
  return reply.code(status).headers(PORTAL_HEADERS).send(html);
}

/** A canvas the script draws from `src`, with the same numbers as a table (`table`: already-escaped HTML). */
export function chart(options: { id: string; title: string; src: string; table: string }): string {
  return `<figure class="card" aria-labelledby="${h(options.id)}-title">
<h2 id="${h(options.id)}-title">${h(options.title)}</h2>
<div class="chart"><canvas id="${h(options.id)}" data-chart-src="${h(options.src)}" role="img" aria-label="${h(`${options.title}: chart; the same figures are in the table below`)}"></canvas></div>
<details><summary>${h(options.title)} as a table</summary><div class="scroll">${options.table}</div></details>
</figure>`;
}

/** A column heading: its label, and optionally a class (`num`: figures, aligned right) and the record field it shows. */
export type Header = string | { label: string; className?: string; field?: string };
/** A cell of already-escaped HTML, optionally with a class. */
export type Cell = string | { html: string; className?: string };

/**
 * A table of rows of already-escaped cells; without rows, a sentence saying so (`empty`, or "No <caption> yet.").
 */
export function table(
  caption: string,
  headers: Header[],
  rows: Cell[][],
  options: { captionHidden?: boolean; empty?: string } = {},
): string {
  if (rows.length === 0) return `<p class="empty">${h(options.empty ?? `No ${caption.toLowerCase()} yet.`)}</p>`;
  const cap = `<caption${options.captionHidden ? ' class="sr-only"' : ''}>${h(caption)}</caption>`;
  const cls = (className: string | undefined) => (className ? ` class="${h(className)}"` : '');
  const head = headers
    .map((x) =>
      typeof x === 'string'
        ? `<th scope="col">${h(x)}</th>`
        : `<th scope="col"${cls(x.className)}${x.field ? ` data-field="${h(x.field)}"` : ''}>${h(x.label)}</th>`,
    )
    .join('');
  const body = rows
    .map((r) => `<tr>${r.map((c) => (typeof c === 'string' ? `<td>${c}</td>` : `<td${cls(c.className)}>${c.html}</td>`)).join('')}</tr>`)
    .join('\n');
  return `<div class="scroll"><table>${cap}<thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`;
}

/** A coloured status word. */
export function statusBadge(status: string): string {
  const good = /^(Linked|Complete|Success|delivered|Active|enabled)$/i.test(status);
  const bad = /(Error|Fail|Deauthorized|Unlinked|failed|dropped|disabled|Cancelled|Timed)/i.test(status);
  return `<span class="status${good ? ' good' : bad ? ' bad' : ''}">${h(status)}</span>`;
}

/** `2026-11-25T06:31:02.123Z` → `25 Nov 2026, 06:31 UTC` (see formatDate), in a `<time>` kept on one line; `—` for none. */
export function when(iso: unknown): string {
  if (typeof iso !== 'string' || !iso) return '—';
  return `<time datetime="${h(iso)}">${h(formatDate(iso, { time: 'always' }) ?? iso)}</time>`;
}
