// Roster sync benchmark: a 5000-row page end to end over real HTTP, against the floor of
// COPYing the same rows into an empty table of the same shape and indexes through the same
// driver. PGlite always; PostgreSQL too when DATABASE_URL is set (in a schema of its own,
// dropped afterwards).
//
// The tables first hold many other institutions (BENCH_ROSTER_INSTITUTIONS x
// BENCH_ROSTER_STUDENTS_EACH students, seeded set-based), then every iteration pushes into a
// brand-new institution: the page of all-new students, the identical page again, and the page
// with every row changed. Figures: median and p99 (nearest rank) ms per page, rows/s at the
// median, ratio of the median to the floor's median, and the process's memory while pages are
// handled (heap growth over a collected baseline, and the RSS peak above the idle process).
// Client and server share the process; the client's request bodies are built before the idle
// figure is taken.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import pg from 'pg';
import { Agent, request } from 'undici';
import { buildApp } from '../src/app/app.ts';
import { loadConfig } from '../src/config.ts';
import { type Db, DEFAULT_EMBEDDED_SHARED_BUFFERS, embeddedSettings } from '../src/db/db.ts';
import { migrate } from '../src/db/migrate.ts';
import { pgliteStatements } from '../src/db/pglite-here.ts';
import { createCohort, createInstitution } from '../src/domain/institutions/institutions.ts';
import { issueRosterSecret } from '../src/domain/secrets/roster-secrets.ts';
import { createRuntime } from '../src/runtime.ts';
import { openScratchPostgres, pgliteTemplate } from '../test/helpers/scratch-db.ts';
import { measures } from './bench-app.ts';
import type { BenchOptions } from './run.ts';
import { SMOKE, size } from './size.ts';

v8.setFlagsFromString('--expose-gc');
// A full collection before each figure, so heap growth is measured from a collected baseline. At
// smoke sizes the memory figures mean nothing, and each collection of the process's heap (the
// app's code, PGlite's files) costs 0.1 CPU s or more: 16 of them in a smoke run.
const gc = SMOKE ? () => {} : (vm.runInNewContext('gc') as () => void);

const PAGE = size(5000, 50, 'BENCH_ROSTER_PAGE');
const INSTITUTIONS = size(1000, 2, 'BENCH_ROSTER_INSTITUTIONS');
const STUDENTS_EACH = size(200, 5, 'BENCH_ROSTER_STUDENTS_EACH');
const WARMUP = size(2, 0, 'BENCH_ROSTER_WARMUP');

const FLOOR_COLUMNS =
  'institution_id, cohort_id, email, student_id_ext, first_name, last_name, program_id, campus_id, first_in_family, start_date';

interface Target {
  kind: 'pglite' | 'postgres';
  db: Db;
  /** COPY the CSV text into the table through the same driver as the app; resolves when done. */
  copy(table: string, csv: string): Promise<void>;
  close(): Promise<void>;
}

// --- drivers ---------------------------------------------------------------------------------

/**
 * PGlite through an adapter identical to the service's, keeping the instance for COPY, and kept
 * as the service keeps it (src/db/db.ts): its files in a data directory on disk and the service's
 * settings (16 MB of shared buffers). An in-memory PGlite is not the same database: Emscripten's
 * in-memory file system grows a file by copying it whole, which made COPY into a table of
 * 200,000 students twice as slow and the process 1 GB larger. The one difference left is the
 * thread: the service runs PGlite on a thread of its own, which adds the copy of each message
 * (a page's parameter, its answer) and holds no statement longer.
 */
async function pgliteTarget(): Promise<Target> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssp-bench-roster-'));
  const settings = embeddedSettings(DEFAULT_EMBEDDED_SHARED_BUFFERS);
  const lite = await PGlite.create({
    dataDir,
    loadDataDir: await pgliteTemplate(),
    parsers: { 20: (value: string) => Number(value) },
    // As the service's adapter: the inbox's search indexes need the extension (migration 0086).
    extensions: { pg_trgm },
    startParams: [...PGlite.defaultStartParams, ...settings.flatMap((setting) => ['-c', setting])],
  });
  // The benchmark runs nothing in the background: the session's own statements are the Db.
  const { background: _background, ...statements } = pgliteStatements(lite);
  const db: Db = { kind: 'pglite', ...statements };
  return {
    kind: 'pglite',
    db,
    async copy(table, csv) {
      await lite.query(`COPY ${table} (${FLOOR_COLUMNS}) FROM '/dev/blob' WITH (FORMAT csv)`, [], {
        blob: new Blob([csv]),
      });
    },
    async close() {
      await lite.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * COPY ... FROM STDIN with node-postgres, without pg-copy-streams: a submittable query that
 * answers the server's CopyInResponse with the whole buffer, then CopyDone.
 */
class CopyFromBuffer {
  readonly text: string;
  private readonly data: Buffer;
  readonly done: Promise<void>;
  private resolve!: () => void;
  private reject!: (error: unknown) => void;
  constructor(text: string, data: Buffer) {
    this.text = text;
    this.data = data;
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }
  submit(connection: { query(text: string): void }) {
    connection.query(this.text);
  }
  handleCopyInResponse(connection: { sendCopyFromChunk(b: Buffer): void; endCopyFrom(): void }) {
    const chunk = 64 * 1024;
    for (let offset = 0; offset < this.data.length; offset += chunk) {
      connection.sendCopyFromChunk(this.data.subarray(offset, offset + chunk));
    }
    connection.endCopyFrom();
  }
  handleCommandComplete() {}
  handleReadyForQuery() {
    this.resolve();
  }
  handleError(error: unknown) {
    this.reject(error);
  }
}

async function postgresTarget(databaseUrl: string): Promise<Target> {
  const db = await openScratchPostgres(databaseUrl, { prefix: 'bench_roster' });
  const copier = new pg.Client({
    connectionString: db.connectionString,
    options: `-c jit=off -c search_path=${db.schema}`,
  });
  await copier.connect();
  return {
    kind: 'postgres',
    db,
    async copy(table, csv) {
      const query = new CopyFromBuffer(
        `COPY ${table} (${FLOOR_COLUMNS}) FROM STDIN WITH (FORMAT csv)`,
        Buffer.from(csv),
      );
      // biome-ignore lint/suspicious/noExplicitAny: node-postgres accepts any submittable; its types do not say so.
      copier.query(query as any);
      await query.done;
    },
    async close() {
      await copier.end();
      await db.close();
    },
  };
}

// --- data ------------------------------------------------------------------------------------

async function seedBackground(db: Db): Promise<void> {
  const started = performance.now();
  await db.query(
    `INSERT INTO institutions (slug, name)
     SELECT 'bench-bg-' || g, 'Background institution ' || g FROM generate_series(1, $1::int) g`,
    [INSTITUTIONS],
  );
  await db.query(
    `INSERT INTO cohorts (institution_id, name) SELECT id, 'Cohort' FROM institutions WHERE slug LIKE 'bench-bg-%'`,
  );
  await db.query(
    `INSERT INTO programs (institution_id, code, name)
     SELECT i.id, 'P' || g, 'Program ' || g FROM institutions i, generate_series(1, 10) g
     WHERE i.slug LIKE 'bench-bg-%'`,
  );
  await db.query(
    `INSERT INTO campuses (institution_id, name)
     SELECT i.id, 'Campus ' || g FROM institutions i, generate_series(1, 3) g WHERE i.slug LIKE 'bench-bg-%'`,
  );
  await db.query(
    `INSERT INTO students (institution_id, cohort_id, email, student_id_ext, first_name, last_name,
                           program_id, first_in_family, start_date)
     SELECT c.institution_id, c.id, 'bg' || g || '.' || c.n || '@background.example.edu', 'BG' || c.n || '-' || g,
            'First' || g, 'Last' || g,
            (SELECT p.id FROM programs p WHERE p.institution_id = c.institution_id AND p.code = 'P' || (g % 10 + 1)),
            g % 2 = 0, date '2026-01-05' + (g % 30)
     FROM (SELECT id, institution_id, row_number() OVER (ORDER BY id) AS n FROM cohorts) c,
          generate_series(1, $1::int) g`,
    [STUDENTS_EACH],
  );
  await db.exec('ANALYZE');
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM students');
  process.stdout.write(
    `  seeded ${rows[0].n} students over ${INSTITUTIONS} institutions in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  );
}

interface Tenant {
  institutionId: string;
  cohortId: string;
  secret: string;
  programs: Map<string, string>;
  campuses: Map<string, string>;
}

let tenantCounter = 0;

async function newTenant(db: Db): Promise<Tenant> {
  const slug = `bench-new-${process.pid}-${++tenantCounter}`;
  const institution = await createInstitution(db, {
    slug,
    name: `New institution ${tenantCounter}`,
  });
  const cohort = await createCohort(db, institution.id, {
    name: 'Intake',
    clock: 'individual',
  });
  const { secret } = await issueRosterSecret(db, { id: institution.id, slug: slug });
  const programs = await db.query<{ code: string; id: string }>(
    `INSERT INTO programs (institution_id, code, name)
     SELECT $1, 'PROG' || g, 'Program ' || g FROM generate_series(1, 10) g RETURNING code, id`,
    [institution.id],
  );
  const campuses = await db.query<{ name: string; id: string }>(
    `INSERT INTO campuses (institution_id, name)
     SELECT $1, 'Campus ' || g FROM generate_series(1, 3) g RETURNING name, id`,
    [institution.id],
  );
  return {
    institutionId: institution.id,
    cohortId: cohort.id,
    secret,
    programs: new Map(programs.rows.map((r) => [r.code.toLowerCase(), r.id])),
    campuses: new Map(campuses.rows.map((r) => [r.name.toLowerCase(), r.id])),
  };
}

interface Row {
  email: string;
  student_id_ext: string;
  first_name: string;
  last_name: string;
  program_code: string;
  campus_name: string;
  first_in_family: boolean | string;
  start_date: string;
}

function page(tag: string, version: number): Row[] {
  return Array.from({ length: PAGE }, (_, i) => ({
    email: `student.${i}.${tag}@intake.example.edu`,
    student_id_ext: `${tag}-${String(i).padStart(6, '0')}`,
    first_name: `Given${i}v${version}`,
    last_name: `Family${i}v${version}`,
    // One code in eleven is unknown, as in real feeds.
    program_code: `prog${(i + version) % 11 || 'X'}`,
    campus_name: `campus ${((i + version) % 3) + 1}`,
    first_in_family: (i + version) % 2 === 0 ? 'true' : false,
    start_date: `2026-0${1 + ((i + version) % 9)}-1${(i + version) % 10}`,
  }));
}

function csvOf(rows: Row[], tenant: Tenant): string {
  const quote = (value: string) => `"${value.replaceAll('"', '""')}"`;
  return rows
    .map((r) =>
      [
        tenant.institutionId,
        tenant.cohortId,
        quote(r.email),
        quote(r.student_id_ext),
        quote(r.first_name),
        quote(r.last_name),
        tenant.programs.get(r.program_code.toLowerCase()) ?? '',
        tenant.campuses.get(r.campus_name.toLowerCase()) ?? '',
        String(r.first_in_family),
        r.start_date,
      ].join(','),
    )
    .join('\n')
    .concat('\n');
}

// --- measuring -------------------------------------------------------------------------------

interface Sample {
  ms: number;
  heapDelta: number;
  rssPeak: number;
}

/** Runs fn while sampling memory; heap growth is measured from a collected baseline. */
async function measure(fn: () => Promise<void>): Promise<Sample> {
  gc();
  const baseHeap = process.memoryUsage().heapUsed;
  let heapPeak = baseHeap;
  let rssPeak = process.memoryUsage.rss();
  const sample = () => {
    const usage = process.memoryUsage();
    if (usage.heapUsed > heapPeak) heapPeak = usage.heapUsed;
    if (usage.rss > rssPeak) rssPeak = usage.rss;
  };
  const timer = setInterval(sample, process.env.BENCH_ROSTER_NO_MEMORY ? 1e9 : 2);
  const started = performance.now();
  await fn();
  const ms = performance.now() - started;
  clearInterval(timer);
  sample();
  return { ms, heapDelta: heapPeak - baseHeap, rssPeak };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};
const p99 = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.99 * s.length) - 1)];
};
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

async function benchTarget(target: Target, iterations: number): Promise<Record<string, number>> {
  process.stdout.write(`\n--- ${target.kind} ---\n`);
  await migrate(target.db);
  await seedBackground(target.db);
  // The floor: an empty table of the same shape as students (columns, defaults, checks,
  // indexes, storage settings) and the same foreign keys, since every write to students pays
  // their checks. A second, bare table (no foreign keys) shows what those checks cost.
  for (const statement of [
    'DROP TABLE IF EXISTS roster_floor',
    'CREATE TABLE roster_floor (LIKE students INCLUDING ALL) WITH (fillfactor = 85)',
    `ALTER TABLE roster_floor
       ADD FOREIGN KEY (cohort_id, institution_id) REFERENCES cohorts (id, institution_id) ON DELETE CASCADE,
       ADD FOREIGN KEY (program_id) REFERENCES programs (id) ON DELETE SET NULL,
       ADD FOREIGN KEY (campus_id) REFERENCES campuses (id) ON DELETE SET NULL`,
    'DROP TABLE IF EXISTS roster_floor_bare',
    'CREATE TABLE roster_floor_bare (LIKE students INCLUDING ALL) WITH (fillfactor = 85)',
  ]) {
    await target.db.query(statement);
  }
  const fkeys = await target.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_constraint WHERE contype = 'f' AND conrelid = 'students'::regclass`,
  );
  if (fkeys.rows[0].n !== 3)
    throw new Error(`students has ${fkeys.rows[0].n} foreign keys; update the floor table`);

  const config = {
    ...loadConfig({ LOG_LEVEL: 'silent' }),
    rosterRateLimitPerMinute: 1_000_000,
    runWorkers: false,
  };
  const runtime = createRuntime({ db: target.db, config });
  const app = await buildApp(runtime, { logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  const origin = `http://127.0.0.1:${address.port}`;
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 2 });

  const post = async (tenant: Tenant, body: string, expect: { created: number; updated: number }) => {
    const res = await request(`${origin}/api/sis/sync`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tenant.secret}` },
      body,
    });
    const json = (await res.body.json()) as { created: number; updated: number; errors: unknown[] };
    if (res.statusCode !== 200 || json.created !== expect.created || json.updated !== expect.updated) {
      throw new Error(`unexpected answer ${res.statusCode}: ${JSON.stringify(json).slice(0, 300)}`);
    }
  };

  // Every iteration's tenant and bodies are prepared before the idle figure is taken.
  const total = WARMUP + iterations;
  const runs = [];
  for (let i = 0; i < total; i++) {
    const tenant = await newTenant(runtime.db);
    const tag = `${target.kind}${i}${randomBytes(2).toString('hex')}`;
    const first = page(tag, 0);
    // A second institution takes the same rows by COPY into students itself (see `populated`).
    const copyTenant = await newTenant(runtime.db);
    runs.push({
      tenant,
      populatedCsv: csvOf(first, copyTenant),
      fresh: JSON.stringify({ cohort_id: tenant.cohortId, students: first }),
      changed: JSON.stringify({ cohort_id: tenant.cohortId, students: page(tag, 1) }),
      csv: csvOf(first, tenant),
    });
  }
  gc();
  await new Promise((resolve) => setTimeout(resolve, 50));
  gc();
  const idleRss = process.memoryUsage.rss();

  const results: Record<string, Sample[]> = {
    bare: [],
    floor: [],
    populated: [],
    new: [],
    identical: [],
    changed: [],
  };
  for (const [index, run] of runs.entries()) {
    const keep = index >= WARMUP;
    const bare = await measure(async () => {
      await target.copy('roster_floor_bare', run.csv);
    });
    const floor = await measure(async () => {
      await target.copy('roster_floor', run.csv);
    });
    await target.db.query('TRUNCATE roster_floor, roster_floor_bare');
    const populated = await measure(async () => {
      await target.copy('students', run.populatedCsv);
    });
    const fresh = await measure(() => post(run.tenant, run.fresh, { created: PAGE, updated: 0 }));
    const identical = await measure(() => post(run.tenant, run.fresh, { created: 0, updated: PAGE }));
    const changed = await measure(() => post(run.tenant, run.changed, { created: 0, updated: PAGE }));
    if (keep) {
      results.bare.push(bare);
      results.floor.push(floor);
      results.populated.push(populated);
      results.new.push(fresh);
      results.identical.push(identical);
      results.changed.push(changed);
    }
  }

  const floorMedian = median(results.floor.map((s) => s.ms));
  const bareMedian = median(results.bare.map((s) => s.ms));
  const lines = [
    `  ${PAGE} rows per page, ${iterations} pages per scenario (after ${WARMUP} warm-up), each into a brand-new institution`,
    `  idle RSS ${mb(idleRss)} MB`,
    '  scenario                        median ms   p99 ms    rows/s   x floor   x bare   heap +MB   RSS above idle MB',
  ];
  const label: Record<string, string> = {
    bare: 'COPY, bare table (no FKs)',
    floor: 'floor: COPY, same shape + FKs',
    populated: 'COPY into students itself',
    new: 'all new (created)',
    identical: 'identical page again',
    changed: 'every row changed',
  };
  const verdicts: string[] = [];
  const medians: Record<string, number> = {};
  for (const [name, samples] of Object.entries(results)) {
    const ms = samples.map((s) => s.ms);
    const med = median(ms);
    const high = p99(ms);
    const rowsPerSecond = (PAGE / med) * 1000;
    const ratio = med / floorMedian;
    const ratioBare = med / bareMedian;
    const heap = Math.max(...samples.map((s) => s.heapDelta));
    const rssAbove = Math.max(...samples.map((s) => s.rssPeak)) - idleRss;
    const cells = [
      med.toFixed(1).padStart(9),
      high.toFixed(1).padStart(9),
      Math.round(rowsPerSecond).toString().padStart(10),
      ratio.toFixed(2).padStart(10),
      ratioBare.toFixed(2).padStart(9),
      mb(heap).padStart(11),
      mb(rssAbove).padStart(20),
    ];
    lines.push(`  ${label[name].padEnd(32)}${cells.join('')}`);
    medians[name] = med;
    if (!['floor', 'bare', 'populated'].includes(name) && target.kind === 'postgres') {
      const misses = [
        // Issue 30's targets.
        ratio > 1.3 && `median ${ratio.toFixed(2)}x floor (target <= 1.3x)`,
        high >= 400 && `p99 ${high.toFixed(0)} ms (target < 400)`,
        rowsPerSecond < 30_000 && `${Math.round(rowsPerSecond)} rows/s (target >= 30000)`,
        rssAbove >= 150 * 1024 * 1024 && `${mb(rssAbove)} MB above idle (target < 150)`,
      ].filter(Boolean);
      verdicts.push(
        `  ${label[name]}: ${misses.length ? `MISSES ${misses.join(', ')}` : 'meets every target'}`,
      );
    }
  }
  const load = (await import('node:os')).loadavg().map((x) => x.toFixed(2));
  lines.push(`  load average during the run: ${load.join(' ')} (1, 5, 15 min)`);
  process.stdout.write(`${[...lines, ...verdicts].join('\n')}\n`);

  await agent.close();
  await app.close();
  await runtime.close();
  return medians;
}

export async function run(options: BenchOptions): Promise<void> {
  // PostgreSQL first, so that its memory figures come from a process PGlite has not grown.
  let postgresMedians: Record<string, number> | undefined;
  if (options.databaseUrl && measures('postgres')) {
    const postgres = await postgresTarget(options.databaseUrl);
    try {
      postgresMedians = await benchTarget(postgres, size(15, 1, 'BENCH_ROSTER_ITERATIONS'));
    } finally {
      await postgres.close();
    }
  } else if (!options.databaseUrl) {
    process.stdout.write('\n  (set BENCH_DATABASE_URL to measure PostgreSQL as well)\n');
  }
  // BENCH_ONLY=postgres (or BENCH_ROSTER_SKIP_PGLITE=1) measures PostgreSQL alone.
  if (measures('pglite') && !process.env.BENCH_ROSTER_SKIP_PGLITE) {
    const lite = await pgliteTarget();
    try {
      const liteMedians = await benchTarget(lite, size(8, 1, 'BENCH_ROSTER_ITERATIONS_PGLITE'));
      if (postgresMedians) {
        const ratios = ['new', 'identical', 'changed'].map(
          (name) => `${name} ${(liteMedians[name] / postgresMedians[name]).toFixed(2)}x`,
        );
        process.stdout.write(`\n  PGlite / PostgreSQL, median page (target <= 1.5x): ${ratios.join(', ')}\n`);
      }
    } finally {
      await lite.close();
    }
  }
}
