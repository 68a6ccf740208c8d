import { describe, expect, it } from 'vitest';
import { readStatements } from '../../../src/connectors/bank-statements/read-statements.js';
import { StatementError } from '../../../src/connectors/bank-statements/statement.js';
import { CORPUS, MAPPINGS, corpusFile as bytes } from '../../helpers/statement-corpus.js';
import { addDecimals, compareDecimals } from '../../../src/lib/decimal.js';

/**
 * Real statement files from other statement parsers' test folders (corpus/README.md: sources, commits, licences),
 * other than the samples the rest of the suite reads. Every expected fact in corpus/corpus.json comes from the
 * source project's own test assertions or expected outputs, or from balances the file itself states: never from
 * Ledgerport. A fact the source does not give is not checked. CSV files are read with the column mapping their
 * layout needs (what an uploader gives), written here from each file's header.
 */
/**
 * Files refused by rules that apply to any file: an OFX statement must say its currency (CURDEF) and a ledger
 * balance it gives must have an amount (Newcastle Permanent's export leaves both empty; its source parser, too, only
 * reads it with its checks turned off); an MT940 statement ends with its closing balance.
 */
const REFUSED: Record<string, RegExp> = {
  'ofx/ofxparse-ofx-v102-empty-tags.ofx': /CURDEF|LEDGERBAL/,
  // A snippet cut off after its transactions, before the closing balance: a file cut short imports nothing.
  'mt940/wolph-self-provided-gv_codes.sta': /no closing balance/,
};

const sum = (amounts: string[]) => addDecimals(['0.00', ...amounts]);

describe('real statement files from other parsers’ test folders', () => {
  it('has at least thirty files across the four formats', () => {
    expect(CORPUS.filter((e) => !e.malformed).length).toBeGreaterThanOrEqual(30);
    expect(new Set(CORPUS.map((e) => e.format))).toEqual(new Set(['MT940', 'CAMT.053', 'OFX', 'CSV']));
  });

  const readable = CORPUS.filter((e) => !e.malformed && !REFUSED[e.path] && (e.format !== 'CSV' || MAPPINGS[e.path]));
  it.each(readable.map((e) => [e.path, e] as const))('%s holds what its source says', (_path, entry) => {
    const read = readStatements(bytes(entry.path), MAPPINGS[entry.path]);
    expect(read.format).toBe(entry.format);
    const all = read.statements.flatMap((s) => s.transactions);
    // CAMT: a transaction per TxDtls where an entry's details carry their amounts (as the source projects list them),
    // else per entry; the details count is the file's.
    // (a batch split into its details, an entry without details one): in these files, the larger of the two counts.
    const count = (e: { transactions?: number; entries?: number; details?: number }) =>
      entry.format === 'CAMT.053' && e.details !== undefined ? Math.max(e.details, e.entries ?? e.transactions ?? 0) : e.transactions;
    if (count(entry) !== undefined) expect(all, 'transactions in the file').toHaveLength(count(entry)!);
    const expected = entry.statements ?? [];
    if (entry.format !== 'CSV') expect(read.statements, 'statements').toHaveLength(expected.length);
    expected.forEach((want, i) => {
      const got = read.statements[i];
      const where = `statement ${i + 1}`;
      if (want.currency) expect(got.account.currency, `${where} currency`).toBe(want.currency);
      if (want.opening !== undefined) expect(got.opening, `${where} opening`).toBeDefined();
      if (want.opening !== undefined)
        expect(compareDecimals(got.opening?.amount ?? 'NaN', want.opening), `${where} opening ${got.opening?.amount}`).toBe(0);
      if (want.closing !== undefined) expect(got.closing, `${where} closing`).toBeDefined();
      if (want.closing !== undefined)
        expect(compareDecimals(got.closing?.amount ?? 'NaN', want.closing), `${where} closing ${got.closing?.amount}`).toBe(0);
      if (count(want) !== undefined) expect(got.transactions, `${where} transactions`).toHaveLength(count(want)!);
      if (want.sum !== undefined) {
        const total = sum(got.transactions.map((t) => t.amount));
        expect(compareDecimals(total, want.sum), `${where} sum ${total}`).toBe(0);
      }
      if (want.reconciles !== undefined && got.reconciles !== null) expect(got.reconciles, `${where} reconciles`).toBe(want.reconciles);
    });
    // A description holds the narrative the source shows: by position, or (CSV rows a mapping leaves out shift
    // positions) some transaction's.
    const flat = (text: string) => text.replace(/\s+/g, ' ');
    for (const d of entry.descriptions ?? []) {
      const holds = (t: { description: string } | undefined) => d.contains.every((part) => flat(t?.description ?? '').includes(flat(part)));
      if (entry.format === 'CSV') expect(all.some(holds), `a description holding ${JSON.stringify(d.contains)}`).toBe(true);
      else expect(all[d.index]?.description, `transaction ${d.index}'s description`).toSatisfy(() => holds(all[d.index]));
    }
    // The bank's code: MT940's transaction type, OFX's TRNTYPE, CAMT's domain-family-subfamily (else its proprietary code).
    for (const c of entry.bankCodes ?? []) {
      const code = c.code ?? (c.domain ? [c.domain, c.family, c.subfamily].join('-') : c.proprietary);
      expect(all[c.index]?.bankCode, `transaction ${c.index}'s bank code`).toBe(code);
    }
  });

  it.each(CORPUS.filter((e) => e.malformed).map((e) => [e.path] as const))('%s is refused as a broken statement, saying where', (path) => {
    let error: unknown;
    try {
      readStatements(bytes(path));
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(StatementError);
  });

  it.each(Object.entries(REFUSED))('%s is refused, saying why', (path, why) => {
    expect(() => readStatements(bytes(path))).toThrow(why);
  });

  it('keeps every account of concatenated MT940 exports joined by a DOS end-of-file byte (0x1A)', () => {
    const read = readStatements(bytes('mt940/zilverline-two_accounts.txt'));
    expect(new Set(read.statements.map((s) => s.account.identifier)).size).toBe(4);
  });
});
