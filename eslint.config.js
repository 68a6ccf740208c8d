// Where SQL may be written (issue 15) and where the time is read (issue 28), checked by `npm test` (`npm run check:sql`).
// Which module may import which is dependency-cruiser's part (.dependency-cruiser.cjs); formatting is Prettier's.
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
 * Business time is read through src/lib/clock.ts (`clockFor(scope).now()`, or a `now` handed in), never from the
 * system directly: one place decides what "now" is, so a company can later be given a clock of its own. `new Date(x)`
 * with an argument converts a time and is fine.
 */
const CLOCK_MESSAGE =
  'Business time is read through src/lib/clock.ts (clockFor(scope).now()); real-time machinery is named as an exception (eslint.config.js).';
const CLOCK = [
  {
    selector: "CallExpression[callee.type='MemberExpression'][callee.object.name='Date'][callee.property.name='now']",
    message: CLOCK_MESSAGE,
  },
  {
    selector: "NewExpression[callee.name='Date'][arguments.length=0]",
    message: CLOCK_MESSAGE,
  },
];

/**
 * Files that are real-time machinery through and through, on the system's time and not the business clock. Sites of
 * real time in other files are named where they are (`// eslint-disable-next-line no-restricted-syntax -- real time: …`).
 */
const REAL_TIME = [
  // The one read of the system's time for business time.
  'src/lib/clock.ts',
  // The in-process engine: job polling, pruning finished jobs, queue-depth ages for metrics.
  'src/jobs/local-job-engine.ts',
  // The graphile-worker engine: `run_at` of enqueued jobs, when a job started and when this worker was presumed dead.
  'src/jobs/graphile-job-engine.ts',
  // Outbound politeness: per-account request windows and pauses towards a platform.
  'src/connectors/politeness.ts',
];

/** Stores (they may write SQL) that are real-time machinery through and through. */
const REAL_TIME_STORES = [
  // The in-process engine's job table: leases, `run_after`, claiming due jobs, requeueing expired leases.
  'src/jobs/jobs.store.ts',
  // graphile-worker's side: adopting the in-process engine's jobs whose lease expired.
  'src/jobs/graphile-jobs.store.ts',
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
      'no-restricted-syntax': ['error', ...SQL, ...CLOCK],
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
    // SQL may be written here; the time is still read through the clock.
    rules: { 'no-restricted-syntax': ['error', ...CLOCK], 'no-restricted-imports': 'off' },
  },
  {
    files: REAL_TIME,
    rules: { 'no-restricted-syntax': ['error', ...SQL] },
  },
  {
    files: REAL_TIME_STORES,
    rules: { 'no-restricted-syntax': 'off' },
  },
);
