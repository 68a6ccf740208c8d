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
}): string | Buffer {
  const { path, page, pageSize, totalResults } = args;
  const lastPage = Math.max(1, Math.ceil(totalResults / pageSize));
  const href = (n: number) => JSON.stringify({ href: `${path}?${pageQuery(args.params, n, pageSize)}` });
  const links = [`"self":${JSON.stringify({ href: path })}`, `"current":${href(page)}`];
  if (page < lastPage) links.push(`"next":${href(page + 1)}`);
  // Past the end, `previous` leads back to the last page that exists.
  if (page > 1) links.push(`"previous":${href(Math.min(page - 1, lastPage))}`);
  const tail = `],"pageNumber":${page},"pageSize":${pageSize},"totalResults":${totalResults},"_links":{${links.join(',')}}}`;
  if (args.records.length > 0 && typeof args.records[0] !== 'string') return concatPage(args.records as readonly Buffer[], tail);
  return `{"results":[${args.records.join(',')}${tail}`;
}

const RESULTS_OPEN = Buffer.from('{"results":[');
const COMMA = Buffer.from(',');

/** A page of byte documents as one buffer: one copy, no decoding or re-encoding of the documents. */
function concatPage(records: readonly Buffer[], tail: string): Buffer {
  const parts: Buffer[] = [RESULTS_OPEN];
  for (let i = 0; i < records.length; i++) {
    if (i > 0) parts.push(COMMA);
    parts.push(records[i]);
  }
  parts.push(Buffer.from(tail));
  return Buffer.concat(parts);
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
