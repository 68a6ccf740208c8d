import { parseCamt053 } from './camt053.js';
import { parseMt940 } from './mt940.js';
import { parseOfx } from './ofx.js';
import { parseCsv, type CsvMapping } from './csv.js';
import { firstLinesOf, StatementError, type ParsedStatement, type StatementFormat } from './statement.js';

/**
 * Reads a statement file, recognised by its content (never its name): OFX/QFX (an `<OFX>` element, after an
 * `OFXHEADER:` SGML header or an XML prolog), CAMT.053 (XML with `BkToCstmrStmt`), MT940 (`:20:` then `:25:` and
 * `:60F:`/`:60M:` fields), else CSV (delimited text, read through a column mapping). Text is UTF-8 when it decodes as
 * UTF-8, otherwise Windows-1252 (a superset of ISO-8859-1 for printable text); OFX 1.x may declare `CHARSET:1252`.
 */
export interface ReadStatements {
  format: StatementFormat;
  statements: ParsedStatement[];
}

export function decodeStatementText(bytes: Uint8Array): string {
  const withoutBom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(withoutBom);
  } catch {
    // Node's 'windows-1252' decoder is ISO-8859-1; 0x80–0x9F are Windows-1252's own (€, ‚, „, …, Š, ž…).
    let out = '';
    for (const byte of withoutBom) out += byte >= 0x80 && byte <= 0x9f ? (CP1252[byte - 0x80] ?? String.fromCharCode(byte)) : String.fromCharCode(byte);
    return out;
  }
}

const CP1252 = [
  '€', undefined, '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', undefined, 'Ž', undefined,
  undefined, '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', undefined, 'ž', 'Ÿ',
];

/** The statement format of a file's text, or undefined when it is none of the structured ones. */
export function detectFormat(text: string): Exclude<StatementFormat, 'CSV'> | undefined {
  const head = text.slice(0, 4096);
  if (/<([\w.-]+:)?BkToCstmrStmt[\s>]/.test(text.slice(0, 65_536))) return 'CAMT.053';
  if (/^\s*(OFXHEADER\s*:|<\?xml[^>]*\?>\s*<\?OFX)/i.test(head) || /<OFX>/i.test(head)) return 'OFX';
  if (/^:20:/m.test(head) && /^:(25|60[FM]):/m.test(text)) return 'MT940';
  return undefined;
}

/**
 * Every statement of a statement file; a StatementError says where a broken file breaks. Anything that is not
 * OFX, CAMT.053 or MT940 but looks like delimited text is read as CSV, through `mapping` or a preset its header
 * matches.
 */
export function readStatements(bytes: Uint8Array, mapping?: CsvMapping | { preset: string }): ReadStatements {
  const text = decodeStatementText(bytes);
  const format = detectFormat(text);
  if (!format) {
    // Delimited text in its first lines (a bank's preamble may come first), and no markup.
    const firstLines = firstLinesOf(text);
    if (/[,;\t]/.test(firstLines) && !firstLines.includes('<')) return { format: 'CSV', statements: parseCsv(text, mapping) };
    throw new StatementError('not a statement file: neither OFX/QFX, CAMT.053, MT940 nor CSV');
  }
  const statements = format === 'CAMT.053' ? parseCamt053(text) : format === 'OFX' ? parseOfx(text) : parseMt940(text);
  return { format, statements };
}

