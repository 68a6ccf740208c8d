/**
 * Codat's v3 account category taxonomy (codat-lending-facts.md §1.6: the 273 rows of Codat's
 * supported-account-categories table and of the `Categories V3` sheet of assess-metrics.xlsx), as data: five
 * levels, every prefix of a path itself a category, paths dot-joined (`Liability.NonCurrent.Debt.LoansPayable`).
 *
 * Spellings are exact and case-sensitive. The two sources differ on the non-current lease obligations: the table has
 * `CapitalLeaseObligations` and `FinanceLeaseObligations`, the sheet `CapitalLeasesObligations` and
 * `FinanceLeasesObligations` (as under `Liability.Current.Debt`). Ledgerport emits the sheet's spelling and accepts
 * both (docs/lending/account-categories.md).
 */

/** A node's children, in the order of the facts' table; a leaf has none. */
interface Tree {
  readonly [name: string]: Tree;
}

/** Leaves named in order. */
function leaves(...names: string[]): Tree {
  return Object.fromEntries(names.map((n) => [n, {}]));
}

const MARKETING: Tree = {
  Direct: leaves('Digital', 'Physical'),
  Indirect: leaves('Digital', 'Physical'),
};

const SHAREHOLDER_LOANS: Tree = { DirectorsLoans: {} };

/** The taxonomy, L1 → L5, in §1.6's order. */
const TAXONOMY: Tree = {
  Income: {
    Revenue: {
      Advertising: {},
      ProfessionalServices: {},
      Reimbursements: leaves('BillableExpenses', 'SupplierRefunds'),
      RentalIncome: {},
      Subscriptions: leaves('Overage', 'Upgrades'),
      UnappliedCash: {},
      Wholesale: {},
      CommissionsReferrals: {},
      Distribution: leaves('PaymentProcessing', 'ShippingCharges'),
      InStore: {},
      Licensing: {},
      Markups: {},
      NonProfit: {},
      Online: {},
      Partnerships: {},
    },
    DiscountsReturnsAllowances: leaves('Advertising', 'InStore', 'Online', 'UnappliedCash', 'Wholesale'),
    NonOperating: {
      AssetDisposals: {},
      CashBackRewards: {},
      Dividends: {},
      ExtraordinaryItems: leaves('Grants'),
      FxGain: {},
      Interest: {},
      TaxesRefundsCredits: {},
    },
  },
  Expense: {
    Operating: {
      BankCharges: {},
      SoftwareData: leaves('Licensing'),
      Travel: {},
      Utilities: {
        Energy: leaves('Electricity', 'Gas'),
        Telecommunications: {},
        Water: {},
      },
      Infrastructure: leaves('Hosting'),
      Leases: leaves('BuildingRentLeases', 'EquipmentRentLeases'),
      Marketing: MARKETING,
      NonCash: leaves('Amortization', 'Depletion', 'Depreciation', 'EmployeeStockCompensation', 'RevaluationImpairment'),
      Personnel: leaves(
        'Consultants',
        'Contractors',
        'DirectorsCompensation',
        'EmployeeBenefits',
        'EmployeeTaxes',
        'EmployeeWages',
        'Pensions',
      ),
      Property: leaves('PropertyMaintenance', 'PropertyManagementFees'),
      ResearchDevelopment: {},
      SalesGeneralAdministrative: leaves(
        'Automobiles',
        'BadDebtDoubtfulAccounts',
        'Chargebacks',
        'ClientEntertainment',
        'CommissionsExpense',
        'Distribution',
        'Insurance',
        'PaymentProcessingFees',
        'ProfessionalServices',
      ),
    },
    NonOperating: {
      Dividends: {},
      Donations: leaves('Charity', 'Gifts'),
      Drawings: {},
      ExtraordinaryItems: leaves('LegalSettlements'),
      FxLoss: {},
      Interest: leaves('CreditCardInterestPaid', 'LoanInterestPaid'),
      Penalties: {},
      Restructuring: {},
      Taxes: leaves('CorporationTaxes', 'IncomeTaxes', 'SalesTaxes', 'ValueAddedTaxes'),
    },
    CostOfSales: {
      FulfillmentLogistics: leaves('Delivery', 'Packing', 'Returns', 'Warehousing'),
      SoftwareData: leaves('Licensing'),
      Infrastructure: leaves('Hosting', 'Infrastructure'),
      Inventory: leaves('InventoryShrinkage', 'Packaging', 'RawMaterials'),
      ManufacturingProcess: {},
      Marketing: MARKETING,
      MerchantFees: leaves('Chargebacks', 'PaymentProcessingFees'),
      Personnel: leaves('AffiliateCommissions', 'EmployeeCommissionsBonuses', 'SalariesWages'),
      ProfessionalServices: {},
      Royalties: {},
    },
  },
  Asset: {
    Current: {
      AccruedDeferredAssets: leaves('AccruedRevenue', 'DeferredExpenses', 'PrepaidExpenses'),
      AllowanceDoubtfulAccounts: {},
      Bank: {
        BankTransfers: leaves('IntracompanyTransfers', 'RelatedPartyTransfers', 'ShareholderTransfers'),
        Clearing: {},
      },
      CashEquivalents: leaves('Cryptocurrency'),
      Inventory: leaves('FinishedGoods', 'Merchandise', 'RawMaterials', 'WorkInProcess', 'Packaging', 'Obsolete'),
      Investments: {},
      Receivables: leaves('AccountsReceivable', 'NotesLoansReceivable'),
      RestrictedFunds: leaves('ClientFunds'),
      // Not a row of the table, but it has rows below it: valid (§1.6).
      RelatedParties: { EmployeeLoans: {}, IntercompanyReceivable: {}, ShareholderLoans: SHAREHOLDER_LOANS },
      UndepositedFunds: {},
    },
    NonCurrent: {
      AccruedDeferredAssets: leaves('DeferredExpenses', 'PrepaidExpenses'),
      AccumulatedDepreciationDepletionAmortization: leaves(
        'AccumulatedAmortization',
        'AccumulatedDepletion',
        'AccumulatedDepreciation',
        'RevaluationImpairment',
      ),
      IntangibleAssets: leaves('AcquisitionsInProgress', 'Goodwill'),
      Investments: {},
      Receivables: leaves('NotesLoansReceivable'),
      RelatedParties: { EmployeeLoans: {}, IntercompanyReceivable: {}, ShareholderLoans: SHAREHOLDER_LOANS },
      TangibleAssets: leaves(
        'AssetsUnderConstruction',
        'Automobiles',
        'CapitalLeases',
        'EquipmentMachinery',
        'FixturesFittings',
        'LandBuildings',
        'LandBuildingsImprovements',
      ),
    },
  },
  Liability: {
    Current: {
      AccountsPayable: {},
      AccruedLiabilities: leaves('DeferredRevenue', 'DividendsPayable'),
      Debt: {
        CapitalLeasesObligations: leaves('Investments', 'Repayments'),
        CreditCards: leaves('Purchases', 'Repayments'),
        FinanceLeasesObligations: leaves('Investments', 'Repayments'),
        LoansPayable: leaves('Investments', 'Repayments'),
        Overdrafts: {},
      },
      InterestPayable: {},
      Personnel: {
        EmployeeBenefitsPayable: leaves('EmployeeStockCompensation'),
        EmployeeTaxesPayable: {},
        EmployeeWagesPayable: {},
        PensionsPayable: {},
      },
      RelatedParties: {
        EmployeeLoansPayable: {},
        IntercompanyPayable: {},
        ShareholderLoansPayable: leaves('DirectorsLoansPayable'),
      },
      TaxesPayable: leaves('CorporationTaxesPayable', 'IncomeTaxesPayable', 'SalesTaxesPayable', 'ValueAddedTaxesPayable'),
    },
    NonCurrent: {
      AccruedLiabilities: leaves('DeferredRevenue', 'DeferredTaxes'),
      // The sheet's spelling (emitted); the table's `CapitalLeaseObligations`/`FinanceLeaseObligations` are accepted.
      Debt: leaves('CapitalLeasesObligations', 'FinanceLeasesObligations', 'LoansPayable'),
      RelatedParties: {
        EmployeeLoansPayable: {},
        IntercompanyPayable: {},
        ShareholderLoansPayable: leaves('DirectorsLoansPayable'),
      },
    },
  },
  Equity: {
    ShareCapital: leaves(
      'EmployeeStockOwnershipPlan',
      'PreferredStock',
      'TreasuryStock',
      'CommonStock',
      'PaidInCapital',
      'AdditionalPaidInCapital',
    ),
    OwnersEquity: leaves('Drawings', 'OwnersContributions'),
    RetainedEarnings: leaves('Adjustments', 'CapitalIncomeReserves', 'Dividends', 'OpeningBalance'),
    OtherComprehensiveIncome: leaves('CashFlowHedges', 'FxCurrencyTranslations'),
    RelatedParties: leaves('EquityNonControllingInterests'),
  },
};

/** A path valid although no row of the table lists it (it has rows below it). */
const UNLISTED = 'Asset.Current.RelatedParties';

/** Every category of the taxonomy, dot-joined, parents before their children, in §1.6's order (274: the 273 rows and `Asset.Current.RelatedParties`). */
export const CATEGORY_PATHS: readonly string[] = (() => {
  const out: string[] = [];
  const walk = (tree: Tree, prefix: string) => {
    for (const [name, children] of Object.entries(tree)) {
      const path = prefix ? `${prefix}.${name}` : name;
      out.push(path);
      walk(children, path);
    }
  };
  walk(TAXONOMY, '');
  return Object.freeze(out);
})();

/** The rows of the facts' table (§1.6): every path but `Asset.Current.RelatedParties`. */
export const CATEGORY_ROWS: readonly string[] = Object.freeze(CATEGORY_PATHS.filter((p) => p !== UNLISTED));

/** How many rows of the table are at each level: 5 L1, 15 L2, 99 L3, 128 L4, 26 L5 (273). */
export const TAXONOMY_COUNTS: Readonly<Record<'L1' | 'L2' | 'L3' | 'L4' | 'L5', number>> = Object.freeze(
  Object.fromEntries(
    [1, 2, 3, 4, 5].map((level) => [`L${level}`, CATEGORY_ROWS.filter((p) => p.split('.').length === level).length]),
  ) as Record<'L1' | 'L2' | 'L3' | 'L4' | 'L5', number>,
);

/** The table's spelling of the non-current lease obligations → the emitted (sheet's) one. */
const ALTERNATIVE_SPELLINGS: ReadonlyMap<string, string> = new Map([
  ['Liability.NonCurrent.Debt.CapitalLeaseObligations', 'Liability.NonCurrent.Debt.CapitalLeasesObligations'],
  ['Liability.NonCurrent.Debt.FinanceLeaseObligations', 'Liability.NonCurrent.Debt.FinanceLeasesObligations'],
]);

const VALID: ReadonlySet<string> = new Set(CATEGORY_PATHS);

/**
 * The levels of a dot-joined category path (trimmed; exact, case-sensitive spellings), in the emitted spelling, or
 * undefined when it is not a path of the taxonomy. Either spelling of the non-current lease obligations is accepted.
 */
export function categoryPath(text: string): string[] | undefined {
  if (typeof text !== 'string') return undefined;
  const trimmed = text.trim();
  const path = ALTERNATIVE_SPELLINGS.get(trimmed) ?? trimmed;
  return VALID.has(path) ? path.split('.') : undefined;
}

/** The top levels: the account classes a category starts with. */
export const CATEGORY_CLASSES = ['Asset', 'Liability', 'Equity', 'Income', 'Expense'] as const;
export type CategoryClass = (typeof CATEGORY_CLASSES)[number];
