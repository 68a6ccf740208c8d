import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import { checkBody } from '../http/validators.js';
import { CompanyRequestBody } from '../companies/company.schema.js';
import type { CompaniesService } from '../companies/companies.service.js';
import type { ConnectionsService } from '../connections/connections.service.js';
import type { SyncsService } from '../syncs/syncs.service.js';
import type { PushService } from '../push/push.service.js';
import type { DataSetsService } from '../data/data-sets.service.js';
import type { IntegrationsService } from '../integrations/integrations.service.js';
import { DATA_PATHS } from '../data/data-paths.js';
import { findStatement, STATEMENTS } from '../data/statement-reports.js';
import { buttonForm, csrfField, h, portalPage, sendPortalPage, statusBadge, table, when, type Notice } from './portal-layout.js';
import { sessionOf } from './portal-session.js';
import { doneNotice, formOf, pageContext, parseDoc, type Json } from './portal-request.js';
import { pager, positiveInt } from './portal-paging.js';
import { companyCharts, recentSyncs, seconds } from './company-charts.js';
import { statementPath } from './statement-pages.js';
import { connectionChoices, type Connection, type Platform } from './connection-choices.js';

export interface CompanyPagesDeps {
  companies: CompaniesService;
  connections: ConnectionsService;
  syncs: SyncsService;
  push: PushService;
  dataSets: DataSetsService;
  integrations: IntegrationsService;
}

const PAGE_SIZE = 20;
/** Rows of the company page's sync and write history tables. */
const HISTORY_ROWS = 25;

/** Messages a redirect after a form names by code (never free text in the address). */
const DONE: Record<string, Notice> = {
  created: { kind: 'success', text: 'Company created.' },
  deleted: { kind: 'success', text: 'Company deleted.' },
  connection: { kind: 'success', text: 'Connection created: follow its Link address to authorize it.' },
  unlinked: { kind: 'success', text: 'Connection unlinked.' },
  queued: { kind: 'success', text: 'Sync queued.' },
};

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
      .map(parseDoc)
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
    return sendPortalPage(reply, portalPage(ctx, { title: 'Companies', section: 'companies', main, notice: doneNotice(request, DONE) }));
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
    const company = parseDoc(await deps.companies.create(sessionOf(request).client, input));
    return reply.code(303).redirect(`/portal/companies/${company.id}?done=created`);
  });

  scope.get<{ Params: { companyId: string } }>('/companies/:companyId', { config }, async (request, reply) => {
    const { client } = sessionOf(request);
    const ctx = pageContext(request);
    const { companyId } = request.params;
    const company = parseDoc(await deps.companies.get(client, companyId));
    const base = `/portal/companies/${h(companyId)}`;
    // One read of the recent syncs serves both the durations chart and the history table (its newest rows).
    const [connections, status, recent, pushes, platforms] = await Promise.all([
      deps.connections.list(client, companyId, { page: 1, pageSize: 100 }),
      deps.syncs.dataStatus(client, companyId).then(parseDoc),
      recentSyncs(deps.syncs, client, companyId),
      deps.push.history(client, companyId, { page: 1, pageSize: HISTORY_ROWS, orderBy: '-requestedOnUtc' }),
      deps.integrations.list({ page: 1, pageSize: 100 }),
    ]);
    const charts = await companyCharts(deps, client, companyId, recent);

    const connectionDocs = connections.records.map((r) => parseDoc(r) as Connection & Json);
    const connectionRows = connectionDocs.map((c) => [
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
    const choices = connectionChoices(
      company.name,
      platforms.records.map((r) => JSON.parse(r) as Platform),
      connectionDocs,
    );
    const platformOptions = choices.offered.map((p) => `<option value="${h(p.key)}">${h(p.name)} (${h(p.sourceType)})</option>`).join('');

    const statusRows = Object.values(status as Record<string, Json>).map((s) => [
      dataTypeLink(companyId, s.dataType),
      statusBadge(s.currentStatus),
      when(s.lastSuccessfulSync),
      buttonForm(ctx, `${base}/sync`, 'Sync now', { secondary: true, name: s.dataType, fields: { dataType: s.dataType } }),
    ]);

    const pullRows = recent.slice(0, HISTORY_ROWS).map((p) => {
      const took = seconds(p.requested, p.completed);
      return [
        h(p.dataType),
        statusBadge(p.status),
        when(p.requested),
        took === undefined ? '—' : `${took.toFixed(1)} s`,
        h(p.errorMessage ?? p.statusDescription ?? ''),
      ];
    });

    const pushRows = pushes.records.map(parseDoc).map((p) => {
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

    const statements = STATEMENTS.map((st) => `<li><a href="${h(statementPath(companyId, st.segment))}">${h(st.title)}</a></li>`).join('');
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
<div class="field"><label for="platformKey">Add a connection to</label><select id="platformKey" name="platformKey"${choices.why ? ' aria-describedby="platform-hint"' : ''}>${platformOptions}</select></div>
<button type="submit">Add connection</button></form>`
    : ''
}${choices.why ? `<p id="platform-hint" class="hint">${h(choices.why)}</p>` : ''}</section>
<section class="card" aria-labelledby="statements-title"><h2 id="statements-title">Financial statements</h2>
<p>Built from the monthly statements synced from the accounting platform, period by period.</p>
<ul class="links">${statements}</ul></section>
${charts}
<section class="card" aria-labelledby="status-title"><h2 id="status-title">Data status</h2>
${table('Data status', ['Data type', 'Status', 'Last successful sync', 'Actions'], statusRows, { captionHidden: true })}
${statusRows.length ? `<form method="post" action="${base}/sync">${csrfField(ctx)}<input type="hidden" name="dataType" value="all"><button type="submit">Sync every data type</button></form>` : ''}
</section>
<section class="card" aria-labelledby="pulls-title"><h2 id="pulls-title">Pull history</h2>
${table('Pull operations', ['Data type', 'Status', 'Requested', 'Duration', 'Error'], pullRows, { captionHidden: true })}</section>
<section class="card" aria-labelledby="pushes-title"><h2 id="pushes-title">Push history</h2>
${table('Push operations', ['Data type', 'Change', 'Status', 'Requested', 'Error and validation'], pushRows, { captionHidden: true })}</section>`;
    return sendPortalPage(
      reply,
      portalPage(ctx, { title: company.name, section: 'companies', main, notice: doneNotice(request, DONE), charts: true }),
    );
  });

  scope.get<{ Params: { companyId: string } }>('/companies/:companyId/delete', { config }, async (request, reply) => {
    const ctx = pageContext(request);
    const company = parseDoc(await deps.companies.get(sessionOf(request).client, request.params.companyId));
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
}

/**
 * A data type's name on the company page, linking to where its data is read: its records, or its statement. The link
 * stays whatever the last sync did: after a failed sync the previous data is still served (and a data set never
 * synced says so on its page).
 */
function dataTypeLink(companyId: string, dataType: string): string {
  const base = `/portal/companies/${h(companyId)}`;
  if (DATA_PATHS.some((p) => p.dataType === dataType)) return `<a href="${base}/data/${h(dataType)}">${h(dataType)}</a>`;
  if (findStatement(dataType)) return `<a href="${h(statementPath(companyId, dataType))}">${h(dataType)}</a>`;
  return h(dataType);
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
