/**
 * One QuickBooks Online company (realm) as the fake keeps it: its entities as the v3 API answers them (Invoice,
 * Customer, Account, …), the tombstones change data capture reports for deleted ones, and the rules QuickBooks
 * applies when entities are written (SyncToken, totals and tax, numbering, payments settling invoices). Every change
 * stamps `MetaData.LastUpdatedTime` from the realm's clock, which never goes back (see tick).
 */

export type QboEntity = Record<string, any>;

export const ENTITIES = [
  'Invoice',
  'Bill',
  'Customer',
  'Vendor',
  'Account',
  'Payment',
  'BillPayment',
  'CreditMemo',
  'VendorCredit',
  'JournalEntry',
  'Item',
  'TaxCode',
  'TaxRate',
  'Deposit',
  'Purchase',
  'Transfer',
  'SalesReceipt',
  'RefundReceipt',
  // Queried as CreditCardPayment, answered under its schema name (QUERY_NAMES).
  'CreditCardPaymentTxn',
];

/** Entities the query language names otherwise than the answer does. */
export const QUERY_NAMES: Record<string, string> = { creditcardpayment: 'CreditCardPaymentTxn' };

/** Entities a query leaves out when inactive, unless the query says otherwise (`Active IN (true, false)`). */
export const NAME_LISTS = new Set(['Customer', 'Vendor', 'Account', 'Item', 'TaxCode', 'TaxRate']);

/** A refusal as QuickBooks answers it: HTTP 400 (or `status`) with a Fault. */
export class QboRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly detail: string,
    readonly status = 400,
    readonly type = 'ValidationFault',
  ) {
    super(message);
  }

  fault(): QboEntity {
    return { Error: [{ Message: this.message, Detail: this.detail, code: this.code, element: '' }], type: this.type };
  }
}

/** QuickBooks' timestamps are in the company's zone; the fake's companies are on Pacific time, as Intuit's samples are. */
export function pacific(ms: number): string {
  return new Date(ms - 7 * 3_600_000).toISOString().replace(/\.\d{3}Z$/, '-07:00');
}

const round = (n: number) => Math.round(n * 100) / 100;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const GBP = { value: 'GBP', name: 'British Pound Sterling' };

const FIRST = ['Ana', 'Ben', 'Chloé', 'Dev', 'Eli', 'Fatima', 'George', 'Hana', 'Ivan', 'Jun'];
const TRADE = ['Harbour', 'Oak', 'Thistle', 'Summit', 'Severn', 'Rowan', 'Southern', 'Heather', 'Coastal', 'Ashby'];
const KIND = ['Plumbing', 'Design', 'Foods', 'Logistics', 'Builders', 'Consulting', 'Print', 'Motors'];

export class QboRealm {
  readonly entities = new Map<string, Map<string, QboEntity>>();
  /** Deleted entities, as change data capture reports them (`{ Id, status: "Deleted", MetaData }`). */
  readonly tombstones: { entity: string; record: QboEntity }[] = [];
  /** Answers to writes by their `requestid`: the same id answers the first answer again and changes nothing. */
  readonly idempotent = new Map<string, { status: number; body: QboEntity }>();
  companyInfo: QboEntity;
  preferences: QboEntity;
  /**
   * QuickBooks' clock as the fake keeps it, and its "now" (a query's `time`, the change data capture window): a
   * second per change from 25 days ago, so seeded records look weeks old, every later change is newer than all of
   * them however fast a test makes them, and change data capture (30 days back) still reaches the first of them.
   */
  private clock = Date.now() - 25 * 86_400_000;
  private lastId = 0;
  private docNumber = 1000;

  constructor(
    readonly realmId: string,
    readonly name: string,
  ) {
    for (const entity of ENTITIES) this.entities.set(entity, new Map());
    const created = pacific(Date.parse('2019-04-01T09:00:00Z'));
    this.companyInfo = {
      Id: '1',
      SyncToken: '0',
      domain: 'QBO',
      sparse: false,
      MetaData: { CreateTime: created, LastUpdatedTime: created },
      CompanyName: name,
      LegalName: `${name} Ltd`,
      CompanyAddr: { Id: '1', Line1: '10 Bridge Street', City: 'Bristol', PostalCode: 'BS1 2AA', Country: 'GB' },
      LegalAddr: { Id: '1', Line1: '10 Bridge Street', City: 'Bristol', PostalCode: 'BS1 2AA', Country: 'GB' },
      PrimaryPhone: { FreeFormNumber: '0117 496 0000' },
      CompanyStartDate: '2019-04-01',
      FiscalYearStartMonth: 'April',
      Country: 'GB',
      Email: { Address: 'accounts@example.co.uk' },
      WebAddr: { URI: 'https://example.co.uk' },
      SupportedLanguages: 'en',
      NameValue: [{ Name: 'CompanyType', Value: 'Limited Company' }],
    };
    this.preferences = {
      Id: '1',
      SyncToken: '0',
      domain: 'QBO',
      sparse: false,
      MetaData: { CreateTime: created, LastUpdatedTime: created },
      CurrencyPrefs: { MultiCurrencyEnabled: false, HomeCurrency: { value: 'GBP' } },
    };
    this.seedReference();
  }

  /** QuickBooks' "now". */
  now(): number {
    return this.clock;
  }

  /** Time passes at QuickBooks (e.g. a month without syncs), with no change made. */
  advance(ms: number): void {
    this.clock += ms;
  }

  /** The next change's time: a second after the one before (see clock). */
  private tick(): number {
    this.clock += 1000;
    return this.clock;
  }

  table(entity: string): Map<string, QboEntity> {
    const found = this.entities.get(entity);
    if (!found) throw new Error(`the fake has no entity ${entity}`);
    return found;
  }

  all(entity: string): QboEntity[] {
    return [...this.table(entity).values()];
  }

  /** A new entity: the next Id, SyncToken 0, created and updated now. */
  private create(entity: string, fields: QboEntity): QboEntity {
    const at = pacific(this.tick());
    const record = {
      Id: String(++this.lastId),
      SyncToken: '0',
      domain: 'QBO',
      sparse: false,
      MetaData: { CreateTime: at, LastUpdatedTime: at },
      ...fields,
    };
    this.table(entity).set(record.Id, record);
    return record;
  }

  /** A change to an entity: a new SyncToken and LastUpdatedTime. */
  private touch(record: QboEntity): QboEntity {
    record.SyncToken = String(Number(record.SyncToken) + 1);
    record.MetaData = { ...record.MetaData, LastUpdatedTime: pacific(this.tick()) };
    return record;
  }

  private seedReference(): void {
    const accounts: [string, string, string, string, string][] = [
      ['1000', 'Current Account', 'Asset', 'Bank', 'Checking'],
      ['1010', 'Savings Account', 'Asset', 'Bank', 'Savings'],
      ['1100', 'Debtors', 'Asset', 'Accounts Receivable', 'AccountsReceivable'],
      ['2100', 'Creditors', 'Liability', 'Accounts Payable', 'AccountsPayable'],
      ['2200', 'VAT Control', 'Liability', 'Other Current Liability', 'GlobalTaxPayable'],
      ['3000', 'Share Capital', 'Equity', 'Equity', 'OwnersEquity'],
      ['4000', 'Sales', 'Revenue', 'Income', 'SalesOfProductIncome'],
      ['4100', 'Services', 'Revenue', 'Income', 'ServiceFeeIncome'],
      ['5000', 'Cost of Sales', 'Expense', 'Cost of Goods Sold', 'SuppliesMaterialsCogs'],
      ['6000', 'Advertising', 'Expense', 'Expense', 'AdvertisingPromotional'],
      ['6100', 'Office Expenses', 'Expense', 'Expense', 'OfficeGeneralAdministrativeExpenses'],
    ];
    for (const [number, name, classification, type, subType] of accounts) {
      this.create('Account', {
        Name: name,
        AcctNum: number,
        SubAccount: false,
        FullyQualifiedName: name,
        Active: true,
        Classification: classification,
        AccountType: type,
        AccountSubType: subType,
        CurrentBalance: 0,
        CurrentBalanceWithSubAccounts: 0,
        CurrencyRef: GBP,
      });
    }
    // An account closed years ago: inactive, and still served (Archived).
    this.create('Account', {
      Name: 'Old Deposit Account',
      AcctNum: '1020',
      FullyQualifiedName: 'Old Deposit Account',
      Active: false,
      Classification: 'Asset',
      AccountType: 'Bank',
      AccountSubType: 'Savings',
      CurrentBalance: 0,
      CurrencyRef: GBP,
    });
    const rate = (name: string, value: number) =>
      this.create('TaxRate', {
        Name: name,
        Description: name,
        Active: true,
        RateValue: value,
        AgencyRef: { value: '1' },
        SpecialTaxType: 'NONE',
        DisplayType: 'ReadOnly',
        EffectiveTaxRate: [{ RateValue: value, EffectiveDate: '2011-01-04T00:00:00-08:00' }],
      });
    const standardSales = rate('20.0% S (sales)', 20);
    const standardPurchases = rate('20.0% S (purchases)', 20);
    const zero = rate('0.0% Z', 0);
    const detail = (r: QboEntity) => ({ TaxRateRef: { value: r.Id, name: r.Name }, TaxTypeApplicable: 'TaxOnAmount', TaxOrder: 0 });
    this.create('TaxCode', {
      Name: '20.0% S',
      Description: 'Standard rated',
      Active: true,
      Hidden: false,
      Taxable: true,
      TaxGroup: true,
      SalesTaxRateList: { TaxRateDetail: [detail(standardSales)] },
      PurchaseTaxRateList: { TaxRateDetail: [detail(standardPurchases)] },
    });
    this.create('TaxCode', {
      Name: '0.0% Z',
      Description: 'Zero rated',
      Active: true,
      Hidden: false,
      Taxable: true,
      TaxGroup: true,
      SalesTaxRateList: { TaxRateDetail: [detail(zero)] },
      PurchaseTaxRateList: { TaxRateDetail: [detail(zero)] },
    });
    this.create('Item', {
      Name: 'Consulting',
      Sku: 'CONSULT',
      Description: 'One hour of consulting',
      Active: true,
      FullyQualifiedName: 'Consulting',
      Taxable: true,
      UnitPrice: 150,
      Type: 'Service',
      IncomeAccountRef: this.ref('Account', this.account('4100')),
      SalesTaxCodeRef: this.ref('TaxCode', this.taxCode('20.0% S')),
      TrackQtyOnHand: false,
    });
    this.create('Item', {
      Name: 'Office supplies',
      Sku: 'SUPPLIES',
      Active: true,
      FullyQualifiedName: 'Office supplies',
      Type: 'NonInventory',
      PurchaseDesc: 'Paper, toner and pens',
      PurchaseCost: 25,
      ExpenseAccountRef: this.ref('Account', this.account('6100')),
      PurchaseTaxCodeRef: this.ref('TaxCode', this.taxCode('20.0% S')),
      TrackQtyOnHand: false,
    });
  }

  /** A reference to an entity as QuickBooks writes one: `{ value: Id, name }`. */
  ref(entity: string, record: QboEntity): QboEntity {
    const name = entity === 'Customer' || entity === 'Vendor' ? record.DisplayName : record.Name;
    return { value: record.Id, ...(name ? { name } : {}) };
  }

  account(number: string): QboEntity {
    const found = this.all('Account').find((a) => a.AcctNum === number);
    if (!found) throw new Error(`no account ${number}`);
    return found;
  }

  taxCode(name: string): QboEntity {
    const found = this.all('TaxCode').find((c) => c.Name === name);
    if (!found) throw new Error(`no tax code ${name}`);
    return found;
  }

  item(sku: string): QboEntity {
    const found = this.all('Item').find((i) => i.Sku === sku);
    if (!found) throw new Error(`no item ${sku}`);
    return found;
  }

  private person(n: number): QboEntity {
    const first = FIRST[n % FIRST.length];
    const name = `${TRADE[n % TRADE.length]} ${KIND[Math.floor(n / TRADE.length) % KIND.length]} ${n > 79 ? n : ''}`.trim();
    return {
      GivenName: first,
      FamilyName: 'Smith',
      CompanyName: name,
      DisplayName: name,
      PrintOnCheckName: name,
      Active: true,
      PrimaryPhone: { FreeFormNumber: `0117 496 ${String(1000 + n).slice(-4)}` },
      PrimaryEmailAddr: {
        Address: `${first
          .toLowerCase()
          .normalize('NFD')
          .replace(/[^a-z]/g, '')}${n}@example.co.uk`,
      },
      BillAddr: { Line1: `${n + 1} Corn Street`, City: 'Bristol', PostalCode: 'BS1 1HT', Country: 'GB' },
      CurrencyRef: GBP,
      Balance: 0,
    };
  }

  addCustomer(n = this.table('Customer').size): QboEntity {
    return this.create('Customer', {
      ...this.person(n),
      ShipAddr: { Line1: `Unit ${n + 1}, Avon Trading Estate`, City: 'Bristol', PostalCode: 'BS2 0QS', Country: 'GB' },
      Job: false,
      BillWithParent: false,
      BalanceWithJobs: 0,
      PreferredDeliveryMethod: 'Email',
      Taxable: true,
    });
  }

  addVendor(n = this.table('Customer').size + this.table('Vendor').size): QboEntity {
    return this.create('Vendor', { ...this.person(n + 40), AcctNum: `S${100 + n}`, Vendor1099: false });
  }

  /** `count` invoices, a customer each ten, dated over the last year, each of one or two lines. */
  seedInvoices(count: number): QboEntity[] {
    let customer: QboEntity | undefined;
    const made: QboEntity[] = [];
    for (let i = 0; i < count; i++) {
      if (i % 10 === 0) customer = this.addCustomer();
      const date = Date.UTC(2025, 10, 1) - (i % 365) * 86_400_000;
      made.push(
        this.saveInvoice({
          CustomerRef: { value: customer!.Id },
          TxnDate: day(date),
          DueDate: day(date + 30 * 86_400_000),
          CustomerMemo: { value: `Order ${1000 + i}` },
          Line: [
            {
              DetailType: 'SalesItemLineDetail',
              Amount: (1 + (i % 5)) * 150,
              Description: 'Consulting hours',
              SalesItemLineDetail: {
                ItemRef: { value: this.item('CONSULT').Id },
                Qty: 1 + (i % 5),
                UnitPrice: 150,
                TaxCodeRef: { value: this.taxCode('20.0% S').Id },
              },
            },
          ],
        }),
      );
    }
    return made;
  }

  /** `count` bills, a vendor each ten. */
  seedBills(count: number): QboEntity[] {
    let vendor: QboEntity | undefined;
    const made: QboEntity[] = [];
    for (let i = 0; i < count; i++) {
      if (i % 10 === 0) vendor = this.addVendor();
      const date = Date.UTC(2025, 10, 1) - (i % 365) * 86_400_000;
      made.push(
        this.saveBill({
          VendorRef: { value: vendor!.Id },
          TxnDate: day(date),
          DueDate: day(date + 30 * 86_400_000),
          DocNumber: `SUP-${500 + i}`,
          Line: [
            {
              DetailType: 'AccountBasedExpenseLineDetail',
              Amount: 80 + (i % 7) * 10,
              Description: 'Advertising',
              AccountBasedExpenseLineDetail: {
                AccountRef: { value: this.account('6000').Id },
                TaxCodeRef: { value: this.taxCode('20.0% S').Id },
              },
            },
          ],
        }),
      );
    }
    return made;
  }

  private existing(entity: string, input: QboEntity): QboEntity | undefined {
    if (input.Id === undefined) return undefined;
    const found = this.table(entity).get(String(input.Id));
    if (!found)
      throw new QboRefusal(
        '610',
        'Object Not Found',
        `Object Not Found : Something you're trying to use has been made inactive. Check the fields with accounts, customers, items, vendors or employees.`,
      );
    if (input.SyncToken !== found.SyncToken)
      throw new QboRefusal(
        '5010',
        'Stale Object Error',
        `Stale Object Error : You and ${'another user'} were working on this at the same time. ${'another user'} finished before you did, so your work was not saved.`,
      );
    return found;
  }

  private named(entity: string, ref: QboEntity | undefined, element: string): QboEntity {
    const found = ref?.value === undefined ? undefined : this.table(entity).get(String(ref.value));
    if (!found) throw new QboRefusal('2500', 'Invalid Reference Id', `Invalid Reference Id : ${element} assigned is invalid`);
    return found;
  }

  /** Tax of a document: each line's amount at its tax code's rates (sales or purchase), one tax line per rate. */
  private tax(lines: QboEntity[], detail: string, list: 'SalesTaxRateList' | 'PurchaseTaxRateList'): QboEntity {
    const byRate = new Map<string, { rate: QboEntity; taxable: number }>();
    for (const line of lines) {
      const code = line[detail]?.TaxCodeRef ? this.named('TaxCode', line[detail].TaxCodeRef, 'TaxCodeRef') : undefined;
      for (const d of code?.[list]?.TaxRateDetail ?? []) {
        const rate = this.named('TaxRate', d.TaxRateRef, 'TaxRateRef');
        const entry = byRate.get(rate.Id) ?? { rate, taxable: 0 };
        entry.taxable = round(entry.taxable + line.Amount);
        byRate.set(rate.Id, entry);
      }
    }
    const taxLines = [...byRate.values()].map(({ rate, taxable }) => ({
      Amount: round((taxable * rate.RateValue) / 100),
      DetailType: 'TaxLineDetail',
      TaxLineDetail: { TaxRateRef: { value: rate.Id }, PercentBased: true, TaxPercent: rate.RateValue, NetAmountTaxable: taxable },
    }));
    return { TotalTax: round(taxLines.reduce((sum, l) => sum + l.Amount, 0)), TaxLine: taxLines };
  }

  /** Amount must be UnitPrice × Qty where both are given, as QuickBooks checks. */
  private checkAmount(line: QboEntity, detail: QboEntity | undefined): void {
    if (detail?.Qty !== undefined && detail?.UnitPrice !== undefined && round(detail.Qty * detail.UnitPrice) !== round(line.Amount))
      throw new QboRefusal(
        '6070',
        'Amount is not equal to UnitPrice * Qty',
        `Amount is not equal to UnitPrice * Qty. Supplied value:${line.Amount}`,
      );
  }

  /** An invoice as `POST /invoice` creates it or (with Id and SyncToken, sparse or not) updates it. */
  saveInvoice(input: QboEntity): QboEntity {
    const existing = this.existing('Invoice', input);
    const merged: QboEntity = { ...(existing ?? {}), ...input };
    const customer = this.named('Customer', merged.CustomerRef, 'CustomerRef');
    const given: QboEntity[] = (merged.Line ?? []).filter((l: QboEntity) => l.DetailType === 'SalesItemLineDetail');
    if (given.length === 0)
      throw new QboRefusal(
        '6000',
        'A business validation error has occurred while processing your request',
        'Business Validation Error: You must add at least one line to this transaction.',
      );
    const lines = given.map((l, i) => {
      const d: QboEntity = l.SalesItemLineDetail ?? {};
      const item = this.named('Item', d.ItemRef, 'ItemRef');
      this.checkAmount(l, d);
      return {
        Id: String(i + 1),
        LineNum: i + 1,
        ...(l.Description ? { Description: l.Description } : {}),
        Amount: round(Number(l.Amount)),
        DetailType: 'SalesItemLineDetail',
        SalesItemLineDetail: {
          ...d,
          ItemRef: this.ref('Item', item),
          ...(item.IncomeAccountRef ? { ItemAccountRef: item.IncomeAccountRef } : {}),
        },
      };
    });
    const subTotal = round(lines.reduce((sum, l) => sum + l.Amount, 0));
    const tax = this.tax(lines, 'SalesItemLineDetail', 'SalesTaxRateList');
    const total = round(subTotal + tax.TotalTax);
    const paid = existing ? round(existing.TotalAmt - existing.Balance) : 0;
    const fields: QboEntity = {
      ...merged,
      DocNumber: merged.DocNumber ?? String(++this.docNumber),
      TxnDate: merged.TxnDate ?? day(this.clock),
      CurrencyRef: merged.CurrencyRef ?? GBP,
      CustomerRef: this.ref('Customer', customer),
      Line: [...lines, { Amount: subTotal, DetailType: 'SubTotalLineDetail', SubTotalLineDetail: {} }],
      TxnTaxDetail: tax,
      TotalAmt: total,
      Balance: round(total - paid),
      LinkedTxn: existing?.LinkedTxn ?? [],
      ApplyTaxAfterDiscount: false,
      PrintStatus: 'NotSet',
      EmailStatus: 'NotSet',
    };
    delete fields.sparse;
    if (existing) return this.touch(Object.assign(existing, fields, { sparse: false }));
    return this.create('Invoice', fields);
  }

  /** A bill as `POST /bill` creates or updates it. */
  saveBill(input: QboEntity): QboEntity {
    const existing = this.existing('Bill', input);
    const merged: QboEntity = { ...(existing ?? {}), ...input };
    const vendor = this.named('Vendor', merged.VendorRef, 'VendorRef');
    const given: QboEntity[] = (merged.Line ?? []).filter((l: QboEntity) =>
      ['AccountBasedExpenseLineDetail', 'ItemBasedExpenseLineDetail'].includes(l.DetailType),
    );
    if (given.length === 0)
      throw new QboRefusal(
        '6000',
        'A business validation error has occurred while processing your request',
        'Business Validation Error: You must add at least one line to this transaction.',
      );
    const lines = given.map((l, i) => {
      // QuickBooks answers references with the name of what they name.
      const d: QboEntity = { ...(l[l.DetailType] ?? {}) };
      if (l.DetailType === 'AccountBasedExpenseLineDetail')
        d.AccountRef = this.ref('Account', this.named('Account', d.AccountRef, 'AccountRef'));
      else d.ItemRef = this.ref('Item', this.named('Item', d.ItemRef, 'ItemRef'));
      this.checkAmount(l, d);
      return {
        Id: String(i + 1),
        LineNum: i + 1,
        ...(l.Description ? { Description: l.Description } : {}),
        Amount: round(Number(l.Amount)),
        DetailType: l.DetailType,
        [l.DetailType]: d,
      };
    });
    const tax = this.tax(
      lines.filter((l) => l.DetailType === 'AccountBasedExpenseLineDetail'),
      'AccountBasedExpenseLineDetail',
      'PurchaseTaxRateList',
    );
    const itemTax = this.tax(
      lines.filter((l) => l.DetailType === 'ItemBasedExpenseLineDetail'),
      'ItemBasedExpenseLineDetail',
      'PurchaseTaxRateList',
    );
    const totalTax = round(tax.TotalTax + itemTax.TotalTax);
    const total = round(lines.reduce((sum, l) => sum + l.Amount, 0) + totalTax);
    const paid = existing ? round(existing.TotalAmt - existing.Balance) : 0;
    const fields: QboEntity = {
      ...merged,
      TxnDate: merged.TxnDate ?? day(this.clock),
      CurrencyRef: merged.CurrencyRef ?? GBP,
      VendorRef: this.ref('Vendor', vendor),
      APAccountRef: this.ref('Account', this.account('2100')),
      Line: lines,
      TxnTaxDetail: { TotalTax: totalTax, TaxLine: [...tax.TaxLine, ...itemTax.TaxLine] },
      TotalAmt: total,
      Balance: round(total - paid),
    };
    delete fields.sparse;
    if (existing) return this.touch(Object.assign(existing, fields, { sparse: false }));
    return this.create('Bill', fields);
  }

  /** A customer as `POST /customer` creates or updates it: the display name is required and unique among names. */
  saveCustomer(input: QboEntity): QboEntity {
    const existing = this.existing('Customer', input);
    const merged: QboEntity = { ...(existing ?? {}), ...input };
    if (!merged.DisplayName)
      throw new QboRefusal(
        '6000',
        'A business validation error has occurred while processing your request',
        'Business Validation Error: Display Name is required.',
      );
    const duplicate = [...this.all('Customer'), ...this.all('Vendor')].find(
      (c) => c.DisplayName === merged.DisplayName && c.Id !== existing?.Id,
    );
    if (duplicate)
      throw new QboRefusal(
        '6240',
        'Duplicate Name Exists Error',
        `Duplicate Name Exists Error : The name supplied already exists. : Id=${duplicate.Id}`,
      );
    const fields: QboEntity = {
      Active: true,
      Balance: 0,
      Job: false,
      BillWithParent: false,
      CurrencyRef: GBP,
      ...merged,
      FullyQualifiedName: merged.DisplayName,
    };
    delete fields.sparse;
    if (existing) return this.touch(Object.assign(existing, fields, { sparse: false }));
    return this.create('Customer', fields);
  }

  /**
   * A customer pays money on account (a prepayment), settling no invoice: QuickBooks keeps it as a payment with no
   * lines and all of it unapplied (`UnappliedAmt`).
   */
  addPaymentOnAccount(
    customerId: string,
    amount: number,
    options: { day?: string; currency?: { value: string; name: string }; exchangeRate?: number } = {},
  ): QboEntity {
    const customer = this.named('Customer', { value: customerId }, 'CustomerRef');
    return this.create('Payment', {
      TxnDate: options.day ?? day(this.clock),
      CurrencyRef: options.currency ?? GBP,
      ...(options.exchangeRate ? { ExchangeRate: options.exchangeRate } : {}),
      CustomerRef: this.ref('Customer', customer),
      DepositToAccountRef: this.ref('Account', this.account('1000')),
      PaymentRefNum: 'ON-ACCOUNT',
      TotalAmt: amount,
      UnappliedAmt: amount,
      ProcessPayment: false,
      Line: [],
    });
  }

  /** A customer pays (part of) an invoice into the current account: the invoice's balance falls and it links the payment. */
  addPayment(invoiceId: string, amount: number, into: { day?: string; account?: string } = {}): QboEntity {
    const invoice = this.table('Invoice').get(invoiceId)!;
    const payment = this.create('Payment', {
      TxnDate: into.day ?? invoice.TxnDate,
      CurrencyRef: GBP,
      CustomerRef: invoice.CustomerRef,
      DepositToAccountRef: this.ref('Account', this.account(into.account ?? '1000')),
      PaymentRefNum: `BACS-${invoice.DocNumber}`,
      TotalAmt: amount,
      UnappliedAmt: 0,
      ProcessPayment: false,
      Line: [{ Amount: amount, LinkedTxn: [{ TxnId: invoice.Id, TxnType: 'Invoice' }] }],
    });
    invoice.Balance = round(invoice.Balance - amount);
    invoice.LinkedTxn = [...(invoice.LinkedTxn ?? []), { TxnId: payment.Id, TxnType: 'Payment' }];
    this.touch(invoice);
    return payment;
  }

  /** A bill paid by cheque from the current account. */
  addBillPayment(billId: string, amount: number, from: { day?: string; account?: string } = {}): QboEntity {
    const bill = this.table('Bill').get(billId)!;
    const payment = this.create('BillPayment', {
      TxnDate: from.day ?? bill.TxnDate,
      CurrencyRef: GBP,
      VendorRef: bill.VendorRef,
      PayType: 'Check',
      CheckPayment: { BankAccountRef: this.ref('Account', this.account(from.account ?? '1000')), PrintStatus: 'NotSet' },
      TotalAmt: amount,
      Line: [{ Amount: amount, LinkedTxn: [{ TxnId: bill.Id, TxnType: 'Bill' }] }],
    });
    bill.Balance = round(bill.Balance - amount);
    bill.LinkedTxn = [...(bill.LinkedTxn ?? []), { TxnId: payment.Id, TxnType: 'BillPayment' }];
    this.touch(bill);
    return payment;
  }

  /** An account added to the chart (a card, Undeposited Funds, another bank account), numbered `number`. */
  addAccount(number: string, fields: { name: string; classification: string; type: string; subType: string; bankNum?: string }): QboEntity {
    return this.create('Account', {
      Name: fields.name,
      AcctNum: number,
      SubAccount: false,
      FullyQualifiedName: fields.name,
      Active: true,
      Classification: fields.classification,
      AccountType: fields.type,
      AccountSubType: fields.subType,
      CurrentBalance: 0,
      CurrentBalanceWithSubAccounts: 0,
      CurrencyRef: GBP,
      ...(fields.bankNum ? { BankNum: fields.bankNum } : {}),
    });
  }

  /**
   * A deposit into a bank account: the payments it takes from Undeposited Funds (each a line linking the payment),
   * and other money (a line to an income account), less cash taken back. `TotalAmt` is what reached the account.
   */
  addDeposit(input: {
    day: string;
    account: string;
    payments?: string[];
    other?: { amount: number; account: string; description: string }[];
    cashBack?: { amount: number; account: string };
    note?: string;
  }): QboEntity {
    const paid = (input.payments ?? []).map((id) => this.table('Payment').get(id)!);
    const lines: QboEntity[] = [
      ...paid.map((p) => ({
        Amount: p.TotalAmt,
        LinkedTxn: [{ TxnId: p.Id, TxnType: 'Payment', TxnLineId: '0' }],
      })),
      ...(input.other ?? []).map((o) => ({
        Amount: o.amount,
        Description: o.description,
        DetailType: 'DepositLineDetail',
        DepositLineDetail: { AccountRef: this.ref('Account', this.account(o.account)) },
      })),
    ];
    const gross = lines.reduce((sum, l) => sum + l.Amount, 0);
    const cashBack = input.cashBack?.amount ?? 0;
    return this.create('Deposit', {
      TxnDate: input.day,
      CurrencyRef: GBP,
      ...(input.note ? { PrivateNote: input.note } : {}),
      DepositToAccountRef: this.ref('Account', this.account(input.account)),
      ...(cashBack > 0
        ? { CashBack: { AccountRef: this.ref('Account', this.account(input.cashBack!.account)), Amount: cashBack, Memo: 'Cash back' } }
        : {}),
      TotalAmt: round(gross - cashBack),
      Line: lines,
    });
  }

  /** An expense paid from a bank account (a cheque, cash) or a card, to an expense account; `credit` is a card refund. */
  addPurchase(input: {
    day: string;
    account: string;
    amount: number;
    expense: string;
    paymentType: 'Cash' | 'Check' | 'CreditCard';
    vendorId?: string;
    credit?: boolean;
    docNumber?: string;
    note?: string;
  }): QboEntity {
    const vendor = input.vendorId ? this.named('Vendor', { value: input.vendorId }, 'EntityRef') : undefined;
    return this.create('Purchase', {
      TxnDate: input.day,
      CurrencyRef: GBP,
      ...(input.docNumber ? { DocNumber: input.docNumber } : {}),
      ...(input.note ? { PrivateNote: input.note } : {}),
      AccountRef: this.ref('Account', this.account(input.account)),
      PaymentType: input.paymentType,
      ...(vendor ? { EntityRef: { ...this.ref('Vendor', vendor), type: 'Vendor' } } : {}),
      ...(input.credit ? { Credit: true } : {}),
      TotalAmt: input.amount,
      Line: [
        {
          Id: '1',
          Amount: input.amount,
          Description: input.note ?? 'Expense',
          DetailType: 'AccountBasedExpenseLineDetail',
          AccountBasedExpenseLineDetail: { AccountRef: this.ref('Account', this.account(input.expense)) },
        },
      ],
    });
  }

  /** A credit card paid off from a bank account ("Pay down credit card"). */
  addCreditCardPayment(input: { day: string; bank: string; card: string; amount: number; note?: string }): QboEntity {
    return this.create('CreditCardPaymentTxn', {
      TxnDate: input.day,
      ...(input.note ? { PrivateNote: input.note } : {}),
      BankAccountRef: this.ref('Account', this.account(input.bank)),
      CreditCardAccountRef: this.ref('Account', this.account(input.card)),
      Amount: input.amount,
    });
  }

  /** Money moved between two of the company's accounts. */
  addTransfer(input: { day: string; from: string; to: string; amount: number; note?: string }): QboEntity {
    return this.create('Transfer', {
      TxnDate: input.day,
      CurrencyRef: GBP,
      ...(input.note ? { PrivateNote: input.note } : {}),
      FromAccountRef: this.ref('Account', this.account(input.from)),
      ToAccountRef: this.ref('Account', this.account(input.to)),
      Amount: input.amount,
    });
  }

  /** A sale paid on the spot into a bank account (SalesReceipt), or money handed back for one (RefundReceipt). */
  addReceipt(
    entity: 'SalesReceipt' | 'RefundReceipt',
    input: { day: string; account: string; customerId: string; amount: number; reference?: string },
  ): QboEntity {
    const customer = this.named('Customer', { value: input.customerId }, 'CustomerRef');
    return this.create(entity, {
      DocNumber: `${entity === 'SalesReceipt' ? 'SR' : 'RR'}-${++this.docNumber}`,
      TxnDate: input.day,
      CurrencyRef: GBP,
      CustomerRef: this.ref('Customer', customer),
      ...(input.reference ? { PaymentRefNum: input.reference } : {}),
      DepositToAccountRef: this.ref('Account', this.account(input.account)),
      Line: [
        {
          Id: '1',
          LineNum: 1,
          Description: 'Consulting, paid on the day',
          Amount: input.amount,
          DetailType: 'SalesItemLineDetail',
          SalesItemLineDetail: {
            ItemRef: this.ref('Item', this.item('CONSULT')),
            Qty: 1,
            UnitPrice: input.amount,
            TaxCodeRef: this.ref('TaxCode', this.taxCode('0.0% Z')),
          },
        },
      ],
      TxnTaxDetail: { TotalTax: 0 },
      TotalAmt: input.amount,
      Balance: 0,
    });
  }

  /** A credit memo for a customer: credit QuickBooks keeps (`Balance`, `RemainingCredit`) until a payment applies it. */
  addCreditMemo(customerId: string, amount: number): QboEntity {
    const customer = this.named('Customer', { value: customerId }, 'CustomerRef');
    return this.create('CreditMemo', {
      DocNumber: `CM-${++this.docNumber}`,
      TxnDate: day(this.clock),
      CurrencyRef: GBP,
      CustomerRef: this.ref('Customer', customer),
      Line: [
        {
          Id: '1',
          LineNum: 1,
          Description: 'Goodwill credit',
          Amount: amount,
          DetailType: 'SalesItemLineDetail',
          SalesItemLineDetail: {
            ItemRef: this.ref('Item', this.item('CONSULT')),
            TaxCodeRef: { value: this.taxCode('0.0% Z').Id },
          },
        },
        { Amount: amount, DetailType: 'SubTotalLineDetail', SubTotalLineDetail: {} },
      ],
      TxnTaxDetail: { TotalTax: 0 },
      TotalAmt: amount,
      Balance: amount,
      RemainingCredit: amount,
    });
  }

  /** A vendor's credit: what the vendor owes back, until a bill payment applies it. */
  addVendorCredit(vendorId: string, amount: number): QboEntity {
    const vendor = this.named('Vendor', { value: vendorId }, 'VendorRef');
    return this.create('VendorCredit', {
      DocNumber: `VC-${++this.docNumber}`,
      TxnDate: day(this.clock),
      CurrencyRef: GBP,
      VendorRef: this.ref('Vendor', vendor),
      APAccountRef: this.ref('Account', this.account('2100')),
      Line: [
        {
          Id: '1',
          LineNum: 1,
          Description: 'Refund for a cancelled campaign',
          Amount: amount,
          DetailType: 'AccountBasedExpenseLineDetail',
          AccountBasedExpenseLineDetail: { AccountRef: this.ref('Account', this.account('6000')) },
        },
      ],
      TotalAmt: amount,
      Balance: amount,
    });
  }

  /**
   * A customer settles an invoice with a credit memo and money for the rest, as QuickBooks records it: one line per
   * document, each with a positive Amount (the invoice's the whole amount applied to it, the credit memo's the credit
   * used), and `TotalAmt` only the money (invoices − credits).
   */
  addPaymentWithCredit(invoiceId: string, creditMemoId: string, credit: number, money: number): QboEntity {
    const invoice = this.table('Invoice').get(invoiceId)!;
    const memo = this.table('CreditMemo').get(creditMemoId)!;
    const applied = round(credit + money);
    const payment = this.create('Payment', {
      TxnDate: invoice.TxnDate,
      CurrencyRef: GBP,
      CustomerRef: invoice.CustomerRef,
      DepositToAccountRef: this.ref('Account', this.account('1000')),
      PaymentRefNum: `BACS-${invoice.DocNumber}`,
      TotalAmt: money,
      UnappliedAmt: 0,
      ProcessPayment: false,
      Line: [
        { Amount: applied, LinkedTxn: [{ TxnId: invoice.Id, TxnType: 'Invoice' }] },
        { Amount: credit, LinkedTxn: [{ TxnId: memo.Id, TxnType: 'CreditMemo' }] },
      ],
    });
    invoice.Balance = round(invoice.Balance - applied);
    invoice.LinkedTxn = [...(invoice.LinkedTxn ?? []), { TxnId: payment.Id, TxnType: 'Payment' }];
    this.touch(invoice);
    memo.Balance = round(memo.Balance - credit);
    memo.RemainingCredit = memo.Balance;
    memo.LinkedTxn = [...(memo.LinkedTxn ?? []), { TxnId: payment.Id, TxnType: 'Payment' }];
    this.touch(memo);
    return payment;
  }

  /** A bill settled with a vendor credit and a cheque for the rest (lines and `TotalAmt` as addPaymentWithCredit). */
  addBillPaymentWithCredit(billId: string, vendorCreditId: string, credit: number, money: number): QboEntity {
    const bill = this.table('Bill').get(billId)!;
    const vendorCredit = this.table('VendorCredit').get(vendorCreditId)!;
    const applied = round(credit + money);
    const payment = this.create('BillPayment', {
      TxnDate: bill.TxnDate,
      CurrencyRef: GBP,
      VendorRef: bill.VendorRef,
      PayType: 'Check',
      CheckPayment: { BankAccountRef: this.ref('Account', this.account('1000')), PrintStatus: 'NotSet' },
      TotalAmt: money,
      Line: [
        { Amount: applied, LinkedTxn: [{ TxnId: bill.Id, TxnType: 'Bill' }] },
        { Amount: credit, LinkedTxn: [{ TxnId: vendorCredit.Id, TxnType: 'VendorCredit' }] },
      ],
    });
    bill.Balance = round(bill.Balance - applied);
    bill.LinkedTxn = [...(bill.LinkedTxn ?? []), { TxnId: payment.Id, TxnType: 'BillPayment' }];
    this.touch(bill);
    vendorCredit.Balance = round(vendorCredit.Balance - credit);
    this.touch(vendorCredit);
    return payment;
  }

  /** A journal moving `amount` from one account to another. */
  addJournalEntry(debit: string, credit: string, amount: number, note: string): QboEntity {
    const line = (id: string, posting: 'Debit' | 'Credit', account: string) => ({
      Id: id,
      Description: note,
      Amount: amount,
      DetailType: 'JournalEntryLineDetail',
      JournalEntryLineDetail: { PostingType: posting, AccountRef: this.ref('Account', this.account(account)) },
    });
    return this.create('JournalEntry', {
      TxnDate: day(this.clock),
      CurrencyRef: GBP,
      PrivateNote: note,
      Adjustment: false,
      Line: [line('0', 'Debit', debit), line('1', 'Credit', credit)],
      TxnTaxDetail: {},
    });
  }

  /** A change a user makes in QuickBooks (a new SyncToken and LastUpdatedTime). */
  edit(entity: string, id: string, patch: QboEntity): QboEntity {
    const record = this.table(entity).get(id);
    if (!record) throw new Error(`no ${entity} ${id}`);
    return this.touch(Object.assign(record, patch));
  }

  /** Voiding, as QuickBooks does it: the invoice stays, its amounts zeroed and its memo saying so. */
  voidInvoice(id: string): QboEntity {
    const invoice = this.table('Invoice').get(id);
    if (!invoice) throw new Error(`no Invoice ${id}`);
    for (const line of invoice.Line) line.Amount = 0;
    return this.edit('Invoice', id, { TotalAmt: 0, Balance: 0, TxnTaxDetail: { TotalTax: 0 }, PrivateNote: 'Voided' });
  }

  /** Deleting: the entity is gone from queries and reads; change data capture reports it deleted. */
  remove(entity: string, id: string): void {
    if (!this.table(entity).delete(id)) throw new Error(`no ${entity} ${id}`);
    this.tombstones.push({
      entity,
      record: { Id: id, status: 'Deleted', domain: 'QBO', MetaData: { LastUpdatedTime: pacific(this.tick()) } },
    });
  }
}
