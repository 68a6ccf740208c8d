import type { SourceRecord } from '../../connector.js';
import type { GeneratedSource, FetchContext } from '../generated-source.js';
import { DEFAULT_RATES, Movement } from './kit/movement.js';
import { Calendar } from './kit/calendar.js';
import { u3 } from './kit/fast.js';
import { BASE_CATEGORIES, CUSTOM_CATEGORY_NAMES, type CategoryNode } from './category-tree.js';
import { KEY } from './keys.js';
import { BankingTransactionCategory } from '../../../codat-model/banking/schemas.js';

/**
 * Category `i`: the base tree first, then one custom category (under `other`) per later epoch. Categories
 * are archived rather than deleted, so every category a transaction ever referenced still exists.
 */
function categoryAt(i: number): CategoryNode {
  if (i < BASE_CATEGORIES.length) return BASE_CATEGORIES[i];
  const n = i - BASE_CATEGORIES.length;
  const name = CUSTOM_CATEGORY_NAMES[n % CUSTOM_CATEGORY_NAMES.length];
  const round = Math.floor(n / CUSTOM_CATEGORY_NAMES.length);
  return {
    id: `other-custom-${String(n + 1).padStart(4, '0')}`,
    name: round === 0 ? name : `${name} ${round + 1}`,
    parentId: 'other',
  };
}

function* categories(ctx: FetchContext): Generator<SourceRecord> {
  const cal = new Calendar(ctx.settings.asOf);
  const moves = new Movement(ctx.settings.seed, KEY.categories, BASE_CATEGORIES.length, ctx.epoch, { ...DEFAULT_RATES, delete: 0 });
  const nodes = Array.from({ length: moves.total }, (_, i) => ({ i, node: categoryAt(i) }));
  const parents = new Set(nodes.map((n) => n.node.parentId).filter((p) => p !== null));
  // A few dozen records: sorting them keeps slug ids (Codat's style) in ascending order.
  nodes.sort((a, b) => (a.node.id < b.node.id ? -1 : 1));
  for (const { i, node } of nodes) {
    const createdEpoch = moves.createdAt(i);
    // Leaves can be archived by a later epoch; parents stay active.
    const changed = parents.has(node.id) ? 0 : moves.changedAt(i, createdEpoch);
    const created =
      createdEpoch === 0 ? cal.created(-400 - (i % 90), Math.floor(u3(ctx.settings.seed, i, 0xca7) * 86400)) : cal.epochStamp(createdEpoch);
    const modified = cal.modified(created, changed);
    yield {
      id: node.id,
      sourceModifiedDate: modified,
      data: {
        id: node.id,
        name: node.name,
        parentId: node.parentId,
        hasChildren: parents.has(node.id),
        status: node.archived || changed ? 'Archived' : 'Active',
        sourceModifiedDate: modified,
      },
    };
  }
}

export const bankingTransactionCategories: GeneratedSource = {
  dataType: 'banking-transactionCategories',
  typeName: 'TransactionCategory',
  schema: BankingTransactionCategory,
  fetch: categories,
};
