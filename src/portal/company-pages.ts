import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Static } from '@sinclair/typebox';
import { ApiError } from '../http/api-error.js';
import { checkBody } from '../http/validators.js';
import { CompanyRequestBody } from '../companies/company.schema.js';
import type { CompaniesService } from '../companies/companies.service.js';
import type { ConnectionsService } from '../connections/connections.service.js';
import type { SyncsService } from '../syncs/syncs.service.js';
import type { PushService } from '../push/push.service.js';
import type { DataSetsService } from '../data/data-sets.service.js';
import type { IntegrationsService } from '../integrations/integrations.service.js';
import { DATA_PATHS } from '../data/data-paths.js';
import { isDataType, type DataType } from '../connectors/data-types.js';
import { parseQuery, type QueryNode } from '../query/query-parser.js';
import { buttonForm, chart, csrfField, h, portalPage, sendPortalPage, statusBadge, table, when, type Notice } from './portal-layout.js';
import { sessionOf } from './portal-session.js';
import { formOf, pageContext } from './portal-request.js';

export interface CompanyPagesDeps {
  companies: CompaniesService;
  connections: ConnectionsService;
  syncs: SyncsService;
  push: PushService;
  dataSets: DataSetsService;
  integrations: IntegrationsService;
}

type Json = Record<string, any>;
const parse = (doc: string | Buffer): Json => JSON.parse(doc.toString()) as Json;

const PAGE_SIZE = 20;

/** Messages a redirect after a form names by code (never free text in the address). */
const DONE: Record<string, Notice> = {
  created: { kind: 'success', text: 'Company created.' },
  deleted: { kind: 'success', text: 'Company deleted.' },
  connection: { kind: 'success', text: 'Connection created: follow its Link address to authorize it.' },
  unlinked: { kind: 'success', text: 'Connection unlinked.' },
  queued: { kind: 'success', text: 'Sync queued.' },
};
const doneNotice = (request: FastifyRequest): Notice | undefined => DONE[(request.query as { done?: string }).done ?? ''];

function positiveInt(value: unknown, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 && n <= 1_000_000 ? n : fallback;
}

function seconds(from: unknown, to: unknown): number | undefined {
  if (typeof from !== 'string' || typeof to !== 'string') return undefined;
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) && ms >= 0 ? ms / 1000 : undefined;
}

/** A pager for a list page: previous/next links keeping the other parameters. */
function pager(base: string, params: Record<string, string | undefined>, page: number, total: number, pageSize: number): string {
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

export function registerCompanyPages(scope: FastifyInstance, deps: CompanyPagesDeps): void {
  const config = { public: true };

  scope.get<{ Querystring: { search?: string; page?: string } }>('/companies', { config }, async (request, reply) => {
    const { client } = sessionOf(request);
    const ctx = pageContext(request);
    const search = (request.query.search ?? '').trim().slice(0, 200);
    const page = positiveInt(request.query.page, 1);
    const query = search ? nameSearch(search) : undefined;
    const { records, totalResults } = await deps.companies.list(client, { page, pageSize: PAGE_SIZE, query, orderBy: '-created' });
    const rows = records
      .map(parse)
      .map((c) => [
        `<a href="/portal/companies/${h(c.id)}">${h(c.name)}</a>`,
        (c.dataConnections as Json[] | undefined)?.map((d) => `${h(d.platformName)} ${statusBadge(d.status)}`).join('<br>') || 'None',
        when(c.created),
        `<code>${h(c.redirect)}</code>`,
      ]);
    const main = `<section class="card" aria-labelledby="search-title"><h2 id="search-title">Find a company</h2>
<form method="get" action="/portal/companies" role="search" class="row">
<div class="field"><label for="search">Name contains</label><input id="search" name="search" type="search" value="${h(search)}"></div>
<button type="submit">Search</button>${search ? ' <a href="/portal/companies">Show all</a>' : ''}
</form></section>
<section class="card" aria-labelledby="list-title"><h2 id="list-title">${search ? `Companies named like “${h(search)}”` : 'Companies'}</h2>
${table('Companies', ['Name', 'Connections', 'Created', 'Link URL to share'], rows, { captionHidden: true })}
${totalResults > PAGE_SIZE ? pager('/portal/companies', { search }, page, totalResults, PAGE_SIZE) : ''}
</section>
<section class="card" aria-labelledby="create-title"><h2 id="create-title">Create a company</h2>
<form method="post" action="/portal/companies">${csrfField(ctx)}
<div class="row"><div class="field"><label for="name">Name</label><input id="name" name="name" required maxlength="100"></div>
<div class="field"><label for="description">Description (optional)</label><input id="description" name="description" maxlength="500"></div></div>
<button type="submit">Create company</button></form></section>`;
    return sendPortalPage(reply, portalPage(ctx, { title: 'Companies', section: 'companies', main, notice: doneNotice(request) }));
  });

  scope.post('/companies', { config }, async (request, reply) => {
    const form = formOf(request);
    const description = form.get('description')?.trim();
    // The API's own body schema and messages (POST /companies).
    const input = checkBody<Static<typeof CompanyRequestBody>>(
      CompanyRequestBody,
      { name: form.get('name')?.trim() ?? '', ...(description ? { description } : {}) },
      'CreateCompany',
    );
    const company = parse(await deps.companies.create(sessionOf(request).client, input));
    return reply.code(303).redirect(`/portal/companies/${company.id}?done=created`);
  });

  scope.get<{ Params: { companyId: string } }>('/companies/:companyId', { config }, async (request, reply) => {
    const { client } = sessionOf(request);
    const ctx = pageContext(request);
    const { companyId } = request.params;
    const company = parse(await deps.companies.get(client, companyId));
    const base = `/portal/companies/${h(companyId)}`;
    const [connections, status, pulls, pushes, platforms, counts] = await Promise.all([
      deps.connections.list(client, companyId, { page: 1, pageSize: 100 }),
      deps.syncs.dataStatus(client, companyId).then(parse),
      deps.syncs.history(client, companyId, { page: 1, pageSize: 25, orderBy: '-requested' }),
      deps.push.history(client, companyId, { page: 1, pageSize: 25, orderBy: '-requestedOnUtc' }),
      deps.integrations.list({ page: 1, pageSize: 100 }),
      deps.dataSets.recordCounts(client, companyId),
    ]);

    const connectionRows = connections.records
      .map(parse)
      .map((c) => [
        h(c.platformName),
        h(c.sourceType),
        statusBadge(c.status),
        when(c.lastSync),
        [
          c.status === 'PendingAuth' ? `<a class="button secondary" href="${h(c.linkUrl)}">Link ${h(c.platformName)}</a>` : '',
          c.status === 'Linked'
            ? buttonForm(ctx, `${base}/connections/${h(c.id)}/unlink`, 'Unlink', { secondary: true, name: c.platformName })
            : '',
        ].join(' '),
      ]);
    const offered = platforms.records.map(parse).filter((p) => p.enabled !== false);
    const platformOptions = offered.map((p) => `<option value="${h(p.key)}">${h(p.name)} (${h(p.sourceType)})</option>`).join('');

    const statusRows = Object.values(status as Record<string, Json>).map((s) => {
      const browsable = DATA_PATHS.some((p) => p.dataType === s.dataType);
      return [
        browsable && s.currentStatus === 'Complete' ? `<a href="${base}/data/${h(s.dataType)}">${h(s.dataType)}</a>` : h(s.dataType),
        statusBadge(s.currentStatus),
        when(s.lastSuccessfulSync),
        buttonForm(ctx, `${base}/sync`, 'Sync now', { secondary: true, name: s.dataType, fields: { dataType: s.dataType } }),
      ];
    });

    const pullRows = pulls.records.map(parse).map((p) => {
      const took = seconds(p.requested, p.completed);
      return [
        h(p.dataType),
        statusBadge(p.status),
        when(p.requested),
        took === undefined ? '—' : `${took.toFixed(1)} s`,
        h(p.errorMessage ?? p.statusDescription ?? ''),
      ];
    });

    const pushRows = pushes.records.map(parse).map((p) => {
      const problems = [...((p.validation?.errors as Json[] | undefined) ?? []), ...((p.validation?.warnings as Json[] | undefined) ?? [])]
        .map((v) => `<li>${h(v.itemId ? `${v.itemId}: ` : '')}${h(v.message ?? '')}</li>`)
        .join('');
      return [
        h(p.dataType ?? ''),
        h(p.changes?.[0]?.type ?? ''),
        statusBadge(p.status),
        when(p.requestedOnUtc),
        `${h(p.errorMessage ?? '')}${problems ? `<ul>${problems}</ul>` : ''}`,
      ];
    });

    const main = `<section class="card" aria-labelledby="about-title"><h2 id="about-title">About</h2>
<dl class="facts"><dt>Id</dt><dd><code>${h(company.id)}</code></dd><dt>Description</dt><dd>${h(company.description ?? '—')}</dd>
<dt>Created</dt><dd>${when(company.created)}</dd><dt>Last sync</dt><dd>${when(company.lastSync)}</dd></dl>
<div class="field"><label for="link-url">Link URL to share with the company</label><input id="link-url" readonly value="${h(company.redirect)}"></div>
<p><a href="${h(company.redirect)}">Open the Link page</a> · <a href="${base}/delete">Delete this company…</a></p></section>
<section class="card" aria-labelledby="connections-title"><h2 id="connections-title">Connections</h2>
${table('Connections', ['Platform', 'Source type', 'Status', 'Last sync', 'Actions'], connectionRows, { captionHidden: true })}
${
  platformOptions
    ? `<form method="post" action="${base}/connections" class="row">${csrfField(ctx)}
<div class="field"><label for="platformKey">Add a connection to</label><select id="platformKey" name="platformKey">${platformOptions}</select></div>
<button type="submit">Add connection</button></form>`
    : ''
}</section>
<section class="card" aria-labelledby="status-title"><h2 id="status-title">Data status</h2>
${table('Data status', ['Data type', 'Status', 'Last successful sync', 'Actions'], statusRows, { captionHidden: true })}
${statusRows.length ? `<form method="post" action="${base}/sync">${csrfField(ctx)}<input type="hidden" name="dataType" value="all"><button type="submit">Sync every data type</button></form>` : ''}
</section>
<div class="charts">
${chart({
  id: 'sync-durations',
  title: 'Sync durations by data type (seconds)',
  src: `/portal/api${base.slice('/portal'.length)}/charts/sync-durations`,
  table: table(
    'Sync durations',
    ['Data type', 'Requested', 'Seconds'],
    pulls.records
      .map(parse)
      .filter((p) => seconds(p.requested, p.completed) !== undefined)
      .map((p) => [h(p.dataType), when(p.requested), seconds(p.requested, p.completed)!.toFixed(1)]),
  ),
})}
${chart({
  id: 'records-per-type',
  title: 'Records per data type',
  src: `/portal/api${base.slice('/portal'.length)}/charts/records`,
  table: table(
    'Records per data type',
    ['Data type', 'Records'],
    sortedCounts(counts).map((c) => [h(c.dataType), String(c.total)]),
  ),
})}
</div>
<section class="card" aria-labelledby="pulls-title"><h2 id="pulls-title">Pull history</h2>
${table('Pull operations', ['Data type', 'Status', 'Requested', 'Duration', 'Error'], pullRows, { captionHidden: true })}</section>
<section class="card" aria-labelledby="pushes-title"><h2 id="pushes-title">Push history</h2>
${table('Push operations', ['Data type', 'Change', 'Status', 'Requested', 'Error and validation'], pushRows, { captionHidden: true })}</section>`;
    return sendPortalPage(
      reply,
      portalPage(ctx, { title: company.name, section: 'companies', main, notice: doneNotice(request), charts: true }),
    );
  });

  scope.get<{ Params: { companyId: string } }>('/companies/:companyId/delete', { config }, async (request, reply) => {
    const ctx = pageContext(request);
    const company = parse(await deps.companies.get(sessionOf(request).client, request.params.companyId));
    const main = `<section class="card"><p>Deleting <strong>${h(company.name)}</strong> removes its connections and every record synced from them. This cannot be undone.</p>
<form method="post" action="/portal/companies/${h(company.id)}/delete">${csrfField(ctx)}<button type="submit" class="danger">Delete ${h(company.name)}</button>
<a href="/portal/companies/${h(company.id)}">Cancel</a></form></section>`;
    return sendPortalPage(reply, portalPage(ctx, { title: `Delete ${company.name}?`, section: 'companies', main }));
  });

  scope.post<{ Params: { companyId: string } }>('/companies/:companyId/delete', { config }, async (request, reply) => {
    await deps.companies.delete(sessionOf(request).client, request.params.companyId);
    return reply.code(303).redirect('/portal/companies?done=deleted');
  });

  scope.post<{ Params: { companyId: string } }>('/companies/:companyId/connections', { config }, async (request, reply) => {
    const platformKey = formOf(request).get('platformKey') ?? undefined;
    await deps.connections.create(sessionOf(request).client, request.params.companyId, platformKey);
    return reply.code(303).redirect(`/portal/companies/${request.params.companyId}?done=connection`);
  });

  scope.post<{ Params: { companyId: string; connectionId: string } }>(
    '/companies/:companyId/connections/:connectionId/unlink',
    { config },
    async (request, reply) => {
      await deps.connections.unlink(sessionOf(request).client, request.params.companyId, request.params.connectionId, 'Unlinked');
      return reply.code(303).redirect(`/portal/companies/${request.params.companyId}?done=unlinked`);
    },
  );

  scope.post<{ Params: { companyId: string } }>('/companies/:companyId/sync', { config }, async (request, reply) => {
    const { client } = sessionOf(request);
    const dataType = formOf(request).get('dataType') ?? 'all';
    if (dataType === 'all') await deps.syncs.queueAll(client, request.params.companyId);
    else await deps.syncs.queue(client, request.params.companyId, dataType);
    return reply.code(303).redirect(`/portal/companies/${request.params.companyId}?done=queued`);
  });

  scope.get<{ Params: { companyId: string; dataType: string }; Querystring: { query?: string; orderBy?: string; page?: string } }>(
    '/companies/:companyId/data/:dataType',
    { config },
    async (request, reply) => {
      const { client } = sessionOf(request);
      const ctx = pageContext(request);
      const { companyId } = request.params;
      const dataType = knownDataType(request.params.dataType);
      const company = parse(await deps.companies.get(client, companyId));
      const query = request.query.query?.trim() || undefined;
      const orderBy = request.query.orderBy?.trim() || undefined;
      const page = positiveInt(request.query.page, 1);
      const base = `/portal/companies/${h(companyId)}/data/${h(dataType)}`;
      const kind = DATA_PATHS.find((p) => p.dataType === dataType)?.kind;
      let results = '';
      let notice: Notice | undefined;
      try {
        if (kind === 'single') {
          results = `<pre tabindex="0">${h(JSON.stringify(parse(await deps.dataSets.single(client, companyId, dataType)), null, 2))}</pre>`;
        } else {
          const { records, totalResults } = await deps.dataSets.list(client, companyId, dataType, {
            page,
            pageSize: PAGE_SIZE,
            query,
            orderBy,
          });
          const docs = records.map(parse);
          const columns = columnsOf(docs, query, orderBy);
          const rows = docs.map((d) => [
            `<a href="${base}/${encodeURIComponent(String(d.id))}">${h(String(d.id))}</a>`,
            ...columns.map((c) => h(cell(valueAt(d, c)))),
          ]);
          results = `${table(`${dataType} records`, ['id', ...columns], rows)}${pager(base, { query, orderBy }, page, totalResults, PAGE_SIZE)}`;
        }
      } catch (err) {
        // A query the language refuses is shown with the form, to be corrected.
        if (!(err instanceof ApiError) || err.statusCode >= 500) throw err;
        notice = { kind: 'error', text: err.message };
      }
      const main = `<p><a href="/portal/companies/${h(companyId)}">Back to ${h(company.name)}</a></p>
${
  kind === 'single'
    ? ''
    : `<form method="get" action="${base}" class="card" role="search" aria-labelledby="filter-title"><h2 id="filter-title">Filter and order</h2>
<div class="row"><div class="field"><label for="query">Query</label><input id="query" name="query" value="${h(query ?? '')}" aria-describedby="query-hint" spellcheck="false"></div>
<div class="field"><label for="orderBy">Order by</label><input id="orderBy" name="orderBy" value="${h(orderBy ?? '')}" aria-describedby="order-hint" spellcheck="false"></div>
<button type="submit">Apply</button></div>
<p id="query-hint" class="hint">Codat's query language, e.g. <code>totalAmount&gt;100&amp;&amp;status=Paid</code> or <code>customerRef.companyName~"Ltd"</code>.</p>
<p id="order-hint" class="hint">A field, <code>-</code> first for descending, e.g. <code>-issueDate</code>.</p></form>`
}
<section class="card" aria-label="Records">${results}</section>`;
      return sendPortalPage(
        reply,
        portalPage(ctx, { title: `${dataType} of ${company.name}`, section: 'companies', main, notice }),
        notice ? 400 : 200,
      );
    },
  );

  scope.get<{ Params: { companyId: string; dataType: string; recordId: string } }>(
    '/companies/:companyId/data/:dataType/:recordId',
    { config },
    async (request, reply) => {
      const { client } = sessionOf(request);
      const ctx = pageContext(request);
      const { companyId, recordId } = request.params;
      const dataType = knownDataType(request.params.dataType);
      const record = parse(await deps.dataSets.get(client, companyId, dataType, recordId));
      const main = `<p><a href="/portal/companies/${h(companyId)}/data/${h(dataType)}">Back to ${h(dataType)}</a></p>
<section class="card" aria-label="Record JSON"><pre tabindex="0">${h(JSON.stringify(record, null, 2))}</pre></section>`;
      return sendPortalPage(reply, portalPage(ctx, { title: `${dataType} ${recordId}`, section: 'companies', main }));
    },
  );

  // Chart data: JSON the portal's script draws (and a client's own tools may read, with the session).
  scope.get<{ Params: { companyId: string } }>('/api/companies/:companyId/charts/sync-durations', { config }, async (request) => {
    const { client } = sessionOf(request);
    const { records } = await deps.syncs.history(client, request.params.companyId, { page: 1, pageSize: 200, orderBy: '-requested' });
    const done = records
      .map(parse)
      .filter((p) => seconds(p.requested, p.completed) !== undefined)
      .reverse();
    const types = [...new Set(done.map((p) => p.dataType as string))].sort();
    return {
      type: 'line',
      yTitle: 'seconds',
      labels: done.map((p) => String(p.requested).slice(0, 19).replace('T', ' ')),
      datasets: types.map((t) => ({ label: t, data: done.map((p) => (p.dataType === t ? seconds(p.requested, p.completed) : null)) })),
    };
  });

  scope.get<{ Params: { companyId: string } }>('/api/companies/:companyId/charts/records', { config }, async (request) => {
    const { client } = sessionOf(request);
    const { companyId } = request.params;
    const counts = sortedCounts(await deps.dataSets.recordCounts(client, companyId));
    return {
      type: 'bar',
      yTitle: 'records',
      labels: counts.map((c) => c.dataType),
      datasets: [{ label: 'Records', data: counts.map((c) => c.total) }],
    };
  });
}

function sortedCounts(counts: Map<string, number>): { dataType: string; total: number }[] {
  return [...counts].map(([dataType, total]) => ({ dataType, total })).sort((a, b) => a.dataType.localeCompare(b.dataType));
}

/**
 * `name~…` for a search box's text. The query language has no escapes, so the text is quoted with a mark it does not
 * hold; holding both, each run between its double quotes must be in the name.
 */
export function nameSearch(search: string): string | undefined {
  if (!search.includes('"')) return `name~"${search}"`;
  if (!search.includes("'")) return `name~'${search}'`;
  const runs = search
    .split('"')
    .map((run) => run.trim())
    .filter(Boolean);
  return runs.length ? runs.map((run) => `name~"${run}"`).join(' && ') : undefined;
}

function knownDataType(value: string): DataType {
  if (!isDataType(value)) throw new ApiError(404, `NotFound: ${value} is not a data type.`);
  return value;
}

/**
 * The table's columns: first the fields the query and the ordering name (what a reader filtered or sorted by is what
 * they want to see, nested ones included), then top-level scalar fields of the first records, six in all at most.
 */
function columnsOf(docs: Json[], query: string | undefined, orderBy: string | undefined): string[] {
  const skip = new Set(['id', 'modifiedDate', 'sourceModifiedDate', 'metadata', 'supplementalData']);
  const out: string[] = [];
  const add = (field: string) => {
    if (out.length < 6 && !skip.has(field) && !out.includes(field)) out.push(field);
  };
  for (const field of fieldsNamed(query, orderBy)) add(field);
  for (const doc of docs.slice(0, 5)) {
    for (const [key, value] of Object.entries(doc)) if (value === null || typeof value !== 'object') add(key);
  }
  return out;
}

/** The properties a query compares and an ordering sorts by, in the order written. */
function fieldsNamed(query: string | undefined, orderBy: string | undefined): string[] {
  const fields: string[] = [];
  const walk = (node: QueryNode): void => {
    if (node.kind === 'compare') fields.push(node.property);
    else node.children.forEach(walk);
  };
  try {
    if (query) walk(parseQuery(query));
  } catch {
    // A query the language refuses has been said on the page already; it names no column.
  }
  for (const term of orderBy?.split(',') ?? []) {
    const field = term.trim().replace(/^-\s*/, '');
    if (field) fields.push(field);
  }
  return fields;
}

/** The value at a dotted path (`customerRef.companyName`), for a column. */
function valueAt(doc: Json, path: string): unknown {
  let value: unknown = doc;
  for (const part of path.split('.')) value = value !== null && typeof value === 'object' ? (value as Json)[part] : undefined;
  return value;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
