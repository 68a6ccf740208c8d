export * from './banking.js';
export * from './ledger.js';
export * from './purchases.js';
export * from './reports.js';
export * from './sales.js';
