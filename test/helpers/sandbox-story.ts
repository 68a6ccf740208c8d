import { allRecords } from './uploads.js';
import type { TestClient } from './test-server.js';

/*
 * What the accounting and Banking Sandboxes of one company plant (docs/sandbox-banking-commerce.md, "One company, one
 * story"), worked out from the records the API serves alone: a bank line is a movement's when it is on the same
 * account (the same IBAN, else the same number and currency), of the same amount, 0 to 3 days later, and its
 * description ends with the movement's own, upper-cased. Movements are taken in (date, id) order; a line is one
 * movement's at most.
 */

type Data = Record<string, any>;
type Server = { url: string };

const cents = (n: number) => Math.round(n * 100);
const dayNumber = (text: string) => Date.parse(`${text.slice(0, 10)}T00:00:00Z`) / 86_400_000;
const squash = (text: string | null | undefined) => (text ?? '').replace(/\s+/g, '').toUpperCase();

/** A movement's words as the matching rules read them: its first line's description that is not blank, else its note. */
export const movementWords = (m: Data): string =>
  (m.lines ?? []).map((l: Data) => l.description).find((d: unknown) => typeof d === 'string' && d.trim() !== '') ?? m.note ?? '';

export interface SandboxStory {
  moves: Data[];
  bookAccounts: Data[];
  lines: Data[];
  bankAccounts: Data[];
  /** Each planted movement's (by account transaction id) bank line. */
  lineOf: Map<string, Data>;
}

export async function plantedStory(
  server: Server,
  client: Pick<TestClient, 'auth'>,
  companyId: string,
  connections: { accounting: string; banking: string },
): Promise<SandboxStory> {
  const of = (connectionId: string, type: string) => allRecords(server, client.auth, { companyId, connectionId }, type);
  const moves = await of(connections.accounting, 'accountTransactions');
  const bookAccounts = await of(connections.accounting, 'bankAccounts');
  const lines = await of(connections.banking, 'banking-transactions');
  const bankAccounts = await of(connections.banking, 'banking-accounts');
  const bookOf = new Map(
    bankAccounts.map((a) => [
      a.id,
      bookAccounts.find((b) =>
        a.identifiers.iban
          ? squash(a.identifiers.iban) === squash(b.iBan)
          : a.identifiers.number === b.accountNumber && a.currency === b.currency,
      )?.id,
    ]),
  );
  const lineOf = new Map<string, Data>();
  const taken = new Set<string>();
  for (const m of [...moves].sort((x, y) => dayNumber(x.date) - dayNumber(y.date) || (x.id < y.id ? -1 : 1))) {
    const words = ` ${movementWords(m).toUpperCase()}`;
    const line = lines.find((t) => {
      const lag = dayNumber(t.postedDate) - dayNumber(m.date);
      return (
        !taken.has(t.id) &&
        bookOf.get(t.accountId) === m.bankAccountRef.id &&
        cents(t.amount) === cents(m.totalAmount) &&
        lag >= 0 &&
        lag <= 3 &&
        t.description.endsWith(words)
      );
    });
    if (!line) continue;
    taken.add(line.id);
    lineOf.set(m.id, line);
  }
  return { moves, bookAccounts, lines, bankAccounts, lineOf };
}
