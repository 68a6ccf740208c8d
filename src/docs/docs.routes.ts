import type { FastifyInstance } from 'fastify';
import { ERROR_CATALOGUE } from './error-catalogue.js';
import { escapeHtml, inlineCode, page } from './html.js';

type OpenApiDoc = {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
};
type Operation = {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: { type?: string } }[];
  requestBody?: { content?: Record<string, unknown> };
  responses?: Record<string, { description?: string }>;
};

const text = (s: string | undefined) => inlineCode(escapeHtml(s ?? ''));

/** `JSON`, or the body's media types as the document names them (`multipart/form-data`). */
const bodyTypes = (op: Operation) =>
  Object.keys(op.requestBody?.content ?? {})
    .map((type) => (type === 'application/json' ? 'JSON' : `<code>${escapeHtml(type)}</code>`))
    .join(' or ') || 'JSON';

/** The OpenAPI document, a readable reference built from it, and the error catalogue. */
export function registerDocsRoutes(app: FastifyInstance): void {
  const config = { public: true };
  app.get('/openapi.json', { config, schema: { hide: true } }, async () => app.swagger());

  let referenceHtml: string | undefined;
  app.get('/docs', { config, schema: { hide: true } }, async (_request, reply) => {
    referenceHtml ??= renderReference(app.swagger() as unknown as OpenApiDoc);
    return reply.type('text/html; charset=utf-8').send(referenceHtml);
  });

  const errorsHtml = renderErrors();
  app.get('/docs/errors', { config, schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(errorsHtml),
  );
}

function renderReference(doc: OpenApiDoc): string {
  const byTag = new Map<string, string[]>();
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (method === 'head') continue;
      const tag = op.tags?.[0] ?? 'Other';
      const params = (op.parameters ?? [])
        .map(
          (p) =>
            `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${p.in}</td><td>${escapeHtml(p.schema?.type ?? '')}</td><td>${p.required ? 'yes' : 'no'}</td><td>${text(p.description)}</td></tr>`,
        )
        .join('');
      const responses = Object.entries(op.responses ?? {})
        .map(([code, r]) => `<tr><td>${code}</td><td>${text(r.description)}</td></tr>`)
        .join('');
      const html = `<section class="op"><h3><span class="method">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>
<p>${text(op.summary)}${op.description ? ` — ${text(op.description)}` : ''}</p>
${params ? `<table><caption>Parameters</caption><tr><th>Name</th><th>In</th><th>Type</th><th>Required</th><th>Description</th></tr>${params}</table>` : ''}
${op.requestBody ? `<p>Request body: ${bodyTypes(op)}, schema in <a href="/openapi.json">/openapi.json</a>.</p>` : ''}
${responses ? `<table><caption>Responses</caption><tr><th>Status</th><th>Meaning</th></tr>${responses}</table>` : ''}</section>`;
      byTag.set(tag, [...(byTag.get(tag) ?? []), html]);
    }
  }
  const sections = [...byTag.entries()].map(
    ([tag, ops]) => `<h2 id="${escapeHtml(tag.toLowerCase().replace(/\W+/g, '-'))}">${escapeHtml(tag)}</h2>${ops.join('\n')}`,
  );
  const nav = [...byTag.keys()]
    .map((tag) => `<a href="#${escapeHtml(tag.toLowerCase().replace(/\W+/g, '-'))}">${escapeHtml(tag)}</a>`)
    .join('');
  return page(
    `${doc.info.title} reference`,
    `<h1>${escapeHtml(doc.info.title)} ${escapeHtml(doc.info.version)}</h1>
<p>${text(doc.info.description)}</p>
<nav aria-label="Sections">${nav}<a href="/docs/errors">Errors</a><a href="/openapi.json">OpenAPI document</a></nav>
${sections.join('\n')}`,
  );
}

/** The error body's example, laid out in short lines so that it reads whole in a narrow box (and wraps beyond). */
const EXAMPLE_BODY = `{
  "statusCode": 402,
  "service": "PublicApi",
  "error": "CompanyValidationException: Company limit exceeded",
  "correlationId": "2b9c3a9e-7f7e-4a53-8f0e-0c8a0d1f5e21",
  "validation": {
    "errors": [
      {
        "itemId": "Company",
        "message": "Company limit exceeded. … Learn more at <this server>/docs/errors",
        "validatorName": "CreateCompany"
      }
    ],
    "warnings": []
  }
}`;

function renderErrors(): string {
  const codes = ERROR_CATALOGUE.flatMap((e) => e.codes.map((code) => ({ code, entry: e }))).sort((a, b) => a.code.localeCompare(b.code));
  const codeRows = codes
    .map(
      ({ code, entry }) =>
        `<tr><td><code>${escapeHtml(code)}</code></td><td><a href="#${entry.status}">${entry.status} ${escapeHtml(entry.title)}</a></td></tr>`,
    )
    .join('');
  const entries = ERROR_CATALOGUE.map(
    (e) => `<h2 id="${e.status}">${e.status} ${escapeHtml(e.title)}</h2>
<ul>${e.when.map((w) => `<li>${text(w)}</li>`).join('')}</ul>
<p><strong>What to do:</strong> ${text(e.remedy)}</p>
${e.codes.length ? `<p>Exception codes: ${e.codes.map((c) => `<code>${escapeHtml(c)}</code>`).join(', ')}.</p>` : ''}
<p>Example <code>error</code> values:</p><ul>${e.examples.map((x) => `<li><code>${escapeHtml(x)}</code></li>`).join('')}</ul>`,
  ).join('\n');
  return page(
    'Ledgerport errors',
    `<h1>Errors</h1>
<nav aria-label="Sections"><a href="/docs">API reference</a><a href="#codes">Exception codes</a></nav>
<p>Every error has the same JSON body. <code>correlationId</code> is a fresh GUID per response, also sent as the
<code>X-Correlation-Id</code> header: quote it when asking for support. <code>service</code> names the component that
answered (<code>PublicApi</code> for the API layer, or a platform's name). <code>validation</code> appears on validation
failures only, and each of its messages ends with the address of this page.</p>
<pre tabindex="0">${escapeHtml(EXAMPLE_BODY)}</pre>
<h2 id="codes">Exception codes</h2>
<p>Most <code>error</code> values begin with an exception code and a colon (<code>ConnectionLimitException: …</code>). The
code names the condition and does not change; the text after it is for people and may. Branch on the status and the
code.</p>
<table><caption>Every exception code and its status</caption><tr><th>Code</th><th>Status</th></tr>${codeRows}</table>
${entries}`,
  );
}
