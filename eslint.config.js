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
      "TaggedTemplateExpression[tag.name='sql'], TaggedTemplateExpression[tag.object.name='sql'], CallExpression[callee.object.name=/^(sql|CompiledQuery)$/]",
    message: 'SQL lives in a store (<module>.store.ts) or in src/records/: call a store method here.',
  },
  {
    // `<anything>.schema.createTable(…)` and the like (TypeBox's `.schema` properties elsewhere are no builder calls).
    selector: "CallExpression[callee.object.property.name='schema'][callee.property.name=/^(create|alter|drop)/]",
    message: 'Schema changes live in migrations (src/storage/migrations/).',
  },
];

/**
 * The list engine (src/query/): it compiles the `query` and `orderBy` languages into parameterised SQL fragments and
 * reads the page a store describes (its table, client scope and columns). Stores call it; nothing else does.
 */
const LIST_ENGINE = ['src/query/list-engine.ts', 'src/query/query-compiler.ts', 'src/query/order-by.ts'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test/**', 'bench/**', '**/*.js', '**/*.cjs', '**/*.mjs'] },
  {
    files: ['src/**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'no-restricted-syntax': ['error', ...SQL],
      // The same, by import: an alias (`import { sql as q }`) would slip past the selectors above.
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'kysely', importNames: ['sql', 'CompiledQuery'], message: SQL[0].message },
            { name: 'pg-copy-streams', message: SQL[0].message },
          ],
          patterns: [{ group: ['**/storage/prepared.js'], message: SQL[0].message }],
        },
      ],
    },
  },
  {
    files: ['src/**/*.store.ts', 'src/records/**/*.ts', 'src/storage/**/*.ts', ...LIST_ENGINE],
    rules: { 'no-restricted-syntax': 'off', 'no-restricted-imports': 'off' },
  },
);
