import { CATEGORY_CLASSES, categoryPath, type CategoryClass } from './account-taxonomy.js';
import { CATEGORY_RULES, RULES_VERSION, type CategoryRule } from './category-rules.js';

/*
 * Suggests an account's category on Codat's v3 taxonomy from what its platform serves (an `accounts` record), by the
 * first of the versioned rules (category-rules.ts) that holds. Deterministic: the same record always gets the same
 * suggestion under the same RULES_VERSION (docs/lending/account-categories.md).
 */

/** What the mapper reads of an `accounts` record, as Ledgerport serves it. */
export interface AccountFacts {
  id?: string;
  name?: string;
  nominalCode?: string;
  description?: string;
  type?: string;
  fullyQualifiedCategory?: string;
  fullyQualifiedName?: string;
  isBankAccount?: boolean;
}

export interface SuggestedCategory {
  /** From level 1 down, each with the mapper's confidence (0–1, never rising with depth). */
  levels: { levelName: string; confidence: number }[];
  ruleId: string;
  rulesVersion: string;
}

interface CompiledRule {
  rule: CategoryRule;
  levels: string[];
  words?: RegExp;
  platform?: RegExp;
  within?: RegExp;
  unless?: RegExp;
  /** A class's last resort: no condition of its own. */
  fallback: boolean;
}

const compile = (source: string | undefined) => (source === undefined ? undefined : new RegExp(source, 'iu'));

const COMPILED: readonly CompiledRule[] = CATEGORY_RULES.map((rule) => {
  const levels = categoryPath(rule.category);
  // A rule naming no category of the taxonomy, or one outside its own classes, is a defect of the rules.
  if (!levels || !rule.classes.includes(levels[0] as CategoryClass))
    throw new Error(`category rule ${rule.id}: ${rule.category} is not a category of its classes`);
  return {
    rule,
    levels,
    words: compile(rule.words),
    platform: compile(rule.platform),
    within: compile(rule.within),
    unless: compile(rule.unless),
    fallback: rule.words === undefined && rule.platform === undefined && rule.bank === undefined,
  };
});

/** A field read as text: a record is a platform's, and a field of another type (or none) is no words. */
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The class a platform's account type names, if it is one. */
function classOf(type: string | undefined): CategoryClass | undefined {
  return CATEGORY_CLASSES.find((c) => c === type);
}

/** What a top-level account name says of the class, for accounts of no known type (plain-text ledgers' conventions). */
const CLASS_WORDS: [RegExp, CategoryClass][] = [
  [/^(assets?|activ[eo]s?|actifs?|aktiva)$/iu, 'Asset'],
  [/^(liabilit(y|ies)|debts?|passiv[eo]s?|passifs?)$/iu, 'Liability'],
  [/^(equity|capital|net ?worth)$/iu, 'Equity'],
  [/^(income|revenues?|sales|earnings)$/iu, 'Income'],
  [/^(expenses?|costs?|spending)$/iu, 'Expense'],
];

/** The account's words: its name, and the segments of a colon-separated full name below the top-level one. */
function wordsOf(account: AccountFacts): { words: string; top?: string } {
  const full = text(account.fullyQualifiedName);
  const segments = full.includes(':') ? full.split(':') : [];
  const name = text(account.name) || (segments.at(-1) ?? '');
  const parents = segments.length > 1 ? segments.slice(1, -1) : [];
  return { words: [...parents, name].join(' ').replace(/[_\-/]+/g, ' '), top: segments[0] };
}

/** What the platform says of the account beyond its class: `fullyQualifiedCategory` without its first segment. */
function platformOf(account: AccountFacts): string {
  const parts = text(account.fullyQualifiedCategory).split('.');
  return parts.slice(1).join(' ');
}

function holds(compiled: CompiledRule, words: string, platform: string, bank: boolean): boolean {
  const { rule } = compiled;
  if (compiled.unless?.test(words)) return false;
  if (compiled.within && !compiled.within.test(platform)) return false;
  if (compiled.fallback) return true;
  return (compiled.words?.test(words) ?? false) || (compiled.platform?.test(platform) ?? false) || (rule.bank === true && bank);
}

/** Level confidences: the class as the platform states it 0.99, then rising towards the rule's own at the deepest. */
function confidences(levels: string[], confidence: number, classKnown: boolean): { levelName: string; confidence: number }[] {
  return levels.map((levelName, i) => {
    const depthBelow = levels.length - 1 - i;
    const value = i === 0 && classKnown ? 0.99 : Math.min(0.99, confidence + 0.05 * depthBelow);
    return { levelName, confidence: Math.round(value * 100) / 100 };
  });
}

/** Classes tried, in order, for an account whose class nothing states. */
const UNKNOWN_ORDER: CategoryClass[] = ['Expense', 'Income', 'Asset', 'Liability', 'Equity'];

export function suggestCategory(account: AccountFacts): SuggestedCategory {
  const { words, top } = wordsOf(account);
  const platform = platformOf(account);
  const bank = account.isBankAccount === true;
  const stated = classOf(account.type) ?? CLASS_WORDS.find(([pattern]) => top !== undefined && pattern.test(top))?.[1];
  const classes = stated ? [stated] : UNKNOWN_ORDER;
  for (const cls of classes) {
    for (const compiled of COMPILED) {
      if (!compiled.rule.classes.includes(cls)) continue;
      // With no class stated, only a rule that matched something of the account may choose (never a fallback).
      if (!stated && compiled.fallback) continue;
      if (!holds(compiled, words, platform, bank)) continue;
      const confidence = stated ? compiled.rule.confidence : Math.min(compiled.rule.confidence, 0.5);
      return {
        levels: confidences(compiled.levels, confidence, classOf(account.type) !== undefined),
        ruleId: compiled.rule.id,
        rulesVersion: RULES_VERSION,
      };
    }
  }
  return { levels: [], ruleId: 'no-class', rulesVersion: RULES_VERSION };
}
