// Where SQL may be written (issue 15), checked by `npm test` (`npm run check:sql`). Which module may import which
// is dependency-cruiser's part (.dependency-cruiser.cjs); formatting is Prettier's.
import tseslint from 'typescript-eslint';

/** Kysely's statement builders and its `sql` template: what "an SQL statement" looks like in this code base. */
const SQL = [
  {
    selector: 'CallExpression[callee.property.name=/^(selectFrom|selectNoFrom|insertInto|replaceInto|updateTable|deleteFrom|mergeInto)$/]',
    message: 'SQL lives in a store (<module>.store.ts) or in src/records/: call a store method here.',
  },
  {
    selector:
      "TaggedTemplateExpression[tag.name='sql'], TaggedTemplateExpression[tag.object.name='sql'], CallExpression[callee.object.name='sql']",
    message: 'SQL lives in a store (<module>.store.ts) or in src/records/: call a store method here.',
  },
  {
    selector: "MemberExpression[property.name='schema'][object.name=/^(db|trx|executor|kysely)$/]",
    message: 'Schema changes live in migrations (src/storage/migrations/).',
  },
];

/**
 * Files that still hold SQL from before the storage boundary, to be moved into their module's store: the list only
 * shrinks (a file not on it that writes SQL fails the check).
 */
const SQL_STILL_TO_MOVE = [
  'src/query/list-engine.ts',
  'src/query/operation-history.ts',
  'src/query/order-by.ts',
  'src/query/query-compiler.ts',
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test/**', 'bench/**', '**/*.js', '**/*.cjs', '**/*.mjs'] },
  {
    files: ['src/**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: { 'no-restricted-syntax': ['error', ...SQL] },
  },
  {
    files: ['src/**/*.store.ts', 'src/records/**/*.ts', 'src/storage/**/*.ts', ...SQL_STILL_TO_MOVE],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
