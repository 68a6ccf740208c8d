/**
 * Jaro-Winkler similarity (Winkler 1990), as the widely used implementations compute it (Python's jellyfish,
 * Apache Commons Text): characters match within ⌊max(|a|, |b|)/2⌋ − 1 positions, half the matched characters out of
 * order (rounded down) are transpositions, and a common prefix of up to four characters raises a Jaro similarity above 0.7 by
 * 0.1 per character. Written here rather than taken from npm: the one maintained package (`@skyra/jaro-winkler`
 * 1.1.1) widens the window by one and counts a prefix of four as five, so its figures differ from the published ones.
 * Compares code points, not UTF-16 units. An empty text is similar to nothing (0).
 */
export function jaroWinkler(a: string, b: string): number {
  const s = Array.from(a);
  const t = Array.from(b);
  if (s.length === 0 || t.length === 0) return 0;
  const window = Math.max(0, Math.floor(Math.max(s.length, t.length) / 2) - 1);
  const sMatched = new Uint8Array(s.length);
  const tMatched = new Uint8Array(t.length);
  let matches = 0;
  for (let i = 0; i < s.length; i++) {
    const end = Math.min(t.length, i + window + 1);
    for (let j = Math.max(0, i - window); j < end; j++) {
      if (tMatched[j] || s[i] !== t[j]) continue;
      sMatched[i] = 1;
      tMatched[j] = 1;
      matches++;
      break;
    }
  }
  if (matches === 0) return 0;
  let outOfOrder = 0;
  for (let i = 0, j = 0; i < s.length; i++) {
    if (!sMatched[i]) continue;
    while (!tMatched[j]) j++;
    if (s[i] !== t[j]) outOfOrder++;
    j++;
  }
  const m = matches;
  const jaro = (m / s.length + m / t.length + (m - Math.floor(outOfOrder / 2)) / m) / 3;
  if (jaro <= 0.7) return jaro;
  let prefix = 0;
  while (prefix < 4 && prefix < s.length && prefix < t.length && s[prefix] === t[prefix]) prefix++;
  return jaro + prefix * 0.1 * (1 - jaro);
}

/** A description as matching compares it: lower-cased, runs of whitespace as one space, none at either end. */
export function comparableText(text: string | null | undefined): string {
  return (text ?? '').toLowerCase().replace(/\s+/gu, ' ').trim();
}
