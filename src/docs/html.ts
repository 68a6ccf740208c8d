/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

/** Inline `code` spans from backticks, on already-escaped text. */
export function inlineCode(escaped: string): string {
  return escaped.replace(/`([^`]+)`/g, '<code>$1</code>');
}

/**
 * The start of every page the service renders, to its `</head>`: language, character set, viewport, title (plain
 * text) and favicon, then what the page adds to its head (`head`: styles, scripts). `noindex` keeps pages that are no
 * public documentation (the Link pages, the portal) out of search engines.
 */
export function pageHead(options: { title: string; noindex?: boolean; head: string }): string {
  const robots = options.noindex ? '<meta name="robots" content="noindex, nofollow">\n' : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${robots}<title>${escapeHtml(options.title)}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
${options.head}
</head>`;
}

export function page(title: string, body: string): string {
  return `${pageHead({ title, head: DOCS_STYLE })}
<body>
${body}
</body>
</html>`;
}

const DOCS_STYLE = `<style>
body{font:16px/1.5 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem 1.25rem;color:#1b1f24;background:#fff}
h1{font-size:1.6rem}h2{margin-top:2rem;border-bottom:1px solid #d0d7de;padding-bottom:.25rem}
code{background:#f3f4f6;padding:0 .25rem;border-radius:4px;font-size:.92em;overflow-wrap:anywhere}
pre{background:#f6f8fa;padding:.75rem;overflow:auto;border-radius:6px;white-space:pre-wrap;overflow-wrap:anywhere}
pre code{overflow-wrap:anywhere}
caption{text-align:left;font-weight:600;padding:.25rem 0}
.op{border:1px solid #d0d7de;border-radius:8px;padding:.5rem 1rem;margin:1rem 0}
.method{display:inline-block;min-width:4.5rem;font-weight:700;font-family:ui-monospace,monospace}
table{border-collapse:collapse;width:100%;margin:.5rem 0}th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}
nav a{margin-right:1rem}a{color:#0550ae}
</style>`;
