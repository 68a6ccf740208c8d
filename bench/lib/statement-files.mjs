// Generated bank statement files of a given size, one per format, whose balances add up (opening + Σ = closing):
// what `bench/statement-import.mjs` uploads. Amounts are integer cents turned into decimal text, never floats.

const pad = (n, width = 2) => String(n).padStart(width, '0');
const decimal = (cents, separator = '.') => {
  const abs = cents < 0n ? -cents : cents;
  return `${cents < 0n ? '-' : ''}${abs / 100n}${separator}${pad(Number(abs % 100n))}`;
};
/** The i-th transaction: a date in 2024 (in order), a signed amount in cents, a counterparty. */
function transaction(i, perDay) {
  const day = Math.min(365, 1 + Math.floor(i / perDay));
  const date = new Date(Date.UTC(2024, 0, day));
  const cents = BigInt(100 + ((i * 7919) % 250_000)) * (i % 3 === 0 ? -1n : 1n);
  return { date, cents, party: `Counterparty ${i % 997} GmbH`, purpose: `Invoice ${100000 + i} payment reference ${i % 89}` };
}
const ymd = (d) => `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
const yymmdd = (d) => `${pad(d.getUTCFullYear() % 100)}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}`;

/** Keeps adding transactions while the text stays under `bytes`; returns the text and the count. */
function build(bytes, { head, line, tail }) {
  const parts = [];
  let size = 0;
  let total = 0n;
  let n = 0;
  const reserve = 1024;
  for (;;) {
    const t = transaction(n, 400);
    const text = line(t, n);
    if (size + text.length + reserve > bytes) break;
    parts.push(text);
    size += text.length;
    total += t.cents;
    n++;
  }
  const opening = 1_000_000n;
  const last = transaction(Math.max(0, n - 1), 400).date;
  return { text: head(opening, last) + parts.join('') + tail(opening + total, last), transactions: n };
}

export const FORMATS = {
  MT940: (bytes) =>
    build(bytes, {
      head: (opening) => `:20:BENCH\r\n:25:DE89370400440532013000\r\n:28C:1/1\r\n:60F:C240101EUR${decimal(opening, ',')}\r\n`,
      line: (t, i) =>
        `:61:${yymmdd(t.date)}${t.cents < 0n ? 'D' : 'C'}${decimal(t.cents < 0n ? -t.cents : t.cents, ',')}NTRFREF${i}//B${i}\r\n:86:166?00GUTSCHRIFT?20${t.purpose}?32${t.party}\r\n`,
      tail: (closing, last) =>
        `:62F:${closing < 0n ? 'D' : 'C'}${yymmdd(last)}EUR${decimal(closing < 0n ? -closing : closing, ',')}\r\n-\r\n`,
    }),
  'CAMT.053': (bytes) =>
    build(bytes, {
      head: (opening) =>
        `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><GrpHdr><MsgId>BENCH</MsgId><CreDtTm>2025-01-01T00:00:00</CreDtTm></GrpHdr>\n<Stmt><Id>BENCH-1</Id><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>\n<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${decimal(opening)}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2024-01-01</Dt></Dt></Bal>\n`,
      line: (t, i) =>
        `<Ntry><NtryRef>${i}</NtryRef><Amt Ccy="EUR">${decimal(t.cents < 0n ? -t.cents : t.cents)}</Amt><CdtDbtInd>${t.cents < 0n ? 'DBIT' : 'CRDT'}</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>${ymd(t.date)}</Dt></BookgDt><ValDt><Dt>${ymd(t.date)}</Dt></ValDt><AcctSvcrRef>REF${i}</AcctSvcrRef><BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd><NtryDtls><TxDtls><RltdPties><Dbtr><Pty><Nm>${t.party}</Nm></Pty></Dbtr></RltdPties><RmtInf><Ustrd>${t.purpose}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>\n`,
      tail: (closing, last) =>
        `<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${decimal(closing < 0n ? -closing : closing)}</Amt><CdtDbtInd>${closing < 0n ? 'DBIT' : 'CRDT'}</CdtDbtInd><Dt><Dt>${ymd(last)}</Dt></Dt></Bal>\n</Stmt></BkToCstmrStmt></Document>\n`,
    }),
  OFX: (bytes) =>
    build(bytes, {
      head: () =>
        'OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\nSECURITY:NONE\nENCODING:USASCII\nCHARSET:1252\nCOMPRESSION:NONE\nOLDFILEUID:NONE\nNEWFILEUID:NONE\n\n<OFX><SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS><DTSERVER>20250101<LANGUAGE>ENG</SONRS></SIGNONMSGSRSV1>\n<BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STATUS><CODE>0<SEVERITY>INFO</STATUS><STMTRS><CURDEF>USD<BANKACCTFROM><BANKID>121000248<ACCTID>4567890123<ACCTTYPE>CHECKING</BANKACCTFROM>\n<BANKTRANLIST><DTSTART>20240101<DTEND>20241231\n',
      line: (t, i) =>
        `<STMTTRN><TRNTYPE>${t.cents < 0n ? 'DEBIT' : 'CREDIT'}<DTPOSTED>${ymd(t.date).replace(/-/g, '')}<TRNAMT>${decimal(t.cents)}<FITID>${i}<NAME>${t.party}<MEMO>${t.purpose}</STMTTRN>\n`,
      tail: (closing, last) =>
        `</BANKTRANLIST><LEDGERBAL><BALAMT>${decimal(closing)}<DTASOF>${ymd(last).replace(/-/g, '')}</LEDGERBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n`,
    }),
  CSV: (bytes) =>
    build(bytes, {
      head: () => 'Date;Description;Amount\n',
      line: (t) => `${ymd(t.date)};${t.party} ${t.purpose};${decimal(t.cents, ',')}\n`,
      tail: () => '',
    }),
};

/** The mapping the generated CSV needs (its header is no preset's). */
export const CSV_MAPPING = JSON.stringify({
  date: { column: 'Date', format: 'YYYY-MM-DD' },
  amount: 'Amount',
  decimal: ',',
  description: ['Description'],
  currency: { value: 'EUR' },
});
