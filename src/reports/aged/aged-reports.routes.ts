import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Readable } from 'node:stream';
import { CompanyIdParams, errorResponses } from '../../http/responses.js';
import { callerOf } from '../../clients/caller.js';
import { AGING_BOUNDS } from './aging-periods.js';
import { AGED_REPORTS, type AgedReport, type AgedReportName, type AgedReportsService } from './aged-reports.service.js';

/*
 * GET /companies/{companyId}/reports/agedDebtor, …/agedCreditor and their /available (Codat's Lending API, operations
 * get-accounting-aged-debtors-report, is-aged-debtors-report-available and the creditors' pair).
 */

/** A day as Codat writes a report's dates: midnight UTC. */
const midnight = (day: string) => `${day}T00:00:00Z`;

const Amount = (description: string) => Type.Number({ description });

const PeriodSchema = Type.Object({
  fromDate: Type.String({ description: 'The period starts after this day (the last period: from 0001-01-01, open-ended).' }),
  toDate: Type.String({ description: 'The last day of the period, included.' }),
  amount: Amount('What is outstanding in the period: the sum of its details.'),
  details: Type.Array(
    Type.Object({
      name: Type.String({ description: 'What the amount comes from: the documents, the credit notes or money on account.' }),
      amount: Amount('What is outstanding from them in the period.'),
    }),
    { description: "Always the report's three details, in order." },
  ),
});

const CurrencySchema = Type.Object({
  currency: Type.String({ description: 'ISO 4217 code; `XXX` when the records name none. No conversion.' }),
  agedOutstandingAmounts: Type.Array(PeriodSchema, { description: 'Every period, newest first, zeros included.' }),
});

function reportSchema(name: AgedReportName) {
  const who = AGED_REPORTS[name].side === 'debtors' ? 'customer' : 'supplier';
  return Type.Object(
    {
      generated: Type.String({ format: 'date-time', description: 'When the report was made.' }),
      reportDate: Type.String({ description: 'The day the report is as at (midnight UTC): what stood at the end of that day.' }),
      data: Type.Array(
        Type.Object({
          [`${who}Id`]: Type.String({ description: `The ${who}'s id.` }),
          [`${who}Name`]: Type.Optional(
            Type.String({
              description: `The ${who}'s name (from its own record, else the first payment, document or credit note naming it).`,
            }),
          ),
          agedCurrencyOutstanding: Type.Array(CurrencySchema, { description: 'One entry per currency, by code.' }),
        }),
        { description: `One entry per ${who} with something outstanding, by name.` },
      ),
    },
    { description: `Aged ${AGED_REPORTS[name].side}: what is outstanding per ${who} and currency, by issue date.` },
  );
}

const AgingQuery = Type.Object({
  reportDate: Type.Optional(
    Type.String({ description: 'The day the report is as at, `yyyy-MM-dd` (that day at midnight is accepted). Default: today (UTC).' }),
  ),
  date: Type.Optional(Type.String({ description: "The report date's other name, as Codat's Lending SDK 4.x sends it." })),
  numberOfPeriods: Type.Optional(
    Type.Integer({ ...AGING_BOUNDS.numberOfPeriods, description: 'Periods in all, the last open-ended. Default 4.' }),
  ),
  periodLengthDays: Type.Optional(Type.Integer({ ...AGING_BOUNDS.periodLengthDays, description: 'Days in each period. Default 30.' })),
});

/** Pieces of the answer are handed to the socket once about this many characters are ready. */
const CHUNK = 64 * 1024;

/**
 * The report in Codat's shape, written out row by row: a company of tens of thousands of customers asked for many
 * periods answers hundreds of megabytes, more than one string can hold, so the JSON is streamed. A period with
 * nothing in it is the same text in every row, written once.
 */
function* servedJson(name: AgedReportName, report: AgedReport): Generator<string> {
  const who = AGED_REPORTS[name].side === 'debtors' ? 'customer' : 'supplier';
  const { table } = report;
  const dates = table.periods.map((p) => `"fromDate":"${midnight(p.fromDate)}","toDate":"${midnight(p.toDate)}"`);
  const emptyDetails = JSON.stringify(table.details.map((detail) => ({ name: detail, amount: 0 })));
  const empty = dates.map((period) => `{${period},"amount":0,"details":${emptyDetails}}`);
  // A detail's text up to its amount. A finite number is written as JSON writes it (String's text); a sum beyond the
  // largest double (10^308 and more) as JSON.stringify writes it too, null.
  const number = (amount: number) => (Number.isFinite(amount) ? String(amount) : 'null');
  const detailHeads = table.details.map((detail, d) => `${d > 0 ? ',' : ''}{"name":${JSON.stringify(detail)},"amount":`);
  const periodText = (cell: number, p: number): string => {
    if (table.isEmpty(cell, p)) return empty[p];
    let text = `{${dates[p]},"amount":${number(table.amount(cell, p))},"details":[`;
    for (let d = 0; d < detailHeads.length; d++) text += `${detailHeads[d]}${number(table.amount(cell, p, d))}}`;
    return `${text}]}`;
  };
  let buffer = `{"generated":${JSON.stringify(report.generated)},"reportDate":"${midnight(report.parameters.reportDate)}","data":[`;
  let first = true;
  for (const entry of table.entries) {
    buffer += `${first ? '' : ','}{"${who}Id":${JSON.stringify(entry.counterpartyId)}`;
    first = false;
    if (entry.counterpartyName !== undefined) buffer += `,"${who}Name":${JSON.stringify(entry.counterpartyName)}`;
    buffer += ',"agedCurrencyOutstanding":[';
    entry.rows.forEach(({ currency, cell }, c) => {
      buffer += `${c > 0 ? ',' : ''}{"currency":${JSON.stringify(currency)},"agedOutstandingAmounts":[`;
      for (let p = 0; p < dates.length; p++) buffer += `${p > 0 ? ',' : ''}${periodText(cell, p)}`;
      buffer += ']}';
    });
    buffer += ']}';
    // Pieces are pulled as the socket drains: the whole answer is never held at once.
    if (buffer.length >= CHUNK) {
      yield buffer;
      buffer = '';
    }
  }
  yield `${buffer}]}`;
}

export function registerAgedReportRoutes(app: FastifyInstance, deps: { agedReports: AgedReportsService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  for (const name of Object.keys(AGED_REPORTS) as AgedReportName[]) {
    const side = AGED_REPORTS[name].side;
    const short = side === 'debtors' ? 'debtors' : 'creditors';
    r.get(
      `/companies/:companyId/reports/${name}/available`,
      {
        schema: {
          operationId: `is-aged-${short}-report-available`,
          summary: `Aged ${short} report available`,
          description: `Whether the aged ${short} report can be made: its inputs (${[AGED_REPORTS[name].documents, AGED_REPORTS[name].counterparties, AGED_REPORTS[name].payments].join(', ')}) have synced.`,
          tags: ['Lending reports'],
          params: CompanyIdParams,
          response: { 200: Type.Boolean(), ...errorResponses(404) },
        },
      },
      async (request) => deps.agedReports.available(callerOf(request), request.params.companyId, name),
    );
    r.get(
      `/companies/:companyId/reports/${name}`,
      {
        schema: {
          operationId: `get-accounting-aged-${short}-report`,
          summary: `Aged ${short} report`,
          description: `What is outstanding per ${side === 'debtors' ? 'customer' : 'supplier'} and currency as at the report date, in periods counted back from it by issue date (docs/lending/aged-reports.md). 409 until its inputs have synced.`,
          tags: ['Lending reports'],
          params: CompanyIdParams,
          querystring: AgingQuery,
          response: { 200: reportSchema(name), ...errorResponses(404, 409) },
        },
      },
      // Streamed (servedJson) rather than through the schema's serialiser: the answer can be larger than one string
      // holds. The stream is the schema's shape, as the contract test checks.
      async (request, reply) => {
        const report = await deps.agedReports.report(callerOf(request), request.params.companyId, name, request.query);
        return reply.type('application/json; charset=utf-8').send(Readable.from(servedJson(name, report), { objectMode: false }) as never);
      },
    );
  }
}
