// An app on a fresh real database, plus helpers to seed tenants through the admin API.
import { randomBytes } from 'node:crypto';
import { after, before, describe } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { Redis } from 'ioredis';
import { buildApp } from '../../src/app/app.ts';
import type { App } from '../../src/app/types.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import type { Db } from '../../src/db/db.ts';
import type { Clock } from '../../src/lib/clock.ts';
import {
  createRuntime,
  createWorkers,
  pullDepsOf,
  type Runtime,
  type RuntimeOptions,
} from '../../src/runtime.ts';
import { registerDatabaseMetrics } from '../../src/workers/metrics.ts';
import type { WorkerLogger } from '../../src/workers/webhook-delivery.ts';
import { type DatabaseKind, databaseKinds, openTestDb } from './db.ts';

export const OPERATOR_TOKEN = 'ssp_op_test-operator-token-for-tests-only';
/** The scrape token that reads GET /metrics in tests. */
export const METRICS_TOKEN = 'test-metrics-scrape-token';
/** A fixed encryption key for tests (never a real deployment's). */
export const TEST_ENCRYPTION_KEY = 'dGVzdC1lbmNyeXB0aW9uLWtleS0zMi1ieXRlcy1vayE';

export function testConfig(overrides: Partial<Config> = {}, env: Record<string, string> = {}): Config {
  return {
    ...loadConfig({
      OPERATOR_TOKEN,
      METRICS_TOKEN,
      LOG_LEVEL: 'silent',
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      ...env,
    }),
    // Generous limits so ordinary tests never meet them; the rate-limit tests set their own.
    rosterRateLimitPerMinute: 100_000,
    enrolmentsRateLimitPerMinute: 100_000,
    helpSyncRateLimitPerMinute: 100_000,
    signInRateLimitPerMinute: 100_000,
    runWorkers: false,
    ...overrides,
  };
}

export interface TestContext {
  kind: DatabaseKind;
  db: Db;
  app: App;
  /** The process's dependencies (database, clock, configuration, keyring…), as routes read them. */
  deps: Runtime;
  /**
   * Every background worker of the process, built on first call as `ssp serve` builds them (not
   * started: start() them, stop() lets work in flight finish); close() stops them all the same.
   */
  workers(logger?: WorkerLogger): { start(): void; stop(): Promise<void> };
  /** JSON request helper; `token` becomes the bearer header. */
  request(options: {
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
    url: string;
    body?: unknown;
    token?: string;
    headers?: Record<string, string>;
  }): Promise<LightMyRequestResponse>;
  /** Admin API call with the operator token. */
  admin(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    body?: unknown,
  ): Promise<LightMyRequestResponse>;
  /** Closes the app, stops the workers, releases the runtime, and closes the database it opened. */
  close(): Promise<void>;
}

export interface StartOptions {
  config?: Partial<Config>;
  env?: Record<string, string>;
  clock?: Clock;
  /** Reuse an open database instead of opening a new one (it is not closed). */
  db?: Db;
  /** Shared rate-limit store (not closed by the app); two apps given the same one share counts. */
  redis?: Redis;
  /** Rate-limit key prefix; defaults to a random one per app. */
  rateLimitNameSpace?: string;
  /** DNS kept on this machine: the outbound policy's save-time resolver and connect-time lookup. */
  dns?: RuntimeOptions['dns'];
  /** Calendar fetch limits and jitter (short time limits, no jitter), over the defaults. */
  calendarFetch?: RuntimeOptions['calendarFetch'];
}

export async function startTestApp(kind: DatabaseKind, options: StartOptions = {}): Promise<TestContext> {
  const db = options.db ?? (await openTestDb(kind));
  // Composed as `ssp serve` composes it (src/main.ts): the runtime, the application over it, the
  // database's figures for GET /metrics; the workers only when a test asks for them.
  const runtime = createRuntime({
    db,
    config: testConfig(options.config, options.env),
    clock: options.clock,
    redis: options.redis,
    dns: options.dns,
    calendarFetch: options.calendarFetch,
  });
  const app = await buildApp(runtime, {
    logger: false,
    rateLimitNameSpace: options.rateLimitNameSpace ?? `ssp-test-${randomBytes(6).toString('hex')}:`,
  });
  await app.ready();
  const unregisterMetrics = registerDatabaseMetrics(db, runtime.clock);
  let workers: ReturnType<typeof createWorkers> | undefined;
  const quiet: WorkerLogger = { info() {}, warn() {}, error() {} };
  const request: TestContext['request'] = ({ method, url, body, token, headers }) =>
    app.inject({
      method,
      url,
      headers: {
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
  return {
    kind,
    db,
    app,
    deps: runtime,
    workers(logger = quiet) {
      workers ??= createWorkers(runtime, pullDepsOf(runtime));
      return workers.all(logger);
    },
    request,
    admin: (method, url, body) => request({ method, url, body, token: OPERATOR_TOKEN }),
    async close() {
      await app.close();
      await workers?.close();
      await runtime.close();
      unregisterMetrics();
      if (!options.db) await db.close();
    },
  };
}

/**
 * Runs a suite once per database kind, with one app (and database) per suite. Tests inside
 * create their own institutions, so they never see each other's data.
 */
export function describeEachDatabase(
  name: string,
  suite: (ctx: () => TestContext) => void,
  options: StartOptions = {},
): void {
  describeEachDatabaseWith(name, (kind) => startTestApp(kind, options), suite);
}

/** As describeEachDatabase, with the suite's context started by `start` (an app with other parts). */
export function describeEachDatabaseWith<C extends { close(): Promise<void> }>(
  name: string,
  start: (kind: DatabaseKind) => Promise<C>,
  suite: (ctx: () => C) => void,
): void {
  for (const kind of databaseKinds()) {
    describe(`${name} [${kind}]`, () => {
      let context: C | undefined;
      before(async () => {
        context = await start(kind);
      });
      after(async () => {
        await context?.close();
      });
      suite(() => {
        if (!context) throw new Error('test context is not ready');
        return context;
      });
    });
  }
}

export interface SeededTenant {
  slug: string;
  institutionId: string;
  cohortId: string;
  /** The institution's own roster secret (undefined when seeded without one). */
  rosterSecret?: string;
}

let tenantCounter = 0;

/** Creates an institution and a cohort through the admin API, and by default a roster secret. */
export async function seedTenant(
  ctx: TestContext,
  options: { rosterSecret?: boolean; clock?: 'cohort' | 'individual' } = {},
): Promise<SeededTenant> {
  const slug = `inst-${process.pid}-${++tenantCounter}-${randomBytes(3).toString('hex')}`;
  const created = await ctx.admin('POST', '/admin/v1/institutions', { slug, name: `Institution ${slug}` });
  if (created.statusCode !== 201) throw new Error(`seed institution: ${created.statusCode} ${created.body}`);
  const cohort = await ctx.admin('POST', `/admin/v1/institutions/${slug}/cohorts`, {
    name: 'Cohort A',
    clock: options.clock ?? 'cohort',
  });
  if (cohort.statusCode !== 201) throw new Error(`seed cohort: ${cohort.statusCode} ${cohort.body}`);
  const tenant: SeededTenant = { slug, institutionId: created.json().id, cohortId: cohort.json().id };
  if (options.rosterSecret !== false) {
    const secret = await ctx.admin('POST', `/admin/v1/institutions/${slug}/roster-secret`);
    if (secret.statusCode !== 201) throw new Error(`seed secret: ${secret.statusCode} ${secret.body}`);
    tenant.rosterSecret = secret.json().secret;
  }
  return tenant;
}

/** A push response without its run_id, after checking that it has one. */
export function withoutRunId<T extends { run_id?: unknown }>(body: T): Omit<T, 'run_id'> {
  const { run_id, ...rest } = body;
  if (typeof run_id !== 'string' || !/^[0-9a-f-]{36}$/.test(run_id)) {
    throw new Error(`expected a run_id in ${JSON.stringify(body)}`);
  }
  return rest;
}
