import type { Connector } from './connector.js';
import type { WriteOperation } from './connector-writes.js';
import { HOOK_NAMES, type Feature, type PlatformDeclaration } from './platform-declaration.js';
import type { DataType } from '../codat-model/data-types.js';

/** The feature `/integrations` names for each write a platform takes (its push method, capitalised). */
export const FEATURE_OF_WRITE: Readonly<Record<WriteOperation, Feature>> = { Create: 'Post', Update: 'Put', Delete: 'Delete' };

/** What a platform's code is, beside its declaration. */
export type PlatformCode = Omit<Connector, 'info' | 'declaration'>;

/**
 * A platform's registration: its declaration and its code, checked against each other at start. What the declaration
 * claims (`/integrations` answers it) is exactly what the code does: every data type declared has a reader and no
 * other has; a data type's `Post`, `Put` and `Delete` are exactly the writes its code takes; the way a connection is
 * authorised is the declared one; the hooks the code registers are those the declaration names. A mismatch stops the start, naming every difference.
 */
export function platformConnector<Code extends PlatformCode>(
  declaration: PlatformDeclaration,
  code: Code,
): Code & Pick<Connector, 'info' | 'declaration'> {
  const problems = claimProblems(declaration, code);
  if (problems.length > 0)
    throw new Error(`platform ${JSON.stringify(declaration.key)}: its code does not do what it declares:\n  ${problems.join('\n  ')}`);
  // Identity and the way in are read from the declaration when they are used (a test changes one and sees it served).
  return {
    ...code,
    declaration,
    get authorization() {
      return code.authorization ?? declaration.authorization;
    },
    info: {
      get key() {
        return declaration.key;
      },
      get name() {
        return declaration.name;
      },
      get sourceType() {
        return declaration.sourceType;
      },
      get brandColour() {
        return declaration.brandColour;
      },
      get dataTypes() {
        return Object.keys(declaration.dataTypes) as DataType[];
      },
    },
  };
}

/** What the code must have for each way in: a flow to follow, a form to check, files to read. */
const CODE_OF_KIND: Readonly<Record<PlatformDeclaration['authorization']['kind'], { part: keyof PlatformCode; what: string } | undefined>> =
  {
    none: undefined,
    oauth2: { part: 'oauth2', what: 'OAuth flow' },
    credentials: { part: 'link', what: 'link() checking the form' },
    files: { part: 'files', what: 'reader of uploaded files' },
  };

function claimProblems(declaration: PlatformDeclaration, code: PlatformCode): string[] {
  const problems: string[] = [];
  const declared = new Set(Object.keys(declaration.dataTypes));
  for (const type of declared) if (!code.dataTypes.has(type as DataType)) problems.push(`${type}: declared, but no code reads it`);
  for (const type of code.dataTypes.keys()) if (!declared.has(type)) problems.push(`${type}: read by the code, but not declared`);
  for (const [type, model] of code.writes ?? []) {
    if (!declared.has(type)) problems.push(`${type}: written by the code, but not declared`);
    if (model.operations.length === 0) problems.push(`${type}: a write model that takes no operation`);
  }
  for (const [type, { features }] of Object.entries(declaration.dataTypes)) {
    const coded = new Set((code.writes?.get(type as DataType)?.operations ?? []).map((operation) => FEATURE_OF_WRITE[operation]));
    for (const operation of Object.keys(FEATURE_OF_WRITE) as WriteOperation[]) {
      const feature = FEATURE_OF_WRITE[operation];
      if (features.includes(feature) && !coded.has(feature))
        problems.push(`${type}: declares ${feature}, but the code takes no ${operation}`);
      if (!features.includes(feature) && coded.has(feature))
        problems.push(`${type}: the code takes ${operation}, but ${feature} is not declared`);
    }
  }
  // The hooks: the code registers exactly those the declaration names (each with why), no other.
  for (const name of HOOK_NAMES) {
    const named = declaration.hooks?.[name] !== undefined;
    const given = typeof code.hooks?.[name] === 'function';
    if (named && !given) problems.push(`hooks.${name}: declared, but the code registers no such hook`);
    if (!named && given) problems.push(`hooks.${name}: registered by the code, but not declared`);
  }
  const kind = code.authorization?.kind ?? declaration.authorization.kind;
  if (kind !== declaration.authorization.kind)
    problems.push(`authorization: declared ${declaration.authorization.kind}, but the code links by ${kind}`);
  const needed = CODE_OF_KIND[declaration.authorization.kind];
  if (needed && code[needed.part] === undefined)
    problems.push(`authorization: declared ${declaration.authorization.kind}, but the code has no ${needed.what}`);
  return problems;
}
