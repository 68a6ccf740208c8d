import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { rawRequest, type RawResponse } from '../helpers/raw-http.js';

/**
 * Hostile requests generated from the server's own `/openapi.json`: every operation, with path parameters, query
 * strings, headers, bodies and framing chosen to break things, and the checks every answer must pass. Used by the
 * suite (`test/fuzz/hostile.test.ts`, a few thousand requests) and by `npm run fuzz` (as many as asked for).
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type SchemaNode = { [key: string]: Json };

export interface Operation {
  method: string;
  path: string;
  query: { name: string; type?: string }[];
  body?: SchemaNode;
}

export interface FuzzTarget {
  url: string;
  /** The Authorization header of a client without a request quota. */
  auth: string;
  /** Real values for path parameters, by parameter name: only safe methods (GET, HEAD) use them. */
  fixtureValues: Record<string, string[]>;
  /** Real values of a throwaway company, for the other methods: writes, deletes and syncs reach real records there. */
  throwawayValues?: Record<string, string[]>;
  /**
   * The Authorization header of a second client, sent to the operations that act on the whole client (the emulator's
   * reset, CLIENT_WIDE) instead of `auth`: they are fuzzed for real, and the fuzz client's fixture survives them.
   */
  clientWideAuth?: string;
}

/** Operations that change everything the caller owns, whatever the request names. */
const CLIENT_WIDE = new Set(['/emulator/reset']);

export interface HostileRequest {
  operation: Operation;
  method: string;
  target: string;
  headers: [string, string][];
  body?: Buffer;
  /** Framing that is not HTTP/1.1 on purpose: the bytes are sent as they are. */
  raw?: string;
}

const SAFE = new Set(['GET', 'HEAD']);
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND', 'SEARCH', 'PURGE'];

/** Every operation of an OpenAPI document, with its query parameters and the resolved schema of its JSON body. */
export function operationsOf(openapi: {
  paths: Record<string, Record<string, SchemaNode>>;
  components?: { schemas?: Record<string, SchemaNode> };
}): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(openapi.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const parameters = (op.parameters ?? []) as SchemaNode[];
      const query = parameters
        .filter((p) => p.in === 'query')
        .map((p) => ({ name: String(p.name), type: (p.schema as SchemaNode | undefined)?.type as string | undefined }));
      const content = ((op.requestBody as SchemaNode | undefined)?.content ?? {}) as Record<string, SchemaNode>;
      const body = content['application/json']?.schema as SchemaNode | undefined;
      operations.push({
        method: method.toUpperCase(),
        path,
        query,
        body: body ? resolve(body, openapi.components?.schemas ?? {}, 0) : undefined,
      });
    }
  }
  return operations;
}

/** Inlines `$ref`s a few levels deep (enough to aim values at real fields; deeper parts get any JSON). */
function resolve(node: SchemaNode, schemas: Record<string, SchemaNode>, depth: number): SchemaNode {
  if (depth > 6) return {};
  if (typeof node.$ref === 'string') {
    const name = node.$ref.split('/').pop()!;
    return schemas[name] ? resolve(schemas[name], schemas, depth + 1) : {};
  }
  const out: SchemaNode = { ...node };
  if (node.properties && typeof node.properties === 'object') {
    out.properties = Object.fromEntries(
      Object.entries(node.properties as Record<string, SchemaNode>).map(([k, v]) => [k, resolve(v, schemas, depth + 1) as Json]),
    );
  }
  if (node.items && typeof node.items === 'object' && !Array.isArray(node.items))
    out.items = resolve(node.items as SchemaNode, schemas, depth + 1) as Json;
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (Array.isArray(node[key])) out[key] = (node[key] as SchemaNode[]).map((n) => resolve(n, schemas, depth + 1) as Json);
  }
  return out;
}

// ---- values -------------------------------------------------------------------------------------------------

/** Text that has broken parsers, databases and encoders before. */
const NASTY_TEXT = [
  '',
  ' ',
  '\t',
  '0',
  '-1',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '""',
  "'",
  '"',
  '\\',
  '\\u0000',
  '\u0000',
  '%00',
  '%',
  '%%',
  '%ZZ',
  '..',
  '../..',
  '/',
  '//',
  '?',
  '#',
  '&',
  '=',
  ';',
  '*',
  '{companyId}',
  "' OR '1'='1",
  '1; DROP TABLE companies;--',
  '$where',
  '__proto__',
  'constructor',
  'prototype',
  '<script>alert(1)</script>',
  '${7*7}',
  '{{7*7}}',
  '\u202e',
  '\ufeff',
  '\ud800',
  '\udfff',
  '😀',
  '𝕏',
  'ß',
  'İ',
  '\u0301',
  'a\u0000b',
  '\r\n',
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  '0x10',
  '00000000-0000-0000-0000-000000000000',
];

const nastyString = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_TEXT) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        { weight: 9, arbitrary: fc.integer({ min: 101, max: 2_000 }) },
        { weight: 1, arbitrary: fc.integer({ min: 2_000, max: 20_000 }) },
      )
      .map((n) => 'x'.repeat(n)),
  },
  { weight: 1, arbitrary: fc.uuid() },
);

const INT_TEXT = [
  '1',
  '2',
  '5000',
  '5001',
  '0',
  '-1',
  '01',
  '+1',
  ' 1',
  '1 ',
  '1.0',
  '1.5',
  '1e3',
  '1e309',
  '0x10',
  '0b1',
  '0o7',
  'Infinity',
  '-Infinity',
  'NaN',
  '',
  ' ',
  'one',
  '2147483647',
  '2147483648',
  '-2147483649',
  '99999999999999999999',
  '１',
  '٣',
  '1,2',
  '[1]',
  '%31',
];

/** An integer parameter's text: mostly things `Number()` would accept that are not decimal int32. */
const intText = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...INT_TEXT) },
  { weight: 1, arbitrary: fc.integer({ min: -10, max: 6000 }).map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
  { weight: 1, arbitrary: nastyString },
);

/** Query-language text: well-formed, nested past the limit, unbalanced, long. */
const queryText = fc.oneof(
  fc.constantFrom(
    'status=Paid',
    'name~a',
    'amountDue>0',
    'issueDate>2020-01-01',
    'status=Paid&&amountDue>0||id!=x',
    'metadata.isDeleted=true',
    'a.b.c.d=1',
  ),
  fc.integer({ min: 1, max: 3000 }).map((n) => `${'{'.repeat(n)}name=a${'}'.repeat(n)}`),
  fc.integer({ min: 1, max: 3000 }).map((n) => '{'.repeat(n)),
  fc.integer({ min: 1, max: 500 }).map((n) => Array.from({ length: n }, (_, i) => `name=${i}`).join('&&')),
  fc
    .tuple(
      fc.constantFrom('name', 'id', 'status', 'x', '__proto__', 'modifiedDate'),
      fc.constantFrom('=', '!=', '~', '>', '<', '>=', '<=', '=='),
      nastyString,
    )
    .map(([p, o, v]) => `${p}${o}${v}`),
  nastyString,
);

const orderByText = fc.oneof(
  fc.constantFrom('name', '-name', 'id', '-modifiedDate', '--name', '-', '', 'a.b.c', 'name,id', 'nope'),
  nastyString,
);

/** Percent-encodes the UTF-8 bytes of any string (lone surrogates included, which `encodeURIComponent` throws on). */
function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function parameterValue(name: string, type: string | undefined): fc.Arbitrary<string> {
  if (type === 'integer' || name === 'page' || name === 'pageSize') return intText;
  if (name === 'query') return queryText;
  if (name === 'orderBy') return orderByText;
  if (type === 'boolean') return fc.oneof(fc.constantFrom('true', 'false', 'TRUE', '1', '0', 'yes'), nastyString);
  return nastyString;
}

/** A percent-encoded query string; sometimes with raw, unencoded or broken bytes. */
function queryString(operation: Operation): fc.Arbitrary<string> {
  const declared = operation.query.map((q) => fc.tuple(fc.constant(q.name), parameterValue(q.name, q.type)));
  const extra = fc.tuple(
    fc.oneof(fc.constantFrom('page', 'pageSize', 'query', 'x', '__proto__', 'constructor[prototype]', 'a[b]', ''), nastyString),
    nastyString,
  );
  const pair = declared.length > 0 ? fc.oneof({ weight: 4, arbitrary: fc.oneof(...declared) }, { weight: 1, arbitrary: extra }) : extra;
  const encoded = fc
    .array(pair, { maxLength: 6 })
    .map((pairs) => pairs.map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`).join('&'));
  const broken = fc.constantFrom(
    'page=%',
    'page=%ZZ',
    'query=%E0%A4%A',
    '&&&',
    '=',
    '==1',
    'page',
    'page=1&page=2',
    'pageSize=1&pageSize=5000',
    'a=' + '%41'.repeat(3000),
  );
  return fc.oneof({ weight: 8, arbitrary: encoded }, { weight: 1, arbitrary: broken });
}

/** A path parameter's value: the fixture's for safe methods, the throwaway company's or a random id for others, or something hostile. */
function pathValue(name: string, safe: boolean, fuzz: FuzzTarget): fc.Arbitrary<string> {
  const real = (safe ? fuzz.fixtureValues[name] : fuzz.throwawayValues?.[name]) ?? [];
  const hostile = fc.oneof(
    nastyString.map(percentEncode),
    // Sent verbatim: broken escapes, dot segments, encoded slashes and NULs, over-long segments.
    fc.constantFrom(
      '%',
      '%ZZ',
      '%E0%A4%A',
      '%C0%AF',
      '%ED%A0%80',
      '%FF',
      '..',
      '.',
      '%2e%2e',
      '%2F',
      'a%2Fb',
      '%00',
      '%0d%0a',
      ';',
      'a;b=c',
      '%20',
      '~',
      '*',
    ),
  );
  const throwaway = fc.uuid();
  if (real.length > 0)
    return fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...real) },
      { weight: 2, arbitrary: hostile },
      { weight: 1, arbitrary: throwaway },
    );
  return fc.oneof({ weight: 2, arbitrary: throwaway }, { weight: 3, arbitrary: hostile });
}

/** A JSON value shaped like `schema` (so validation goes deep) with hostile leaves. */
function valueFor(schema: SchemaNode | undefined, depth: number): fc.Arbitrary<unknown> {
  const anyJson = fc.jsonValue({ maxDepth: 3 });
  if (!schema || depth > 5) return anyJson;
  const variants = (schema.anyOf ?? schema.oneOf) as SchemaNode[] | undefined;
  if (variants && variants.length > 0) return fc.oneof(...variants.map((v) => valueFor(v, depth + 1)));
  const leaf = fc.oneof(
    nastyString,
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER + 2),
  );
  switch (schema.type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, SchemaNode>;
      const entries = Object.entries(properties);
      if (entries.length === 0) return fc.oneof(fc.dictionary(nastyString, leaf, { maxKeys: 30 }), anyJson);
      const shaped = fc.record(
        Object.fromEntries(
          entries.map(([k, v]) => [k, fc.oneof({ weight: 3, arbitrary: valueFor(v, depth + 1) }, { weight: 1, arbitrary: leaf })]),
        ),
        { requiredKeys: [] },
      );
      return fc.oneof(
        { weight: 5, arbitrary: shaped },
        { weight: 1, arbitrary: fc.tuple(shaped, fc.dictionary(nastyString, leaf, { maxKeys: 3 })).map(([a, b]) => ({ ...b, ...a })) },
        { weight: 1, arbitrary: leaf },
      );
    }
    case 'array':
      return fc.oneof(
        { weight: 4, arbitrary: fc.array(valueFor(schema.items as SchemaNode, depth + 1), { maxLength: 5 }) },
        { weight: 1, arbitrary: fc.integer({ min: 0, max: 20_000 }).map((n) => Array.from({ length: n }, () => 1)) },
        { weight: 1, arbitrary: leaf },
      );
    default:
      return fc.oneof(
        ...(Array.isArray(schema.enum) ? [fc.constantFrom(...(schema.enum as Json[]))] : []),
        leaf,
        fc.constant('2024-05-01'),
        fc.constant('2024-05-01T00:00:00Z'),
      );
  }
}

/** A body's bytes: JSON shaped like the schema, deep nesting, broken JSON, NULs, duplicate keys, big or empty. */
function bodyFor(operation: Operation): fc.Arbitrary<Buffer | undefined> {
  const shaped = valueFor(operation.body, 0).map((v) => JSON.stringify(v) ?? 'null');
  const nested = fc
    .tuple(fc.integer({ min: 30, max: 50_000 }), fc.boolean())
    .map(([n, arrays]) => (arrays ? `${'['.repeat(n)}${']'.repeat(n)}` : `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`));
  const broken = fc.constantFrom(
    '{',
    '}',
    '{"name":',
    '[1,]',
    '{"a":1,}',
    "{'a':1}",
    'nul',
    'NaN',
    '1e309',
    '{"__proto__":{"x":1}}',
    '{"constructor":{"prototype":{"x":1}}}',
    '{"name":"a","name":"b"}',
    '{"name":"\\u0000"}',
    '{"name":"\\ud800"}',
    '\ufeff{}',
    '',
    ' ',
    '"x"',
    '[]',
    '0',
  );
  const big = fc.integer({ min: 1, max: 6 }).map((mb) => `{"name":"${'a'.repeat(mb * 1024 * 1024)}"}`);
  const text = fc.oneof(
    { weight: 12, arbitrary: shaped },
    { weight: 2, arbitrary: nested },
    { weight: 3, arbitrary: broken },
    { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
  );
  const withBig = fc.oneof({ weight: 200, arbitrary: text }, { weight: 1, arbitrary: big });
  return fc.oneof(
    { weight: operation.body ? 10 : 1, arbitrary: withBig.map((t) => Buffer.from(t)) },
    { weight: operation.body ? 1 : 6, arbitrary: fc.constant(undefined) },
  );
}

function headersFor(auth: string): fc.Arbitrary<[string, string][]> {
  const authorization = fc.oneof(
    { weight: 12, arbitrary: fc.constant(auth) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'Basic',
        'Basic ',
        'Basic ====',
        'Bearer x',
        'basic ' + auth.slice(6),
        `Basic ${Buffer.from(randomUUID()).toString('base64')}`,
        'Basic ' + 'A'.repeat(5000),
        auth + 'x',
        'Basic %%%',
      ),
    },
  );
  const contentType = fc.oneof(
    { weight: 10, arbitrary: fc.constant('application/json') },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        undefined,
        'text/plain',
        'application/json; charset=utf-16',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/xml',
        'application/json, text/plain',
        '*/*',
        '',
        'application/JSON',
        'application/vnd.api+json',
        'application/json; charset=latin1',
      ),
    },
  );
  const extra = fc.array(
    fc.oneof(
      { depthSize: 'small' },
      fc
        .tuple(
          fc.constantFrom(
            'Accept',
            'Accept-Encoding',
            'Idempotency-Key',
            'X-Correlation-Id',
            'Origin',
            'Cookie',
            'X-Forwarded-For',
            'Range',
            'If-None-Match',
            'Accept-Version',
            'Expect',
          ),
          fc.oneof(nastyString, fc.constantFrom('gzip, br', '*/*', 'bytes=0-0', '100-continue')),
        )
        .map(([k, v]) => [k, headerSafe(v)] as [string, string]),
      // Framing headers are generated separately (BROKEN_FRAMES): here they would only make the server wait for a body.
      fc
        .tuple(
          fc
            .stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,30}$/)
            .filter((k) => !/^(content-length|transfer-encoding|host|connection)$/i.test(k)),
          nastyString,
        )
        .map(([k, v]) => [k, headerSafe(v)] as [string, string]),
    ),
    { maxLength: 3 },
  );
  // Headers near and over the 16 KB limit, now and then.
  const padding = fc.oneof(
    { weight: 40, arbitrary: fc.constant([]) },
    { weight: 1, arbitrary: fc.integer({ min: 8_000, max: 70_000 }).map((n) => [['X-Padding', 'p'.repeat(n)] as [string, string]]) },
  );
  return fc
    .tuple(authorization, contentType, extra, padding)
    .map(([a, c, e, p]) => [
      ...(a === undefined ? [] : [['Authorization', a] as [string, string]]),
      ...(c === undefined ? [] : [['Content-Type', c] as [string, string]]),
      ...e,
      ...p,
    ]);
}

/** Header values carry no CR or LF (that would be framing, generated separately) and no other C0 controls but tab. */
function headerSafe(value: string): string {
  return Buffer.from(value.replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, ''), 'utf8').toString('latin1');
}

/** Framing that is wrong on purpose. */
const BROKEN_FRAMES = [
  'GARBAGE\r\n\r\n',
  'GET /companies HTTP/1.1\r\nHost: x\r\nno colon\r\n\r\n',
  'POST /companies HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
  'POST /companies HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
  'POST /companies HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
  'POST /companies HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked, identity\r\n\r\n0\r\n\r\n',
  'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
  'GET /companies HTTP/9.9\r\nHost: x\r\n\r\n',
  'GET /companies\r\n\r\n',
  'GET  /companies  HTTP/1.1\r\nHost: x\r\n\r\n',
  'GET /companies HTTP/1.1\nHost: x\n\n',
  'GET http://evil.example/companies HTTP/1.1\r\nHost: x\r\n\r\n',
  'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n',
  'GET /com panies HTTP/1.1\r\nHost: x\r\n\r\n',
  'G\u0000T /companies HTTP/1.1\r\nHost: x\r\n\r\n',
  'GET /companies HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
  'GET /companies HTTP/1.1\r\nHost: x\r\n Folded: header\r\n\r\n',
  'GET /companies HTTP/1.1\r\nHost: x\r\nX:\u0001\r\n\r\n',
  'GET /companies HTTP/1.0\r\n\r\n',
  'GET /companies HTTP/1.1\r\n\r\n',
  'POST /companies HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
  `GET /companies?${'q'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
  'CONNECT 127.0.0.1:80 HTTP/1.1\r\nHost: 127.0.0.1:80\r\n\r\n',
  'GET /companies HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n',
  'GET /companies HTTP/1.1\r\nHost: x\r\nExpect: the-unexpected\r\n\r\n',
];

/** One hostile request against one of `operations`. */
export function hostileRequest(operations: Operation[], fuzz: FuzzTarget): fc.Arbitrary<HostileRequest> {
  const byOperation = operations.map((operation) =>
    fc
      .oneof({ weight: 9, arbitrary: fc.constant(operation.method) }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) })
      .chain((method) => {
        const safe = SAFE.has(method);
        const names = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
        const values = fc.tuple(...names.map((name) => pathValue(name, safe, fuzz)));
        const auth = CLIENT_WIDE.has(operation.path) && fuzz.clientWideAuth ? fuzz.clientWideAuth : fuzz.auth;
        return fc.tuple(fc.constant(method), values, queryString(operation), headersFor(auth), bodyFor(operation));
      })
      .map(([method, values, query, headers, body]): HostileRequest => {
        let i = 0;
        const path = operation.path.replace(/\{[^}]+\}/g, () => values[i++] ?? '');
        return { operation, method, target: query ? `${path}?${query}` : path, headers, body };
      }),
  );
  const framed = fc.oneof(...byOperation);
  const broken = fc.constantFrom(...BROKEN_FRAMES).map((raw): HostileRequest => ({
    operation: { method: 'GET', path: '(raw)', query: [] },
    method: 'RAW',
    target: raw.split('\r\n')[0],
    headers: [],
    raw,
  }));
  return fc.oneof({ weight: 30, arbitrary: framed }, { weight: 1, arbitrary: broken });
}

/** The bytes of a request: one request per connection, Content-Length framing. */
export function encodeRequest(request: HostileRequest, host: string): Buffer {
  if (request.raw !== undefined) return Buffer.from(request.raw, 'latin1');
  const head = [
    `${request.method} ${request.target} HTTP/1.1`,
    `Host: ${host}`,
    ...request.headers.map(([k, v]) => `${k}: ${v}`),
    'Connection: close',
  ];
  if (request.body !== undefined) head.push(`Content-Length: ${request.body.length}`);
  return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), request.body ?? Buffer.alloc(0)]);
}

// ---- checks -------------------------------------------------------------------------------------------------

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ERROR_KEYS = ['correlationId', 'error', 'service', 'statusCode'];

/** Decimal digits within int32, and within the parameter's range. */
function validPaging(name: string, values: string[]): boolean {
  if (values.length === 0) return true;
  if (values.length > 1) return false;
  if (!/^(0|[1-9][0-9]*)$/.test(values[0])) return false;
  const n = Number(values[0]);
  return name === 'page' ? n >= 1 && n <= 2_147_483_647 : n >= 1 && n <= 5000;
}

/** What is wrong with an answer, or undefined. */
export function problemWith(request: HostileRequest, response: RawResponse): string | undefined {
  if (response.timedOut) return 'no answer in time (hang)';
  if (response.status === 0) return 'connection closed without an answer';
  if (response.status >= 500) return `answered ${response.status}: ${response.body.slice(0, 300)}`;
  if (response.status >= 400 && request.method !== 'HEAD') {
    if (!/^application\/json/.test(response.headers['content-type'] ?? ''))
      return `${response.status} with content type ${response.headers['content-type']}`;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(response.body);
    } catch {
      return `${response.status} without a JSON error body: ${response.body.slice(0, 200)}`;
    }
    const keys = Object.keys(body)
      .filter((k) => k !== 'validation')
      .sort();
    if (keys.join() !== ERROR_KEYS.join()) return `${response.status} body has keys ${Object.keys(body).join(',')}`;
    if (body.statusCode !== response.status) return `${response.status} body says statusCode ${body.statusCode}`;
    if (typeof body.error !== 'string' || typeof body.service !== 'string')
      return `${response.status} body has a non-text error or service`;
    if (!GUID.test(String(body.correlationId)) || response.headers['x-correlation-id'] !== body.correlationId)
      return `${response.status} without a matching X-Correlation-Id`;
  }
  if (
    response.status >= 200 &&
    response.status < 300 &&
    request.raw === undefined &&
    request.operation.query.some((q) => q.name === 'page')
  ) {
    const params = new URLSearchParams(request.target.split('?')[1] ?? '');
    for (const name of ['page', 'pageSize']) {
      if (!validPaging(name, params.getAll(name))) return `${response.status} for ${name}=${JSON.stringify(params.getAll(name))}`;
    }
  }
  return undefined;
}

export interface FuzzStats {
  requests: number;
  byStatus: Record<string, number>;
  problems: { request: string; problem: string }[];
}

let fuzzAuth = '';

/** A short, replayable description of a request for failure messages. */
export function describeRequest(request: HostileRequest): string {
  const body = request.body ? ` body(${request.body.length} B)=${JSON.stringify(request.body.subarray(0, 120).toString('latin1'))}` : '';
  // The fuzz client's key is real: failure output shows that a key was sent, not the key.
  const shown = (k: string, v: string) => (k.toLowerCase() === 'authorization' && v === fuzzAuth ? "Basic <the fuzz client's key>" : v);
  const headers = request.headers
    .map(([k, v]) => `${k}: ${v.length > 60 ? `${shown(k, v).slice(0, 60)}…(${v.length})` : shown(k, v)}`)
    .join(' | ');
  return `${request.method} ${request.target.slice(0, 300)}${request.target.length > 300 ? `…(${request.target.length})` : ''} [${headers}]${body}`;
}

/**
 * Sends `count` generated requests, `concurrency` at a time, as a fast-check property (each run is one batch sent
 * at once). Throws on the first batch with a problem, with fast-check's seed and path to replay it.
 */
export async function runHostileRequests(
  fuzz: FuzzTarget,
  operations: Operation[],
  options: {
    count: number;
    concurrency: number;
    seed: number;
    timeoutMs?: number;
    keepGoing?: boolean;
    onBatch?: (stats: FuzzStats) => Promise<void> | void;
  },
): Promise<FuzzStats> {
  const host = new URL(fuzz.url).host;
  fuzzAuth = fuzz.auth;
  const stats: FuzzStats = { requests: 0, byStatus: {}, problems: [] };
  const batch = fc.array(hostileRequest(operations, fuzz), { minLength: options.concurrency, maxLength: options.concurrency });
  const property = fc.asyncProperty(batch, async (requests) => {
    const responses = await Promise.all(requests.map((r) => rawRequest(fuzz.url, encodeRequest(r, host), options.timeoutMs ?? 20_000)));
    const problems: string[] = [];
    responses.forEach((response, i) => {
      stats.requests++;
      const key = response.timedOut ? 'hang' : String(response.status);
      stats.byStatus[key] = (stats.byStatus[key] ?? 0) + 1;
      const problem = problemWith(requests[i], response);
      if (problem) {
        problems.push(`${problem}\n    request: ${describeRequest(requests[i])}`);
        stats.problems.push({ request: describeRequest(requests[i]), problem });
      }
    });
    await options.onBatch?.(stats);
    // keepGoing: count every problem of the whole run instead of stopping at the first (for measuring a build).
    if (problems.length > 0 && !options.keepGoing) throw new Error(problems.join('\n'));
  });
  const outcome = await fc.check(property, {
    seed: options.seed,
    numRuns: Math.ceil(options.count / options.concurrency),
    endOnFailure: true,
  });
  if (outcome.failed) {
    // fast-check's own report prints the whole batch (megabytes with big bodies); the problems are what matter.
    const cause = outcome.errorInstance instanceof Error ? outcome.errorInstance.message : String(outcome.errorInstance);
    throw new Error(
      `hostile request run failed in batch ${outcome.numRuns} (seed ${outcome.seed}, path "${outcome.counterexamplePath}"):\n${cause.slice(0, 10_000)}`,
    );
  }
  return stats;
}
