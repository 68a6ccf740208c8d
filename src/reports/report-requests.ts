import { ApiError, validationError } from '../http/api-error.js';

/*
 * What every Lending report's request is held to, the same for each (docs/lending/): a bad parameter is a 400 naming
 * it, in Codat's validation body; a report asked for before its inputs have synced is a 409 naming them.
 */

/** One bad parameter and what it must be. */
export interface ParameterProblem {
  propertyName: string;
  details: string;
}

/** A query-string value (or a number) as a whole number within `bounds`; undefined for anything else. */
export function wholeNumber(raw: unknown, bounds: { min: number; max: number }): number | undefined {
  const value = typeof raw === 'number' ? raw : /^\s*[+-]?\d+\s*$/.test(String(raw)) ? Number(raw) : NaN;
  return Number.isSafeInteger(value) && value >= bounds.min && value <= bounds.max ? value : undefined;
}

/** The 400 naming every bad parameter of a report's request. */
export function parameterError(problems: readonly ParameterProblem[], validatorName: string): ApiError {
  return validationError(
    `ValidationException: ${problems.map((p) => p.propertyName).join(', ')} ${problems.length > 1 ? 'are' : 'is'} not valid.`,
    problems.map((p) => ({ itemId: p.propertyName, message: p.details, validatorName })),
  );
}

/**
 * The 409 of a report (or a report's part, such as an account's category) whose inputs have not synced: Codat
 * declares no status for it; Ledgerport's documented extension, in the error body.
 */
export function notSynced(report: string, dataTypes: readonly string[]): ApiError {
  return new ApiError(409, `DataNotSyncedException: ${report} needs ${dataTypes.join(', ')} synced first`);
}
