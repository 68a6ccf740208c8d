/** One line of a statement a test writes. */
export interface StatementLine {
  /** The bank's own id of the line (FITID). */
  id: string;
  /** `YYYY-MM-DD`. */
  date: string;
  amount: number;
  name: string;
}

const ofxDate = (d: string) => `${d.replaceAll('-', '')}120000.000`;

/**
 * An OFX (SGML, version 1.02) bank statement of one account, as banks' downloads write it: the lines a test chose, the
 * account by its number (and bank id, e.g. a sort code, where given) and currency.
 */
export function ofxStatement(lines: readonly StatementLine[], account: { currency: string; number: string; bankId?: string }): Uint8Array {
  const dates = lines.map((l) => l.date).sort();
  const transactions = lines
    .map(
      (l) =>
        `<STMTTRN><TRNTYPE>${l.amount < 0 ? 'DEBIT' : 'CREDIT'}<DTPOSTED>${ofxDate(l.date)}<TRNAMT>${l.amount.toFixed(2)}<FITID>${l.id}<NAME>${l.name}</STMTTRN>`,
    )
    .join('\n');
  const bankId = account.bankId ? `<BANKID>${account.bankId}` : '';
  return new TextEncoder().encode(`OFXHEADER:100
DATA:OFXSGML
VERSION:102
SECURITY:NONE
ENCODING:USASCII
CHARSET:1252
COMPRESSION:NONE
OLDFILEUID:NONE
NEWFILEUID:NONE

<OFX><BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STATUS><CODE>0<SEVERITY>INFO</STATUS><STMTRS><CURDEF>${account.currency}
<BANKACCTFROM>${bankId}<ACCTID>${account.number}<ACCTTYPE>CHECKING</BANKACCTFROM>
<BANKTRANLIST><DTSTART>${ofxDate(dates[0])}<DTEND>${ofxDate(dates.at(-1)!)}
${transactions}
</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>
`);
}
