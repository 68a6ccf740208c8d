import type { CsvMapping } from './csv-mapping.js';

/**
 * Column mappings for the CSV exports real samples exist for (the first three from the samples of issue 14, the rest
 * from the test files of csv2ofx, MIT: test/connectors/bank-statements/samples/README.md), each with the exact header
 * it is recognised by. A preset is also chosen by name: `{"preset": "<name>" }`.
 */
export interface CsvPreset {
  label: string;
  header: string[];
  mapping: CsvMapping;
}

export const CSV_PRESETS: Record<string, CsvPreset> = {
  'schwab-checking': {
    label: 'Charles Schwab Bank (US) checking CSV',
    header: ['Date', 'Status', 'Type', 'CheckNumber', 'Description', 'Withdrawal', 'Deposit', 'RunningBalance'],
    mapping: { date: { column: 'Date', format: 'MM/DD/YYYY' }, debit: 'Withdrawal', credit: 'Deposit', decimal: '.', thousands: [','], description: ['Description'], balance: 'RunningBalance', currency: { value: 'USD' }, only: [{ column: 'Status', values: ['Posted'] }] },
  },
  gls: {
    label: 'GLS Bank (DE) Umsätze CSV',
    header: ['Kontonummer', 'Buchungstag', 'Wertstellung', 'Auftraggeber/Empfänger', 'Buchungstext', 'VWZ1', 'VWZ2', 'VWZ3', 'VWZ4', 'VWZ5', 'VWZ6', 'VWZ7', 'VWZ8', 'VWZ9', 'VWZ10', 'VWZ11', 'VWZ12', 'VWZ13', 'VWZ14', 'Betrag', 'Kontostand', 'Währung'],
    mapping: { date: { column: 'Buchungstag', format: 'DD.MM.YYYY' }, valueDate: { column: 'Wertstellung', format: 'DD.MM.YYYY' }, amount: 'Betrag', decimal: ',', thousands: ['.'], description: ['Auftraggeber/Empfänger', 'Buchungstext', 'VWZ1', 'VWZ2', 'VWZ3', 'VWZ4', 'VWZ5', 'VWZ6', 'VWZ7', 'VWZ8', 'VWZ9', 'VWZ10', 'VWZ11', 'VWZ12', 'VWZ13', 'VWZ14'], balance: 'Kontostand', account: { column: 'Kontonummer' }, currency: { column: 'Währung' } },
  },
  'ubs-ch-fr': {
    label: 'UBS Switzerland e-banking Liste des mouvements CSV (French)',
    header: ['Produit', 'Monn.', 'Description', 'Date de valeur', 'Description 1', 'Description 2', 'Description 3', 'N° de transaction', 'Débit', 'Crédit', 'Solde'],
    mapping: { date: { column: 'Date de valeur', format: 'DD.MM.YYYY' }, debit: 'Débit', credit: 'Crédit', decimal: '.', thousands: ["'"], description: ['Description 1', 'Description 2', 'Description 3'], balance: 'Solde', account: { column: 'Produit' }, currency: { column: 'Monn.' }, id: 'N° de transaction' },
  },
  'amazon-order-history': {
    label: 'Amazon order history (Amazon Order History Reporter browser extension) CSV',
    header: ['order id', 'order url', 'items', 'to', 'date', 'total', 'shipping', 'shipping_refund', 'gift', 'tax', 'refund', 'payments'],
    mapping: { date: { column: 'date', format: 'YYYY-MM-DD' }, amount: 'total', decimal: '.', thousands: [','], description: ['items'], currency: { value: 'USD' }, id: 'order id', negate: true, skip: [{ column: 'date', values: ['pending'] }, { column: 'total', values: [''] }] },
  },
  c24: {
    label: 'C24 Bank (DE) transactions CSV',
    header: ['Transaktionstyp', 'Buchungsdatum', 'Karteneinsatz', 'Betrag', 'Zahlungsempfänger', 'IBAN', 'BIC', 'Verwendungszweck', 'Beschreibung', 'Kontonummer', 'Kontoname', 'Kategorie', 'Unterkategorie', 'Bargeldabhebung'],
    mapping: { date: { column: 'Buchungsdatum', format: 'DD.MM.YYYY' }, amount: 'Betrag', decimal: ',', thousands: ['.'], description: ['Zahlungsempfänger', 'Verwendungszweck'], account: { column: 'Kontonummer' }, currency: { value: 'EUR' } },
  },
  capitalone: {
    label: 'Capital One (US) credit card transactions CSV',
    header: ['Transaction Date', 'Posted Date', 'Card No.', 'Description', 'Category', 'Debit', 'Credit'],
    mapping: { date: { column: 'Posted Date', format: 'YYYY-MM-DD' }, debit: 'Debit', credit: 'Credit', decimal: '.', thousands: [','], description: ['Description'], account: { column: 'Card No.' }, currency: { value: 'USD' } },
  },
  creditunion: {
    label: 'Credit union checking CSV (csv2ofx creditunion sample)',
    header: ['Check Number', 'Date', 'Description', 'Amount', 'Category', 'Comments'],
    mapping: { date: { column: 'Date', format: 'MM/DD/YY' }, amount: 'Amount', decimal: '.', thousands: [','], description: ['Description', 'Comments'], currency: { value: 'USD' }, id: 'Check Number' },
  },
  'csv2ofx-default': {
    label: 'csv2ofx default/generic CSV layout (Row, Num, Date, Reference, Description, Amount, Account, Category, Notes)',
    header: ['Row', 'Num', 'Date', 'Reference', 'Description', 'Amount', 'Account', 'Category', 'Notes'],
    mapping: { date: { column: 'Date', format: 'YYYY-MM-DD' }, amount: 'Amount', decimal: '.', thousands: [','], description: ['Description', 'Reference', 'Notes'], account: { column: 'Account' }, currency: { value: 'USD' }, id: 'Row' },
  },
  dbs: {
    label: 'DBS Bank (Singapore) savings account CSV',
    header: ['Transaction Date', 'Reference', 'Debit Amount', 'Credit Amount', 'Transaction Ref1', 'Transaction Ref2', 'Transaction Ref3'],
    mapping: { date: { column: 'Transaction Date', format: 'DD MMM YYYY' }, debit: 'Debit Amount', credit: 'Credit Amount', decimal: '.', description: ['Transaction Ref1', 'Transaction Ref2', 'Transaction Ref3'], currency: { value: 'SGD' } },
  },
  'ing-es': {
    label: 'ING España (ES) movements CSV',
    header: ['date', 'class', 'subcategory', 'desc', 'notes', 'image', 'amount', 'balance'],
    mapping: { date: { column: 'date', format: 'DD/MM/YYYY' }, amount: 'amount', decimal: '.', description: ['desc', 'notes'], balance: 'balance', currency: { value: 'EUR' } },
  },
  mint: {
    label: 'Mint (US) transactions export CSV',
    header: ['Date', 'Description', 'Original Description', 'Amount', 'Transaction Type', 'Category', 'Account Name', 'Labels', 'Notes'],
    mapping: { date: { column: 'Date', format: 'MM/DD/YY' }, amount: 'Amount', decimal: '.', thousands: [','], description: ['Description', 'Original Description', 'Notes'], account: { column: 'Account Name' }, currency: { value: 'USD' }, direction: { column: 'Transaction Type', debit: ['debit'] } },
  },
  n26: {
    label: 'N26 (current CSV export, with Partner Name / Partner Iban / Amount (EUR))',
    header: ['Booking Date', 'Value Date', 'Partner Name', 'Partner Iban', 'Type', 'Payment Reference', 'Account Name', 'Amount (EUR)', 'Original Amount', 'Original Currency', 'Exchange Rate'],
    mapping: { date: { column: 'Booking Date', format: 'YYYY-MM-DD' }, valueDate: { column: 'Value Date', format: 'YYYY-MM-DD' }, amount: 'Amount (EUR)', decimal: '.', description: ['Partner Name', 'Type', 'Payment Reference'], account: { column: 'Account Name' }, currency: { value: 'EUR' } },
  },
  outbank: {
    label: 'Outbank app (DE) CSV export (v2.19)',
    header: ['#', 'Account', 'Date', 'Value Date', 'Amount', 'Currency', 'Name', 'Number', 'Bank', 'Reason', 'Category', 'Subcategory', 'Tags', 'Note', 'Ultimate Receiver Name', 'Original Amount', 'Compensation Amount', 'Exchange Rate', 'Posting Key', 'Posting Text', 'Purpose Code', 'SEPA Reference', 'Client Reference', 'Mandate Identification', 'Originator Identifier'],
    mapping: { date: { column: 'Date', format: 'MM/DD/YY' }, valueDate: { column: 'Value Date', format: 'MM/DD/YY' }, amount: 'Amount', decimal: ',', thousands: ['.'], description: ['Name', 'Reason', 'Posting Text'], account: { column: 'Account' }, currency: { column: 'Currency' } },
  },
  payoneer: {
    label: 'Payoneer transactions CSV',
    header: ['Transaction Date', 'Transaction Time', 'Time Zone', 'Transaction ID', 'Description', 'Credit Amount', 'Debit Amount', 'Currency', 'Transfer Amount', 'Transfer Amount Currency', 'Status', 'Running Balance', 'Additional Description', 'Store Name', 'Source', 'Target', 'Reference ID'],
    mapping: { date: { column: 'Transaction Date', format: 'MM/DD/YYYY' }, debit: 'Debit Amount', credit: 'Credit Amount', decimal: '.', thousands: [','], description: ['Target', 'Description', 'Additional Description'], balance: 'Running Balance', currency: { column: 'Currency' }, id: 'Transaction ID' },
  },
  'pc-mastercard': {
    label: 'PC Financial Mastercard (CA) transactions CSV',
    header: ['Merchant Name', 'Card Used For Transaction', 'Date', 'Time', 'Amount'],
    mapping: { date: { column: 'Date', format: 'MM/DD/YYYY' }, amount: 'Amount', decimal: '.', thousands: [','], description: ['Merchant Name'], currency: { value: 'CAD' }, negate: true },
  },
  sparkasse: {
    label: 'Sparkasse (DE) CSV-MT940 Umsätze export',
    header: ['Auftragskonto', 'Buchungstag', 'Valutadatum', 'Buchungstext', 'Verwendungszweck', 'Beguenstigter/Zahlungspflichtiger', 'Kontonummer', 'BLZ', 'Betrag', 'Waehrung', 'Info'],
    mapping: { date: { column: 'Buchungstag', format: 'DD.MM.YY' }, valueDate: { column: 'Valutadatum', format: 'DD.MM.YY' }, amount: 'Betrag', decimal: ',', thousands: ['.'], description: ['Beguenstigter/Zahlungspflichtiger', 'Buchungstext', 'Verwendungszweck'], account: { column: 'Auftragskonto' }, currency: { column: 'Waehrung' }, skip: [{ column: 'Info', values: ['Umsatz vorgemerkt'] }] },
  },
  'stripe-payments-all': {
    label: 'Stripe payments export, All columns CSV',
    header: ['id', 'description', 'seller_message', 'created', 'amount', 'amount_refunded', 'currency', 'converted_amount', 'converted_amount_refunded', 'fee', 'tax', 'converted_currency', 'mode', 'status', 'statement_descriptor', 'customer_id', 'customer_description', 'customer_email', 'captured', 'card_id', 'card_last4', 'card_brand', 'card_funding', 'card_exp_month', 'card_exp_year', 'card_name', 'card_address_line1', 'card_address_line2', 'card_address_city', 'card_address_state', 'card_address_country', 'card_address_zip', 'card_issue_country', 'card_fingerprint', 'card_cvc_status', 'card_avs_zip_status', 'card_avs_line1_status', 'card_tokenization_method', 'disputed_amount', 'dispute_status', 'dispute_reason', 'dispute_date', 'dispute_evidence_due', 'invoice_id', 'invoice_number', 'payment_source_type', 'destination', 'transfer', 'transfer_group', 'payment_intent_id'],
    mapping: { date: { column: 'created', format: 'YYYY-MM-DD' }, amount: 'amount', decimal: '.', thousands: [','], description: ['customer_description', 'card_name', 'description'], currency: { column: 'currency' }, id: 'id' },
  },
  'stripe-payments-default': {
    label: 'Stripe payments export, default columns CSV',
    header: ['id', 'description', 'seller_message', 'created', 'amount', 'amount_refunded', 'currency', 'converted_amount', 'converted_amount_refunded', 'fee', 'tax', 'converted_currency', 'status', 'statement_descriptor', 'customer_id', 'customer_description', 'customer_email', 'captured', 'card_id', 'invoice_id', 'transfer'],
    mapping: { date: { column: 'created', format: 'YYYY-MM-DD' }, amount: 'amount', decimal: '.', thousands: [','], description: ['customer_description', 'description'], currency: { column: 'currency' }, id: 'id' },
  },
  sumup: {
    label: 'SumUp (DE) business account transactions CSV',
    header: ['Datum der Transaktion', 'Transaktions-ID', 'Art der Transaktion', 'Referenz', 'Zahlungsreferenz', 'Status', 'Rechnungsbetrag ausgehend', 'Rechnungsbetrag eingehend', 'Währung der Karte', 'Zahlungsbetrag ausgehend', 'Zahlungsbetrag eingehend', 'Zahlungswährung', 'Wechselkurs', 'Gebühr', 'Verfügbares Guthaben'],
    mapping: { date: { column: 'Datum der Transaktion', format: 'DD.MM.YY' }, debit: 'Zahlungsbetrag ausgehend', credit: 'Zahlungsbetrag eingehend', decimal: '.', description: ['Referenz', 'Zahlungsreferenz'], balance: 'Verfügbares Guthaben', currency: { column: 'Zahlungswährung' }, id: 'Transaktions-ID' },
  },
};
