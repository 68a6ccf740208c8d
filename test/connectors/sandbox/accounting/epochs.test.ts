import { describe, expect, it } from 'vitest';
import { ACCOUNTING_DATA_TYPES } from '../../../../src/codat-model/data-types.js';
import { AS_OF, Checks, type Served, fetchAll, settings } from './helpers.js';

const S = settings(400);
const at = (k: number) => new Date(Date.parse(`${AS_OF}T00:00:00Z`) + k * 3_600_000).toISOString().replace('.000Z', 'Z');
const index = (list: Served[]) => new Map(list.map((r) => [r.id, r]));

/** New, changed and deleted records between two epochs. */
function diff(before: Served[], after: Served[]) {
  const old = index(before);
  const now = index(after);
  return {
    added: after.filter((r) => !old.has(r.id)),
    deleted: before.filter((r) => !now.has(r.id)),
    changed: after.filter((r) => old.has(r.id) && old.get(r.id)!.json !== r.json).map((r) => [old.get(r.id)!, r] as const),
    kept: after.filter((r) => old.has(r.id) && old.get(r.id)!.json === r.json),
  };
}

describe.each(ACCOUNTING_DATA_TYPES.map((t) => [t]))('%s moves with the epochs', (dataType) => {
  it.each([
    [0, 1],
    [1, 3],
  ])('from epoch %i to %i: changed records have a later sourceModifiedDate, new ones the sync time', (from, to) => {
    const c = new Checks();
    const { added, changed, kept } = diff(fetchAll(dataType, S, from), fetchAll(dataType, S, to));
    const times = new Set(Array.from({ length: to - from }, (_, k) => at(from + 1 + k)));
    for (const [before, after] of changed) {
      c.ok(after.sourceModifiedDate! > before.sourceModifiedDate!, `${after.id} changed without a later sourceModifiedDate`);
      c.ok(times.has(after.sourceModifiedDate!), `${after.id} changed at ${after.sourceModifiedDate}`);
    }
    for (const r of added) c.ok(times.has(r.sourceModifiedDate!), `${r.id} added with ${r.sourceModifiedDate}`);
    for (const r of kept) c.ok(r.sourceModifiedDate! <= at(from), `${r.id} unchanged but modified ${r.sourceModifiedDate}`);
    expect(c.failures).toEqual([]);
  });
});

describe('epoch movement of documents', () => {
  it.each(['invoices', 'bills', 'directCosts', 'payments', 'journalEntries'] as const)(
    '%s: each epoch adds, changes and deletes records; deleted ones stay deleted',
    (dataType) => {
      const e0 = fetchAll(dataType, S, 0);
      const e1 = fetchAll(dataType, S, 1);
      const e3 = fetchAll(dataType, S, 3);
      const first = diff(e0, e1);
      const later = diff(e1, e3);
      for (const d of [first, later]) {
        expect(d.added.length).toBeGreaterThan(0);
        expect(d.changed.length + d.deleted.length).toBeGreaterThan(0);
      }
      if (dataType === 'invoices' || dataType === 'bills') {
        for (const d of [first, later]) {
          expect(d.changed.length).toBeGreaterThan(0);
          expect(d.deleted.length).toBeGreaterThan(0);
        }
        // 1 % growth per epoch (nothing is deleted at epoch 0, and nothing in the epoch it is created).
        const growth = Math.max(1, Math.round(e0.length / 100));
        expect(first.added.length).toBe(growth);
        expect(later.added.length).toBe(2 * growth);
        expect(e1.length).toBe(e0.length + growth - first.deleted.length);
      }
      const gone = new Set(first.deleted.map((r) => r.id));
      expect(e3.filter((r) => gone.has(r.id))).toEqual([]);
    },
  );

  it('a change to an invoice moves it along its life: drafts are submitted, unpaid ones get paid, part paid or voided', () => {
    const before = index(fetchAll('invoices', S, 0));
    const transitions = new Set<string>();
    for (const r of fetchAll('invoices', S, 3)) {
      const old = before.get(r.id);
      if (old && old.json !== r.json) transitions.add(`${old.data.status}->${r.data.status}`);
    }
    const allowed = new Set([
      'Draft->Submitted',
      'Draft->Paid',
      'Draft->PartiallyPaid',
      'Draft->Void',
      'Submitted->Paid',
      'Submitted->PartiallyPaid',
      'Submitted->Void',
      'PartiallyPaid->Paid',
      'Paid->Paid',
      'Void->Void',
      'Submitted->Submitted',
      'PartiallyPaid->PartiallyPaid',
    ]);
    for (const t of transitions) expect(allowed.has(t), t).toBe(true);
    expect([...transitions].some((t) => t.startsWith('Submitted->') || t.startsWith('PartiallyPaid->'))).toBe(true);
  });

  it('new invoices are issued in the last days before asOf', () => {
    const { added } = diff(fetchAll('invoices', S, 0), fetchAll('invoices', S, 1));
    for (const r of added) {
      expect(r.data.issueDate.slice(0, 10) <= AS_OF).toBe(true);
      expect(Date.parse(AS_OF) - Date.parse(r.data.issueDate.slice(0, 10))).toBeLessThanOrEqual(7 * 86_400_000);
    }
  });
});
