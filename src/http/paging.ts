import { Type } from '@sinclair/typebox';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 5000;

/** Query parameters every paged list takes; the route schema validates them before a handler runs. */
export const PagingQuery = {
  page: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 2_147_483_647,
      default: 1,
      description: 'Page number to return, from 1; decimal digits only. A page past the last one is empty.',
    }),
  ),
  pageSize: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      default: DEFAULT_PAGE_SIZE,
      description: `Results per page, 1 to ${MAX_PAGE_SIZE}.`,
    }),
  ),
  query: Type.Optional(Type.String({ description: 'Filter in the query language, e.g. `status=Paid&&amountDue>0`.' })),
  orderBy: Type.Optional(Type.String({ description: 'Property to sort by; prefix with `-` for descending.' })),
};

export interface PageRequest {
  page: number;
  pageSize: number;
  query?: string;
  orderBy?: string;
}

const Link = Type.Object({ href: Type.String() });
export const PageLinks = Type.Object({
  self: Link,
  current: Link,
  next: Type.Optional(Link),
  previous: Type.Optional(Link),
});

/** The schema of a Page of results whose `results` are `item`s (documentation only: pages are spliced). */
export function pageOf(item: ReturnType<typeof Type.Object> | ReturnType<typeof Type.Ref>) {
  return Type.Object({
    results: Type.Array(item),
    pageNumber: Type.Integer(),
    pageSize: Type.Integer(),
    totalResults: Type.Integer(),
    _links: PageLinks,
  });
}

/**
 * Renders a Page of results by splicing already-serialised records (stored JSON text) into the envelope,
 * so no record is parsed or re-serialised on the way out.
 * `path` is the request path without its query string; `params` are the request's query parameters.
 */
export function renderPage(args: {
  path: string;
  params: Record<string, unknown>;
  page: number;
  pageSize: number;
  totalResults: number;
  /** Served JSON documents: text, or UTF-8 bytes straight from the store (then the page is bytes too). */
  records: readonly (string | Buffer)[];
}): Buffer {
  const { path, page, pageSize, totalResults } = args;
  const lastPage = Math.max(1, Math.ceil(totalResults / pageSize));
  const href = (n: number) => JSON.stringify({ href: `${path}?${pageQuery(args.params, n, pageSize)}` });
  const links = [`"self":${JSON.stringify({ href: path })}`, `"current":${href(page)}`];
  if (page < lastPage) links.push(`"next":${href(page + 1)}`);
  // Past the end, `previous` leads back to the last page that exists.
  if (page > 1) links.push(`"previous":${href(Math.min(page - 1, lastPage))}`);
  const tail = `],"pageNumber":${page},"pageSize":${pageSize},"totalResults":${totalResults},"_links":{${links.join(',')}}}`;
  return concatPage(args.records, tail);
}

const RESULTS_OPEN = '{"results":[';
const COMMA = 0x2c;

/**
 * A page as one buffer, each document written into it once. Joining the documents as text would build a string
 * the size of the page, which V8 allocates outside its young generation and the socket then encodes again: on a
 * Postgres page of 100 invoices (280 KB) that cost a third of the server's time.
 */
function concatPage(records: readonly (string | Buffer)[], tail: string): Buffer {
  let length = RESULTS_OPEN.length + Buffer.byteLength(tail) + Math.max(0, records.length - 1);
  for (const record of records) length += typeof record === 'string' ? Buffer.byteLength(record) : record.length;
  const page = Buffer.allocUnsafe(length);
  let at = page.write(RESULTS_OPEN, 0, 'latin1');
  for (let i = 0; i < records.length; i++) {
    if (i > 0) page[at++] = COMMA;
    const record = records[i];
    at += typeof record === 'string' ? page.write(record, at) : record.copy(page, at);
  }
  page.write(tail, at);
  return page;
}

/** `page` and `pageSize` first, then the caller's other parameters in their original order. */
function pageQuery(params: Record<string, unknown>, page: number, pageSize: number): string {
  const parts = [`page=${page}`, `pageSize=${pageSize}`];
  for (const [key, value] of Object.entries(params)) {
    if (key === 'page' || key === 'pageSize' || value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) {
      parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(v))}`);
    }
  }
  return parts.join('&');
}
