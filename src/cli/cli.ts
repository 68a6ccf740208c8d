import fs from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { loadConfig } from '../config.js';
import { isPostgresUrl, openStore, sqliteFilePath, type Store } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';
import { createClientsService } from '../access/clients.service.js';
import { PLAN_NAMES, type PlanName } from '../clients/plans.js';
import { setMaintenance } from '../access/maintenance.js';
import { ApiError } from '../http/api-error.js';
import { ROLES, type Role } from '../server/roles.js';
import { loadSecretKeys } from '../secrets/secret-keys.js';
import { createCredentialsStore } from '../connections/credentials.store.js';
import { VERSION } from '../version.js';
import { clockFor } from '../lib/clock.js';

function isoDate(value: string): string {
  const time = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(time))
    throw new InvalidArgumentError('expected an ISO-8601 date, e.g. 2026-01-31T00:00:00Z');
  return new Date(time).toISOString();
}

// Commander turns a parser's null into '' (and '' into an integer column breaks both stores), so "none" is
// kept as a word here and mapped to null in the action.
function limit(value: string): number | 'none' {
  if (value === 'none') return 'none';
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer or "none"');
  return n;
}

/**
 * The store a command works on. Without DATABASE_URL that is `data/ledgerport.sqlite` under the working directory;
 * run from elsewhere, opening it would create an empty store and answer from it as if nothing were wrong, so a
 * default store that does not exist is refused. A DATABASE_URL set is followed (creating the store if need be).
 */
function storeUrl(): string {
  const url = loadConfig().databaseUrl;
  if (!process.env.DATABASE_URL && !isPostgresUrl(url) && !fs.existsSync(sqliteFilePath(url))) {
    throw new Error(
      `no store at ${url} (DATABASE_URL is not set, so the default under the working directory): set DATABASE_URL to ` +
        'the store the server uses (its SQLite file or postgres:// URL), or run from the directory `npm start` runs in',
    );
  }
  return url;
}

async function withStore<T>(action: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(storeUrl());
  try {
    await migrateToLatest(store.db, store.dialect.name);
    return await action(store);
  } finally {
    await store.close();
  }
}

const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);

/** The operator's command line; every command reads the store named by DATABASE_URL. */
export function buildCli(): Command {
  const program = new Command('ledgerport')
    .description('Operate a Ledgerport server: run it, manage clients, API keys, the secret key and maintenance mode.')
    .version(VERSION)
    .showHelpAfterError()
    .exitOverride();

  const clients = program.command('clients').description('Manage clients (tenants).');
  clients
    .command('create')
    .description('Create a client and its first API key; prints {"clientId","apiKey"}.')
    .requiredOption('--name <name>', 'client name')
    .addOption(new Option('--plan <plan>', 'plan').choices(PLAN_NAMES).default('free-trial'))
    .option('--created-at <iso-8601>', 'backdate the client (e.g. to test plan expiry)', isoDate)
    .action(async (opts: { name: string; plan: PlanName; createdAt?: string }) => {
      if (!opts.name.trim()) throw new InvalidArgumentError('--name must not be empty');
      const { client, key } = await withStore((store) =>
        createClientsService({ db: store.db }).create({ name: opts.name.trim(), plan: opts.plan, createdAt: opts.createdAt }),
      );
      print({ clientId: client.id, apiKey: key.apiKey });
    });

  clients
    .command('list')
    .description('List clients, one JSON object a line.')
    .action(async () => {
      const list = await withStore((store) => createClientsService({ db: store.db }).store.list());
      for (const c of list) {
        print({ clientId: c.id, name: c.name, plan: c.plan, createdAt: c.createdAt, dailyQuota: c.dailyQuota, burstLimit: c.burstLimit });
      }
    });

  clients
    .command('limits')
    .description('Set a client\'s plan, daily quota and per-second burst limit ("none" removes an override).')
    .requiredOption('--client <id>', 'client id')
    .addOption(new Option('--plan <plan>', 'plan').choices(PLAN_NAMES))
    .option('--daily-quota <n|none>', 'requests per UTC day; "none" goes back to the plan default', limit)
    .option('--burst-limit <n|none>', 'requests per second; "none" for no limit', limit)
    .action(async (opts: { client: string; plan?: PlanName; dailyQuota?: number | 'none'; burstLimit?: number | 'none' }) => {
      const unset = (value: number | 'none' | undefined) => (value === 'none' ? null : value);
      const limits = { plan: opts.plan, dailyQuota: unset(opts.dailyQuota), burstLimit: unset(opts.burstLimit) };
      const found = await withStore((store) => createClientsService({ db: store.db }).store.setLimits(opts.client, limits));
      if (!found) throw new InvalidArgumentError(`no client with id ${opts.client}`);
      print({ clientId: opts.client, updated: true });
    });

  const keys = program.command('keys').description('Manage API keys.');
  keys
    .command('create')
    .description('Issue an API key for a client; prints {"id","apiKey"}.')
    .requiredOption('--client <id>', 'client id')
    .option('--expires-at <iso-8601>', 'when the key becomes outdated', isoDate)
    .action(async (opts: { client: string; expiresAt?: string }) => {
      const key = await withStore((store) => createClientsService({ db: store.db }).createKey(opts.client, opts.expiresAt));
      if (!key) throw new InvalidArgumentError(`no client with id ${opts.client}`);
      print({ id: key.id, apiKey: key.apiKey });
    });

  // The default, so that `npx ledgerport` (or the installed command alone) starts a server.
  program
    .command('serve', { isDefault: true })
    .description('Run the server: answer HTTP (api), run syncs, writes and webhook deliveries (worker), or both (all).')
    .addOption(new Option('--role <role>', 'what this process does').choices(ROLES).default('all'))
    .action(async (opts: { role: Role }) => {
      // Loaded only here: the server (every route and connector) is most of a start, and the operator's other
      // commands need none of it. Runs until SIGTERM/SIGINT; the process exits from the shutdown handler.
      const { serve } = await import('../server/serve.js');
      await serve(opts.role);
      await new Promise(() => {});
    });

  const secrets = program.command('secrets').description('Manage the key that encrypts connection credentials at rest.');
  secrets
    .command('rotate')
    .description(
      "Re-encrypt every connection's credentials under LEDGERPORT_SECRET_KEY, opening them with it or one of " +
        'LEDGERPORT_PREVIOUS_SECRET_KEYS. Run it after setting a new key (the old one in the previous keys), then drop the old key.',
    )
    .action(async () => {
      const keys = loadSecretKeys(storeUrl());
      const result = await withStore((store) => createCredentialsStore(keys).rotate(store.db, clockFor({}).now().toISOString()));
      print({ keyId: keys.current.id, ...result });
    });

  program
    .command('maintenance')
    .description('Turn maintenance mode on or off for every running server sharing the store (within 2 s).')
    .argument('<state>', 'on or off')
    .action(async (state: string) => {
      if (state !== 'on' && state !== 'off') throw new InvalidArgumentError('state must be "on" or "off"');
      await withStore((store) => setMaintenance(store.db, state === 'on'));
      print({ maintenance: state });
    });

  return program;
}

/** Runs the CLI; exits non-zero with a message on bad arguments or failures. */
export async function runCli(argv: string[]): Promise<void> {
  const program = buildCli();
  try {
    // `serve` is the default command, so Commander would hand a mistyped command to it as an argument.
    const first = argv[0];
    const known = (name: string) => name === 'help' || program.commands.some((c) => c.name() === name || c.aliases().includes(name));
    if (first !== undefined && !first.startsWith('-') && !known(first))
      program.error(`error: unknown command '${first}'`, { code: 'commander.unknownCommand', exitCode: 1 });
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    const e = err as { code?: string; exitCode?: number; message?: string };
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') process.exit(0);
    // Commander has already printed its own parse errors; an InvalidArgumentError thrown by an action has not.
    if (e.code?.startsWith('commander.') && !(err instanceof InvalidArgumentError)) process.exit(e.exitCode || 2);
    const message = err instanceof ApiError ? err.message : err instanceof InvalidArgumentError ? err.message : String(e.message ?? err);
    process.stderr.write(`ledgerport: ${message}\n`);
    process.exit(err instanceof InvalidArgumentError ? 2 : 1);
  }
}
