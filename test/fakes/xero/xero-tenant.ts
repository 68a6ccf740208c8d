import { randomUUID } from 'node:crypto';
import { XeroLedger, type LedgerLine } from './xero-ledger.js';

/**
 * One Xero organisation as the fake keeps it: its collections (Invoices, Contacts, Accounts, …) as Xero's
 * Accounting API answers them, and the rules the fake applies when records are written (totals, numbering,
 * payments and credit notes settling invoices). Changes stamp `UpdatedDateUTC` from a clock that never goes back, so
 * `If-Modified-Since` reads see every change exactly once in order.
 */

export type XeroRecord = Record<string, any>;

/** Xero's JSON date: `/Date(1573755038314+0000)/`. */
export const msDate = (ms: number) => `/Date(${ms}+0000)/`;
const dayDate = (day: string) => msDate(Date.parse(`${day}T00:00:00Z`));
export const msOf = (value: unknown) => Number(/\/Date\((-?\d+)/.exec(String(value))?.[1] ?? NaN);

const TAX_RATES: Record<string, number> = { OUTPUT2: 15, INPUT2: 15, NONE: 0 };

/** A validation failure as Xero answers it (HTTP 400, `ValidationException`). */
export class XeroValidation extends Error {
  constructor(
    readonly messages: string[],
    readonly element: XeroRecord,
  ) {
    super(messages.join('; '));
  }
}

const FIRST = ['Ana', 'Ben', 'Chloé', 'Dev', 'Eli', 'Fatima', 'George', 'Hana', 'Ivan', 'Jun'];
const TRADE = ['Harbour', 'Kauri', 'Pōhutukawa', 'Summit', 'Tasman', 'Rimu', 'Southern', 'Matai', 'Coastal', 'Totara'];
const KIND = ['Plumbing', 'Design', 'Foods', 'Logistics', 'Builders', 'Consulting', 'Print', 'Motors'];

export class XeroTenant {
  readonly collections = new Map<string, Map<string, XeroRecord>>();
  /** Responses to writes by their `Idempotency-Key`: a repeated key answers the first response, changing nothing. */
  readonly idempotent = new Map<string, { status: number; body: unknown }>();
  /** Xero's clock as the fake keeps it: a second per change, from a month ago (see tick). */
  private clock = Date.now() - 30 * 86_400_000;
  private invoiceNumber = 0;
  private creditNoteNumber = 0;
  organisation: XeroRecord;
  readonly ledger = new XeroLedger();

  constructor(
    readonly tenantId: string,
    readonly name: string,
  ) {
    for (const name of [
      'Invoices',
      'Contacts',
      'Accounts',
      'Payments',
      'CreditNotes',
      'Items',
      'TaxRates',
      'TrackingCategories',
      'BankTransactions',
    ]) {
      this.collections.set(name, new Map());
    }
    this.organisation = {
      OrganisationID: tenantId,
      Name: name,
      LegalName: `${name} Limited`,
      ShortCode: `!${tenantId.slice(0, 5)}`,
      BaseCurrency: 'NZD',
      CountryCode: 'NZ',
      IsDemoCompany: false,
      OrganisationStatus: 'ACTIVE',
      FinancialYearEndDay: 31,
      FinancialYearEndMonth: 3,
      OrganisationType: 'COMPANY',
      CreatedDateUTC: msDate(Date.parse('2019-04-01T09:00:00Z')),
      Addresses: [{ AddressType: 'POBOX', AddressLine1: 'PO Box 100', City: 'Wellington', PostalCode: '6011', Country: 'New Zealand' }],
    };
    this.seedReference();
  }

  /**
   * The next change's time: a second after the one before, so seeded records look a month old and every later
   * change is newer than all of them, however fast a test makes them.
   */
  private tick(): number {
    this.clock += 1000;
    return this.clock;
  }

  /** Xero's time now: the last change's (nothing has changed since). */
  now(): number {
    return this.clock;
  }

  collection(name: string): Map<string, XeroRecord> {
    const found = this.collections.get(name);
    if (!found) throw new Error(`the fake has no collection ${name}`);
    return found;
  }

  private stamp(record: XeroRecord): XeroRecord {
    record.UpdatedDateUTC = msDate(this.tick());
    return record;
  }

  private seedReference(): void {
    const accounts: [string, string, string, string][] = [
      ['090', 'Business Bank Account', 'BANK', 'ASSET'],
      ['091', 'Business Savings Account', 'BANK', 'ASSET'],
      ['200', 'Sales', 'REVENUE', 'REVENUE'],
      ['260', 'Other Revenue', 'OTHERINCOME', 'REVENUE'],
      ['310', 'Cost of Goods Sold', 'DIRECTCOSTS', 'EXPENSE'],
      ['400', 'Advertising', 'EXPENSE', 'EXPENSE'],
      ['429', 'General Expenses', 'EXPENSE', 'EXPENSE'],
      ['610', 'Accounts Receivable', 'CURRENT', 'ASSET'],
      ['800', 'Accounts Payable', 'CURRLIAB', 'LIABILITY'],
      ['820', 'GST', 'CURRLIAB', 'LIABILITY'],
      ['970', 'Owner A Funds Introduced', 'EQUITY', 'EQUITY'],
    ];
    for (const [code, name, type, klass] of accounts) {
      const id = randomUUID();
      this.collection('Accounts').set(
        id,
        this.stamp({
          AccountID: id,
          Code: code,
          Name: name,
          Type: type,
          Class: klass,
          Status: 'ACTIVE',
          TaxType: klass === 'REVENUE' ? 'OUTPUT2' : klass === 'EXPENSE' ? 'INPUT2' : 'NONE',
          EnablePaymentsToAccount: false,
          ...(type === 'BANK' ? { BankAccountNumber: `12-3456-${code}0000-00`, BankAccountType: 'BANK', CurrencyCode: 'NZD' } : {}),
        }),
      );
    }
    const rates: [string, string, number][] = [
      ['OUTPUT2', '15% GST on Income', 15],
      ['INPUT2', '15% GST on Expenses', 15],
      ['NONE', 'No GST', 0],
    ];
    for (const [type, name, rate] of rates) {
      this.collection('TaxRates').set(type, {
        Name: name,
        TaxType: type,
        Status: 'ACTIVE',
        ReportTaxType: type === 'OUTPUT2' ? 'OUTPUT' : type === 'INPUT2' ? 'INPUT' : 'NONE',
        DisplayTaxRate: rate,
        EffectiveRate: rate,
        TaxComponents: [{ Name: 'GST', Rate: rate, IsCompound: false, IsNonRecoverable: false }],
      });
    }
    const region = randomUUID();
    this.collection('TrackingCategories').set(region, {
      TrackingCategoryID: region,
      Name: 'Region',
      Status: 'ACTIVE',
      Options: ['North', 'South'].map((name) => ({ TrackingOptionID: randomUUID(), Name: name, Status: 'ACTIVE' })),
    });
    const item = randomUUID();
    this.collection('Items').set(
      item,
      this.stamp({
        ItemID: item,
        Code: 'CONSULT',
        Name: 'Consulting hour',
        Description: 'One hour of consulting',
        IsSold: true,
        IsPurchased: false,
        IsTrackedAsInventory: false,
        SalesDetails: { UnitPrice: 150, AccountCode: '200', TaxType: 'OUTPUT2' },
      }),
    );
  }

  account(code: string): XeroRecord {
    const found = [...this.collection('Accounts').values()].find((a) => a.Code === code);
    if (!found) throw new Error(`no account ${code}`);
    return found;
  }

  /** A contact with a realistic name; `n` picks it. */
  addContact(n: number, role: 'customer' | 'supplier' | 'both' | 'neither' = 'customer'): XeroRecord {
    const id = randomUUID();
    const first = FIRST[n % FIRST.length];
    const contact = this.stamp({
      ContactID: id,
      ContactStatus: 'ACTIVE',
      Name: `${TRADE[n % TRADE.length]} ${KIND[Math.floor(n / TRADE.length) % KIND.length]} ${n > 79 ? n : ''}`.trim(),
      FirstName: first,
      LastName: 'Smith',
      EmailAddress: `${first
        .toLowerCase()
        .normalize('NFD')
        .replace(/[^a-z]/g, '')}${n}@example.co.nz`,
      IsCustomer: role === 'customer' || role === 'both',
      IsSupplier: role === 'supplier' || role === 'both',
      DefaultCurrency: 'NZD',
      TaxNumber: `${100 + (n % 900)}-456-789`,
      Addresses: [
        { AddressType: 'POBOX', AddressLine1: `PO Box ${n + 1}`, City: 'Auckland', PostalCode: '1010', Country: 'New Zealand' },
        { AddressType: 'STREET', AddressLine1: `${n + 1} Queen Street`, City: 'Auckland', PostalCode: '1010', Country: 'New Zealand' },
      ],
      Phones: [{ PhoneType: 'DEFAULT', PhoneNumber: `555 ${String(1000 + n).slice(-4)}`, PhoneAreaCode: '09', PhoneCountryCode: '64' }],
    });
    this.collection('Contacts').set(id, contact);
    return contact;
  }

  /** `count` invoices (ACCREC) or bills (ACCPAY), one contact each ten, authorised, dated over the last year. */
  seedInvoices(count: number, type: 'ACCREC' | 'ACCPAY' = 'ACCREC'): XeroRecord[] {
    const contacts: XeroRecord[] = [];
    const made: XeroRecord[] = [];
    for (let i = 0; i < count; i++) {
      if (i % 10 === 0) contacts.push(this.addContact(this.collection('Contacts').size, type === 'ACCREC' ? 'customer' : 'supplier'));
      const day = new Date(Date.UTC(2025, 10, 1) - (i % 365) * 86_400_000).toISOString().slice(0, 10);
      made.push(
        this.createInvoice({
          Type: type,
          Contact: { ContactID: contacts.at(-1)!.ContactID },
          Date: day,
          DueDate: new Date(Date.parse(day) + 20 * 86_400_000).toISOString().slice(0, 10),
          Status: 'AUTHORISED',
          LineAmountTypes: 'Exclusive',
          Reference: `Order ${1000 + i}`,
          LineItems: [
            {
              Description: type === 'ACCREC' ? 'Consulting hours' : 'Supplies',
              Quantity: 1 + (i % 5),
              UnitAmount: 100 + (i % 7) * 12.5,
              AccountCode: type === 'ACCREC' ? '200' : '429',
              TaxType: type === 'ACCREC' ? 'OUTPUT2' : 'INPUT2',
            },
          ],
        }),
      );
    }
    return made;
  }

  private contactOf(input: XeroRecord, messages: string[]): XeroRecord | undefined {
    const contact = this.collection('Contacts').get(String(input?.ContactID ?? ''));
    if (!contact) messages.push('A Contact must be specified with an existing ContactID');
    return contact;
  }

  /** An invoice as `PUT /Invoices` makes it (or `POST /Invoices/{id}` updates it): totals computed, the number given. */
  createInvoice(input: XeroRecord, existing?: XeroRecord): XeroRecord {
    const messages: string[] = [];
    const contact = this.contactOf(input.Contact ?? existing?.Contact, messages);
    const lines: XeroRecord[] = Array.isArray(input.LineItems) ? input.LineItems : (existing?.LineItems ?? []);
    if (lines.length === 0) messages.push('Invoice must have at least one line item');
    if (existing && existing.Status !== 'DRAFT' && existing.Status !== 'SUBMITTED' && existing.Status !== 'AUTHORISED')
      messages.push(`This document cannot be edited as it has a status of ${existing.Status}.`);
    if (existing && existing.AmountPaid + existing.AmountCredited > 0 && Array.isArray(input.LineItems))
      messages.push(
        'Invoice not of valid status for modification. This document cannot be edited as it has a payment or credit note allocated to it.',
      );
    const type = input.Type ?? existing?.Type ?? 'ACCREC';
    const amountTypes = input.LineAmountTypes ?? existing?.LineAmountTypes ?? 'Exclusive';
    const items = this.documentLines(lines, amountTypes, messages);
    if (messages.length > 0) throw new XeroValidation(messages, { ...input, ValidationErrors: messages.map((Message) => ({ Message })) });
    const subTotal = round(items.reduce((sum, l) => sum + l.LineAmount, 0));
    const tax = round(items.reduce((sum, l) => sum + l.TaxAmount, 0));
    const id = existing?.InvoiceID ?? randomUUID();
    const paid = existing?.AmountPaid ?? 0;
    const credited = existing?.AmountCredited ?? 0;
    const date = input.Date ?? undefined;
    const invoice: XeroRecord = {
      ...(existing ?? {}),
      Type: type,
      InvoiceID: id,
      InvoiceNumber:
        input.InvoiceNumber ?? existing?.InvoiceNumber ?? (type === 'ACCREC' ? `INV-${String(++this.invoiceNumber).padStart(4, '0')}` : ''),
      Reference: input.Reference ?? existing?.Reference ?? '',
      Contact: { ContactID: contact!.ContactID, Name: contact!.Name },
      Date: date ? dayDate(String(date).slice(0, 10)) : (existing?.Date ?? dayDate(new Date().toISOString().slice(0, 10))),
      DateString: `${date ? String(date).slice(0, 10) : new Date(msOf(existing?.Date ?? msDate(Date.now()))).toISOString().slice(0, 10)}T00:00:00`,
      DueDate: input.DueDate ? dayDate(String(input.DueDate).slice(0, 10)) : existing?.DueDate,
      Status: input.Status ?? existing?.Status ?? 'DRAFT',
      LineAmountTypes: amountTypes,
      LineItems: items,
      SubTotal: subTotal,
      TotalTax: tax,
      Total: round(subTotal + tax),
      TotalDiscount: 0,
      AmountDue: round(subTotal + tax - paid - credited),
      AmountPaid: paid,
      AmountCredited: credited,
      CurrencyCode: input.CurrencyCode ?? existing?.CurrencyCode ?? 'NZD',
      CurrencyRate: 1,
      IsDiscounted: false,
      HasAttachments: false,
      HasErrors: false,
      Payments: existing?.Payments ?? [],
      CreditNotes: existing?.CreditNotes ?? [],
      Prepayments: [],
      Overpayments: [],
    };
    if (!invoice.DueDate) delete invoice.DueDate;
    this.collection('Invoices').set(id, this.stamp(invoice));
    this.book(invoice);
    contact!.IsCustomer ||= type === 'ACCREC';
    contact!.IsSupplier ||= type === 'ACCPAY';
    return invoice;
  }

  /**
   * A document's lines as Xero answers them (invoices and credit notes alike): each names its account by code and
   * id, and carries its amount and its tax at the line's tax rate (none when amounts are `NoTax`). Problems are
   * added to `messages`, as Xero's validation lists them.
   */
  private documentLines(lines: XeroRecord[], amountTypes: string, messages: string[]): XeroRecord[] {
    return lines.map((l) => {
      const account = l.AccountID
        ? this.collection('Accounts').get(l.AccountID)
        : [...this.collection('Accounts').values()].find((a) => a.Code === l.AccountCode);
      if (!account) messages.push(`Account code '${l.AccountCode ?? l.AccountID}' is not a valid code for this document.`);
      const rate = TAX_RATES[l.TaxType ?? 'NONE'];
      if (rate === undefined)
        messages.push(`The TaxType code '${l.TaxType}' does not exist or cannot be used for this type of transaction.`);
      const lineAmount = Math.round(Number(l.Quantity ?? 1) * Number(l.UnitAmount ?? 0) * 100) / 100;
      const tax = amountTypes === 'NoTax' ? 0 : Math.round(lineAmount * (rate ?? 0)) / 100;
      return {
        LineItemID: l.LineItemID ?? randomUUID(),
        Description: l.Description,
        Quantity: Number(l.Quantity ?? 1),
        UnitAmount: Number(l.UnitAmount ?? 0),
        AccountCode: account?.Code,
        AccountID: account?.AccountID,
        TaxType: l.TaxType ?? 'NONE',
        TaxAmount: tax,
        LineAmount: lineAmount,
        Tracking: l.Tracking ?? [],
      };
    });
  }

  /** The day of a Xero date (`/Date(…)/`). */
  private dayOf(value: unknown): string {
    return new Date(msOf(value)).toISOString().slice(0, 10);
  }

  /**
   * What an invoice, a bill or a credit note puts on the books while approved: receivable against sales and GST,
   * or expenses and GST against payable; a credit note the reverse of an invoice of its side. A draft, a voided or
   * a deleted one puts nothing there.
   */
  private book(document: XeroRecord): void {
    const credit = document.Type === 'ACCRECCREDIT' || document.Type === 'ACCPAYCREDIT';
    const id = credit ? document.CreditNoteID : document.InvoiceID;
    if (document.Status !== 'AUTHORISED' && document.Status !== 'PAID') {
      this.ledger.reverse(document.Type, id, this.dayOf(document.Date), this.clock);
      return;
    }
    const sales = document.Type === 'ACCREC' || document.Type === 'ACCRECCREDIT';
    const sign = (sales ? -1 : 1) * (credit ? -1 : 1);
    const lines: LedgerLine[] = [
      { account: this.account(sales ? '610' : '800'), net: -sign * document.Total },
      { account: this.account('820'), net: sign * document.TotalTax },
      ...document.LineItems.map((l: XeroRecord) => ({
        account: this.collection('Accounts').get(l.AccountID)!,
        net: sign * l.LineAmount,
        description: l.Description,
      })),
    ];
    this.ledger.post(document.Type, id, this.dayOf(document.Date), lines, this.clock);
  }

  /** A bank transaction (money spent or received straight from a bank account, with no invoice), on the books at once. */
  addBankTransaction(
    type: 'SPEND' | 'RECEIVE',
    input: { bankCode: string; day: string; contactId?: string; reference?: string; lines: XeroRecord[] },
  ): XeroRecord {
    const bank = this.account(input.bankCode);
    const lines = input.lines.map((l) => {
      const lineAmount = Math.round(Number(l.Quantity ?? 1) * Number(l.UnitAmount) * 100) / 100;
      const tax = Math.round(lineAmount * (TAX_RATES[l.TaxType ?? 'NONE'] ?? 0)) / 100;
      const account = this.account(l.AccountCode);
      return {
        LineItemID: randomUUID(),
        Description: l.Description,
        Quantity: Number(l.Quantity ?? 1),
        UnitAmount: Number(l.UnitAmount),
        AccountCode: account.Code,
        AccountID: account.AccountID,
        TaxType: l.TaxType ?? 'NONE',
        TaxAmount: tax,
        LineAmount: lineAmount,
        Tracking: [],
      };
    });
    const subTotal = round(lines.reduce((sum, l) => sum + l.LineAmount, 0));
    const tax = round(lines.reduce((sum, l) => sum + l.TaxAmount, 0));
    const contact = input.contactId ? this.collection('Contacts').get(input.contactId) : undefined;
    const id = randomUUID();
    const transaction = this.stamp({
      BankTransactionID: id,
      Type: type,
      Status: 'AUTHORISED',
      ...(contact ? { Contact: { ContactID: contact.ContactID, Name: contact.Name } } : {}),
      BankAccount: { AccountID: bank.AccountID, Code: bank.Code, Name: bank.Name },
      Date: dayDate(input.day),
      Reference: input.reference ?? '',
      CurrencyCode: 'NZD',
      CurrencyRate: 1,
      IsReconciled: false,
      LineAmountTypes: 'Exclusive',
      LineItems: lines,
      SubTotal: subTotal,
      TotalTax: tax,
      Total: round(subTotal + tax),
      HasAttachments: false,
    });
    this.collection('BankTransactions').set(id, transaction);
    const sign = type === 'SPEND' ? 1 : -1;
    this.ledger.post(
      type === 'SPEND' ? 'CASHPAID' : 'CASHREC',
      id,
      input.day,
      [
        { account: bank, net: -sign * transaction.Total },
        { account: this.account('820'), net: sign * tax },
        ...lines.map((l) => ({ account: this.collection('Accounts').get(l.AccountID)!, net: sign * l.LineAmount })),
      ],
      this.clock,
    );
    return transaction;
  }

  /** A contact as `PUT /Contacts` makes it (or `POST /Contacts/{id}` updates it). */
  saveContact(input: XeroRecord, existing?: XeroRecord): XeroRecord {
    const name = input.Name ?? existing?.Name;
    if (!name) throw new XeroValidation(['The contact name must be specified'], input);
    const duplicate = [...this.collection('Contacts').values()].find((c) => c.Name === name && c.ContactID !== existing?.ContactID);
    if (duplicate)
      throw new XeroValidation(
        [
          'The contact name ' +
            name +
            ' is already assigned to another contact. The contact name must be unique across all active contacts.',
        ],
        input,
      );
    const id = existing?.ContactID ?? randomUUID();
    const contact: XeroRecord = {
      IsCustomer: false,
      IsSupplier: false,
      ...(existing ?? {}),
      ...Object.fromEntries(Object.entries(input).filter(([key, value]) => value !== undefined && key !== 'ContactID')),
      ContactID: id,
      ContactStatus: input.ContactStatus ?? existing?.ContactStatus ?? 'ACTIVE',
    };
    this.collection('Contacts').set(id, this.stamp(contact));
    return contact;
  }

  /** A payment as `PUT /Payments` makes it: it settles (part of) an authorised invoice. */
  createPayment(input: XeroRecord): XeroRecord {
    const invoice = this.collection('Invoices').get(String(input.Invoice?.InvoiceID ?? ''));
    const account =
      this.collection('Accounts').get(String(input.Account?.AccountID ?? '')) ??
      [...this.collection('Accounts').values()].find((a) => a.Code === input.Account?.Code);
    const messages: string[] = [];
    if (!invoice) messages.push('Invoice could not be found');
    else if (invoice.Status !== 'AUTHORISED') messages.push('Payment cannot be created against an invoice that is not AUTHORISED');
    if (!account) messages.push('Account could not be found');
    const amount = Number(input.Amount);
    if (!(amount > 0)) messages.push('Payment amount must be greater than zero');
    else if (invoice && amount > invoice.AmountDue) messages.push('Payment amount exceeds the amount outstanding on this document');
    if (messages.length > 0) throw new XeroValidation(messages, { ...input, ValidationErrors: messages.map((Message) => ({ Message })) });
    const id = randomUUID();
    const date = input.Date ? dayDate(String(input.Date).slice(0, 10)) : dayDate(new Date().toISOString().slice(0, 10));
    const payment = this.stamp({
      PaymentID: id,
      Date: date,
      Amount: amount,
      BankAmount: amount,
      CurrencyRate: 1,
      Reference: input.Reference ?? '',
      IsReconciled: false,
      Status: 'AUTHORISED',
      PaymentType: invoice!.Type === 'ACCREC' ? 'ACCRECPAYMENT' : 'ACCPAYPAYMENT',
      HasAccount: true,
      HasValidationErrors: false,
      Account: { AccountID: account!.AccountID, Code: account!.Code },
      Invoice: {
        InvoiceID: invoice!.InvoiceID,
        InvoiceNumber: invoice!.InvoiceNumber,
        Type: invoice!.Type,
        CurrencyCode: invoice!.CurrencyCode,
        Contact: invoice!.Contact,
      },
    });
    this.collection('Payments').set(id, payment);
    invoice!.AmountPaid = round(invoice!.AmountPaid + amount);
    invoice!.AmountDue = round(invoice!.Total - invoice!.AmountPaid - invoice!.AmountCredited);
    invoice!.Payments = [...invoice!.Payments, { PaymentID: id, Date: date, Amount: amount, Reference: payment.Reference }];
    if (invoice!.AmountDue === 0) {
      invoice!.Status = 'PAID';
      invoice!.FullyPaidOnDate = date;
    }
    this.stamp(invoice!);
    const sales = invoice!.Type === 'ACCREC';
    this.ledger.post(
      payment.PaymentType,
      id,
      this.dayOf(date),
      [
        { account: account!, net: sales ? amount : -amount },
        { account: this.account(sales ? '610' : '800'), net: sales ? -amount : amount },
      ],
      this.clock,
    );
    return payment;
  }

  /**
   * A credit note as `PUT /CreditNotes` makes it: a sales one (`ACCRECCREDIT`) numbered as Xero's invoice settings
   * number them (`CN-0001`), a purchase one (`ACCPAYCREDIT`) carrying the supplier's number it is given (Xero numbers
   * none); totals computed as an invoice's, all of it still to allocate (`RemainingCredit`), and on the books while
   * approved.
   */
  createCreditNote(input: XeroRecord): XeroRecord {
    const messages: string[] = [];
    const contact = this.contactOf(input.Contact, messages);
    const type = input.Type;
    if (type !== 'ACCRECCREDIT' && type !== 'ACCPAYCREDIT') messages.push('A valid Type must be specified: ACCRECCREDIT or ACCPAYCREDIT');
    const lines: XeroRecord[] = Array.isArray(input.LineItems) ? input.LineItems : [];
    if (lines.length === 0) messages.push('Credit note must have at least one line item');
    const amountTypes = input.LineAmountTypes ?? 'Exclusive';
    const items = this.documentLines(lines, amountTypes, messages);
    if (messages.length > 0) throw new XeroValidation(messages, { ...input, ValidationErrors: messages.map((Message) => ({ Message })) });
    const subTotal = round(items.reduce((sum, l) => sum + l.LineAmount, 0));
    const tax = round(items.reduce((sum, l) => sum + l.TaxAmount, 0));
    const id = randomUUID();
    const day = String(input.Date ?? new Date().toISOString()).slice(0, 10);
    const creditNote = this.stamp({
      Type: type,
      CreditNoteID: id,
      // Xero answers the id twice, as ID too.
      ID: id,
      CreditNoteNumber: input.CreditNoteNumber ?? (type === 'ACCRECCREDIT' ? `CN-${String(++this.creditNoteNumber).padStart(4, '0')}` : ''),
      Reference: input.Reference ?? '',
      Contact: { ContactID: contact!.ContactID, Name: contact!.Name },
      Date: dayDate(day),
      DateString: `${day}T00:00:00`,
      Status: input.Status ?? 'DRAFT',
      LineAmountTypes: amountTypes,
      LineItems: items,
      SubTotal: subTotal,
      TotalTax: tax,
      Total: round(subTotal + tax),
      CurrencyCode: input.CurrencyCode ?? 'NZD',
      CurrencyRate: 1,
      RemainingCredit: round(subTotal + tax),
      Allocations: [],
      // Refunds of it (cash paid out or received back); none made here.
      Payments: [],
      HasAttachments: false,
      HasErrors: false,
    });
    this.collection('CreditNotes').set(id, creditNote);
    this.book(creditNote);
    contact!.IsCustomer ||= type === 'ACCRECCREDIT';
    contact!.IsSupplier ||= type === 'ACCPAYCREDIT';
    return creditNote;
  }

  /**
   * Applies (part of) an approved credit note to an approved invoice of the same side and contact, as `PUT
   * /CreditNotes/{id}/Allocations` does: the credit note's remaining credit and the invoice's amount due both fall by
   * the amount, and either is PAID once nothing is left of it. Both documents sit on the same receivable (or
   * payable) account, so Xero writes no journal for it.
   */
  allocateCreditNote(creditNoteId: string, input: XeroRecord): XeroRecord {
    const creditNote = this.collection('CreditNotes').get(creditNoteId);
    const invoice = this.collection('Invoices').get(String(input.Invoice?.InvoiceID ?? ''));
    const amount = Number(input.Amount);
    const messages: string[] = [];
    if (!creditNote) messages.push('Credit note could not be found');
    else if (creditNote.Status !== 'AUTHORISED') messages.push('Only an AUTHORISED credit note can be allocated');
    if (!invoice) messages.push('Invoice could not be found');
    else if (invoice.Status !== 'AUTHORISED') messages.push('Only an AUTHORISED invoice can be allocated to');
    if (creditNote && invoice && creditNote.Type !== `${invoice.Type}CREDIT`)
      messages.push('A sales credit note is allocated to a sales invoice, a purchase one to a bill');
    if (creditNote && invoice && creditNote.Contact.ContactID !== invoice.Contact.ContactID)
      messages.push('The credit note and the invoice must be for the same contact');
    if (!(amount > 0)) messages.push('Allocation amount must be greater than zero');
    else if (creditNote && amount > creditNote.RemainingCredit) messages.push('Allocation amount exceeds the remaining credit');
    else if (invoice && amount > invoice.AmountDue) messages.push('Allocation amount exceeds the amount outstanding on the invoice');
    if (messages.length > 0) throw new XeroValidation(messages, { ...input, ValidationErrors: messages.map((Message) => ({ Message })) });
    const date = dayDate(String(input.Date ?? new Date().toISOString()).slice(0, 10));
    const allocation = {
      AllocationID: randomUUID(),
      Amount: amount,
      Date: date,
      // Xero's summary of the invoice in an allocation: its id and number, and empty collections.
      Invoice: {
        InvoiceID: invoice!.InvoiceID,
        InvoiceNumber: invoice!.InvoiceNumber,
        Payments: [],
        CreditNotes: [],
        Prepayments: [],
        Overpayments: [],
        HasErrors: false,
        IsDiscounted: false,
        LineItems: [],
      },
    };
    creditNote!.Allocations = [...creditNote!.Allocations, allocation];
    creditNote!.RemainingCredit = round(creditNote!.RemainingCredit - amount);
    if (creditNote!.RemainingCredit === 0) {
      creditNote!.Status = 'PAID';
      creditNote!.FullyPaidOnDate = date;
    }
    this.stamp(creditNote!);
    invoice!.AmountCredited = round(invoice!.AmountCredited + amount);
    invoice!.AmountDue = round(invoice!.Total - invoice!.AmountPaid - invoice!.AmountCredited);
    invoice!.CreditNotes = [
      ...invoice!.CreditNotes,
      {
        CreditNoteID: creditNote!.CreditNoteID,
        CreditNoteNumber: creditNote!.CreditNoteNumber,
        AppliedAmount: amount,
        Date: date,
        Total: creditNote!.Total,
        HasErrors: false,
      },
    ];
    if (invoice!.AmountDue === 0) {
      invoice!.Status = 'PAID';
      invoice!.FullyPaidOnDate = date;
    }
    this.stamp(invoice!);
    return allocation;
  }

  /** Changes a record as a user in Xero would (a new `UpdatedDateUTC`). */
  update(collection: string, id: string, patch: XeroRecord): XeroRecord {
    const record = this.collection(collection).get(id);
    if (!record) throw new Error(`no ${collection} ${id}`);
    Object.assign(record, patch);
    return this.stamp(record);
  }

  /** Deletes a draft (Xero keeps it as `DELETED`) or voids an authorised invoice. */
  remove(collection: string, id: string, status: 'DELETED' | 'VOIDED' | 'ARCHIVED' = 'DELETED'): XeroRecord {
    const record = this.update(collection, id, collection === 'Contacts' ? { ContactStatus: status } : { Status: status });
    if (collection === 'Invoices' || collection === 'CreditNotes') this.book(record);
    return record;
  }
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
