import { createHash } from 'node:crypto';
import { escapeHtml, pageHead } from '../docs/html.js';
import { CUSTOM_FIELD_PREFIX, type CustomParams } from './custom-params.js';

/** What the client's Profile shows on every Link page. */
export interface Brand {
  name: string;
  logoUrl?: string;
}

/**
 * One style sheet for every Link page: single column, large touch targets, visible focus. It is inline
 * and allowed by its hash, so the pages need no other request and no script at all.
 */
const CSS = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;font:17px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f3f5f7}
.wrap{max-width:32rem;margin:0 auto;padding:1rem}
.brand{display:flex;align-items:center;gap:.75rem;padding:.25rem 0 1rem}
.brand img{width:48px;height:48px;object-fit:contain;border-radius:8px;background:#fff;flex:none}
.brand p{margin:0;font-weight:600;font-size:1.125rem;overflow-wrap:anywhere}
main{background:#fff;border-radius:12px;padding:1.25rem;box-shadow:0 1px 3px rgba(27,31,36,.15)}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 .5rem;overflow-wrap:anywhere}
h2{font-size:1.125rem;margin:1.5rem 0 .5rem}
p{margin:.5rem 0;overflow-wrap:anywhere}
a{color:#0550ae}
.platforms{list-style:none;margin:0;padding:0;display:grid;gap:.5rem}
.platform{display:flex;align-items:center;gap:.75rem;width:100%;min-height:3.5rem;margin:0;padding:.625rem .875rem;border:1px solid #8c959f;border-radius:10px;background:#fff;color:inherit;font:inherit;text-align:left}
button.platform{cursor:pointer}
button.platform:hover{border-color:#0550ae;background:#f0f6ff}
.platform img{width:40px;height:40px;flex:none;border-radius:8px}
.platform .name{flex:1;font-weight:600;overflow-wrap:anywhere}
.status{font-size:.875rem;line-height:1.25;padding:.25rem .625rem;border-radius:999px;background:#eaeef2;color:#32383f;white-space:nowrap}
.status.linked{background:#dafbe1;color:#0f5323}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.heading-row{display:flex;align-items:center;gap:.75rem;margin-bottom:.5rem}
.heading-row img{width:48px;height:48px;flex:none;border-radius:10px}
.heading-row h1{margin:0}
fieldset{border:1px solid #8c959f;border-radius:10px;margin:1.25rem 0 0;padding:.25rem 1rem .75rem}
legend{font-weight:600;padding:0 .25rem}
.choice{display:flex;align-items:center;gap:.75rem;min-height:3rem}
.choice input{width:1.375rem;height:1.375rem;margin:0;flex:none;accent-color:#0550ae}
.choice label{flex:1;padding:.5rem 0;cursor:pointer}
.field{display:flex;flex-direction:column;gap:.25rem;margin:.75rem 0}
.field input{font:inherit;padding:.5rem .625rem;border:1px solid #8c959f;border-radius:6px;min-height:2.75rem}
.field input:focus{outline:3px solid #0550ae;outline-offset:1px}
.hint{display:block;color:#57606a;font-size:.9375rem}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.875em;background:#f3f4f6;padding:0 .25rem;border-radius:4px;overflow-wrap:anywhere}
.actions{display:flex;flex-direction:column;gap:.75rem;margin-top:1.25rem}
.button{display:block;width:100%;min-height:3rem;margin:0;padding:.75rem 1rem;border-radius:10px;font:inherit;font-weight:600;text-align:center;text-decoration:none;cursor:pointer}
.primary{background:#0550ae;color:#fff;border:2px solid #0550ae}
.primary:hover{background:#033d8b;border-color:#033d8b}
.secondary{background:#fff;color:#0550ae;border:2px solid #0550ae}
.secondary:hover{background:#f0f6ff}
.notice{border-radius:8px;padding:.75rem 1rem;margin:1rem 0;border:1px solid #8c959f;background:#f6f8fa}
.notice.error{border-color:#cf222e;background:#ffebe9;color:#82071e}
.notice.success{border-color:#1a7f37;background:#dafbe1;color:#0f5323}
.back{display:inline-block;margin-top:1rem;padding:.5rem 0}
:focus-visible{outline:3px solid #1b1f24;outline-offset:2px}
.primary:focus-visible{outline-offset:3px}
footer{color:#57606a;font-size:.875rem;text-align:center;padding:1rem 0}
.dropzone{display:block;margin:1rem 0;padding:1.25rem 1rem;border:2px dashed #8c959f;border-radius:10px;background:#f6f8fa;text-align:center}
.dropzone:focus-within{border-color:#0550ae;background:#f0f6ff}
.dropzone input{display:block;width:100%;min-height:5rem;margin-top:.5rem;font:inherit;cursor:pointer}
.field select{font:inherit;padding:.5rem .625rem;border:1px solid #8c959f;border-radius:6px;min-height:2.75rem;background:#fff}
.read{margin:1rem 0;padding:.75rem 1rem;border:1px solid #d0d7de;border-radius:10px}
.read h2{margin:0 0 .25rem;font-size:1rem;overflow-wrap:anywhere}
.read ul{margin:.25rem 0 0;padding-left:1.25rem}
.read li{margin:.25rem 0}
.problems{margin:.5rem 0 0;padding-left:1.25rem}
.problems li,.read li{overflow-wrap:anywhere}
@media (forced-colors:active){.status{border:1px solid}}
`;

const CSS_HASH = createHash('sha256').update(CSS).digest('base64');

/** Headers of every Link page: no caching, no framing (like Codat's hosted Link), no scripts, no referrer. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'Content-Security-Policy': `default-src 'none'; style-src 'sha256-${CSS_HASH}'; img-src 'self' https: http: data:; base-uri 'none'; frame-ancestors 'none'`,
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

export const h = escapeHtml;

/** Only http(s) addresses are ever put in `src`/`href`. */
export function safeHttpUrl(url: string | undefined): string | undefined {
  return url && /^https?:\/\/\S+$/i.test(url) ? url : undefined;
}

export function hiddenFields(custom: CustomParams): string {
  return [...custom].map(([name, value]) => `<input type="hidden" name="${h(CUSTOM_FIELD_PREFIX + name)}" value="${h(value)}">`).join('\n');
}

function brandHeader(brand: Brand | undefined): string {
  if (!brand) return '';
  const logo = safeHttpUrl(brand.logoUrl);
  // The name is printed next to the logo, so the image itself is decorative.
  const img = logo ? `<img src="${h(logo)}" alt="" width="48" height="48">` : '';
  return `<header class="brand">${img}<p>${h(brand.name)}</p></header>`;
}

/** A whole Link page: `title` is plain text, `main` is already-escaped HTML. */
export function layout(options: { title: string; brand?: Brand; main: string }): string {
  const title = options.brand ? `${options.title} – ${options.brand.name}` : options.title;
  return `${pageHead({ title, noindex: true, head: `<style>${CSS}</style>` })}
<body>
<div class="wrap">
${brandHeader(options.brand)}
<main id="main">
${options.main}
</main>
<footer><p>Powered by Ledgerport</p></footer>
</div>
</body>
</html>
`;
}
