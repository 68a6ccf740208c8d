import type { FastifyInstance } from 'fastify';
import { ApiError } from '../http/api-error.js';
import type { CompaniesService } from '../companies/companies.service.js';
import type { DataSetsService } from '../data/data-sets.service.js';
import { findStatement, readStatement, STATEMENTS, type Statement } from '../data/statement-reports.js';
import { h, portalPage, sendPortalPage } from './portal-layout.js';
import { sessionOf } from './portal-session.js';
import { pageContext } from './portal-request.js';
import { formatAmount, formatDate } from './portal-format.js';

export interface StatementPagesDeps {
  companies: CompaniesService;
  dataSets: DataSetsService;
}

/** The choices of the period form; the API takes 1–12 months and up to 24 periods, a page shows fewer. */
const PERIOD_LENGTHS = [1, 3, 6, 12] as const;
const PERIOD_COUNTS = [1, 2, 3, 4, 6, 8, 12] as const;
/** Quarters over the last year: enough to compare, few enough columns to read on a phone (the table scrolls). */
const DEFAULT_LENGTH = 3;
const DEFAULT_COUNT = 4;

type ReportLine = { name?: string; accountId?: string; value: number; items?: ReportLine[] };
const isLine = (value: unknown): value is ReportLine =>
  typeof value === 'object' && value !== null && typeof (value as ReportLine).value === 'number';

/** A row of the statement table: a section, an account under it, or a total, with its figure in each period. */
export interface Row {
  label: string;
  kind: 'section' | 'line' | 'total';
  depth: number;
  values: (number | undefined)[];
}

/** The path to a company's statement page (`profitAndLoss`, `balanceSheet`, `cashFlowStatement`). */
export const statementPath = (companyId: string, segment: string) =>
  `/portal/companies/${encodeURIComponent(companyId)}/financials/${segment}`;

/** The three financial statements of a company, as the API's `/data/financials/…` answers them, in tables for people. */
export function registerStatementPages(scope: FastifyInstance, deps: StatementPagesDeps): void {
  const config = { public: true };

  scope.get<{
    Params: { companyId: string; statement: string };
    Querystring: { periodLength?: string; periodsToCompare?: string };
  }>('/companies/:companyId/financials/:statement', { config }, async (request, reply) => {
    const { client } = sessionOf(request);
    const ctx = pageContext(request);
    const { companyId } = request.params;
    const statement = findStatement(request.params.statement);
    if (!statement) throw new ApiError(404, `NotFound: ${request.params.statement} is not a financial statement.`);
    const company = JSON.parse(await deps.companies.get(client, companyId)) as { name: string };
    const periodLength = oneOf(request.query.periodLength, PERIOD_LENGTHS, DEFAULT_LENGTH);
    const periodsToCompare = oneOf(request.query.periodsToCompare, PERIOD_COUNTS, DEFAULT_COUNT);
    let body: string;
    let status = 200;
    try {
      const answer = await readStatement(deps.dataSets, client, companyId, statement, { periodLength, periodsToCompare });
      body = statementTable(statement, answer);
    } catch (err) {
      // Not synced yet (409) and the like: said where the figures would be, with the way back to sync it.
      if (!(err instanceof ApiError) || err.statusCode >= 500) throw err;
      status = err.statusCode;
      body = `<div class="notice error" role="alert">${h(err.message)}</div>`;
    }
    const others = STATEMENTS.map((s) => {
      const current = s.segment === statement.segment ? ' aria-current="page"' : '';
      return `<li><a href="${h(statementPath(companyId, s.segment))}"${current}>${h(s.title)}</a></li>`;
    }).join('');
    const main = `<p><a href="/portal/companies/${h(companyId)}">Back to ${h(company.name)}</a></p>
<nav class="tabs" aria-label="Financial statements"><ul>${others}</ul></nav>
${periodForm(companyId, statement, periodLength, periodsToCompare)}
<section class="card" aria-labelledby="statement-title"><h2 id="statement-title">${h(statement.title)}</h2>
<p class="hint">${h(explanation(statement))} The same figures as <code>GET /companies/${h(companyId)}/data/financials/${h(statement.segment)}</code>.</p>
${body}</section>`;
    return sendPortalPage(reply, portalPage(ctx, { title: `${statement.title} of ${company.name}`, section: 'companies', main }), status);
  });
}

function explanation(statement: Statement): string {
  if (statement.kind === 'position') return 'Each column is the position at the end of its period.';
  return statement.segment === 'cashFlowStatement'
    ? 'Each column adds up the months of its period (direct method).'
    : 'Each column adds up the months of its period (accrual basis).';
}

function oneOf<T extends number>(value: unknown, allowed: readonly T[], fallback: T): T {
  const n = Number(value);
  return (allowed as readonly number[]).includes(n) ? (n as T) : fallback;
}

function periodForm(companyId: string, statement: Statement, periodLength: number, periodsToCompare: number): string {
  const options = (values: readonly number[], selected: number, label: (n: number) => string) =>
    values.map((n) => `<option value="${n}"${n === selected ? ' selected' : ''}>${h(label(n))}</option>`).join('');
  const months = (n: number) => (n === 1 ? 'Months' : n === 3 ? 'Quarters' : n === 12 ? 'Years' : `${n} months`);
  return `<form method="get" action="${h(statementPath(companyId, statement.segment))}" class="card row" aria-label="Periods">
<div class="field"><label for="periodLength">Each column covers</label><select id="periodLength" name="periodLength">${options(PERIOD_LENGTHS, periodLength, months)}</select></div>
<div class="field"><label for="periodsToCompare">Columns</label><select id="periodsToCompare" name="periodsToCompare">${options(PERIOD_COUNTS, periodsToCompare, String)}</select></div>
<button type="submit">Show</button></form>`;
}

/** The statement as a table: one column per period (most recent first), sections with their accounts, then totals. */
function statementTable(statement: Statement, answer: { reports: Record<string, unknown>[]; currency?: string }): string {
  const { reports } = answer;
  if (reports.length === 0) return '<p class="empty">No months of data yet: sync this statement first.</p>';
  const rows = rowsOf(reports);
  const heads = reports.map((r) => `<th scope="col" class="num">${h(periodLabel(statement, r))}</th>`).join('');
  const body = rows
    .map((row) => {
      const cells = row.values.map((v) => `<td class="num">${v === undefined ? '' : h(formatAmount(v) ?? '')}</td>`).join('');
      return `<tr class="${row.kind} depth-${Math.min(row.depth, 3)}"><th scope="row">${h(row.label)}</th>${cells}</tr>`;
    })
    .join('\n');
  const caption = `${statement.title}${answer.currency ? `, amounts in ${answer.currency}` : ''}`;
  return `${answer.currency ? `<p>Amounts in ${h(answer.currency)}.</p>` : ''}<div class="scroll"><table class="statement"><caption class="sr-only">${h(caption)}</caption>
<thead><tr><th scope="col">Line</th>${heads}</tr></thead><tbody>${body}</tbody></table></div>`;
}

/** `Sep – Nov 2026` for a flow's period, `Nov 2026` for one month, the date for a position. */
function periodLabel(statement: Statement, report: Record<string, unknown>): string {
  if (statement.kind === 'position') return formatDate(report.date) ?? String(report.date ?? '');
  const from = formatDate(report.fromDate)?.replace(/^\d+ /, '');
  const to = formatDate(report.toDate)?.replace(/^\d+ /, '');
  if (!from || !to) return '';
  if (from === to) return to;
  return from.slice(-4) === to.slice(-4) ? `${from.slice(0, -5)} – ${to}` : `${from} – ${to}`;
}

/**
 * The rows of every period: a report line is a section row followed by its items, a plain figure (`grossProfit`) a
 * total row. Lines are matched across periods by account id, else name, else position, and merged as a tree before
 * it is flattened, so an account that only an older period holds still sits under its own section, not after the
 * totals. Order: as first seen, the most recent period first.
 */
export function rowsOf(reports: Record<string, unknown>[]): Row[] {
  interface Node extends Row {
    children: Map<string, Node>;
  }
  const roots = new Map<string, Node>();
  const nodeIn = (siblings: Map<string, Node>, key: string, make: () => Omit<Row, 'values'>): Node => {
    let node = siblings.get(key);
    if (!node) siblings.set(key, (node = { ...make(), values: reports.map(() => undefined), children: new Map() }));
    return node;
  };
  const walk = (siblings: Map<string, Node>, line: ReportLine, key: string, depth: number, period: number) => {
    const node = nodeIn(siblings, key, () => ({ label: line.name ?? key, kind: depth === 0 ? 'section' : 'line', depth }));
    node.values[period] = line.value;
    (line.items ?? []).forEach((item, i) => walk(node.children, item, item.accountId ?? item.name ?? `#${i}`, depth + 1, period));
  };
  reports.forEach((report, period) => {
    for (const [field, value] of Object.entries(report)) {
      if (isLine(value)) walk(roots, value, field, 0, period);
      else if (typeof value === 'number')
        nodeIn(roots, field, () => ({ label: words(field), kind: 'total', depth: 0 })).values[period] = value;
    }
  });
  const flatten = (nodes: Iterable<Node>): Row[] => [...nodes].flatMap(({ children, ...row }) => [row, ...flatten(children.values())]);
  return flatten(roots.values());
}

/** `netOperatingProfit` → `Net operating profit`. */
function words(field: string): string {
  const spaced = field.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}
