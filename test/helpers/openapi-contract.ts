// The contract machinery lives in src/ (the emulator's EMULATOR_VALIDATE checks answers with it, as the tests do).
export * from '../../src/lib/openapi-contract.js';
