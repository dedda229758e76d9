// What the in-process page benchmarks share: the service on a scratch database of each kind
// (PGlite always, PostgreSQL when one is named), and the run over both.
import { randomBytes } from 'node:crypto';
import { buildApp } from '../src/app/app.ts';
import type { App } from '../src/app/types.ts';
import { type Config, loadConfig } from '../src/config.ts';
import type { Db } from '../src/db/db.ts';
import { createRuntime, type Runtime } from '../src/runtime.ts';
import { openScratchPglite, openScratchPostgres } from '../test/helpers/scratch-db.ts';
import type { BenchOptions } from './run.ts';

export type DatabaseKind = 'pglite' | 'postgres';

export interface BenchApp {
  db: Db;
  config: Config;
  /** The process's dependencies (database, clock, configuration, keyring…). */
  runtime: Runtime;
  app: App;
  /** A fresh operator token, for the admin API and the operator's pages. */
  operatorToken: string;
  /** Closes the app, its runtime and the scratch database. */
  close(): Promise<void>;
}

/** The service in process (not yet ready) on a scratch database, workers off, logging silent. */
export async function startBenchApp(kind: DatabaseKind, databaseUrl?: string): Promise<BenchApp> {
  const db =
    kind === 'pglite'
      ? await openScratchPglite()
      : await openScratchPostgres(databaseUrl!, { prefix: 'bench', max: 10 });
  const operatorToken = `ssp_op_${randomBytes(16).toString('hex')}`;
  const config = loadConfig({
    OPERATOR_TOKEN: operatorToken,
    LOG_LEVEL: 'silent',
    ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
    RUN_WORKERS: 'false',
  });
  const runtime = createRuntime({ db, config });
  const app = await buildApp(runtime, {
    logger: false,
    rateLimitNameSpace: `bench-${randomBytes(4).toString('hex')}:`,
  });
  return {
    db,
    config,
    runtime,
    app,
    operatorToken,
    async close() {
      await app.close();
      await runtime.close();
      await db.close();
    },
  };
}

/**
 * The service built (not listening) on a scratch database of `kind`, logging silent, workers
 * off, `config` over the defaults: for the feed benchmarks that hook into or listen with the app.
 */
export async function startFeedApp(
  kind: DatabaseKind,
  databaseUrl: string | undefined,
  prefix: string,
  config: Partial<Config>,
): Promise<{ db: Db; runtime: Runtime; app: App }> {
  const db =
    kind === 'pglite' ? await openScratchPglite() : await openScratchPostgres(databaseUrl!, { prefix });
  const runtime = createRuntime({
    db,
    config: { ...loadConfig({ LOG_LEVEL: 'silent' }), ...config, runWorkers: false },
  });
  const app = await buildApp(runtime, { logger: false });
  return { db, runtime, app };
}

/** The value at the `p`th percentile of `values` (nearest rank, rounding down). */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** An institution named by its slug with one cohort, Bench cohort, inserted directly (the feed benchmarks). */
export async function seedFeedInstitution(db: Db, slug: string) {
  const { rows } = await db.query<{ id: string }>(
    'INSERT INTO institutions (slug, name) VALUES ($1, $1) RETURNING id',
    [slug],
  );
  const cohort = await db.query<{ id: string }>(
    'INSERT INTO cohorts (institution_id, name) VALUES ($1, $2) RETURNING id',
    [rows[0].id, 'Bench cohort'],
  );
  return { id: rows[0].id, slug, cohortId: cohort.rows[0].id };
}

/** The institution `bench` (Bench University) with one cohort, Everyone, inserted directly. */
export async function seedInstitution(db: Db): Promise<{ institutionId: string; cohortId: string }> {
  const institution = await db.query<{ id: string }>(
    "INSERT INTO institutions (slug, name) VALUES ('bench', 'Bench University') RETURNING id",
  );
  const institutionId = institution.rows[0].id;
  const cohort = await db.query<{ id: string }>(
    "INSERT INTO cohorts (institution_id, name) VALUES ($1, 'Everyone') RETURNING id",
    [institutionId],
  );
  return { institutionId, cohortId: cohort.rows[0].id };
}

/** Whether this run measures a database: BENCH_ONLY=postgres (or pglite) measures one alone. */
export function measures(kind: DatabaseKind): boolean {
  const only = process.env.BENCH_ONLY;
  return !only || only === kind;
}

/**
 * Runs a benchmark on PGlite, then on PostgreSQL when one is named; BENCH_ONLY=postgres (or
 * pglite) measures one database alone. `headings` prints a line before each.
 */
export async function onEachDatabase(
  options: BenchOptions,
  bench: (kind: DatabaseKind, databaseUrl?: string) => Promise<void>,
  { headings = false } = {},
): Promise<void> {
  if (measures('pglite')) {
    if (headings) process.stdout.write('--- pglite ---\n');
    await bench('pglite');
  }
  if (options.databaseUrl && measures('postgres')) {
    if (headings) process.stdout.write('--- postgres ---\n');
    await bench('postgres', options.databaseUrl);
  }
}
