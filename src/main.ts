import { serve } from './server/serve.js';

/** `npm start`: one process that answers HTTP and runs jobs (`bin/ledgerport serve --role` splits them). */
serve('all').catch((err) => {
  process.stderr.write(`ledgerport: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
