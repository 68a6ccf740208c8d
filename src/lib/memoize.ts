/**
 * A pure function of short texts that repeat (a statement's few hundred dates and codes, each met a hundred thousand
 * times), computed once per text. The memory is forgotten whole past `limit` entries: a few recomputations then,
 * instead of a least-recently-used cache's bookkeeping on a path taken once per transaction.
 */
export function memoize<V>(compute: (key: string) => V, limit = 4096): (key: string) => V {
  const known = new Map<string, V>();
  return (key) => {
    let value = known.get(key);
    if (value === undefined && !known.has(key)) {
      value = compute(key);
      if (known.size >= limit) known.clear();
      known.set(key, value);
    }
    return value as V;
  };
}
