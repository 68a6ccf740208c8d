import { beforeAll, describe, expect, it } from 'vitest';
import { convertXsd, qboValidator, type JsonSchema, type QboValidator } from './xsd-to-json-schema.js';

/**
 * The XSD → JSON Schema converter against QuickBooks Online's JSON as Intuit documents it: the samples are
 * hand-written in the shape of the API reference's examples (same field names, nesting and value types), so a rule
 * that rejects them is a wrong rule, not a wrong sample.
 */

let qbo: QboValidator;
let defs: Record<string, JsonSchema>;

beforeAll(() => {
  qbo = qboValidator();
  defs = qbo.schema.$defs;
});

function expectValid(definition: string, value: unknown): void {
  const result = qbo.validate(definition, value);
  // Comparing the messages first shows them when it fails.
  expect(result.errors).toBe('');
  expect(result.ok).toBe(true);
}

function expectInvalid(definition: string, value: unknown, message: RegExp): void {
  const result = qbo.validate(definition, value);
  expect(result.ok).toBe(false);
  expect(result.errors).toMatch(message);
}

const props = (definition: string): Record<string, JsonSchema> => defs[definition].properties as Record<string, JsonSchema>;

const metaData = { CreateTime: '2024-05-01T09:12:44-07:00', LastUpdatedTime: '2024-05-02T16:03:10-07:00' };
const usd = { value: 'USD', name: 'United States Dollar' };
const time = '2024-05-03T10:33:39.513-07:00';

const invoice = {
  Id: '130',
  SyncToken: '0',
  domain: 'QBO',
  sparse: false,
  MetaData: metaData,
  CustomField: [{ DefinitionId: '1', Name: 'Crew #', Type: 'StringType', StringValue: '102' }],
  DocNumber: '1037',
  TxnDate: '2024-05-01',
  CurrencyRef: usd,
  LinkedTxn: [{ TxnId: '100', TxnType: 'Estimate' }],
  Line: [
    {
      Id: '1',
      LineNum: 1,
      Description: 'Rock Fountain',
      Amount: 275.0,
      DetailType: 'SalesItemLineDetail',
      SalesItemLineDetail: {
        ItemRef: { value: '5', name: 'Rock Fountain' },
        UnitPrice: 275,
        Qty: 1,
        ItemAccountRef: { value: '79', name: 'Sales of Product Income' },
        TaxCodeRef: { value: 'TAX' },
      },
    },
    {
      Id: '2',
      LineNum: 2,
      Description: 'Fountain Pump',
      Amount: 12.75,
      DetailType: 'SalesItemLineDetail',
      SalesItemLineDetail: { ItemRef: { value: '11', name: 'Pump' }, UnitPrice: 12.75, Qty: 1, TaxCodeRef: { value: 'TAX' } },
    },
    { Amount: 287.75, DetailType: 'SubTotalLineDetail', SubTotalLineDetail: {} },
  ],
  TxnTaxDetail: {
    TxnTaxCodeRef: { value: '2' },
    TotalTax: 23.02,
    TaxLine: [
      {
        Amount: 23.02,
        DetailType: 'TaxLineDetail',
        TaxLineDetail: { TaxRateRef: { value: '3' }, PercentBased: true, TaxPercent: 8, NetAmountTaxable: 287.75 },
      },
    ],
  },
  CustomerRef: { value: '24', name: 'Sonnenschein Family Store' },
  CustomerMemo: { value: 'Thank you for your business and have a great day!' },
  BillAddr: {
    Id: '95',
    Line1: 'Russ Sonnenschein',
    Line2: '5647 Cypress Hill Ave.',
    City: 'Middlefield',
    CountrySubDivisionCode: 'CA',
    PostalCode: '94303',
    Lat: '37.4238562',
    Long: '-122.1141681',
  },
  ShipAddr: {
    Id: '25',
    Line1: '5647 Cypress Hill Ave.',
    City: 'Middlefield',
    CountrySubDivisionCode: 'CA',
    PostalCode: '94303',
    Lat: '37.4238562',
    Long: '-122.1141681',
  },
  SalesTermRef: { value: '3' },
  DueDate: '2024-05-31',
  TotalAmt: 310.77,
  ApplyTaxAfterDiscount: false,
  PrintStatus: 'NeedToPrint',
  EmailStatus: 'NotSet',
  BillEmail: { Address: 'Familiystore@intuit.com' },
  Balance: 310.77,
  Deposit: 0,
  AllowIPNPayment: false,
  AllowOnlinePayment: false,
  AllowOnlineCreditCardPayment: false,
  AllowOnlineACHPayment: false,
};

const customer = {
  Id: '2',
  SyncToken: '0',
  domain: 'QBO',
  sparse: false,
  MetaData: metaData,
  GivenName: 'Bill',
  FamilyName: 'Lucchini',
  FullyQualifiedName: "Bill's Windsurf Shop",
  CompanyName: "Bill's Windsurf Shop",
  DisplayName: "Bill's Windsurf Shop",
  PrintOnCheckName: "Bill's Windsurf Shop",
  Active: true,
  PrimaryPhone: { FreeFormNumber: '(415) 444-6538' },
  PrimaryEmailAddr: { Address: 'Surf@Intuit.com' },
  Taxable: false,
  BillAddr: {
    Id: '3',
    Line1: '12 Ocean Dr.',
    City: 'Half Moon Bay',
    CountrySubDivisionCode: 'CA',
    PostalCode: '94213',
    Lat: '37.4307072',
    Long: '-122.4295234',
  },
  Job: false,
  BillWithParent: false,
  Balance: 85.0,
  BalanceWithJobs: 85.0,
  CurrencyRef: usd,
  PreferredDeliveryMethod: 'Print',
  IsProject: false,
  V4IDPseudonym: '002098b8d7e6a5dd0f4d45b9ac00e8dcb93b1a',
};

const vendor = {
  Id: '30',
  SyncToken: '0',
  domain: 'QBO',
  sparse: false,
  MetaData: metaData,
  GivenName: 'Bessie',
  FamilyName: 'Williams',
  CompanyName: 'Books by Bessie',
  DisplayName: 'Books by Bessie',
  PrintOnCheckName: 'Books by Bessie',
  Active: true,
  PrimaryPhone: { FreeFormNumber: '(650) 555-7745' },
  PrimaryEmailAddr: { Address: 'Books@Intuit.com' },
  WebAddr: { URI: 'http://www.booksbybessie.co' },
  BillAddr: {
    Id: '31',
    Line1: '15 Main St.',
    City: 'Palo Alto',
    CountrySubDivisionCode: 'CA',
    PostalCode: '94303',
    Lat: '37.445013',
    Long: '-122.1391443',
  },
  AcctNum: '1345',
  Vendor1099: false,
  Balance: 0,
  CurrencyRef: usd,
};

const account = {
  Id: '92',
  SyncToken: '0',
  domain: 'QBO',
  sparse: false,
  MetaData: metaData,
  Name: 'Canadian Accounts Receivable',
  SubAccount: false,
  FullyQualifiedName: 'Canadian Accounts Receivable',
  Active: true,
  Classification: 'Asset',
  AccountType: 'Accounts Receivable',
  AccountSubType: 'AccountsReceivable',
  CurrentBalance: 0,
  CurrentBalanceWithSubAccounts: 0,
  CurrencyRef: usd,
};

const bill = {
  Id: '25',
  SyncToken: '2',
  domain: 'QBO',
  sparse: false,
  MetaData: metaData,
  TxnDate: '2024-05-01',
  CurrencyRef: usd,
  Line: [
    {
      Id: '1',
      LineNum: 1,
      Amount: 103.55,
      DetailType: 'AccountBasedExpenseLineDetail',
      AccountBasedExpenseLineDetail: {
        AccountRef: { value: '7', name: 'Advertising' },
        BillableStatus: 'NotBillable',
        TaxCodeRef: { value: 'NON' },
      },
    },
  ],
  VendorRef: { value: '56', name: "Bob's Burger Joint" },
  APAccountRef: { value: '33', name: 'Accounts Payable (A/P)' },
  SalesTermRef: { value: '3' },
  DueDate: '2024-05-31',
  TotalAmt: 103.55,
  Balance: 103.55,
};

const payment = {
  Id: '163',
  SyncToken: '0',
  domain: 'QBO',
  sparse: false,
  MetaData: metaData,
  TxnDate: '2024-05-02',
  CurrencyRef: usd,
  Line: [
    {
      Amount: 55.0,
      LinkedTxn: [{ TxnId: '70', TxnType: 'Invoice' }],
      // IntuitAnyType (xs:any) as the SDK's JSON writes it: JAXB elements under `any`.
      LineEx: {
        any: [
          {
            name: '{http://schema.intuit.com/finance/v3}NameValue',
            declaredType: 'com.intuit.schema.finance.v3.NameValue',
            scope: 'javax.xml.bind.JAXBElement$GlobalScope',
            value: { Name: 'txnId', Value: '70' },
            nil: false,
            globalScope: true,
            typeSubstituted: false,
          },
        ],
      },
    },
  ],
  CustomerRef: { value: '20', name: 'Red Rock Diner' },
  DepositToAccountRef: { value: '4' },
  TotalAmt: 65.0,
  UnappliedAmt: 10.0,
  ProcessPayment: false,
};

const billPayment = {
  Id: '236',
  SyncToken: '0',
  domain: 'QBO',
  sparse: false,
  MetaData: metaData,
  DocNumber: '1',
  TxnDate: '2024-05-02',
  CurrencyRef: usd,
  PrivateNote: 'Acct. 1JK90',
  Line: [{ Amount: 200.0, LinkedTxn: [{ TxnId: '234', TxnType: 'Bill' }] }],
  VendorRef: { value: '56', name: "Bob's Burger Joint" },
  PayType: 'Check',
  CheckPayment: { BankAccountRef: { value: '35', name: 'Checking' }, PrintStatus: 'NeedToPrint' },
  TotalAmt: 200.0,
};

const journalEntry = {
  Id: '227',
  SyncToken: '0',
  domain: 'QBO',
  sparse: false,
  MetaData: metaData,
  TxnDate: '2024-05-01',
  CurrencyRef: usd,
  Line: [
    {
      Id: '0',
      Description: 'nov portion of rider insurance',
      Amount: 100.0,
      DetailType: 'JournalEntryLineDetail',
      JournalEntryLineDetail: { PostingType: 'Debit', AccountRef: { value: '39', name: 'Opening Bal Equity' } },
    },
    {
      Id: '1',
      Description: 'nov portion of rider insurance',
      Amount: 100.0,
      DetailType: 'JournalEntryLineDetail',
      JournalEntryLineDetail: {
        PostingType: 'Credit',
        AccountRef: { value: '44', name: 'Notes Payable' },
        Entity: { Type: 'Vendor', EntityRef: { value: '56', name: "Bob's Burger Joint" } },
      },
    },
  ],
  TxnTaxDetail: {},
  Adjustment: false,
};

const item = {
  Id: '5',
  SyncToken: '2',
  domain: 'QBO',
  sparse: false,
  MetaData: metaData,
  Name: 'Rock Fountain',
  Description: 'Rock Fountain',
  Active: true,
  FullyQualifiedName: 'Rock Fountain',
  Taxable: true,
  UnitPrice: 275,
  Type: 'Inventory',
  IncomeAccountRef: { value: '79', name: 'Sales of Product Income' },
  PurchaseDesc: 'Rock Fountain',
  PurchaseCost: 125,
  ExpenseAccountRef: { value: '80', name: 'Cost of Goods Sold' },
  AssetAccountRef: { value: '81', name: 'Inventory Asset' },
  TrackQtyOnHand: true,
  QtyOnHand: 2,
  InvStartDate: '2024-01-01',
};

const taxRate = {
  Id: '2',
  SyncToken: '0',
  domain: 'QBO',
  sparse: false,
  MetaData: metaData,
  Name: 'Tucson City',
  Description: 'Sales Tax',
  Active: true,
  RateValue: 2,
  AgencyRef: { value: '1' },
  EffectiveTaxRate: [{ RateValue: 2, EffectiveDate: '1970-01-01T00:00:00-08:00' }],
  SpecialTaxType: 'NONE',
  DisplayType: 'ReadOnly',
};

const profitAndLoss = {
  Header: {
    Time: '2024-05-03T10:26:49-07:00',
    ReportName: 'ProfitAndLoss',
    DateMacro: 'this month-to-date',
    ReportBasis: 'Accrual',
    StartPeriod: '2024-05-01',
    EndPeriod: '2024-05-03',
    SummarizeColumnsBy: 'Total',
    Currency: 'USD',
    Option: [
      { Name: 'AccountingStandard', Value: 'GAAP' },
      { Name: 'NoReportData', Value: 'false' },
    ],
  },
  Columns: {
    Column: [
      { ColTitle: '', ColType: 'Account', MetaData: [{ Name: 'ColKey', Value: 'account' }] },
      { ColTitle: 'Total', ColType: 'Money', MetaData: [{ Name: 'ColKey', Value: 'total' }] },
    ],
  },
  Rows: {
    Row: [
      {
        Header: { ColData: [{ value: 'Income' }, { value: '' }] },
        Rows: {
          Row: [
            { ColData: [{ value: 'Design income', id: '82' }, { value: '2250.00' }], type: 'Data' },
            { ColData: [{ value: 'Landscaping Services', id: '45' }, { value: '360.00' }], type: 'Data' },
          ],
        },
        Summary: { ColData: [{ value: 'Total Income' }, { value: '2610.00' }] },
        type: 'Section',
        group: 'Income',
      },
      { Summary: { ColData: [{ value: 'Gross Profit' }, { value: '2610.00' }] }, type: 'Section', group: 'GrossProfit' },
      { Summary: { ColData: [{ value: 'Net Income' }, { value: '2610.00' }] }, type: 'Section', group: 'NetIncome' },
    ],
  },
};

describe('convertXsd', () => {
  it('makes one definition per named type and one per global element', () => {
    const { $defs } = convertXsd();
    for (const name of ['Invoice', 'Customer', 'ReferenceType', 'AccountTypeEnum', 'IntuitResponse', 'Report', 'Fault', 'id']) {
      expect($defs[name], name).toBeDefined();
    }
    expect($defs['element:Invoice']).toEqual({ $ref: '#/$defs/Invoice' });
    expect($defs['element:IntuitResponse']).toEqual({ $ref: '#/$defs/IntuitResponse' });
  });

  it('flattens the extension chain Invoice → SalesTransaction → Transaction → IntuitEntity, attributes included', () => {
    const invoiceProps = props('Invoice');
    // IntuitEntity's elements and attributes, Transaction's, SalesTransaction's, Invoice's own.
    for (const name of [
      'Id',
      'SyncToken',
      'MetaData',
      'domain',
      'sparse',
      'status',
      'TxnDate',
      'Line',
      'CustomerRef',
      'TotalAmt',
      'Deposit',
    ]) {
      expect(invoiceProps[name], name).toBeDefined();
    }
    expect(defs.Invoice.additionalProperties).toBe(false);
    expect(defs.Invoice.required).toBeUndefined();
    expect(invoiceProps.Line).toEqual({ type: 'array', items: { $ref: '#/$defs/Line' } });
    expect(invoiceProps.CustomerRef).toEqual({ $ref: '#/$defs/ReferenceType' });
  });

  it('maps simple content to `value` beside the attributes', () => {
    expect(defs.ReferenceType).toEqual({
      type: 'object',
      properties: { value: { $ref: '#/$defs/id' }, name: { type: 'string' }, type: { type: 'string' } },
      additionalProperties: false,
    });
    expect(defs.id).toEqual({ type: 'string' });
  });

  it('expands the IntuitObject substitution group with the multiplicity of each ref', () => {
    expect(props('QueryResponse').Invoice).toEqual({ type: 'array', items: { $ref: '#/$defs/Invoice' } });
    expect(props('QueryResponse').startPosition).toEqual({ type: 'integer' });
    expect(props('IntuitResponse').Invoice).toEqual({ $ref: '#/$defs/Invoice' });
    expect(props('IntuitResponse').QueryResponse).toEqual({ $ref: '#/$defs/QueryResponse' });
    expect(props('IntuitResponse').CDCResponse).toEqual({ type: 'array', items: { $ref: '#/$defs/CDCResponse' } });
    expect(props('CDCResponse').QueryResponse).toEqual({ type: 'array', items: { $ref: '#/$defs/QueryResponse' } });
    // The abstract head itself is never a property.
    expect(props('QueryResponse').IntuitObject).toBeUndefined();
  });

  it('types built-ins and enumerations', () => {
    expect(defs.AccountTypeEnum.enum).toContain('Accounts Receivable');
    expect(props('Line').LineNum).toEqual({ type: 'integer', minimum: 1 });
    expect(props('ModificationMetaData').CreateTime).toEqual({ type: 'string', format: 'date-time' });
    expect(props('Transaction').TxnDate).toEqual({ type: 'string', format: 'date' });
    expect(props('SalesTransaction').TotalAmt).toEqual({ type: 'number' });
    expect(props('IntuitEntity').sparse).toEqual({ type: 'boolean' });
    expect(defs.Error.required).toEqual(['code']);
  });
});

describe('documented QuickBooks Online JSON responses validate', () => {
  it('an Invoice query', () => {
    expectValid('IntuitResponse', { QueryResponse: { Invoice: [invoice], startPosition: 1, maxResults: 1, totalCount: 1 }, time });
  });

  it('a single Invoice read (the envelope with one entity)', () => {
    expectValid('IntuitResponse', { Invoice: invoice, time });
    expectValid('Invoice', invoice);
    expectValid('element:Invoice', invoice);
  });

  it.each([
    ['Customer', customer],
    ['Vendor', vendor],
    ['Account', account],
    ['Bill', bill],
    ['Payment', payment],
    ['BillPayment', billPayment],
    ['JournalEntry', journalEntry],
    ['Item', item],
    ['TaxRate', taxRate],
  ])('a %s query', (entity, value) => {
    expectValid('IntuitResponse', { QueryResponse: { [entity]: [value], startPosition: 1, maxResults: 1 }, time });
    expectValid(entity, value);
  });

  it('an empty query, and a count query', () => {
    expectValid('IntuitResponse', { QueryResponse: {}, time });
    expectValid('IntuitResponse', { QueryResponse: { totalCount: 42 }, time });
  });

  it('a Fault', () => {
    expectValid('IntuitResponse', {
      Fault: {
        Error: [
          {
            Message: 'Stale Object Error',
            Detail: 'Stale Object Error : You and root were working on this at the same time.',
            code: '5010',
            element: '',
          },
        ],
        type: 'ValidationFault',
      },
      time,
    });
  });

  it('a change-data-capture response with a deleted entity', () => {
    expectValid('IntuitResponse', {
      CDCResponse: [
        {
          QueryResponse: [
            {
              Invoice: [
                invoice,
                { Id: '131', status: 'Deleted', domain: 'QBO', MetaData: { LastUpdatedTime: '2024-05-02T16:05:00-07:00' } },
              ],
              startPosition: 1,
              maxResults: 2,
              totalCount: 2,
            },
            { Customer: [customer], startPosition: 1, maxResults: 1, totalCount: 1 },
          ],
        },
      ],
      time,
    });
  });

  it('a batch response mixing an entity, a query and a fault', () => {
    expectValid('IntuitResponse', {
      BatchItemResponse: [
        { Invoice: invoice, bId: 'bid1' },
        { QueryResponse: { Customer: [customer], startPosition: 1, maxResults: 1 }, bId: 'bid2' },
        {
          Fault: {
            Error: [
              {
                Message: 'Object Not Found',
                Detail: 'Object Not Found : Something you are trying to use has been made inactive.',
                code: '610',
                element: '',
              },
            ],
            type: 'ValidationFault',
          },
          bId: 'bid3',
        },
      ],
      time,
    });
  });

  it('a ProfitAndLoss report (no envelope)', () => {
    expectValid('Report', profitAndLoss);
  });
});

describe('mistakes a fake could make are caught', () => {
  it('an unknown property (TotalAmount for TotalAmt)', () => {
    const { TotalAmt, ...rest } = invoice;
    expectInvalid('IntuitResponse', { Invoice: { ...rest, TotalAmount: TotalAmt }, time }, /Invoice must NOT have additional properties/);
  });

  it('a string where a number is expected', () => {
    expectInvalid(
      'IntuitResponse',
      { QueryResponse: { Invoice: [{ ...invoice, TotalAmt: '12.00' }] }, time },
      /QueryResponse\/Invoice\/0\/TotalAmt must be number/,
    );
  });

  it('a number where the string Id is expected', () => {
    expectInvalid('Invoice', { ...invoice, Id: 130 }, /Invoice\/Id must be string/);
  });

  it('an AccountType outside AccountTypeEnum', () => {
    expectInvalid('Account', { ...account, AccountType: 'Bank Account' }, /AccountType must be equal to one of the allowed values/);
    expectValid('Account', { ...account, AccountType: 'Bank' });
  });

  it('an array where a single object is required, and the reverse', () => {
    expectInvalid('Invoice', { ...invoice, CustomerRef: [invoice.CustomerRef] }, /Invoice\/CustomerRef must be object/);
    // QueryResponse is one object in the envelope (it is an array only inside CDCResponse).
    expectInvalid('IntuitResponse', { QueryResponse: [{ Invoice: [invoice] }], time }, /IntuitResponse\/QueryResponse must be object/);
    expectInvalid('Invoice', { ...invoice, Line: invoice.Line[0] }, /Invoice\/Line must be array/);
  });

  it('a reference written as a bare id', () => {
    expectInvalid('Invoice', { ...invoice, CustomerRef: '24' }, /Invoice\/CustomerRef must be object/);
  });

  it('a date or a timestamp in the wrong form', () => {
    expectInvalid('Invoice', { ...invoice, TxnDate: '05/01/2024' }, /Invoice\/TxnDate must match format "date"/);
    expectInvalid('IntuitResponse', { Invoice: invoice, time: 1714757619513 }, /IntuitResponse\/time must be string/);
  });

  it('a Fault error without its required code', () => {
    expectInvalid(
      'IntuitResponse',
      { Fault: { Error: [{ Message: 'Oops' }], type: 'ValidationFault' }, time },
      /must have required property 'code'/,
    );
  });

  it("a report row's type outside RowTypeEnum", () => {
    expectInvalid(
      'Report',
      { Rows: { Row: [{ ColData: [{ value: 'x' }], type: 'Detail' }] } },
      /Report\/Rows\/Row\/0\/type must be equal to one of the allowed values/,
    );
  });

  it("the gateway's 401 body is not the XSD's IntuitResponse (a different, camelCase serialisation)", () => {
    expectInvalid(
      'IntuitResponse',
      {
        warnings: null,
        intuitObject: null,
        fault: {
          error: [
            {
              message: 'message=AuthenticationFailed; errorCode=003200; statusCode=401',
              detail: 'Token expired',
              code: '3200',
              element: null,
            },
          ],
          type: 'AUTHENTICATION',
        },
        time: 1714757619513,
      },
      /must NOT have additional properties/,
    );
  });
});
