/**
 * The banking transaction categories: a two-level tree with slug ids, the shape open-banking providers
 * (and Codat's examples, e.g. `auto-and-transport`) use. Transactions reference leaves.
 */
export interface CategoryNode {
  id: string;
  name: string;
  parentId: string | null;
  archived?: boolean;
}

const TREE: ReadonlyArray<[string, string, ReadonlyArray<[string, string]>]> = [
  [
    'income',
    'Income',
    [
      ['income-sales', 'Sales receipts'],
      ['income-interest', 'Interest income'],
      ['income-refunds', 'Refunds received'],
      ['income-grants', 'Grants & funding'],
    ],
  ],
  [
    'transfers',
    'Transfers',
    [
      ['transfers-internal', 'Internal transfer'],
      ['transfers-card-repayment', 'Credit card repayment'],
      ['transfers-treasury', 'Treasury sweep'],
    ],
  ],
  [
    'bank-fees',
    'Bank fees',
    [
      ['bank-fees-account', 'Account fees'],
      ['bank-fees-foreign-exchange', 'Foreign exchange fees'],
      ['bank-fees-card', 'Card fees'],
    ],
  ],
  [
    'payroll',
    'Payroll',
    [
      ['payroll-salaries', 'Salaries'],
      ['payroll-pensions', 'Pensions'],
      ['payroll-contractors', 'Contractors'],
    ],
  ],
  [
    'taxes',
    'Taxes',
    [
      ['taxes-vat', 'VAT & sales tax'],
      ['taxes-payroll', 'Payroll taxes'],
      ['taxes-corporate', 'Corporation tax'],
    ],
  ],
  [
    'rent-and-utilities',
    'Rent & utilities',
    [
      ['rent-and-utilities-rent', 'Rent'],
      ['rent-and-utilities-energy', 'Energy'],
      ['rent-and-utilities-telecoms', 'Telecoms & internet'],
      ['rent-and-utilities-water', 'Water'],
    ],
  ],
  [
    'software',
    'Software & subscriptions',
    [
      ['software-cloud', 'Cloud hosting'],
      ['software-saas', 'Business software'],
    ],
  ],
  [
    'marketing',
    'Marketing & advertising',
    [
      ['marketing-online-ads', 'Online advertising'],
      ['marketing-events', 'Events & sponsorship'],
    ],
  ],
  [
    'travel',
    'Travel',
    [
      ['travel-air', 'Air travel'],
      ['travel-rail', 'Rail'],
      ['travel-hotels', 'Hotels'],
      ['travel-taxi', 'Taxis & rideshare'],
      ['travel-fuel', 'Fuel'],
    ],
  ],
  [
    'food-and-drink',
    'Food & drink',
    [
      ['food-and-drink-restaurants', 'Restaurants'],
      ['food-and-drink-coffee', 'Coffee shops'],
      ['food-and-drink-groceries', 'Groceries'],
    ],
  ],
  [
    'office',
    'Office & supplies',
    [
      ['office-supplies', 'Office supplies'],
      ['office-equipment', 'Equipment'],
      ['office-postage', 'Postage & shipping'],
    ],
  ],
  [
    'professional-services',
    'Professional services',
    [
      ['professional-services-accounting', 'Accounting'],
      ['professional-services-legal', 'Legal'],
      ['professional-services-consulting', 'Consulting'],
    ],
  ],
  [
    'suppliers',
    'Suppliers',
    [
      ['suppliers-stock', 'Stock purchases'],
      ['suppliers-services', 'Supplier services'],
    ],
  ],
  ['insurance', 'Insurance', []],
  [
    'cash',
    'Cash',
    [
      ['cash-withdrawals', 'Cash withdrawals'],
      ['cash-deposits', 'Cash & cheque deposits'],
    ],
  ],
  [
    'other',
    'Other',
    [
      ['other-general', 'General'],
      ['other-entertainment', 'Entertainment (legacy)'],
    ],
  ],
];

/** Every category of the base tree in ascending id order (the order they are served in). */
export const BASE_CATEGORIES: readonly CategoryNode[] = TREE.flatMap(([id, name, children]) => [
  { id, name, parentId: null },
  ...children.map(([childId, childName]) => ({ id: childId, name: childName, parentId: id, archived: childId === 'other-entertainment' })),
]).sort((a, b) => (a.id < b.id ? -1 : 1));

const NAMES = new Map(BASE_CATEGORIES.map((c) => [c.id, c.name]));

export function categoryName(id: string): string {
  const name = NAMES.get(id);
  if (name === undefined) throw new Error(`unknown banking category ${id}`);
  return name;
}

export function parentOf(id: string): string {
  return BASE_CATEGORIES.find((c) => c.id === id)?.parentId ?? id;
}

/** Names for the categories a company adds over time (custom categories live under `other`). */
export const CUSTOM_CATEGORY_NAMES = [
  'Client entertainment',
  'Training & courses',
  'Charitable donations',
  'Vehicle leasing',
  'Research & development',
  'Team offsite',
  'Recruitment',
  'Subscriptions & media',
  'Packaging',
  'Trade shows',
  'Security',
  'Cleaning',
];
