#!/usr/bin/env node
// Writes src/emulator/codat-operations.json: for every operation of Codat's OpenAPI files, its method, its path
// template and its operationId in each file that defines it. The emulator matches fault rules and the request journal
// by any of those ids (docs/emulator.md, "Operation ids"). Only the names are kept, not the files (published without
// a licence, they stay outside the repository). Run again when the files change; test/emulator/codat-operations.test.ts
// fails while the table differs from the files.
//
//   node scripts/codat-operations.mjs [--check]    (CODAT_OAS_DIR, default ../shared/reference/codat-oas)
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIR = resolve(ROOT, process.env.CODAT_OAS_DIR || '../shared/reference/codat-oas');
const OUT = resolve(ROOT, 'src/emulator/codat-operations.json');

/** The files, in the order their ids are canonical (the issue's: Platform, Lending, Banking, Commerce, Sync-Payables, Sync-Commerce). */
export const FILES = [
  ['platform', 'Codat-Platform.json'],
  ['lending', 'Codat-Lending.yaml'],
  ['banking', 'Codat-Banking.json'],
  ['commerce', 'Codat-Commerce.json'],
  ['syncPayables', 'Codat-Sync-Payables-v1.json'],
  ['syncCommerce', 'Codat-Sync-Commerce-v1.json'],
];
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

export function buildTable(dir = DIR) {
  const byOperation = new Map();
  for (const [api, file] of FILES) {
    const text = readFileSync(resolve(dir, file), 'utf8');
    const document = file.endsWith('.json') ? JSON.parse(text) : parse(text);
    for (const [path, item] of Object.entries(document.paths ?? {})) {
      for (const method of METHODS) {
        const id = item?.[method]?.operationId;
        if (typeof id !== 'string') continue;
        const key = `${method.toUpperCase()} ${path}`;
        const entry = byOperation.get(key) ?? { method: method.toUpperCase(), path, ids: {} };
        entry.ids[api] = id;
        byOperation.set(key, entry);
      }
    }
  }
  return [...byOperation.values()].sort((a, b) => (a.path === b.path ? a.method.localeCompare(b.method) : a.path.localeCompare(b.path)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = `${JSON.stringify(buildTable(), null, 1)}\n`;
  if (process.argv.includes('--check')) {
    if (readFileSync(OUT, 'utf8') !== text) {
      console.error(`${OUT} differs from Codat's files in ${DIR}: run node scripts/codat-operations.mjs`);
      process.exit(1);
    }
  } else writeFileSync(OUT, text);
}
