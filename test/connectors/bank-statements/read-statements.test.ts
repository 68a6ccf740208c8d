import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodeStatementText, detectFormat, readStatements } from '../../../src/connectors/bank-statements/read-statements.js';
import { StatementError } from '../../../src/connectors/bank-statements/statement.js';
import { addDecimals, compareDecimals, parseDecimal } from '../../../src/lib/decimal.js';
import { MAPPINGS, corpusFile } from '../../helpers/statement-corpus.js';

/**
 * Statement files from banks and independent parser projects (samples/README.md: sources, licences, and the facts
 * checked here, which come from the files themselves and the source projects' expected outputs).
 */
const sample = (path: string) => new Uint8Array(fs.readFileSync(fileURLToPath(new URL(`./samples/${path}`, import.meta.url))));
const summary = (path: string) =>
  readStatements(sample(path)).statements.map((s) => ({
    account: s.account.identifier,
    currency: s.account.currency,
    opening: s.opening?.amount,
    closing: s.closing?.amount,
    count: s.transactions.length,
    sum: addDecimals(['0.00', ...s.transactions.map((t) => t.amount)]),
    reconciles: s.reconciles,
  }));
const refusal = (path: string) => {
  try {
    readStatements(sample(path));
  } catch (err) {
    return err;
  }
  return undefined;
};

describe('MT940', () => {
  it('reads 26 statements of 20 accounts with 97 transactions, every one reconciling (betterplace SEPA sample)', () => {
    const s = summary('mt940/wolph-betterplace-sepa_mt9401.sta');
    expect(s).toHaveLength(26);
    expect(new Set(s.map((x) => x.account)).size).toBe(20);
    expect(s.reduce((n, x) => n + x.count, 0)).toBe(97);
    expect(s.every((x) => x.reconciles)).toBe(true);
    expect(s[0]).toMatchObject({ account: '50880050/0194774600888', opening: '-1234718.36', currency: 'EUR' });
    expect(s[25].closing).toBe('50.05');
  });

  it('reads several statements in several currencies, with amounts like `6800,` and `620,3` (cmxl sample)', () => {
    expect(summary('mt940/wolph-cmxl-mt940.sta')).toEqual([
      {
        account: '45050050/76198810',
        currency: 'DEM',
        opening: '84349.74',
        closing: '84437.04',
        count: 11,
        sum: '87.30',
        reconciles: true,
      },
      { account: '10020030/1234567', currency: 'EUR', opening: '2187.95', closing: '4387.95', count: 2, sum: '2200.00', reconciles: true },
      {
        account: 'BPHKPLPK/320000546101',
        currency: 'PLN',
        opening: '40000.00',
        closing: '50040.00',
        count: 3,
        sum: '10040.00',
        reconciles: true,
      },
    ]);
  });

  it('skips bank preambles between statements, and says when anonymised amounts do not reconcile (ABN AMRO)', () => {
    expect(summary('mt940/wolph-jejik-abnamro.sta')).toEqual([
      { account: '517852257', currency: 'EUR', opening: '3236.28', closing: '876.84', count: 8, sum: '-321.44', reconciles: false },
      { account: '517852257', currency: 'EUR', opening: '2876.84', closing: '1849.75', count: 2, sum: '-24.49', reconciles: false },
    ]);
  });

  it('reads CRLF, `:NS:` fields and a funds code after the D mark (Sberbank)', () => {
    expect(summary('mt940/wolph-sberbank-171011_01234945.sta')).toEqual([
      {
        account: '1966315302010001',
        currency: 'HUF',
        opening: '627311.30',
        closing: '617874.30',
        count: 3,
        sum: '-9437.00',
        reconciles: true,
      },
    ]);
  });

  it('refuses the broken snippet, naming the line', () => {
    const err = refusal('mt940/wolph-betterplace-sepa_snippet_broken.sta');
    expect(err).toBeInstanceOf(StatementError);
    expect((err as StatementError).where).toBe('line 6');
  });

  it('structured :86: fields become the description; booking and value dates are both kept', () => {
    const [first] = readStatements(sample('mt940/wolph-betterplace-sepa_mt9401.sta')).statements[0].transactions;
    expect(first).toMatchObject({ bookingDate: '2007-09-04', valueDate: '2007-09-04', amount: '300', bankCode: 'NTRF' });
    expect(first.description).toMatch(/^EREF\+TFNR 40005 00005/);
  });
});

describe('CAMT.053', () => {
  it('reads two statements of one document (genkgo), the second as the source project expects', () => {
    expect(summary('camt053/genkgo-camt053.v2.multi.statement.xml')).toEqual([
      { account: 'NL26VAYB8060476890', currency: 'EUR', opening: '18.15', closing: '27.00', count: 1, sum: '8.85', reconciles: true },
      { account: 'NL26VAYB8060476890', currency: 'EUR', opening: '27.00', closing: '20.00', count: 1, sum: '-7.00', reconciles: true },
    ]);
    const expected = JSON.parse(
      fs.readFileSync(fileURLToPath(new URL('./samples/camt053/expected/genkgo-camt053.v2.multi.statement.json', import.meta.url)), 'utf8'),
    );
    const entry = expected.getEntries[0];
    const ours = readStatements(sample('camt053/genkgo-camt053.v2.multi.statement.xml')).statements[1].transactions[0];
    // genkgo writes money in minor units: -700 is -7.00.
    const minor = String(entry.getAmount.getAmount);
    expect(compareDecimals(ours.amount, `${minor.slice(0, -2) || '0'}.${minor.slice(-2)}`)).toBe(0);
    expect(ours.bookingDate).toBe(entry.getBookingDate['0'].slice(0, 10));
    expect(ours.bankCode).toBe(entry.getBankTransactionCode.getProprietary.getCode);
  });

  it('splits a batched entry into its details when they carry amounts adding up to it; PRCD is the opening (VR-Bank)', () => {
    expect(summary('camt053/viafintech-valid_example.xml')).toEqual([
      { account: 'DE14740618130000033626', currency: 'EUR', opening: '33.06', closing: '23.06', count: 5, sum: '-10.00', reconciles: true },
    ]);
  });

  it('reads v4 with 13 entries as their 32 transaction details, and the currency from the amounts (Swiss sample)', () => {
    expect(summary('camt053/viafintech-valid_example_v4.xml')).toEqual([
      {
        account: 'CH0309000000250090342',
        currency: 'CHF',
        opening: '322152.16',
        closing: '322689.77',
        count: 32,
        sum: '537.61',
        reconciles: true,
      },
    ]);
  });

  it('refuses a document without a statement', () => {
    expect(String(refusal('camt053/genkgo-camt053.v2.wrong.xml'))).toMatch(/BkToCstmrStmt: the file holds no statement/);
  });
});

describe('OFX and QFX', () => {
  it('reads SGML with unclosed tags (ofxparse checking): the ledger and available balances', () => {
    const [s] = readStatements(sample('ofx/ofxparse-checking.ofx')).statements;
    expect(s).toMatchObject({ closing: { amount: '100.99' }, available: { amount: '75.99' }, reconciles: null });
    expect(s.transactions.map((t) => t.amount)).toEqual(['0.01', '-34.51', '-25.00']);
  });

  it('reads OFX 2 XML with CDATA and CRLF (Suncorp)', () => {
    expect(summary('ofx/ofxparse-suncorp.ofx')).toEqual([
      { account: 'SUNCORP/123456789', currency: 'AUD', opening: undefined, closing: '1234.12', count: 1, sum: '-16.85', reconciles: null },
    ]);
  });

  it('reads a bank and a credit card statement with decimal commas, as the source project does (18 + 2)', () => {
    const s = readStatements(sample('ofx/ofx-data-extractor-example.ofx')).statements;
    expect(s.map((x) => [x.account.identifier, x.account.type, x.account.currency, x.closing?.amount, x.transactions.length])).toEqual([
      ['364/1459950-11', 'CHECKING', 'BRL', '635.50', 18],
      ['123412341234', 'CREDITCARD', 'USD', '-562.00', 2],
    ]);
    const snapshot = fs.readFileSync(
      fileURLToPath(new URL('./samples/ofx/expected/ofx-data-extractor-ofx.spec.ts.snap', import.meta.url)),
      'utf8',
    );
    const block = snapshot.slice(snapshot.indexOf('snapshot 1`'), snapshot.indexOf('Should correctly read an online ofx'));
    const expected = [...block.matchAll(/"TRNAMT": "([^"]+)"/g)].map((m) => m[1]);
    expect(s.flatMap((x) => x.transactions.map((t) => t.amount)).sort()).toEqual(expected.sort());
  });

  it('reads one-line QFX with double-escaped entities (Actual Budget)', () => {
    const [s] = readStatements(sample('ofx/actual-html-vals.qfx')).statements;
    expect(s).toMatchObject({ account: { currency: 'CAD' }, closing: { amount: '1111.11' } });
    expect(s.transactions).toHaveLength(2);
    expect(s.transactions[0].description).toContain('B.C. HYDRO & POWER AUTHORITY');
  });

  it('refuses an empty ledger balance, naming the element', () => {
    const err = refusal('ofx/ofxparse-fail_nice-empty_balance.ofx') as StatementError;
    expect(err.where).toBe('OFX/STMTRS[1]/LEDGERBAL/BALAMT');
  });
});

describe('any format', () => {
  it('is recognised by content, never by name', () => {
    expect(detectFormat(decodeStatementText(sample('ofx/ofxparse-suncorp.ofx')))).toBe('OFX');
    expect(detectFormat(decodeStatementText(sample('camt053/viafintech-valid_example_v4.xml')))).toBe('CAMT.053');
    expect(detectFormat(decodeStatementText(sample('mt940/wolph-cmxl-mt940.sta')))).toBe('MT940');
    expect(detectFormat('Date;Amount\n2024-01-01;1,00\n')).toBeUndefined();
  });

  it('refuses truncated files, saying where they end', () => {
    const cut = (path: string, at: number) => {
      const bytes = sample(path);
      return bytes.subarray(0, Math.floor(bytes.length * at));
    };
    expect(() => readStatements(cut('ofx/ofxparse-checking.ofx', 0.6))).toThrow(/the file ends inside <.*> \(truncated\?\)/);
    expect(() => readStatements(cut('camt053/viafintech-valid_example.xml', 0.6))).toThrow(/not well-formed XML/);
    expect(() => readStatements(cut('mt940/wolph-cmxl-mt940.sta', 0.5))).toThrow(StatementError);
  });

  it('reads MT940 inside SWIFT blocks ({1:…}{2:…}{4: … -}{5:…}), one statement per block', () => {
    const body = new TextDecoder().decode(sample('mt940/wolph-sberbank-171011_01234945.sta')).trim();
    const wrapped = `{1:F01SABRHUHBAXXX0000000000}{2:O9401200171011SABRHUHBAXXX00000000001710111200N}{4:\r\n${body}\r\n-}{5:{CHK:ABCDEF}}\r\n`;
    const twice = new TextEncoder().encode(wrapped + wrapped);
    const statements = readStatements(twice).statements;
    expect(statements.map((s) => [s.transactions.length, s.opening?.amount, s.closing?.amount, s.reconciles])).toEqual([
      [3, '627311.30', '617874.30', true],
      [3, '627311.30', '617874.30', true],
    ]);
    expect(statements[0].transactions.every((t) => !t.description.includes('{5:'))).toBe(true);
  });

  it('reads an MT940 account that is an IBAN, with or without the currency written after it', () => {
    const statement = (account: string) =>
      new TextEncoder().encode(
        `:20:X\n:25:${account}\n:28C:1/1\n:60F:C240101EUR10,00\n:61:2401020102D1,50NTRFNONREF\n:86:Coffee\n:62F:C240102EUR8,50\n-\n`,
      );
    const accountOf = (account: string) => readStatements(statement(account)).statements[0].account;
    expect(accountOf('NL91ABNA0417164300')).toMatchObject({ iban: 'NL91ABNA0417164300' });
    expect(accountOf('NL91ABNA0417164300 EUR')).toMatchObject({ iban: 'NL91ABNA0417164300' });
    expect(accountOf('NL91ABNA0417164300EUR')).toMatchObject({ iban: 'NL91ABNA0417164300' });
    // Check digits that do not hold: an account number, not an IBAN.
    expect(accountOf('NL92ABNA0417164300')).toMatchObject({ number: 'NL92ABNA0417164300' });
    expect(accountOf('NL92ABNA0417164300').iban).toBeUndefined();
  });

  it('reads MT940 :86: descriptions in the ways banks structure them', () => {
    const descriptionOf = (info: string) =>
      readStatements(
        new TextEncoder().encode(
          `:20:X\n:25:123/456\n:28C:1/1\n:60F:C240101EUR10,00\n:61:2401020102D1,50NTRFNONREF\n:86:${info}\n:62F:C240102EUR8,50\n-\n`,
        ),
      ).statements[0].transactions[0].description;
    expect(descriptionOf('166?00GUTSCHRIFT?20Invoice 7?32ACME GmbH')).toBe('ACME GmbH Invoice 7');
    expect(descriptionOf('020~00Przelew~20Faktura 1/2024~32Firma ABC')).toBe('Firma ABC Faktura 1/2024');
    expect(descriptionOf('/TRCD/00100/BENM//NAME/Coffee Shop BV/REMI/USTD//Invoice 42 payment/EREF/NOTPROVIDED/')).toBe(
      'Coffee Shop BV Invoice 42 payment',
    );
    expect(descriptionOf('plain text\nline two')).toBe('plain text line two');
  });

  it('reads OFX amounts with a decimal comma or grouped thousands', () => {
    const ofx = (amounts: string[]) =>
      new TextEncoder().encode(
        `OFXHEADER:100\nDATA:OFXSGML\n\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>EUR<BANKACCTFROM><BANKID>1<ACCTID>2</BANKACCTFROM><BANKTRANLIST>${amounts
          .map((a, i) => `<STMTTRN><TRNTYPE>OTHER<DTPOSTED>2024010${i + 1}<TRNAMT>${a}<FITID>${i}<NAME>x</STMTTRN>`)
          .join('')}</BANKTRANLIST><LEDGERBAL><BALAMT>1<DTASOF>20240110</LEDGERBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>`,
      );
    expect(readStatements(ofx(['1,234.56', '-1.000,50', '74,40', '-0.5'])).statements[0].transactions.map((t) => t.amount)).toEqual([
      '1234.56',
      '-1000.50',
      '74.40',
      '-0.5',
    ]);
  });

  it('finds a CSV header below a bank preamble', () => {
    const csv =
      'Account;DE89370400440532013000\nPeriod;01.01.2024 - 31.01.2024\n\nBooked;Text;Value;Balance\n02.01.2024;Coffee;-3,50;96,50\n03.01.2024;Salary;1000,00;1096,50\n';
    const [statement] = readStatements(new TextEncoder().encode(csv), {
      date: { column: 'Booked', format: 'DD.MM.YYYY' },
      amount: 'Value',
      decimal: ',',
      description: ['Text'],
      balance: 'Balance',
      currency: { value: 'EUR' },
    } as never).statements;
    expect(statement.transactions.map((t) => t.amount)).toEqual(['-3.50', '1000.00']);
    expect(statement).toMatchObject({ opening: { amount: '100.00' }, closing: { amount: '1096.50' }, reconciles: true });
  });

  it('reads CAMT.053 written with a namespace prefix', () => {
    const plain = new TextDecoder().decode(sample('camt053/viafintech-valid_example.xml'));
    const prefixed = plain
      .replace(/<(\/?)([A-Za-z][\w]*)([\s>\/])/g, (_m, slash: string, name: string, after: string) => `<${slash}ns2:${name}${after}`)
      .replace('xmlns="urn:', 'xmlns:ns2="urn:');
    expect(prefixed).toContain('<ns2:BkToCstmrStmt>');
    const [statement] = readStatements(new TextEncoder().encode(prefixed)).statements;
    expect(statement).toMatchObject({ format: 'CAMT.053', opening: { amount: '33.06' }, closing: { amount: '23.06' }, reconciles: true });
    expect(statement.transactions).toHaveLength(5);
  });

  it('refuses hostile files with a StatementError, never another error', () => {
    const enc = (text: string) => new TextEncoder().encode(text);
    const camt = new TextDecoder().decode(sample('camt053/viafintech-valid_example.xml'));
    const refused = (bytes: Uint8Array) => {
      try {
        readStatements(bytes);
      } catch (err) {
        return err;
      }
      return undefined;
    };
    // Dates that are no days: refused where they are, not stored to break every later sync.
    expect(refused(enc(camt.replace(/<BookgDt>\s*<Dt>[^<]*<\/Dt>/, '<BookgDt><Dt>2013-02-30</Dt>')))).toBeInstanceOf(StatementError);
    expect(
      refused(enc(':20:X\n:25:1/2\n:28C:1/1\n:60F:C240101EUR10,00\n:61:2401021340D1,50NTRFNONREF\n:62F:C240102EUR8,50\n-\n')),
    ).toBeInstanceOf(StatementError);
    // Deep nesting, unterminated processing instructions, code points that do not exist.
    expect(refused(enc(`<OFX>${'<A>'.repeat(5000)}`))).toBeInstanceOf(StatementError);
    expect(refused(enc(`OFXHEADER:100\n<OFX>${'<?'.repeat(200_000)}`))).toBeInstanceOf(StatementError);
    const ofx = new TextDecoder().decode(sample('ofx/ofxparse-checking.ofx')).replace(/<NAME>[^<\n]*/, '<NAME>A &#99999999; B');
    expect(readStatements(enc(ofx)).statements[0].transactions.some((t) => t.description.includes('&#99999999;'))).toBe(true);
    // Characters no stored document may hold: a NUL byte is refused where it is; NUL and lone surrogate entities stay as written.
    const withNul = enc(
      ':20:X\n:25:1/2\n:28C:1/1\n:60F:C240101EUR10,00\n:61:240102D1,50NTRFNONREF\n:86:A\u0000B\n:62F:C240102EUR8,50\n-\n',
    );
    expect(refused(withNul)).toMatchObject({ name: 'StatementError', message: expect.stringMatching(/^line 6: a NUL character/) });
    const entities = new TextDecoder().decode(sample('ofx/ofxparse-checking.ofx')).replace(/<NAME>[^<\n]*/, '<NAME>A &#0; B &#xD800; C');
    expect(readStatements(enc(entities)).statements[0].transactions.some((t) => t.description.startsWith('A &#0; B &#xD800; C'))).toBe(
      true,
    );
    // A CDATA section, comment or processing instruction that never ends is a broken file.
    expect(refused(enc(`OFXHEADER:100\n<OFX><BANKMSGSRSV1><!-- ${'x'.repeat(100_000)}`))).toBeInstanceOf(StatementError);
    expect(refused(enc(`OFXHEADER:100\n<OFX><BANKMSGSRSV1><![CDATA[ ${'<x>'.repeat(50_000)}`))).toBeInstanceOf(StatementError);
    // An element named like a property of every object is data like any other.
    expect(refused(enc(camt.replace(/<Ntry>/, '<Ntry><__proto__><Amt>1</Amt></__proto__>')))).toBeUndefined();
  });

  it('keeps what OFX CDATA holds (markup and entities as text), and skips comments that hold markup', () => {
    const text = new TextDecoder()
      .decode(sample('ofx/ofxparse-checking.ofx'))
      .replace(/<NAME>[^<\n]*/, '<NAME><![CDATA[AT&T <ONLINE> & co]]>')
      .replace('<BANKTRANLIST>', '<BANKTRANLIST><!-- <STMTTRN><TRNAMT>99</STMTTRN> -->');
    const plain = readStatements(sample('ofx/ofxparse-checking.ofx')).statements[0];
    const [s] = readStatements(new TextEncoder().encode(text)).statements;
    expect(s.transactions).toHaveLength(plain.transactions.length);
    expect(s.transactions[0].description.startsWith('AT&T <ONLINE> & co')).toBe(true);
  });

  it('tells a CAMT.053 version from the namespace its root declares, not from text further on', () => {
    const camt = new TextDecoder().decode(sample('camt053/viafintech-valid_example_v4.xml'));
    const enc = (text: string) => new TextEncoder().encode(text);
    expect(() => readStatements(enc(camt.replace(/camt\.053\.001\.04/g, 'camt.053.001.14')))).toThrow(
      /camt\.053\.001\.14 is not a supported version/,
    );
    // Without a version in its namespace, a remittance text naming another version does not make it one.
    const mentioning = camt.replace(/camt\.053\.001\.04/g, 'camt.053').replace(/<Ustrd>/, '<Ustrd>see camt.053.001.14 ');
    expect(mentioning).toContain('see camt.053.001.14');
    expect(readStatements(enc(mentioning)).statements.length).toBeGreaterThan(0);
  });

  it('reads CSV dates with two-digit years, dashes and a time after them', () => {
    const read = (rows: string, format: string) =>
      readStatements(new TextEncoder().encode(`When;What;How much\n${rows}`), {
        date: { column: 'When', format },
        amount: 'How much',
        decimal: ',',
        description: 'What',
        currency: { value: 'EUR' },
      } as never).statements[0].transactions.map((t) => t.bookingDate);
    expect(read('05.01.24;a;1,00\n31.12.99;b;2,00\n', 'DD.MM.YY')).toEqual(['1999-12-31', '2024-01-05']);
    expect(read('01/05/24;a;1,00\n', 'MM/DD/YY')).toEqual(['2024-01-05']);
    expect(read('05-01-2024;a;1,00\n', 'DD-MM-YYYY')).toEqual(['2024-01-05']);
    expect(read('2024/1/5;a;1,00\n', 'YYYY/MM/DD')).toEqual(['2024-01-05']);
    expect(read('2024-01-05 10:22:00;a;1,00\n', 'YYYY-MM-DD')).toEqual(['2024-01-05']);
    expect(() => read('2024-13-05;a;1,00\n', 'YYYY-MM-DD')).toThrow(/is not a date in YYYY-MM-DD/);
  });

  it('decodes UTF-8, and Windows-1252 when the bytes are not UTF-8', () => {
    expect(decodeStatementText(new Uint8Array([0xef, 0xbb, 0xbf, 0x41, 0xc3, 0xa9]))).toBe('Aé');
    expect(decodeStatementText(new Uint8Array([0x57, 0xe4, 0x68, 0x72, 0x75, 0x6e, 0x67, 0x80]))).toBe('Währung€');
  });
});

describe('decimal amounts', () => {
  it('are read exactly from how files write them, never through a float', () => {
    expect(parseDecimal('1.234,56', ',', ['.'])).toBe('1234.56');
    expect(parseDecimal("11'373.94", '.', ["'"])).toBe('11373.94');
    expect(parseDecimal('$1,036.47', '.', [','])).toBe('1036.47');
    expect(parseDecimal('(25.00)')).toBe('-25.00');
    expect(parseDecimal('6800,', ',')).toBe('6800');
    expect(parseDecimal('--5')).toBeUndefined();
    expect(parseDecimal('(-5)')).toBeUndefined();
    expect(parseDecimal(`1${' '.repeat(100_000)}1`)).toBeUndefined();
    expect(parseDecimal(`0.${'0'.repeat(1_000_000)}1`)).toBeUndefined();
    expect(parseDecimal('-0.00')).toBe('0.00');
    expect(parseDecimal('12a')).toBeUndefined();
    expect(addDecimals(['0.1', '0.2'])).toBe('0.3');
    expect(addDecimals(['9007199254740993.01', '0.01'])).toBe('9007199254740993.02');
  });
});

describe('CSV', () => {
  it('reads the exports it has presets for without a mapping, from their exact headers (csv2ofx samples)', () => {
    expect(summary('csv/csv2ofx-schwab-checking.csv')).toEqual([
      { account: 'CSV', currency: 'USD', opening: '1093.74', closing: '878.47', count: 4, sum: '-215.27', reconciles: true },
    ]);
    // ISO-8859-1, `;`, decimal comma and dot thousands.
    expect(summary('csv/csv2ofx-gls.csv')).toEqual([
      { account: '1234567890', currency: 'EUR', opening: '1333.32', closing: '1234.56', count: 1, sum: '-98.76', reconciles: true },
    ]);
    // Apostrophe thousands, debit and credit columns; the running balance chains in file order, not date order.
    expect(summary('csv/csv2ofx-ubs-ch-fr_trimmed.csv')).toEqual([
      { account: '0123 45678901.23A', currency: 'CHF', opening: '11383.94', closing: '11413.94', count: 3, sum: '30.00', reconciles: true },
    ]);
  });

  it('takes a mapping for any other export, and names what a mapping lacks', () => {
    const csv = new TextEncoder().encode('When,What,Value,Cur\n2024-02-01,Coffee,"-3,50",EUR\n2024-02-02,Refund,"10,00",EUR\n');
    expect(() => readStatements(csv)).toThrow(/mapping: the header matches no preset/);
    expect(() => readStatements(csv, { date: { column: 'When', format: 'YYYY-MM-DD' }, decimal: ',', description: ['What'] })).toThrow(
      /mapping.amount: the mapping needs an amount column, or debit and credit columns/,
    );
    expect(() =>
      readStatements(csv, { date: { column: 'Day', format: 'YYYY-MM-DD' }, amount: 'Value', decimal: ',', description: ['What'] }),
    ).toThrow(/mapping.date: the date column "Day" is not in the header/);
    const { statements } = readStatements(csv, {
      date: { column: 'When', format: 'YYYY-MM-DD' },
      amount: 'Value',
      decimal: ',',
      description: ['What'],
      currency: { column: 'Cur' },
    });
    expect(statements[0].transactions.map((t) => [t.bookingDate, t.amount, t.description])).toEqual([
      ['2024-02-01', '-3.50', 'Coffee'],
      ['2024-02-02', '10.00', 'Refund'],
    ]);
    expect(statements[0].reconciles).toBeNull();
    expect(() => readStatements(csv, { preset: 'nope' })).toThrow(/mapping.preset: "nope" is not a CSV preset/);
    // A format named like a property of every object is no format.
    expect(() =>
      readStatements(csv, { date: { column: 'When', format: 'toString' as never }, amount: 'Value', decimal: ',', description: ['What'] }),
    ).toThrow(/mapping.date.format: date.format must be one of/);
  });

  it('reads a CSV with the delimiter its mapping names, a pipe too', () => {
    const csv = new TextEncoder().encode('When|What|Value\n2024-02-01|Coffee|-3.50\n2024-02-02|Refund|10.00\n');
    const { format, statements } = readStatements(csv, {
      delimiter: '|',
      date: { column: 'When', format: 'YYYY-MM-DD' },
      amount: 'Value',
      decimal: '.',
      description: ['What'],
      currency: { value: 'EUR' },
    });
    expect(format).toBe('CSV');
    expect(statements[0].transactions.map((t) => [t.bookingDate, t.amount, t.description])).toEqual([
      ['2024-02-01', '-3.50', 'Coffee'],
      ['2024-02-02', '10.00', 'Refund'],
    ]);
  });

  it('refuses a row it cannot read, naming the line', () => {
    const csv = new TextEncoder().encode(
      '"Date","Status","Type","CheckNumber","Description","Withdrawal","Deposit","RunningBalance"\n"13/45/2022","Posted","ATM","","X","$1.00","","$2.00"\n',
    );
    expect(() => readStatements(csv)).toThrow(/line 2: "13\/45\/2022" is not a date in MM\/DD\/YYYY/);
  });
});

describe('what real files carry (issue 25)', () => {
  it('reads each statement of MT940 exports concatenated with a DOS end-of-file byte (0x1A) before the next :20:', () => {
    const read = readStatements(corpusFile('mt940/zilverline-two_accounts.txt'));
    expect(read.statements.map((s) => s.account.identifier)).toEqual([
      '1567.50.961EUR',
      '9914.30.727EUR',
      '3462.483.153 EUR',
      '1325.76.155EUR',
    ]);
    expect(read.statements[3]).toMatchObject({ opening: { amount: '-12.00' }, closing: { amount: '238.00' }, reconciles: true });
  });

  it('keeps the whole MT940 narrative: every :86: of a transaction, the counterparty in Rabobank’s classic :61:, the bank’s code', () => {
    const [first] = readStatements(corpusFile('mt940/zilverline-two_accounts.txt')).statements;
    expect(first.transactions.map((t) => [t.bankCode, t.description])).toEqual([
      ['N084', 'P002445588 Belastingdienst Apeldoor BETALINGSKENM. 0189827218201120'],
      ['N062', '0266050522 Arvato Fin Serv Ltd BETALINGSKENM. 3010675705 GOOGLE GOOG6291713437 1402786401'],
    ]);
  });

  it('adds a row holding only description text to the row before it (OCBC wraps each description onto a second row)', () => {
    const read = readStatements(corpusFile('csv/bank2ynab-TransactionHistory_20180418043121.csv'), {
      date: { column: 'Transaction date', format: 'DD/MM/YYYY' },
      debit: 'Withdrawals (SGD)',
      credit: 'Deposits (SGD)',
      decimal: '.',
      thousands: [','],
      description: ['Description'],
      currency: { value: 'SGD' },
    });
    const all = read.statements[0].transactions;
    // Rows of the file and the text wrapped under each.
    expect(all.find((t) => t.bookingDate === '2018-04-18' && t.description.startsWith('DEBIT PURCHASE'))).toMatchObject({
      amount: '-6.66',
      description: 'DEBIT PURCHASE 15/04/18 66-6666 UBER EATS AN2GO HELP.UBERh',
    });
    expect(all.map((t) => t.description)).toEqual(
      expect.arrayContaining(['CCY CONVERSION FEE FOR: 6.66 SGD', 'CASH WITHDRAWAL ATM 66-6666 OCBC-666 BRANCH S']),
    );
    expect(all.every((t) => !/^\d/.test(t.description))).toBe(true);
  });

  it('reads amounts written with a sign, a space and a currency symbol', () => {
    expect(parseDecimal('+ £1,100.00', '.', [','])).toBe('1100.00');
    expect(parseDecimal('- 12.34')).toBe('-12.34');
    expect(parseDecimal('-£5.10')).toBe('-5.10');
    expect(parseDecimal('£ -5.10')).toBe('-5.10');
    expect(parseDecimal('12.50-')).toBe('-12.50');
    expect(parseDecimal('+ -5')).toBeUndefined();
    const path = 'csv/jl-partnership-sample-statement.csv';
    expect(MAPPINGS[path].negate).toBe(true);
    const read = readStatements(corpusFile(path), MAPPINGS[path]);
    const payment = read.statements[0].transactions.find((t) => t.description.startsWith('DIRECT DEBIT'));
    // Money out is written unsigned (negate), money in with an explicit plus.
    expect(payment?.amount).toBe('1234.56');
    expect(read.statements[0].transactions.find((t) => t.description.startsWith('Amazon.co.uk'))?.amount).toBe('-99.99');
  });
});
