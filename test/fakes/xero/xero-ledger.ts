import { randomUUID } from 'node:crypto';
import { msDate, type XeroRecord } from './xero-tenant.js';

/**
 * The fake organisation's general ledger: Xero writes a journal for every document that reaches the books (an
 * approved invoice, bill or credit note, a payment, a bank transaction) and a reversing one when it leaves them (voided,
 * deleted). Journals are never changed, and they number up from 1, which is what Xero's `/Journals?offset=` pages
 * by. Its reports (balance sheet, profit and loss) are sums of these journals, so they always agree with the
 * documents.
 */

export interface LedgerLine {
  account: XeroRecord;
  /** Debit positive, credit negative (Xero's NetAmount). */
  net: number;
  description?: string;
}

const round = (n: number) => Math.round(n * 100) / 100;

export class XeroLedger {
  readonly journals: XeroRecord[] = [];
  /** The lines each source document last put on the books, so leaving them reverses exactly those. */
  private readonly posted = new Map<string, LedgerLine[]>();

  /** Puts a document on the books (replacing what it put there before, as an edit of an approved document does). */
  post(sourceType: string, sourceId: string, day: string, lines: LedgerLine[], createdMs: number): void {
    this.reverse(sourceType, sourceId, day, createdMs);
    const kept = lines.filter((l) => round(l.net) !== 0);
    this.posted.set(sourceId, kept);
    this.journal(sourceType, sourceId, day, kept, createdMs);
  }

  /** Takes a document off the books with a journal that reverses what it put there. */
  reverse(sourceType: string, sourceId: string, day: string, createdMs: number): void {
    const previous = this.posted.get(sourceId);
    if (!previous) return;
    this.posted.delete(sourceId);
    this.journal(
      sourceType,
      sourceId,
      day,
      previous.map((l) => ({ ...l, net: -l.net })),
      createdMs,
    );
  }

  private journal(sourceType: string, sourceId: string, day: string, lines: LedgerLine[], createdMs: number): void {
    const total = round(lines.reduce((sum, l) => sum + l.net, 0));
    if (total !== 0) throw new Error(`the fake's journal for ${sourceType} ${sourceId} does not balance (${total})`);
    this.journals.push({
      JournalID: randomUUID(),
      JournalNumber: this.journals.length + 1,
      JournalDate: msDate(Date.parse(`${day}T00:00:00Z`)),
      CreatedDateUTC: msDate(createdMs),
      SourceID: sourceId,
      SourceType: sourceType,
      JournalLines: lines.map((l) => ({
        JournalLineID: randomUUID(),
        AccountID: l.account.AccountID,
        AccountCode: l.account.Code,
        AccountType: l.account.Type,
        AccountName: l.account.Name,
        Description: l.description ?? '',
        NetAmount: round(l.net),
        GrossAmount: round(l.net),
        TaxAmount: 0,
        TrackingCategories: [],
      })),
    });
  }

  /** Each account's net movement (debit positive) over journals dated from `from` to `to` (`YYYY-MM-DD`, inclusive). */
  movements(from: string, to: string): Map<string, number> {
    const totals = new Map<string, number>();
    for (const journal of this.journals) {
      const day = new Date(Number(/\d+/.exec(journal.JournalDate)![0])).toISOString().slice(0, 10);
      if (day < from || day > to) continue;
      for (const line of journal.JournalLines) totals.set(line.AccountID, round((totals.get(line.AccountID) ?? 0) + line.NetAmount));
    }
    return totals;
  }
}
