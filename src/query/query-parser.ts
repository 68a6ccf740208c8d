/**
 * Parser for the `query` language (facts section 3): `property<op>value` comparisons joined by `&&`
 * (binds tighter) and `||`, grouped with `{ }`. Values run to the next `&&`, `||` or `}` and are
 * trimmed; a value in double or single quotes may contain those characters.
 */

export type ComparisonOperator = '=' | '!=' | '~' | '>' | '<' | '>=' | '<=';

export type QueryNode =
  { kind: 'and' | 'or'; children: QueryNode[] } | { kind: 'compare'; property: string; op: ComparisonOperator; value: string };

export const MAX_QUERY_LENGTH = 2048;
/** How deep `{ }` groups may nest; the parser and compiler recurse once per level. */
export const MAX_QUERY_DEPTH = 32;
// Longest first, so `>=` is not read as `>` followed by a value starting with `=`.
const OPERATORS: ComparisonOperator[] = ['!=', '>=', '<=', '=', '~', '>', '<'];
const PROPERTY = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

const MESSAGES = {
  malformed: 'Malformed query.',
  'too-long': `Query must be under ${MAX_QUERY_LENGTH} characters.`,
  'too-deep': `Query groups ({ }) must not nest deeper than ${MAX_QUERY_DEPTH} levels.`,
} as const;

export class QuerySyntaxError extends Error {
  constructor(readonly reason: keyof typeof MESSAGES) {
    super(MESSAGES[reason]);
  }
}

export function parseQuery(text: string): QueryNode {
  if (text.length >= MAX_QUERY_LENGTH) throw new QuerySyntaxError('too-long');
  const parser = new Parser(text);
  const node = parser.parseOr(0);
  parser.skipSpace();
  if (!parser.atEnd()) throw new QuerySyntaxError('malformed');
  return node;
}

class Parser {
  private pos = 0;
  constructor(private readonly text: string) {}

  atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  skipSpace(): void {
    while (!this.atEnd() && /\s/.test(this.text[this.pos])) this.pos++;
  }

  private take(token: string): boolean {
    this.skipSpace();
    if (this.text.startsWith(token, this.pos)) {
      this.pos += token.length;
      return true;
    }
    return false;
  }

  parseOr(depth: number): QueryNode {
    const children = [this.parseAnd(depth)];
    while (this.take('||')) children.push(this.parseAnd(depth));
    return children.length === 1 ? children[0] : { kind: 'or', children };
  }

  private parseAnd(depth: number): QueryNode {
    const children = [this.parsePrimary(depth)];
    while (this.take('&&')) children.push(this.parsePrimary(depth));
    return children.length === 1 ? children[0] : { kind: 'and', children };
  }

  private parsePrimary(depth: number): QueryNode {
    if (this.take('{')) {
      if (depth >= MAX_QUERY_DEPTH) throw new QuerySyntaxError('too-deep');
      const inner = this.parseOr(depth + 1);
      if (!this.take('}')) throw new QuerySyntaxError('malformed');
      return inner;
    }
    return this.parseComparison();
  }

  private parseComparison(): QueryNode {
    this.skipSpace();
    const start = this.pos;
    while (!this.atEnd() && /[A-Za-z0-9_.]/.test(this.text[this.pos])) this.pos++;
    const property = this.text.slice(start, this.pos);
    if (!PROPERTY.test(property)) throw new QuerySyntaxError('malformed');
    this.skipSpace();
    const op = OPERATORS.find((candidate) => this.text.startsWith(candidate, this.pos));
    if (!op) throw new QuerySyntaxError('malformed');
    this.pos += op.length;
    const value = this.parseValue();
    return { kind: 'compare', property, op, value };
  }

  private parseValue(): string {
    this.skipSpace();
    const quote = this.text[this.pos];
    if (quote === '"' || quote === "'") {
      const end = this.text.indexOf(quote, this.pos + 1);
      if (end < 0) throw new QuerySyntaxError('malformed');
      const value = this.text.slice(this.pos + 1, end);
      this.pos = end + 1;
      return value;
    }
    const start = this.pos;
    while (!this.atEnd() && !this.text.startsWith('&&', this.pos) && !this.text.startsWith('||', this.pos)) {
      const ch = this.text[this.pos];
      if (ch === '}' || ch === '{') break;
      this.pos++;
    }
    const value = this.text.slice(start, this.pos).trim();
    if (value === '') throw new QuerySyntaxError('malformed');
    return value;
  }
}
