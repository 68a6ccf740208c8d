// What the lenders' reports keep beyond synced data: the categories clients confirmed for accounts.

/** A category a client confirmed for one account of a connection (docs/lending/account-categories.md). */
export interface AccountCategoriesTable {
  client_id: string;
  company_id: string;
  connection_id: string;
  account_id: string;
  /** The v3 taxonomy path, dot-joined, e.g. `Expense.Operating.Travel`. */
  category: string;
  modified: string;
}
