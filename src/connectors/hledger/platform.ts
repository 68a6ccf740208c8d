import { loadPlatform } from '../platform-declaration.js';

/** The platform as data: its declaration is `platform.yaml` beside this file, read and checked at start. */
export const HLEDGER = loadPlatform(new URL('./platform.yaml', import.meta.url), ['transport']);
