import { ApiError } from './api-error.js';

/**
 * How deep arrays and objects may nest in a JSON request body. No record Ledgerport takes nests deeper than about
 * ten levels; the limit exists so that no walk over client input (parser, validators, guards) can run out of stack.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Refuses a JSON text whose arrays and objects nest deeper than `MAX_JSON_DEPTH`, before it is parsed. One pass over
 * the characters with a counter (no recursion), skipping string contents, so a body of 100,000 `[` costs one scan
 * and a 400, not a stack overflow anywhere later.
 */
export function assertJsonDepth(text: string, max = MAX_JSON_DEPTH): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > max) throw tooDeep(max);
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    }
  }
}

function tooDeep(max: number): ApiError {
  return new ApiError(400, `MalformedRequestException: The request body nests arrays and objects deeper than ${max} levels.`, {
    code: 'MalformedRequest',
    validation: [
      { itemId: 'body', message: `JSON arrays and objects must not nest deeper than ${max} levels`, validatorName: 'JsonParser' },
    ],
  });
}
