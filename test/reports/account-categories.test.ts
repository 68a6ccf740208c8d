import { describe, expect, it } from 'vitest';
import { CATEGORY_PATHS, CATEGORY_ROWS, TAXONOMY_COUNTS, categoryPath } from '../../src/reports/categories/account-taxonomy.js';
import { suggestCategory } from '../../src/reports/categories/account-categorizer.js';
import { CATEGORY_RULES, RULES_VERSION } from '../../src/reports/categories/category-rules.js';

/*
 * Codat's v3 taxonomy as data (codat-lending-facts.md §1.6), and the mapper on accounts of charts other than the
 * labelled ones (a Sage-style UK chart, QuickBooks' US default chart, a plain-text ledger's names): what an accountant
 * would file them under, at level 2 at least. The measured accuracy on the labelled charts is in
 * category-accuracy.test.ts.
 */

describe("Codat's v3 account categories", () => {
  it('holds the 273 listed rows: 5, 15, 99, 128 and 26 per level, and Asset.Current.RelatedParties', () => {
    expect(TAXONOMY_COUNTS).toEqual({ L1: 5, L2: 15, L3: 99, L4: 128, L5: 26 });
    expect(CATEGORY_ROWS).toHaveLength(273);
    expect(CATEGORY_PATHS).toContain('Asset.Current.RelatedParties');
    // Every prefix of a path is a path.
    for (const path of CATEGORY_PATHS) {
      const levels = path.split('.');
      for (let i = 1; i < levels.length; i++) expect(CATEGORY_PATHS).toContain(levels.slice(0, i).join('.'));
    }
  });

  it('reads a path exactly, accepting both spellings of the non-current lease obligations and emitting one', () => {
    expect(categoryPath('Expense.Operating.Travel')).toEqual(['Expense', 'Operating', 'Travel']);
    expect(categoryPath(' Income ')).toEqual(['Income']);
    expect(categoryPath('Liability.NonCurrent.Debt.CapitalLeaseObligations')).toEqual([
      'Liability',
      'NonCurrent',
      'Debt',
      'CapitalLeasesObligations',
    ]);
    expect(categoryPath('Liability.NonCurrent.Debt.FinanceLeasesObligations')?.at(-1)).toBe('FinanceLeasesObligations');
    for (const bad of [
      'expense.operating',
      'Expense.Operating.Teleportation',
      'Expense..Operating',
      '',
      'Expense Operating',
      'Liability.Current.Debt.CapitalLeaseObligations',
    ])
      expect(categoryPath(bad), bad).toBeUndefined();
  });

  it('every rule names a taxonomy path of its own classes, under one version', () => {
    expect(RULES_VERSION).toMatch(/^\d{4}-\d{2}\.\d+$/);
    const ids = CATEGORY_RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const rule of CATEGORY_RULES) {
      expect(categoryPath(rule.category), rule.id).toBeDefined();
      expect(rule.classes, rule.id).toContain(rule.category.split('.')[0]);
      expect(rule.confidence).toBeGreaterThan(0);
      expect(rule.confidence).toBeLessThanOrEqual(1);
    }
  });
});

describe('the mapper on charts it was not measured on', () => {
  const cases: [Record<string, unknown>, string][] = [
    // A Sage-style UK chart (class, nominal code, name).
    [
      { type: 'Asset', nominalCode: '0050', name: 'Motor Vehicles', fullyQualifiedCategory: 'Asset.FixedAsset' },
      'Asset.NonCurrent.TangibleAssets.Automobiles',
    ],
    [
      { type: 'Asset', nominalCode: '0051', name: 'Motor Vehicles Depreciation', fullyQualifiedCategory: 'Asset.FixedAsset' },
      'Asset.NonCurrent.TangibleAssets',
    ],
    [{ type: 'Asset', nominalCode: '1001', name: 'Stock', fullyQualifiedCategory: 'Asset.CurrentAsset' }, 'Asset.Current.Inventory'],
    [{ type: 'Asset', nominalCode: '1230', name: 'Petty Cash', fullyQualifiedCategory: 'Asset.CurrentAsset' }, 'Asset.Current'],
    [
      { type: 'Liability', nominalCode: '2230', name: 'PAYE', fullyQualifiedCategory: 'Liability.CurrentLiability' },
      'Liability.Current.Personnel.EmployeeTaxesPayable',
    ],
    [
      { type: 'Liability', nominalCode: '2320', name: 'Corporation Tax', fullyQualifiedCategory: 'Liability.CurrentLiability' },
      'Liability.Current.TaxesPayable.CorporationTaxesPayable',
    ],
    [
      { type: 'Liability', nominalCode: '2300', name: 'Loans', fullyQualifiedCategory: 'Liability.LongTermLiability' },
      'Liability.NonCurrent.Debt.LoansPayable',
    ],
    [
      { type: 'Liability', nominalCode: '2400', name: "Directors' Loan Account", fullyQualifiedCategory: 'Liability.CurrentLiability' },
      'Liability.Current.RelatedParties.ShareholderLoansPayable',
    ],
    [
      { type: 'Equity', nominalCode: '3260', name: 'Drawings - equity', fullyQualifiedCategory: 'Equity.Capital' },
      'Equity.OwnersEquity.Drawings',
    ],
    [
      { type: 'Income', nominalCode: '4900', name: 'Miscellaneous Income', fullyQualifiedCategory: 'Income.OtherIncome' },
      'Income.NonOperating',
    ],
    [
      { type: 'Expense', nominalCode: '5000', name: 'Materials Purchased', fullyQualifiedCategory: 'Expense.DirectExpenses' },
      'Expense.CostOfSales.Inventory',
    ],
    [
      { type: 'Expense', nominalCode: '7100', name: 'Rent', fullyQualifiedCategory: 'Expense.Overheads' },
      'Expense.Operating.Leases.BuildingRentLeases',
    ],
    [
      { type: 'Expense', nominalCode: '7900', name: 'Bank Interest Paid', fullyQualifiedCategory: 'Expense.Overheads' },
      'Expense.NonOperating.Interest',
    ],
    [
      { type: 'Expense', nominalCode: '8100', name: 'Bad Debt Write Off', fullyQualifiedCategory: 'Expense.Overheads' },
      'Expense.Operating.SalesGeneralAdministrative.BadDebtDoubtfulAccounts',
    ],
    // QuickBooks' US default chart (classification, account type and subtype).
    [
      { type: 'Expense', name: 'Payroll Expenses', fullyQualifiedCategory: 'Expense.Expense.PayrollExpenses' },
      'Expense.Operating.Personnel.EmployeeWages',
    ],
    [
      { type: 'Expense', name: 'Legal & Professional Fees', fullyQualifiedCategory: 'Expense.Expense.LegalProfessionalFees' },
      'Expense.Operating.SalesGeneralAdministrative.ProfessionalServices',
    ],
    [
      { type: 'Expense', name: 'Cost of Goods Sold', fullyQualifiedCategory: 'Expense.Cost of Goods Sold.SuppliesMaterialsCogs' },
      'Expense.CostOfSales.Inventory',
    ],
    [
      { type: 'Liability', name: 'Mastercard', fullyQualifiedCategory: 'Liability.Credit Card.CreditCard' },
      'Liability.Current.Debt.CreditCards',
    ],
    [
      { type: 'Asset', name: 'Undeposited Funds', fullyQualifiedCategory: 'Asset.Other Current Asset.UndepositedFunds' },
      'Asset.Current.UndepositedFunds',
    ],
    [{ type: 'Asset', name: 'Truck', fullyQualifiedCategory: 'Asset.Fixed Asset.Vehicles' }, 'Asset.NonCurrent.TangibleAssets.Automobiles'],
    [
      { type: 'Equity', name: 'Opening Balance Equity', fullyQualifiedCategory: 'Equity.Equity.OpeningBalanceEquity' },
      'Equity.RetainedEarnings.OpeningBalance',
    ],
    [{ type: 'Income', name: 'Landscaping Services', fullyQualifiedCategory: 'Income.Income.ServiceFeeIncome' }, 'Income.Revenue'],
    // A plain-text ledger's names.
    [
      { type: 'Expense', name: 'fuel', fullyQualifiedName: 'expenses:car:fuel', fullyQualifiedCategory: 'Expense.expenses.car' },
      'Expense.Operating.SalesGeneralAdministrative.Automobiles',
    ],
    [
      { type: 'Liability', name: 'visa', fullyQualifiedName: 'liabilities:visa', fullyQualifiedCategory: 'Liability.liabilities' },
      'Liability.Current.Debt.CreditCards',
    ],
  ];

  it.each(cases.map(([account, want]) => [String(account.name), account, want]))('%s', (_name, account, want) => {
    const got = suggestCategory(account as never);
    const path = got.levels.map((l) => l.levelName).join('.');
    // Level 2 at least, and the expected path as deep as the mapper goes.
    expect(got.levels.length).toBeGreaterThanOrEqual(2);
    expect(want.startsWith(path) || path.startsWith(want), `${path} vs ${want}`).toBe(true);
    // Where the expectation goes to level 3 or deeper, so does the suggestion, to level 3 at least.
    expect(path.split('.').slice(0, 3)).toEqual(String(want).split('.').slice(0, 3));
    expect(got.rulesVersion).toBe(RULES_VERSION);
  });

  it('is deterministic, keeps the class it is given, and with no class infers one only from what matches', () => {
    const account = { type: 'Income', name: 'Travel', fullyQualifiedCategory: 'Income.Revenue' };
    expect(suggestCategory(account)).toEqual(suggestCategory({ ...account }));
    expect(suggestCategory(account).levels[0]).toEqual({ levelName: 'Income', confidence: 0.99 });
    expect(suggestCategory({ type: 'Unknown', name: 'Staff wages', fullyQualifiedCategory: 'Unknown' }).levels[0].levelName).toBe(
      'Expense',
    );
    expect(suggestCategory({ type: 'Unknown', name: 'zzz' })).toMatchObject({ levels: [], ruleId: 'no-class' });
  });
});
