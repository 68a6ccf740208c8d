// `npm run bench:matching`: the matching engine alone (docs/lending/matching.md) on 100,000 accounting against 100,000
// banking transactions, in two pools: "planted" (95% of the books' movements with a bank line: the same day, up to 3
// days later, or 5 days later and 1% off; the rest bank-only card payments) and "unrelated" (both sides drawn
// independently: small amounts and 50 descriptions, the worst case for passes 3 and 4). Issue 31's target (100,000 ×
// 100,000 under 30 s on SQLite) includes reading the records; this part times the matching. It reports, never asserts.
import { matchMovements } from '../dist/reports/matching/match-engine.js';

const N = Number(process.env.BENCH_MOVEMENTS ?? 100_000);
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const id = (prefix, i) => prefix + String(i).padStart(8, '0');

function planted() {
  const r = random(7);
  const accounting = [];
  const banking = [];
  const words = ['Receipt INV-', 'Supplier payment BP-', 'Card purchase DC-', 'Transfer ', 'Direct payment DC-'];
  for (let i = 0; i < N; i++) {
    const day = 19000 + Math.floor((i * 1095) / N);
    const amount = Math.round((r() < 0.5 ? 1 : -1) * (1 + r() * 5000) * 100) * 100;
    const description = words[i % 5] + i;
    const common = { account: `A${i % 3}`, currency: i % 7 ? 'GBP' : 'EUR' };
    accounting.push({ id: id('a', i), ...common, day, amount, description });
    const bank = { id: id('b', i), ...common, account: `B${i % 3}`, description: description.toUpperCase() };
    const fate = r();
    if (fate < 0.9) banking.push({ ...bank, day: day + Math.floor(r() * 4), amount });
    else if (fate < 0.95) banking.push({ ...bank, day: day + 5, amount: amount + Math.sign(amount) * Math.round(Math.abs(amount) / 200) });
    else
      banking.push({
        ...bank,
        day: day + Math.floor(r() * 10),
        amount: Math.round(-(1 + r() * 500) * 100) * 100,
        description: `CARD PAYMENT ${i}`,
      });
  }
  return { accounting, banking, accountPairs: [0, 1, 2].map((k) => [`A${k}`, `B${k}`]) };
}

function unrelated() {
  const r = random(11);
  const make = (prefix, i) => ({
    id: id(prefix, i),
    account: 'X',
    currency: 'GBP',
    day: 19000 + Math.floor(r() * 1095),
    amount: Math.round((r() < 0.5 ? 1 : -1) * Math.exp(r() * 8) * 100) * 100,
    description: `CARD PAYMENT TO SHOP ${Math.floor(r() * 50)}`,
  });
  return {
    accounting: Array.from({ length: N }, (_, i) => make('a', i)),
    banking: Array.from({ length: N }, (_, i) => make('b', i)),
    accountPairs: [],
  };
}

for (const [name, make] of [
  ['planted', planted],
  ['unrelated', unrelated],
]) {
  const input = make();
  const started = performance.now();
  const result = matchMovements(input);
  const ms = performance.now() - started;
  const byPass = [0, 0, 0, 0];
  for (const m of result.matches) byPass[m.pass - 1]++;
  process.stdout.write(
    `${name}: ${N.toLocaleString('en')} × ${N.toLocaleString('en')} in ${(ms / 1000).toFixed(2)} s; ` +
      `${result.matches.length.toLocaleString('en')} matched (by pass ${byPass.join(', ')})\n`,
  );
}
