import { isCalendarDate } from '../../lib/calendar-date.js';
import { parseDecimal } from '../../lib/decimal.js';
import {
  ownAccount,
  keptTransaction,
  StatementError,
  type ParsedStatement,
  type StatementBalance,
  type StatementTransaction,
} from './statement.js';

/**
 * OFX and QFX statements: OFX 1.x SGML (leaf elements left unclosed, one-line files, `&` unescaped) and OFX 2.x XML
 * (CDATA, an `<?OFX … ?>` header). Written here: the maintained npm reader (ofx-data-extractor 1.5) turns the file
 * into JSON with regular expressions and fails on two of the five real sample files (CDATA in OFX 2, double-escaped
 * entities), and reads amounts as floats. Bank (`STMTRS`) and credit card (`CCSTMTRS`) statements are read; OFX
 * has no opening balance, so `reconciles` is null and the closing balance is `LEDGERBAL`.
 */

interface Element {
  name: string;
  value?: string;
  children: Element[];
  /** A leaf whose value was given without a closing tag (SGML). */
  open?: boolean;
}

/** A tag, at the scanner's position. */
const TAG = /<(\/?)([A-Za-z0-9._:-]+)\s*\/?>/y;
/** Far deeper than any real OFX (a bank statement nests about 8 deep). */
const MAX_DEPTH = 64;

type Token = { cdata: string } | { text: string } | { slash: boolean; name: string };

/**
 * The file's tokens, left to right in one pass: CDATA (which may hold `<` and `&`), text, tags; comments and
 * processing instructions are skipped. Each construct's end is found with one search from its start, so a 10 MB
 * file costs linear time whatever it holds; one that never ends is a broken file. A `<` that starts none of them
 * is skipped (SGML leniency).
 */
function* tokens(body: string): Generator<Token> {
  let pos = 0;
  const through = (opening: string, closing: string, what: string): number => {
    const end = body.indexOf(closing, pos + opening.length);
    if (end < 0) throw new StatementError(`${what} that never ends (truncated?)`);
    return end;
  };
  while (pos < body.length) {
    const lt = body.indexOf('<', pos);
    if (lt !== pos) {
      const end = lt < 0 ? body.length : lt;
      yield { text: body.slice(pos, end) };
      pos = end;
    } else if (body.startsWith('<![CDATA[', pos)) {
      const end = through('<![CDATA[', ']]>', 'a CDATA section');
      yield { cdata: body.slice(pos + 9, end) };
      pos = end + 3;
    } else if (body.startsWith('<!--', pos)) {
      pos = through('<!--', '-->', 'a comment') + 3;
    } else if (body.startsWith('<?', pos)) {
      pos = through('<?', '?>', 'a processing instruction') + 2;
    } else {
      TAG.lastIndex = pos;
      const m = TAG.exec(body);
      if (m) {
        yield { slash: m[1] === '/', name: m[2] };
        pos = TAG.lastIndex;
      } else pos++;
    }
  }
}

function decode(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/g, (entity, name: string) => {
    const code = name.startsWith('#x') ? parseInt(name.slice(2), 16) : name.startsWith('#') ? Number(name.slice(1)) : undefined;
    // A character that cannot be stored stays as written: one that does not exist, NUL and lone surrogate halves
    // (which Postgres' jsonb refuses in every document that holds them).
    if (code !== undefined)
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : entity;
    return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[name] ?? entity;
  });
}

/**
 * The element tree of everything from `<OFX>` on, except the elements `onClose` takes: each is handed over as it
 * closes (with the elements open around it) and left out of the tree, so a statement's transactions are never a
 * tree of their own.
 */
function tree(body: string, takes: ReadonlySet<string>, onClose: (element: Element, around: readonly Element[]) => void): Element {
  const root: Element = { name: '#root', children: [] };
  const stack: Element[] = [root];
  const top = () => stack[stack.length - 1];
  const pop = () => {
    const element = stack.pop() as Element;
    if (!takes.has(element.name)) return;
    const parent = top();
    if (parent.children[parent.children.length - 1] === element) parent.children.pop();
    onClose(element, stack);
  };
  for (const token of tokens(body)) {
    if (!('name' in token)) {
      const value = 'cdata' in token ? token.cdata : decode(token.text).trim();
      if (value === '' || top() === root) continue;
      const element = top();
      if (element.children.length > 0) continue; // stray text between aggregates
      element.value = (element.value ?? '') + value;
      element.open = true;
      continue;
    }
    const { slash, name } = token;
    const tag = name.toUpperCase();
    // A leaf given a value and then another tag was never closed: SGML.
    if (top().open && !(slash && top().name === tag)) pop();
    if (slash) {
      let index = -1;
      for (let i = stack.length - 1; i > 0; i--) {
        if (stack[i].name === tag) {
          index = i;
          break;
        }
      }
      if (index <= 0) continue; // a stray closing tag
      while (stack.length > index) pop();
      continue;
    }
    const element: Element = { name: tag, children: [] };
    top().children.push(element);
    stack.push(element);
    if (stack.length > MAX_DEPTH) throw new StatementError(`elements nested more than ${MAX_DEPTH} deep`, tag);
  }
  // At the end only a leaf may be left open (SGML); an aggregate taken by onClose is truncated, not closed.
  if (top().open && !takes.has(top().name)) stack.pop();
  const unclosed = stack.slice(1).filter((e) => e.children.length > 0 || e.value === undefined || takes.has(e.name));
  if (unclosed.length > 0)
    throw new StatementError(
      `the file ends inside <${unclosed[unclosed.length - 1].name}> (truncated?)`,
      unclosed.map((e) => e.name).join('/'),
    );
  return root;
}

const child = (e: Element | undefined, name: string) => e?.children.find((c) => c.name === name);
const valueOf = (e: Element | undefined, ...path: string[]) => path.reduce<Element | undefined>((n, p) => child(n, p), e)?.value;

function find(e: Element, names: ReadonlySet<string>, out: Element[] = []): Element[] {
  for (const c of e.children) {
    if (names.has(c.name)) out.push(c);
    else find(c, names, out);
  }
  return out;
}

/** `20130525225731.258[-5:EST]` → `2013-05-25`. */
function day(value: string | undefined, where: string): string {
  const m = value ? /^(\d{4})(\d{2})(\d{2})/.exec(value.trim()) : null;
  const iso = m ? `${m[1]}-${m[2]}-${m[3]}` : '';
  if (!m || !isCalendarDate(iso)) throw new StatementError(`${JSON.stringify(value ?? '')} is not a date`, where);
  return iso;
}

/** OFX amounts use a decimal point; some banks write a decimal comma (`74,40`) or group thousands. */
function amount(value: string | undefined, where: string): string {
  const raw = (value ?? '').trim();
  // With both marks, the last one is the decimal separator and the other groups thousands (`1,234.56`, `1.234,56`).
  const comma = raw.lastIndexOf(',');
  const point = raw.lastIndexOf('.');
  const parsed = comma > point ? parseDecimal(raw, ',', point >= 0 ? ['.'] : []) : parseDecimal(raw, '.', comma >= 0 ? [','] : []);
  if (parsed === undefined) throw new StatementError(`${JSON.stringify(raw)} is not an amount`, where);
  return parsed;
}

function balance(e: Element | undefined, where: string): StatementBalance | undefined {
  if (!e) return undefined;
  return { amount: amount(valueOf(e, 'BALAMT'), `${where}/BALAMT`), date: day(valueOf(e, 'DTASOF'), `${where}/DTASOF`) };
}

/** Bank, credit card, and investment statements (of these, the cash movements: `INVBANKTRAN`'s `STMTTRN`s). */
const STATEMENTS = new Set(['STMTRS', 'CCSTMTRS', 'INVSTMTRS']);

export function parseOfx(text: string): ParsedStatement[] {
  const start = text.search(/<OFX>/i);
  if (start < 0) throw new StatementError('no <OFX> element (not an OFX file)');
  // Each STMTTRN becomes a transaction as it closes, under the statement around it (numbered in document order).
  const read = new Map<Element, { where: string; transactions: StatementTransaction[] }>();
  const root = tree(text.slice(start), new Set(['STMTTRN']), (t, around) => {
    const stmt = [...around].reverse().find((e) => STATEMENTS.has(e.name));
    if (!stmt) return;
    let entry = read.get(stmt);
    if (!entry) read.set(stmt, (entry = { where: `OFX/${stmt.name}[${read.size + 1}]`, transactions: [] }));
    const currency = valueOf(stmt, 'CURDEF');
    if (!currency) throw new StatementError('no currency (CURDEF) before the transactions', `${entry.where}/CURDEF`);
    entry.transactions.push(transactionOf(t, `${entry.where}/BANKTRANLIST/STMTTRN[${entry.transactions.length + 1}]`, currency));
  });
  const statements = find(root, STATEMENTS);
  if (statements.length === 0) throw new StatementError('the file holds no statement (no STMTRS, CCSTMTRS or INVSTMTRS)', 'OFX');
  return statements.map((stmt, s) => {
    const where = `OFX/${stmt.name}[${s + 1}]`;
    const currency = valueOf(stmt, 'CURDEF');
    if (!currency) throw new StatementError('no currency (CURDEF)', `${where}/CURDEF`);
    const bank = child(stmt, 'BANKACCTFROM');
    const card = child(stmt, 'CCACCTFROM');
    const investment = child(stmt, 'INVACCTFROM');
    const number = valueOf(bank ?? card ?? investment, 'ACCTID');
    if (!number) throw new StatementError('no account (ACCTID)', `${where}/${bank ? 'BANKACCTFROM' : card ? 'CCACCTFROM' : 'INVACCTFROM'}`);
    const bankId = valueOf(bank, 'BANKID') ?? valueOf(investment, 'BROKERID');
    const list = child(stmt, 'BANKTRANLIST') ?? child(stmt, 'INVTRANLIST');
    const transactions = read.get(stmt)?.transactions ?? [];
    const ledger = child(stmt, 'LEDGERBAL');
    if (ledger && !valueOf(ledger, 'BALAMT')) throw new StatementError('LEDGERBAL has no amount', `${where}/LEDGERBAL/BALAMT`);
    const closing = balance(ledger, `${where}/LEDGERBAL`);
    const available = balance(child(stmt, 'AVAILBAL'), `${where}/AVAILBAL`);
    let first: string | undefined;
    let last: string | undefined;
    for (const t of transactions) {
      if (first === undefined || t.bookingDate < first) first = t.bookingDate;
      if (last === undefined || t.bookingDate > last) last = t.bookingDate;
    }
    const from = valueOf(list, 'DTSTART') ? day(valueOf(list, 'DTSTART'), `${where}/BANKTRANLIST/DTSTART`) : (first ?? closing?.date);
    const to = valueOf(list, 'DTEND') ? day(valueOf(list, 'DTEND'), `${where}/BANKTRANLIST/DTEND`) : (last ?? closing?.date);
    if (!from || !to) throw new StatementError('no period: no dates, no transactions, no balance', where);
    return {
      format: 'OFX' as const,
      account: ownAccount({
        identifier: bankId ? `${bankId}/${number}` : number,
        number,
        ...(bankId ? { bankCode: bankId } : {}),
        currency,
        type: card ? 'CREDITCARD' : investment ? 'INVESTMENT' : (valueOf(bank, 'ACCTTYPE') ?? 'CHECKING'),
      }),
      from,
      to,
      ...(closing ? { closing } : {}),
      ...(available ? { available } : {}),
      transactions,
      reconciles: null,
    };
  });
}

function transactionOf(t: Element, at: string, currency: string): StatementTransaction {
  const fitid = valueOf(t, 'FITID');
  const name = valueOf(t, 'NAME') ?? valueOf(t, 'PAYEE', 'NAME');
  const memo = valueOf(t, 'MEMO');
  const check = valueOf(t, 'CHECKNUM');
  const user = valueOf(t, 'DTUSER');
  const type = valueOf(t, 'TRNTYPE');
  return keptTransaction({
    id: fitid || undefined,
    bookingDate: day(valueOf(t, 'DTPOSTED'), `${at}/DTPOSTED`),
    valueDate: user ? day(user, `${at}/DTUSER`) : undefined,
    amount: amount(valueOf(t, 'TRNAMT'), `${at}/TRNAMT`),
    currency: valueOf(t, 'CURRENCY', 'CURSYM') ?? currency,
    description: [name, memo && memo !== name ? memo : undefined, check ? `check ${check}` : undefined].filter(Boolean).join(' | '),
    bankCode: type || undefined,
  });
}
