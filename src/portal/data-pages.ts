import type { FastifyInstance } from 'fastify';
import { ApiError } from '../http/api-error.js';
import type { CompaniesService } from '../companies/companies.service.js';
import type { DataSetsService } from '../data/data-sets.service.js';
import { DATA_PATHS } from '../data/data-paths.js';
import { isDataType, type DataType } from '../codat-model/data-types.js';
import { parseQuery, type QueryNode } from '../query/query-parser.js';
import { h, portalPage, sendPortalPage, table } from './portal-layout.js';
import { sessionOf } from './portal-session.js';
import { pageContext, parseDoc, type Json } from './portal-request.js';
import { pager, positiveInt } from './portal-paging.js';
import { cellText } from './portal-format.js';
import { columnsFor, recordViewOf, valueAt } from './record-views.js';

export interface DataPagesDeps {
  companies: CompaniesService;
  dataSets: DataSetsService;
}

const PAGE_SIZE = 20;

/** A data type's records: a table with the query language, and each record's JSON. */
export function registerDataPages(scope: FastifyInstance, deps: DataPagesDeps): void {
  const config = { public: true };

  scope.get<{ Params: { companyId: string; dataType: string }; Querystring: { query?: string; orderBy?: string; page?: string } }>(
    '/companies/:companyId/data/:dataType',
    { config },
    async (request, reply) => {
      const { client } = sessionOf(request);
      const ctx = pageContext(request);
      const { companyId } = request.params;
      const dataType = knownDataType(request.params.dataType);
      const company = parseDoc(await deps.companies.get(client, companyId));
      const query = request.query.query?.trim() || undefined;
      const orderBy = request.query.orderBy?.trim() || undefined;
      const page = positiveInt(request.query.page, 1);
      // An address, escaped once where it is written into the page.
      const base = `/portal/companies/${encodeURIComponent(companyId)}/data/${dataType}`;
      const kind = DATA_PATHS.find((p) => p.dataType === dataType)?.kind;
      const view = recordViewOf(dataType);
      let results = '';
      let status = 200;
      try {
        if (kind === 'single') {
          results = `<pre tabindex="0">${h(JSON.stringify(parseDoc(await deps.dataSets.single(client, companyId, dataType)), null, 2))}</pre>`;
        } else {
          const read = (order: string | undefined) =>
            deps.dataSets.list(client, companyId, dataType, { page, pageSize: PAGE_SIZE, query, orderBy: order });
          const { records, totalResults } = await read(orderBy ?? view?.orderBy).catch((err: unknown) => {
            // The type's own order names a field of Codat's schema; a platform whose records lack it is read in the
            // API's order rather than refused, as the reader asked for no order. (A refused query fails again, and
            // its own message is shown.)
            if (orderBy === undefined && view && err instanceof ApiError && err.statusCode === 400) return read(undefined);
            throw err;
          });
          results =
            recordsTable(dataType, records.map(parseDoc), { base, query, orderBy }) +
            pager(base, { query, orderBy }, page, totalResults, PAGE_SIZE);
        }
      } catch (err) {
        // A refused query (or a data set not synced yet) is said where the records would be, beside the form to correct it.
        if (!(err instanceof ApiError) || err.statusCode >= 500) throw err;
        status = err.statusCode;
        results = `<div class="notice error" role="alert">${h(err.message)}</div>`;
      }
      const main = `<p><a href="/portal/companies/${h(companyId)}">Back to ${h(company.name)}</a></p>
${kind === 'single' ? '' : filterForm(base, dataType, query, orderBy)}
<section class="card" aria-label="Records">${results}</section>`;
      return sendPortalPage(reply, portalPage(ctx, { title: `${dataType} of ${company.name}`, section: 'companies', main }), status);
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
      const record = parseDoc(await deps.dataSets.get(client, companyId, dataType, recordId));
      const main = `<p><a href="/portal/companies/${h(companyId)}/data/${h(dataType)}">Back to ${h(dataType)}</a></p>
<section class="card" aria-label="Record JSON"><pre tabindex="0">${h(JSON.stringify(record, null, 2))}</pre></section>`;
      return sendPortalPage(reply, portalPage(ctx, { title: `${dataType} ${recordId}`, section: 'companies', main }));
    },
  );
}

function filterForm(base: string, dataType: DataType, query: string | undefined, orderBy: string | undefined): string {
  const view = recordViewOf(dataType);
  const fields = view?.columns.map((c) => `${h(c.label)} <code>${h(c.path)}</code>`).join(', ');
  const order = view ? ` Empty: ${h(view.orderWords)} (<code>${h(view.orderBy)}</code>).` : '';
  return `<form method="get" action="${h(base)}" class="card" role="search" aria-labelledby="filter-title"><h2 id="filter-title">Filter and order</h2>
<div class="row"><div class="field"><label for="query">Query</label><input id="query" name="query" value="${h(query ?? '')}" aria-describedby="query-hint" spellcheck="false"></div>
<div class="field"><label for="orderBy">Order by</label><input id="orderBy" name="orderBy" value="${h(orderBy ?? '')}" aria-describedby="order-hint" spellcheck="false"></div>
<button type="submit">Apply</button></div>
<p id="query-hint" class="hint">Codat's query language, e.g. <code>totalAmount&gt;100&amp;&amp;status=Paid</code> or <code>customerRef.companyName~"Ltd"</code>.${fields ? ` The columns are ${fields}.` : ''}</p>
<p id="order-hint" class="hint">A field, <code>-</code> first for descending, e.g. <code>-issueDate</code>.${order}</p></form>`;
}

/** The records as a table: the type's columns, formatted for people, the first one linking to the record's JSON. */
function recordsTable(dataType: DataType, docs: Json[], at: { base: string; query?: string; orderBy?: string }): string {
  const columns = columnsFor(dataType, docs, fieldsNamed(at.query, at.orderBy));
  // Figures align right; figures, dates and the first column (a number or name that links) stay on one line.
  const classOf = (kind: string | undefined) => (kind === 'amount' || kind === 'number' ? 'num' : kind === 'date' ? 'date' : undefined);
  const rows = docs.map((d) => {
    const href = `${at.base}/${encodeURIComponent(String(d.id))}`;
    return columns.map((c, i) => {
      const text = h(cellText(valueAt(d, c.path), c.kind));
      // Every row links to its record from its first cell; a record without that value still gets a link.
      if (i === 0) return { html: `<a href="${h(href)}">${text || h(String(d.id))}</a>`, className: classOf(c.kind) ?? 'key' };
      return { html: text, className: classOf(c.kind) };
    });
  });
  const empty = at.query ? 'No records match this query.' : `No ${dataType} records yet: the last sync found none.`;
  return table(
    `${dataType} records`,
    columns.map((c) => ({ label: c.label, className: classOf(c.kind) === 'num' ? 'num' : undefined, field: c.path })),
    rows,
    { empty, captionHidden: true },
  );
}

function knownDataType(value: string): DataType {
  if (!isDataType(value)) throw new ApiError(404, `NotFound: ${value} is not a data type.`);
  return value;
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
