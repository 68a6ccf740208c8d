/**
 * The import boundaries of src/ (issue 15), checked by `npm test` (`npm run check:boundaries`). Where SQL may be
 * written is checked by ESLint (eslint.config.js); this file is about which module may import which.
 */
/**
 * The rooms of src/ (a top-level folder or file), top floor first. A room imports only rooms on floors below its own:
 * never one on its floor or above, so no two rooms import each other, through any number of others. A new room is
 * placed here before it imports anything (the `room-not-placed` rule). docs/architecture.md draws this order.
 */
const FLOORS = [
  ['main', 'cli'],
  ['server'],
  ['app'],
  ['emulator'],
  ['link'],
  ['portal', 'uploads'],
  ['push'],
  ['syncs', 'data', 'reports'],
  ['companies', 'integrations'],
  ['connections'],
  ['webhooks', 'docs'],
  ['access'],
  ['api-keys', 'operations', 'platform-data', 'records'],
  ['clients', 'jobs', 'query', 'secrets'],
  ['storage', 'connectors', 'config'],
  ['http', 'lib', 'version', 'codat-model'],
];

/**
 * Imports from a room to one on its floor or above that are allowed all the same, each with its reason:
 * `{ from: 'room', to: 'room', why: '…' }`. None today.
 */
const UPWARD_EXCEPTIONS = [];

const roomPath = (room) => `^src/${room}(/|[.]ts$)`;
const floorRules = FLOORS.flatMap((floor, index) =>
  floor.map((room) => ({
    name: `floor-${room}`,
    severity: 'error',
    comment: `${room} imports only rooms on floors below its own (FLOORS in .dependency-cruiser.cjs).`,
    from: { path: roomPath(room) },
    to: {
      path: FLOORS.slice(0, index + 1)
        .flat()
        .filter((other) => other !== room)
        .map(roomPath),
      pathNot: UPWARD_EXCEPTIONS.filter((exception) => exception.from === room).map((exception) => roomPath(exception.to)),
    },
  })),
);

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...floorRules,
    {
      name: 'room-not-placed',
      severity: 'error',
      comment: 'Every room of src/ stands on a floor of FLOORS: place a new one there before it imports anything.',
      from: { path: '^src/', pathNot: FLOORS.flat().map(roomPath) },
      to: {},
    },
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'A cycle makes two modules one: neither can be read, tested or moved alone.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-connector-internals',
      severity: 'error',
      comment:
        'The rest of the service knows the connector interface (the files directly under src/connectors/), never a ' +
        "platform's internals (src/connectors/<platform>/…).",
      from: { path: '^src/', pathNot: '^src/connectors/' },
      to: { path: '^src/connectors/[^/]+/' },
    },
    {
      name: 'platforms-apart-from-the-sandbox',
      severity: 'error',
      comment: "A live platform stands on the connector interface and Codat's model (src/codat-model/), never on the Sandbox's code.",
      from: { path: '^src/connectors/[^/]+/', pathNot: '^src/connectors/sandbox/' },
      to: { path: '^src/connectors/sandbox/' },
    },
    {
      name: 'syncs-and-data-apart',
      severity: 'error',
      comment: 'Syncing (syncs/) and reading (data/) both stand on the record layout (records/), never on each other.',
      from: { path: '^src/(syncs|data)/' },
      to: { path: '^src/(syncs|data)/', pathNot: '^src/$1/' },
    },
    {
      name: 'records-stand-alone',
      severity: 'error',
      comment:
        'The record layout is a layer below the modules that use it: it imports storage, the connector interface, ' +
        'the query engine and the shared libraries, never a domain module.',
      from: { path: '^src/records/' },
      to: {
        path: '^src/',
        pathNot: ['^src/(records|storage|lib|query|http)/', '^src/connectors/[^/]+[.]ts$'],
      },
    },
    {
      name: 'list-engine-for-stores',
      severity: 'error',
      comment:
        'The list engine (src/query/) turns `query` and `orderBy` into SQL: only stores and records/ run it (app.ts wires it); a service ' +
        'hands the text to its store.',
      from: { path: '^src/', pathNot: ['[.]store[.]ts$', '^src/records/', '^src/query/', '^src/app[.]ts$'] },
      to: { path: '^src/query/(list-engine|query-compiler|order-by)[.]ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'migrations-frozen',
      severity: 'error',
      comment: 'A released migration must do the same thing forever: it imports no application code (types are erased).',
      from: { path: '^src/storage/migrations/' },
      to: { path: '^src/', pathNot: '^src/storage/migrations/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-test-code-in-src',
      severity: 'error',
      comment: 'The service never imports its tests or benchmarks.',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.json'],
    },
  },
};
