import type { Client } from '../../clients/clients.store.js';
import type { CompaniesService } from '../../companies/companies.service.js';
import type { DataType } from '../../codat-model/data-types.js';
import type { PageRequest } from '../../http/paging.js';
import { clockFor } from '../../lib/clock.js';
import type { RecordReader } from '../../records/record-reader.js';
import { notSynced } from '../report-requests.js';
import type { IntegrityFacts } from '../integrity/integrity-facts.js';

/*
 * Enhanced invoices (docs/lending/enhanced-invoices.md): a page of the company's invoices, each with its payments, and
 * each payment with the bank transactions that settled it: invoice → payment allocation → the account transaction
 * that moved the payment through a bank account (its line names the payment) → what data integrity matched it to
 * (../integrity/). Without a banking connection (or account transactions) the payments come without references.
 */

type Data = Record<string, any>;
type Doc = string | Buffer;

export interface EnhancedInvoicesDeps {
  dataSets: {
    synced(client: Client, companyId: string, dataTypes: readonly DataType[]): Promise<(number[] | undefined)[]>;
    list(client: Client, companyId: string, dataType: DataType, page: PageRequest): Promise<{ records: Doc[]; totalResults: number }>;
  };
  records: Pick<RecordReader, 'byIds'>;
  companies: Pick<CompaniesService, 'owned'>;
  integrity: { transactionMatches(client: Client, companyId: string): Promise<IntegrityFacts | undefined> };
}

/** What the report needs synced: the invoices and their payments (credit notes and customers are read when synced). */
const REQUIRED = ['invoices', 'payments'] as const;
const OPTIONAL = ['creditNotes', 'customers'] as const;

export interface BankingTransactionRef {
  id: string;
  dataConnectionId: string;
  accountId: string;
  accountName?: string;
  date?: string;
  description?: string;
  amount?: number;
}

/** For each payment an account transaction's lines name, the account transactions, by index. */
const settledBy = new WeakMap<IntegrityFacts, Map<string, number[]>>();
function accountTransactionsOf(facts: IntegrityFacts): Map<string, number[]> {
  let map = settledBy.get(facts);
  if (!map) {
    map = new Map();
    facts.accounting.transactions.forEach((entry, index) => {
      for (const { id, dataType } of entry.settles) {
        if (dataType !== 'payments') continue;
        const list = map!.get(id);
        if (list) list.push(index);
        else map!.set(id, [index]);
      }
    });
    settledBy.set(facts, map);
  }
  return map;
}

const parse = (doc: Doc | string): Data => JSON.parse(typeof doc === 'string' ? doc : doc.toString('utf8')) as Data;
/** A field of a record when it is text (or a number), else nothing: the report copies fields it can vouch for. */
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const number = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
/** `{ [key]: value }` when there is a value, else nothing (spread into a record). */
const field = <K extends string, V>(key: K, value: V | undefined) => (value === undefined ? {} : ({ [key]: value } as Record<K, V>));

export function createEnhancedInvoicesService(deps: EnhancedInvoicesDeps) {
  /** The bank transactions that settled a payment: its account transactions' matches, in their order. */
  function bankRefs(facts: IntegrityFacts | undefined, recordId: string): BankingTransactionRef[] {
    if (!facts) return [];
    const refs: BankingTransactionRef[] = [];
    for (const a of accountTransactionsOf(facts).get(recordId) ?? []) {
      for (const { entry } of facts.accounting.transactions[a].matches) {
        const line = facts.banking.transactions[entry];
        const account = facts.banking.accounts.find((acc) => acc.id === line.account && acc.connectionId === line.connectionId);
        refs.push({
          id: line.recordId,
          dataConnectionId: line.connectionId,
          accountId: line.account,
          ...(account?.accountName !== undefined && { accountName: account.accountName }),
          ...(line.date !== undefined && { date: line.date }),
          description: line.description,
          ...(line.amount !== undefined && { amount: line.amount }),
        });
      }
    }
    return refs;
  }

  return {
    /** A page of invoices with their payments and bank references; 409 until invoices and payments have synced. */
    async report(client: Client, companyId: string, page: PageRequest) {
      const company = parse((await deps.companies.owned(client, companyId)).doc);
      const [invoices, payments, creditNotes, customers] = await deps.dataSets.synced(client, companyId, [...REQUIRED, ...OPTIONAL]);
      const missing = REQUIRED.filter((_, i) => [invoices, payments][i] === undefined);
      if (missing.length > 0) throw notSynced('enhancedInvoices', missing);
      const listed = await deps.dataSets.list(client, companyId, 'invoices', page);
      const items = listed.records.map(parse);

      // The payments (or credit notes) each invoice's allocations name, read in one go for the page.
      const allocated = items.flatMap((invoice) =>
        ((invoice.paymentAllocations ?? []) as Data[]).map((a) => a?.payment?.id).filter((id): id is string => typeof id === 'string'),
      );
      const paymentDocs = await deps.records.byIds(payments ?? [], allocated);
      const creditDocs = creditNotes
        ? await deps.records.byIds(
            creditNotes,
            allocated.filter((id) => !paymentDocs.has(id)),
          )
        : new Map();
      const customerIds = items.map((i) => i.customerRef?.id).filter((id): id is string => typeof id === 'string' && id !== '');
      const customerDocs = customers ? await deps.records.byIds(customers, customerIds) : new Map<string, string>();
      const facts = await deps.integrity.transactionMatches(client, companyId);

      const reportItems = items.map((invoice) => {
        const customerId = text(invoice.customerRef?.id);
        const customer = customerId !== undefined ? customerDocs.get(customerId) : undefined;
        const customerName = text(customer ? parse(customer).customerName : invoice.customerRef?.companyName);
        return {
          id: String(invoice.id),
          ...field('invoiceNumber', text(invoice.invoiceNumber)),
          ...field('customerRef', customerId === undefined ? undefined : { id: customerId, ...field('customerName', customerName) }),
          ...field('issueDate', text(invoice.issueDate)),
          ...field('dueDate', text(invoice.dueDate)),
          ...field('paidOnDate', text(invoice.paidOnDate)),
          ...field('status', text(invoice.status)),
          ...field('currency', text(invoice.currency)),
          ...field('totalAmount', number(invoice.totalAmount)),
          ...field('amountDue', number(invoice.amountDue)),
          ...field('modifiedDate', text(invoice.modifiedDate)),
          ...field('sourceModifiedDate', text(invoice.sourceModifiedDate)),
          payments: ((invoice.paymentAllocations ?? []) as Data[]).flatMap((allocation) => {
            const id = text(allocation?.payment?.id);
            if (id === undefined) return [];
            const payment = paymentDocs.get(id);
            const paymentType = !payment && creditDocs.has(id) ? 'creditNotes' : 'payments';
            const record = payment ? parse(payment) : {};
            return [
              {
                id,
                ...field('date', text(allocation.payment?.paidOnDate ?? record.date ?? allocation.allocation?.allocatedOnDate)),
                paymentType,
                ...field('amount', number(allocation.allocation?.totalAmount ?? allocation.payment?.totalAmount)),
                ...field('currency', text(allocation.allocation?.currency ?? allocation.payment?.currency ?? record.currency)),
                ...field(
                  'currencyRate',
                  number(allocation.allocation?.currencyRate ?? allocation.payment?.currencyRate ?? record.currencyRate),
                ),
                bankingTransactionRefs: paymentType === 'payments' ? bankRefs(facts, id) : [],
              },
            ];
          }),
        };
      });
      return {
        reportInfo: {
          pageNumber: page.page,
          pageSize: page.pageSize,
          totalResults: listed.totalResults,
          reportName: 'Invoices report',
          ...field('companyName', text(company.name)),
          generatedDate: clockFor({ clientId: client.id, companyId }).now().toISOString(),
        },
        reportItems,
      };
    },
  };
}

export type EnhancedInvoicesService = ReturnType<typeof createEnhancedInvoicesService>;
