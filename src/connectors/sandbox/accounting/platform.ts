import { loadPlatform } from '../../platform-declaration.js';

/** The platform as data: its declaration is `platform.yaml` beside this file, read and checked at start. */
export const ACCOUNTING_SANDBOX = loadPlatform(new URL('./platform.yaml', import.meta.url));
