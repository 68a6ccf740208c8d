import { isUtf8 } from 'node:buffer';
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

/** The bytes without a UTF-8 byte order mark. */
const withoutBom = (bytes: Uint8Array) => (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes);

/**
 * How a file's bytes become text: UTF-8 where they are UTF-8, else Windows-1252, without a byte order mark. A NUL
 * is refused: no statement holds one, and a document holding one cannot be stored as JSON (Postgres' jsonb).
 */
function textOf(bytes: Uint8Array): { body: Uint8Array; utf8: boolean; decode: (part: Uint8Array) => string } {
  const body = withoutBom(bytes);
  const nul = body.indexOf(0);
  if (nul >= 0) {
    let line = 1;
    for (let i = body.indexOf(10); i >= 0 && i < nul; i = body.indexOf(10, i + 1)) line++;
    throw new StatementError('a NUL character (byte 0): not a statement file in UTF-8 or Windows-1252', `line ${line}`);
  }
  const utf8 = isUtf8(body);
  return { body, utf8, decode: (part) => (utf8 ? new TextDecoder('utf-8').decode(part) : decodeWindows1252(part)) };
}

/** The file's text: UTF-8 where the bytes are UTF-8, else Windows-1252. */
export function decodeStatementText(bytes: Uint8Array): string {
  const { body, decode } = textOf(bytes);
  return decode(body);
}

/** Windows-1252: ISO-8859-1 (Node's 'latin1') except 0x80–0x9F, which are Windows-1252's own (€, ‚, „, …, Š, ž…). */
function decodeWindows1252(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString('latin1')
    .replace(/[\x80-\x9f]/g, (c) => CP1252[c.charCodeAt(0) - 0x80] ?? c);
}

const CP1252 = [
  '€',
  undefined,
  '‚',
  'ƒ',
  '„',
  '…',
  '†',
  '‡',
  'ˆ',
  '‰',
  'Š',
  '‹',
  'Œ',
  undefined,
  'Ž',
  undefined,
  undefined,
  '‘',
  '’',
  '“',
  '”',
  '•',
  '–',
  '—',
  '˜',
  '™',
  'š',
  '›',
  'œ',
  undefined,
  'ž',
  'Ÿ',
];

/** How much of a file is looked at to tell its format (and a CSV's delimiter and header). */
const HEAD_BYTES = 65_536;

/** The statement format of a file's text (its first HEAD_BYTES suffice), or undefined when it is none of the structured ones. */
export function detectFormat(text: string): Exclude<StatementFormat, 'CSV'> | undefined {
  const head = text.slice(0, 4096);
  const start = text.slice(0, HEAD_BYTES);
  if (/<([\w.-]+:)?BkToCstmrStmt[\s>]/.test(start)) return 'CAMT.053';
  if (/^\s*(OFXHEADER\s*:|<\?xml[^>]*\?>\s*<\?OFX)/i.test(head) || /<OFX>/i.test(head)) return 'OFX';
  if (/^:20:/m.test(head) && /^:(25|60[FM]):/m.test(start)) return 'MT940';
  return undefined;
}

/**
 * Every statement of a statement file; a StatementError says where a broken file breaks. Anything that is not
 * OFX, CAMT.053 or MT940 but looks like delimited text is read as CSV, through `mapping` or a preset its header
 * matches. The format is told from the file's head; a UTF-8 CSV is read from its bytes as they are (its text
 * is never made whole: megabytes less while a large one is read).
 */
export function readStatements(bytes: Uint8Array, mapping?: CsvMapping | { preset: string }): ReadStatements {
  const { body, utf8, decode } = textOf(bytes);
  // A character cut at the end of the head decodes as U+FFFD: the head only tells the format.
  const head = body.byteLength <= HEAD_BYTES ? decode(body) : decode(body.subarray(0, HEAD_BYTES));
  const format = detectFormat(head);
  if (!format) {
    // Delimited text in its first lines (a bank's preamble may come first), and no markup; or the delimiter the
    // mapping names.
    const firstLines = firstLinesOf(head);
    const delimiter =
      mapping && 'delimiter' in mapping && typeof mapping.delimiter === 'string' && mapping.delimiter !== ''
        ? mapping.delimiter
        : undefined;
    if (delimiter ? firstLines.includes(delimiter) : /[,;\t|]/.test(firstLines) && !firstLines.includes('<')) {
      const input = utf8 ? Buffer.from(body.buffer, body.byteOffset, body.byteLength) : decode(body);
      const statements = parseCsv({ head, input }, mapping);
      forgetLastMatch();
      return { format: 'CSV', statements };
    }
    throw new StatementError('not a statement file: neither OFX/QFX, CAMT.053, MT940 nor CSV');
  }
  const text = body.byteLength <= HEAD_BYTES ? head : decode(body);
  const statements = format === 'CAMT.053' ? parseCamt053(text) : format === 'OFX' ? parseOfx(text) : parseMt940(text);
  forgetLastMatch();
  return { format, statements };
}

/**
 * V8 keeps the text the last regular expression matched against (for RegExp.lastMatch and friends), and a line of
 * the file is a slice of the whole file's text: until some other match, megabytes stay alive for nothing while
 * the statements are turned into records. A match against nothing lets go of them.
 */
function forgetLastMatch(): void {
  /^/.exec('');
}
