import { SaxesParser } from 'saxes';
import { isCalendarDate } from '../../lib/calendar-date.js';
import { addDecimals, compareDecimals, negateDecimal, parseDecimal } from '../../lib/decimal.js';
import { reconciles } from './reconcile.js';
import {
  own,
  ownAccount,
  keptTransaction,
  StatementError,
  type ParsedStatement,
  type StatementBalance,
  type StatementTransaction,
} from './statement.js';

/**
 * ISO 20022 CAMT.053 (`BkToCstmrStmt`, versions 001.02 to 001.13), read with saxes (a streaming, strict XML parser:
 * jsdom's): each `Ntry` is built as a small tree, turned into transactions as soon as it closes and dropped, so a
 * large statement never exists as a whole document in memory. Every value stays a string, so amounts never pass
 * through a float.
 *
 * Transactions: one per `TxDtls` when every detail of an entry carries its own amount in the account's currency and
 * those amounts add up to the entry's; otherwise one per `Ntry` (a batch booked as one sum, `NbOfTxs` > 1, whose
 * details have no amounts of their own, stays one transaction, as the statement's balances count it).
 */

/** An element as a plain object: children by local name (lists for LIST names), `@attr`, `#text` beside children. */
type Node = Record<string, unknown>;
const LIST = new Set(['Stmt', 'Bal', 'Ntry', 'NtryDtls', 'TxDtls', 'Ustrd', 'AddtlNtryInf']);

const at = (node: unknown, ...path: string[]): unknown => {
  let n = node;
  for (const key of path) n = n && typeof n === 'object' ? (n as Node)[key] : undefined;
  return n;
};
const text = (node: unknown): string | undefined => {
  if (typeof node === 'string') return node;
  if (node && typeof node === 'object' && typeof (node as Node)['#text'] === 'string') return (node as Node)['#text'] as string;
  return undefined;
};
const list = (node: unknown): Node[] => (Array.isArray(node) ? (node as Node[]) : node ? [node as Node] : []);

/** `where` names the element for an error: built only when there is one (an entry is read tens of thousands of times). */
function amountOf(node: unknown, where: () => string): { amount: string; currency?: string } {
  const raw = text(node);
  const value = raw === undefined ? undefined : parseDecimal(raw, '.');
  if (value === undefined) throw new StatementError(`${JSON.stringify(raw ?? '')} is not an amount`, where());
  const currency = node && typeof node === 'object' ? ((node as Node)['@Ccy'] as string | undefined) : undefined;
  return { amount: value, currency };
}

const signed = (amount: string, indicator: unknown) => (indicator === 'DBIT' ? negateDecimal(amount) : amount);
/** The day of a `Dt` or `DtTm`, checked; undefined when there is neither. */
function dayOf(node: unknown, where: () => string): string | undefined {
  const day = (text(at(node, 'Dt')) ?? text(at(node, 'DtTm')))?.slice(0, 10);
  if (day !== undefined && !isCalendarDate(day)) throw new StatementError(`${JSON.stringify(day)} is not a date`, where());
  return day;
}

/**
 * The document's version (`camt.053.001.04` → 4), from the namespace its root declares (at the start: a remittance
 * text further on may name any version); undefined when none is declared.
 */
function camtVersion(xml: string): number | undefined {
  const root = /<([\w.-]+:)?Document[\s>][^>]*>/.exec(xml.slice(0, 65_536))?.[0] ?? '';
  const m = /camt\.053\.001\.(\d{2})/.exec(root);
  return m ? Number(m[1]) : undefined;
}

export function parseCamt053(xml: string): ParsedStatement[] {
  const version = camtVersion(xml);
  if (version !== undefined && (version < 2 || version > 13))
    throw new StatementError(`camt.053.001.${String(version).padStart(2, '0')} is not a supported version (001.02 to 001.13)`, 'Document');
  const statements: ParsedStatement[] = [];
  /** Open elements, outermost first: local name, text, and a node once it has attributes or children (a leaf needs none). */
  const stack: { name: string; node: Node | undefined; text: string }[] = [];
  // Where the elements that matter sit: Document (depth 1), BkToCstmrStmt (2), Stmt (3), Ntry (4).
  const inRoot = () => stack.length >= 2 && stack[0].name === 'Document' && stack[1].name === 'BkToCstmrStmt';
  let sawRoot = false;
  let entries: StatementTransaction[] = [];
  let entryCount = 0;
  const parser = new SaxesParser({ position: true });
  parser.on('opentag', (tag) => {
    const name = localName(tag.name);
    let node: Node | undefined;
    for (const attr in tag.attributes) {
      if (attr.startsWith('xmlns')) continue;
      (node ??= Object.create(null) as Node)[`@${localName(attr)}`] = tag.attributes[attr];
    }
    stack.push({ name, node, text: '' });
    if (stack.length === 2 && inRoot()) sawRoot = true;
    if (stack.length === 3 && name === 'Stmt' && inRoot()) {
      entries = [];
      entryCount = 0;
    }
  });
  parser.on('text', (t) => {
    if (stack.length > 0) stack[stack.length - 1].text += t;
  });
  parser.on('cdata', (t) => {
    if (stack.length > 0) stack[stack.length - 1].text += t;
  });
  parser.on('closetag', () => {
    const element = stack.pop() as { name: string; node: Node | undefined; text: string };
    const depth = stack.length + 1;
    const content = element.text.length > 0 ? element.text.trim() : '';
    const value: unknown = element.node ? (content ? { ...element.node, '#text': content } : element.node) : content;
    if (depth === 4 && element.name === 'Ntry' && stack[2].name === 'Stmt' && inRoot()) {
      entryCount++;
      const s = statements.length + 1;
      const n = entryCount;
      for (const t of entryTransactions((value || {}) as Node, () => `Stmt[${s}]/Ntry[${n}]`, text(at(stack[2].node, 'Acct', 'Ccy'))))
        entries.push(t);
      return;
    }
    if (depth === 3 && element.name === 'Stmt' && inRoot()) {
      statements.push(statementOf((value || {}) as Node, `Stmt[${statements.length + 1}]`, entries));
      entries = [];
      return;
    }
    const parentEntry = stack[stack.length - 1];
    if (!parentEntry) return;
    // Without a prototype: an element named like one of Object's properties (`__proto__`) is data like any other.
    const parent = (parentEntry.node ??= Object.create(null) as Node);
    if (LIST.has(element.name)) ((parent[element.name] ??= []) as unknown[]).push(value);
    else parent[element.name] = value;
  });
  try {
    parser.write(xml).close();
  } catch (err) {
    // saxes' own refusals of the text, `<line>:<column>: <message>`; anything else (a StatementError of an entry,
    // a fault here) as it is.
    const m = err instanceof Error && !(err instanceof StatementError) ? /^(\d+):(\d+): (.*)$/s.exec(err.message) : null;
    if (!m) throw err;
    throw new StatementError(`not well-formed XML: ${m[3]}`, `line ${m[1]}`);
  }
  if (!sawRoot) throw new StatementError('no BkToCstmrStmt (not a CAMT.053 statement)', 'Document');
  if (statements.length === 0) throw new StatementError('the file holds no statement (BkToCstmrStmt has no Stmt)', 'BkToCstmrStmt');
  return statements;
}

const localName = (name: string) => name.slice(name.indexOf(':') + 1);

function statementOf(stmt: Node, where: string, transactions: StatementTransaction[]): ParsedStatement {
  const acct = at(stmt, 'Acct');
  const iban = text(at(acct, 'Id', 'IBAN'));
  const other = text(at(acct, 'Id', 'Othr', 'Id'));
  const identifier = iban ?? other;
  if (!identifier) throw new StatementError('no account identification (Acct/Id/IBAN or Othr/Id)', `${where}/Acct`);
  const balances = list(at(stmt, 'Bal')).map((bal, b) => {
    const code = text(at(bal, 'Tp', 'CdOrPrtry', 'Cd')) ?? text(at(bal, 'Tp', 'CdOrPrtry', 'Prtry'));
    const { amount, currency } = amountOf(at(bal, 'Amt'), () => `${where}/Bal[${b + 1}]/Amt`);
    const date = dayOf(at(bal, 'Dt'), () => `${where}/Bal[${b + 1}]/Dt`);
    if (!date) throw new StatementError('a balance without a date', `${where}/Bal[${b + 1}]/Dt`);
    return { code, balance: { amount: signed(amount, text(at(bal, 'CdtDbtInd'))), date } as StatementBalance, currency };
  });
  const find = (...codes: string[]) => codes.map((c) => balances.find((b) => b.code === c)).find(Boolean);
  // Booked balances first; a statement with none is read from its available ones, and says so (notes).
  const opening = find('OPBD', 'PRCD', 'OPAV');
  const closing = find('CLBD', 'CLAV');
  const notes: string[] = [];
  if (opening?.code === 'OPAV')
    notes.push('it has no booked opening balance (OPBD or PRCD): its opening balance is the available one, OPAV');
  if (closing?.code === 'CLAV') notes.push('it has no booked closing balance (CLBD): its closing balance is the available one, CLAV');
  const available = find('CLAV', 'ITAV');
  // The account's currency: its own (Acct/Ccy), else its booked balances', else its entries'; an available balance
  // may be given in another currency.
  const booked = (code: string | undefined) => code === 'OPBD' || code === 'PRCD' || code === 'CLBD';
  const currency =
    text(at(acct, 'Ccy')) ??
    (booked(opening?.code) ? opening?.currency : undefined) ??
    (booked(closing?.code) ? closing?.currency : undefined) ??
    transactions.find((t) => t.currency)?.currency ??
    opening?.currency ??
    closing?.currency;
  // An entry without its own currency is in the account's (Acct/Ccy, else the balances').
  for (const t of transactions) if (!t.currency && currency) t.currency = currency;
  const accountCurrency = currency ?? transactions[0]?.currency;
  if (!accountCurrency) throw new StatementError('no currency (Acct/Ccy or an amount Ccy)', `${where}/Acct`);
  const period = at(stmt, 'FrToDt');
  let first: string | undefined;
  let last: string | undefined;
  for (const t of transactions) {
    if (first === undefined || t.bookingDate < first) first = t.bookingDate;
    if (last === undefined || t.bookingDate > last) last = t.bookingDate;
  }
  const statement: ParsedStatement = {
    format: 'CAMT.053',
    account: ownAccount({
      identifier,
      ...(iban ? { iban } : { number: other }),
      ...(text(at(acct, 'Svcr', 'FinInstnId', 'BIC')) ? { bic: text(at(acct, 'Svcr', 'FinInstnId', 'BIC')) } : {}),
      currency: accountCurrency,
    }),
    ...(text(at(stmt, 'Id')) ? { reference: own(text(at(stmt, 'Id'))) } : {}),
    from: (text(at(period, 'FrDtTm')) ?? opening?.balance.date ?? first ?? closing?.balance.date ?? '').slice(0, 10),
    to: (text(at(period, 'ToDtTm')) ?? closing?.balance.date ?? last ?? opening?.balance.date ?? '').slice(0, 10),
    ...(opening ? { opening: opening.balance } : {}),
    ...(closing ? { closing: closing.balance } : {}),
    ...(available ? { available: available.balance } : {}),
    transactions,
    reconciles: null,
    ...(notes.length > 0 ? { notes } : {}),
  };
  if (!statement.from || !statement.to) throw new StatementError('no period: no balances, no entries, no FrToDt', where);
  if (!isCalendarDate(statement.from) || !isCalendarDate(statement.to))
    throw new StatementError(`${statement.from} to ${statement.to} is not a period of dates`, `${where}/FrToDt`);
  statement.reconciles = reconciles(statement);
  return statement;
}

function entryTransactions(entry: Node, where: () => string, accountCurrency: string | undefined): StatementTransaction[] {
  const { amount, currency } = amountOf(at(entry, 'Amt'), () => `${where()}/Amt`);
  const indicator = text(at(entry, 'CdtDbtInd'));
  if (indicator !== 'CRDT' && indicator !== 'DBIT') throw new StatementError('CdtDbtInd must be CRDT or DBIT', `${where()}/CdtDbtInd`);
  const valueDate = dayOf(at(entry, 'ValDt'), () => `${where()}/ValDt`);
  const bookingDate = dayOf(at(entry, 'BookgDt'), () => `${where()}/BookgDt`) ?? valueDate;
  if (!bookingDate) throw new StatementError('an entry without a booking date', `${where()}/BookgDt`);
  const entryCurrency = currency ?? accountCurrency ?? '';
  const entryCode = bankCode(at(entry, 'BkTxCd'));
  const entryId = text(at(entry, 'AcctSvcrRef')) ?? text(at(entry, 'NtryRef'));
  const details: Node[] = [];
  for (const d of list(at(entry, 'NtryDtls'))) for (const t of list(at(d, 'TxDtls'))) details.push(t);
  const make = (id: string | undefined, code: string | undefined, signedAmount: string, description: string): StatementTransaction => {
    return keptTransaction({
      id: id || undefined,
      bookingDate,
      valueDate,
      amount: signedAmount,
      currency: entryCurrency,
      description,
      bankCode: code || undefined,
    });
  };
  // One transaction per detail only when there are several, each with its own amount in the entry's currency, adding up to the entry's.
  let detailAmounts: string[] | undefined;
  if (details.length > 1) {
    detailAmounts = [];
    for (const d of details) {
      const node = at(d, 'AmtDtls', 'TxAmt', 'Amt') ?? at(d, 'Amt');
      const a = node ? amountOf(node, () => `${where()}/TxDtls/Amt`) : undefined;
      if (!a || (a.currency && a.currency !== entryCurrency)) {
        detailAmounts = undefined;
        break;
      }
      detailAmounts.push(a.amount);
    }
    if (detailAmounts && compareDecimals(addDecimals(detailAmounts), amount) !== 0) detailAmounts = undefined;
  }
  if (!detailAmounts) {
    const parts: string[] = [];
    for (const d of details) parts.push(detailText(d));
    for (const info of list(at(entry, 'AddtlNtryInf'))) parts.push(text(info) ?? '');
    return [make(entryId, entryCode, signed(amount, indicator), parts.filter(Boolean).join(' ').trim())];
  }
  const amounts = detailAmounts;
  return details.map((d, k) => {
    const id = text(at(d, 'Refs', 'AcctSvcrRef')) ?? text(at(d, 'Refs', 'TxId')) ?? (entryId ? `${entryId}/${k + 1}` : undefined);
    return make(id, bankCode(at(d, 'BkTxCd')) ?? entryCode, signed(amounts[k], text(at(d, 'CdtDbtInd')) ?? indicator), detailText(d));
  });
}

/** Counterparty and remittance text of a transaction's details. */
function detailText(d: Node): string {
  const indicator = text(at(d, 'CdtDbtInd'));
  const parties = at(d, 'RltdPties');
  const party =
    text(at(parties, indicator === 'CRDT' ? 'Dbtr' : 'Cdtr', 'Nm')) ??
    text(at(parties, 'Dbtr', 'Nm')) ??
    text(at(parties, 'Cdtr', 'Nm')) ??
    text(at(parties, 'Dbtr', 'Pty', 'Nm')) ??
    text(at(parties, 'Cdtr', 'Pty', 'Nm'));
  // Unstructured remittance lines, then a structured one's creditor reference (`RmtInf/Strd/CdtrRefInf/Ref`).
  const remittance = [...list(at(d, 'RmtInf', 'Ustrd')).map(text), text(at(d, 'RmtInf', 'Strd', 'CdtrRefInf', 'Ref'))]
    .filter(Boolean)
    .join(' ');
  return [party, remittance || text(at(d, 'AddtlTxInf'))].filter(Boolean).join(' ').replace(/\s+/g, ' ').trim();
}

/** `PMNT-RCDT-ESCT` from the ISO domain code, or the proprietary code. */
function bankCode(node: unknown): string | undefined {
  const domain = at(node, 'Domn');
  const iso = [text(at(domain, 'Cd')), text(at(domain, 'Fmly', 'Cd')), text(at(domain, 'Fmly', 'SubFmlyCd'))].filter(Boolean).join('-');
  return iso || text(at(node, 'Prtry', 'Cd')) || undefined;
}
