import { XMLParser } from 'fast-xml-parser';
import { addDecimals, compareDecimals, negateDecimal, parseDecimal } from '../../lib/decimal.js';
import { reconciles } from './reconcile.js';
import { StatementError, type ParsedStatement, type StatementBalance, type StatementTransaction } from './statement.js';

/**
 * ISO 20022 CAMT.053 (`BkToCstmrStmt`, versions 001.02 to 001.08), read with fast-xml-parser; every value stays a
 * string, so amounts never pass through a float.
 *
 * Transactions: one per `TxDtls` when every detail of an entry carries its own amount in the account's currency and
 * those amounts add up to the entry's; otherwise one per `Ntry` (a batch booked as one sum, `NbOfTxs` > 1, whose
 * details have no amounts of their own, stays one transaction, as the statement's balances count it).
 */

type Node = Record<string, unknown>;
const LIST = new Set(['Stmt', 'Bal', 'Ntry', 'NtryDtls', 'TxDtls', 'Ustrd', 'AddtlNtryInf']);
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) => LIST.has(name),
  processEntities: true,
});

const at = (node: unknown, ...path: string[]): unknown => path.reduce<unknown>((n, key) => (n && typeof n === 'object' ? (n as Node)[key] : undefined), node);
const text = (node: unknown): string | undefined => {
  if (typeof node === 'string') return node;
  if (node && typeof node === 'object' && typeof (node as Node)['#text'] === 'string') return (node as Node)['#text'] as string;
  return undefined;
};
const list = (node: unknown): Node[] => (Array.isArray(node) ? (node as Node[]) : node ? [node as Node] : []);

function amountOf(node: unknown, where: string): { amount: string; currency?: string } {
  const raw = text(node);
  const value = raw === undefined ? undefined : parseDecimal(raw, '.');
  if (value === undefined) throw new StatementError(`${JSON.stringify(raw ?? '')} is not an amount`, where);
  const currency = node && typeof node === 'object' ? ((node as Node)['@Ccy'] as string | undefined) : undefined;
  return { amount: value, currency };
}

const signed = (amount: string, indicator: unknown) => (indicator === 'DBIT' ? negateDecimal(amount) : amount);
const dayOf = (node: unknown): string | undefined => (text(at(node, 'Dt')) ?? text(at(node, 'DtTm')))?.slice(0, 10);

/** The document's version (`camt.053.001.04` → 4), from its namespace; undefined when none is declared. */
export function camtVersion(xml: string): number | undefined {
  const m = /camt\.053\.001\.(\d{2})/.exec(xml);
  return m ? Number(m[1]) : undefined;
}

export function parseCamt053(xml: string): ParsedStatement[] {
  const version = camtVersion(xml);
  if (version !== undefined && (version < 2 || version > 8)) throw new StatementError(`camt.053.001.${String(version).padStart(2, '0')} is not a supported version (001.02 to 001.08)`, 'Document');
  let doc: unknown;
  try {
    doc = parser.parse(xml, true);
  } catch (err) {
    const e = err as { message?: string; err?: { line?: number; msg?: string } };
    throw new StatementError(`not well-formed XML: ${e.err?.msg ?? e.message}`, e.err?.line ? `line ${e.err.line}` : undefined);
  }
  const root = at(doc, 'Document', 'BkToCstmrStmt');
  if (!root) throw new StatementError('no BkToCstmrStmt (not a CAMT.053 statement)', 'Document');
  const statements = list(at(root, 'Stmt'));
  if (statements.length === 0) throw new StatementError('the file holds no statement (BkToCstmrStmt has no Stmt)', 'BkToCstmrStmt');
  return statements.map((stmt, s) => statementOf(stmt, `Stmt[${s + 1}]`));
}

function statementOf(stmt: Node, where: string): ParsedStatement {
  const acct = at(stmt, 'Acct');
  const iban = text(at(acct, 'Id', 'IBAN'));
  const other = text(at(acct, 'Id', 'Othr', 'Id'));
  const identifier = iban ?? other;
  if (!identifier) throw new StatementError('no account identification (Acct/Id/IBAN or Othr/Id)', `${where}/Acct`);
  const balances = list(at(stmt, 'Bal')).map((bal, b) => {
    const code = text(at(bal, 'Tp', 'CdOrPrtry', 'Cd')) ?? text(at(bal, 'Tp', 'CdOrPrtry', 'Prtry'));
    const { amount, currency } = amountOf(at(bal, 'Amt'), `${where}/Bal[${b + 1}]/Amt`);
    const date = dayOf(at(bal, 'Dt'));
    if (!date) throw new StatementError('a balance without a date', `${where}/Bal[${b + 1}]/Dt`);
    return { code, balance: { amount: signed(amount, text(at(bal, 'CdtDbtInd'))), date } as StatementBalance, currency };
  });
  const find = (...codes: string[]) => codes.map((c) => balances.find((b) => b.code === c)).find(Boolean);
  const opening = find('OPBD', 'PRCD', 'OPAV');
  const closing = find('CLBD', 'CLAV');
  const available = find('CLAV', 'ITAV');
  const currency = text(at(acct, 'Ccy')) ?? opening?.currency ?? closing?.currency;
  const transactions: StatementTransaction[] = [];
  list(at(stmt, 'Ntry')).forEach((entry, n) => transactions.push(...entryTransactions(entry, `${where}/Ntry[${n + 1}]`, currency)));
  const accountCurrency = currency ?? transactions[0]?.currency;
  if (!accountCurrency) throw new StatementError('no currency (Acct/Ccy or an amount Ccy)', `${where}/Acct`);
  const period = at(stmt, 'FrToDt');
  const dates = transactions.map((t) => t.bookingDate).sort();
  const statement: ParsedStatement = {
    format: 'CAMT.053',
    account: { identifier, ...(iban ? { iban } : { number: other }), ...(text(at(acct, 'Svcr', 'FinInstnId', 'BIC')) ? { bic: text(at(acct, 'Svcr', 'FinInstnId', 'BIC')) } : {}), currency: accountCurrency },
    ...(text(at(stmt, 'Id')) ? { reference: text(at(stmt, 'Id')) } : {}),
    from: (text(at(period, 'FrDtTm')) ?? opening?.balance.date ?? dates[0] ?? closing?.balance.date ?? '').slice(0, 10),
    to: (text(at(period, 'ToDtTm')) ?? closing?.balance.date ?? dates[dates.length - 1] ?? '').slice(0, 10),
    ...(opening ? { opening: opening.balance } : {}),
    ...(closing ? { closing: closing.balance } : {}),
    ...(available ? { available: available.balance } : {}),
    transactions,
    reconciles: null,
  };
  if (!statement.from || !statement.to) throw new StatementError('no period: no balances, no entries, no FrToDt', where);
  statement.reconciles = reconciles(statement);
  return statement;
}

function entryTransactions(entry: Node, where: string, accountCurrency: string | undefined): StatementTransaction[] {
  const { amount, currency } = amountOf(at(entry, 'Amt'), `${where}/Amt`);
  const indicator = text(at(entry, 'CdtDbtInd'));
  if (indicator !== 'CRDT' && indicator !== 'DBIT') throw new StatementError('CdtDbtInd must be CRDT or DBIT', `${where}/CdtDbtInd`);
  const bookingDate = dayOf(at(entry, 'BookgDt')) ?? dayOf(at(entry, 'ValDt'));
  if (!bookingDate) throw new StatementError('an entry without a booking date', `${where}/BookgDt`);
  const valueDate = dayOf(at(entry, 'ValDt'));
  const entryCurrency = currency ?? accountCurrency ?? '';
  const base: Omit<StatementTransaction, 'amount' | 'description'> = {
    bookingDate, ...(valueDate ? { valueDate } : {}), currency: entryCurrency,
    ...(bankCode(at(entry, 'BkTxCd')) ? { bankCode: bankCode(at(entry, 'BkTxCd')) } : {}),
  };
  const entryId = text(at(entry, 'AcctSvcrRef')) ?? text(at(entry, 'NtryRef'));
  const details = list(at(entry, 'NtryDtls')).flatMap((d) => list(at(d, 'TxDtls')));
  const detailAmounts = details.map((d) => {
    const node = at(d, 'AmtDtls', 'TxAmt', 'Amt') ?? at(d, 'Amt');
    if (!node) return undefined;
    const a = amountOf(node, `${where}/TxDtls/Amt`);
    return a.currency && a.currency !== entryCurrency ? undefined : a.amount;
  });
  const split = details.length > 1 && detailAmounts.every((a) => a !== undefined) && compareDecimals(addDecimals(detailAmounts as string[]), amount) === 0;
  if (!split) {
    const description = [...details.map(detailText), ...list(at(entry, 'AddtlNtryInf')).map(text)].filter(Boolean).join(' ').trim();
    return [{ ...(entryId ? { id: entryId } : {}), ...base, amount: signed(amount, indicator), description }];
  }
  return details.map((d, k) => {
    const id = text(at(d, 'Refs', 'AcctSvcrRef')) ?? text(at(d, 'Refs', 'TxId')) ?? (entryId ? `${entryId}/${k + 1}` : undefined);
    const code = bankCode(at(d, 'BkTxCd'));
    return { ...(id ? { id } : {}), ...base, ...(code ? { bankCode: code } : {}), amount: signed(detailAmounts[k] as string, text(at(d, 'CdtDbtInd')) ?? indicator), description: detailText(d) };
  });
}

/** Counterparty and remittance text of a transaction's details. */
function detailText(d: Node): string {
  const indicator = text(at(d, 'CdtDbtInd'));
  const parties = at(d, 'RltdPties');
  const party = text(at(parties, indicator === 'CRDT' ? 'Dbtr' : 'Cdtr', 'Nm')) ?? text(at(parties, 'Dbtr', 'Nm')) ?? text(at(parties, 'Cdtr', 'Nm'))
    ?? text(at(parties, 'Dbtr', 'Pty', 'Nm')) ?? text(at(parties, 'Cdtr', 'Pty', 'Nm'));
  const remittance = list(at(d, 'RmtInf', 'Ustrd')).map(text).filter(Boolean).join(' ');
  return [party, remittance || text(at(d, 'AddtlTxInf'))].filter(Boolean).join(' ').replace(/\s+/g, ' ').trim();
}

/** `PMNT-RCDT-ESCT` from the ISO domain code, or the proprietary code. */
function bankCode(node: unknown): string | undefined {
  const domain = at(node, 'Domn');
  const iso = [text(at(domain, 'Cd')), text(at(domain, 'Fmly', 'Cd')), text(at(domain, 'Fmly', 'SubFmlyCd'))].filter(Boolean).join('-');
  return iso || text(at(node, 'Prtry', 'Cd')) || undefined;
}
