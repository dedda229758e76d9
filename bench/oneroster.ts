// Benchmark: a full pull of a OneRoster source (20,000 students, 60,000 enrolments) from a
// local OneRoster 1.2 REST provider, against the same data pushed by `ssp push oneroster` as
// a CSV bundle. The provider runs in a process of its own (`ssp dev-oneroster`), so the
// service's peak memory (RSS, sampled every 20 ms, above what it held before) is its own; the
// push runs the real command in a process of its own against the same service, timed from
// start to exit, with --full-sync (a full pull is a full sync), its peak RSS (VmHWM) read; then
// pushed once more, the nightly case, when the service holds the memory the push reads first.
// Each run goes into an institution of its own. PGlite, then PostgreSQL when a database is
// given (a scratch database, dropped afterwards).
//
//   npm run bench -- oneroster          BENCH_ONEROSTER_STUDENTS=2000 for a quicker run

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { generateRoster, type Json } from '../src/dev-oneroster/data.ts';
import { pullDepsOf, pullNow } from '../src/domain/oneroster/pull/pull.ts';
import { putSource } from '../src/domain/oneroster/pull/sources.ts';
import { issueRosterSecret } from '../src/domain/secrets/roster-secrets.ts';
import { onEachDatabase, seedFeedInstitution as seed, startFeedApp } from './bench-app.ts';
import { type ProviderProcess, sampleRss, sourceSettings, startProviderProcess } from './oneroster-source.ts';
import type { BenchOptions } from './run.ts';
import { size } from './size.ts';

const STUDENTS = size(20_000, 50, 'BENCH_ONEROSTER_STUDENTS');
const PER_STUDENT = 3;
const CLI = path.resolve('bin/ssp.js');

const cell = (v: unknown) => {
  const t = String(v ?? '');
  return /[",\n]/.test(t) ? `"${t.replace(/"/g, '""')}"` : t;
};

/** The provider's data as a OneRoster 1.2 CSV bundle (the columns the mapping reads). */
export function writeBundle(dir: string, students = STUDENTS): void {
  const data = generateRoster({
    students,
    courses: PER_STUDENT * 4,
    enrolmentsPerStudent: PER_STUDENT,
  });
  const ref = (v: unknown) => (v as { sourcedId?: string } | undefined)?.sourcedId ?? '';
  const write = (name: string, header: string[], rows: (o: Json) => unknown[][], items: Json[]) => {
    const lines = [header.join(',')];
    for (const item of items) for (const row of rows(item)) lines.push(row.map(cell).join(','));
    fs.writeFileSync(path.join(dir, `${name}.csv`), `${lines.join('\n')}\n`);
  };
  write(
    'orgs',
    ['sourcedId', 'status', 'name', 'type', 'identifier', 'parentSourcedId'],
    (o) => [[o.sourcedId, '', o.name, o.type, o.identifier, ref(o.parent)]],
    data.orgs,
  );
  write(
    'academicSessions',
    ['sourcedId', 'status', 'title', 'type', 'startDate', 'endDate', 'parentSourcedId'],
    (o) => [[o.sourcedId, '', o.title, o.type, o.startDate, o.endDate, ref(o.parent)]],
    data.academicSessions,
  );
  write(
    'courses',
    ['sourcedId', 'status', 'title', 'courseCode', 'orgSourcedId'],
    (o) => [[o.sourcedId, '', o.title, o.courseCode, ref(o.org)]],
    data.courses,
  );
  write(
    'classes',
    ['sourcedId', 'status', 'title', 'courseSourcedId', 'schoolSourcedId', 'termSourcedIds'],
    (o) => [
      [o.sourcedId, '', o.title, ref(o.course), ref(o.school), (o.terms as unknown[]).map(ref).join(' ')],
    ],
    data.classes,
  );
  write(
    'users',
    [
      'sourcedId',
      'status',
      'username',
      'givenName',
      'familyName',
      'identifier',
      'email',
      'primaryOrgSourcedId',
    ],
    (o) => [
      [o.sourcedId, '', o.username, o.givenName, o.familyName, o.identifier, o.email, ref(o.primaryOrg)],
    ],
    data.users,
  );
  write(
    'roles',
    ['sourcedId', 'status', 'userSourcedId', 'roleType', 'role', 'orgSourcedId'],
    (o) =>
      (o.roles as Json[]).map((r, i) => [
        `${o.sourcedId}-r${i}`,
        '',
        o.sourcedId,
        r.roleType,
        r.role,
        ref(r.org),
      ]),
    data.users,
  );
  write(
    'enrollments',
    ['sourcedId', 'status', 'classSourcedId', 'schoolSourcedId', 'userSourcedId', 'role'],
    (o) => [[o.sourcedId, '', ref(o.class), ref(o.school), ref(o.user), o.role]],
    data.enrollments,
  );
  const files = ['orgs', 'academicSessions', 'courses', 'classes', 'users', 'roles', 'enrollments'];
  fs.writeFileSync(
    path.join(dir, 'manifest.csv'),
    `propertyName,value\nmanifest.version,1.0\noneroster.version,1.2\n${files.map((f) => `file.${f},bulk`).join('\n')}\n`,
  );
}

function runCommand(
  command: string[],
  env: Record<string, string>,
): Promise<{ code: number; ms: number; out: string; peakMb: number }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(command[0], command.slice(1), {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    // The command's peak RSS (VmHWM, Linux), read until it exits.
    let peakKb = 0;
    const sampler = setInterval(() => {
      try {
        const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
        peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
      } catch {
        // Gone, or not Linux.
      }
    }, 20);
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => {
      clearInterval(sampler);
      resolve({ code: code ?? 1, ms: performance.now() - started, out, peakMb: peakKb / 1024 });
    });
  });
}

/** `ssp dev-oneroster` in a process of its own; resolves once it prints its base URL. */
export function startProvider(): Promise<ProviderProcess> {
  return startProviderProcess(
    [
      CLI,
      'dev-oneroster',
      '--port',
      '0',
      '--students',
      String(STUDENTS),
      '--enrolments-per-student',
      String(PER_STUDENT),
    ],
    'ssp dev-oneroster',
  );
}

async function benchOne(kind: 'pglite' | 'postgres', databaseUrl?: string): Promise<void> {
  const { db, runtime, app } = await startFeedApp(kind, databaseUrl, 'bench_or', {
    rosterRateLimitPerMinute: 1_000_000,
    enrolmentsRateLimitPerMinute: 1_000_000,
    allowLoopbackOutbound: true,
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ssp-bench-oneroster-'));
  const provider = await startProvider();
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

    // The pull, with the service's RSS sampled.
    const pulled = await seed(db, 'bench-or-pull');
    await putSource(runtime, pulled.id, sourceSettings(provider, pulled.cohortId), new Date());
    const rss = sampleRss();
    const started = performance.now();
    const outcome = await pullNow(pullDepsOf(runtime), pulled.id, 'full');
    const pullMs = performance.now() - started;
    const peakAbove = rss.stop();
    if (outcome.status !== 'ok') throw new Error(`the pull failed: ${outcome.error}`);
    const roster = outcome.sections.roster;
    const enrolments = outcome.sections.enrolments;
    if (roster?.created !== STUDENTS || enrolments?.created !== STUDENTS * PER_STUDENT)
      throw new Error(`the pull created ${roster?.created} students and ${enrolments?.created} enrolments`);

    // The same data as a bundle, pushed by the command.
    const pushed = await seed(db, 'bench-or-push');
    const secret = (await issueRosterSecret(runtime.db, { id: pushed.id, slug: pushed.slug })).secret;
    const bundle = path.join(dir, 'bundle');
    fs.mkdirSync(bundle);
    writeBundle(bundle);
    const small = path.join(dir, 'small');
    fs.mkdirSync(small);
    writeBundle(small, 50);
    const pushCommand = (location: string, ...extra: string[]) =>
      runCommand(
        [
          process.execPath,
          CLI,
          '--url',
          url,
          'push',
          'oneroster',
          location,
          '--institution',
          pushed.slug,
          '--cohort',
          pushed.cohortId,
          // A full pull is a full sync: the push is one too.
          '--full-sync',
          '--errors',
          path.join(dir, 'errors.csv'),
          '--state',
          path.join(dir, 'state.json'),
          '--known',
          path.join(dir, 'known.json'),
          ...extra,
        ],
        { SSP_ROSTER_SECRET: secret },
      );
    // A dry run of a small bundle first fills Node's compile cache, as any run after a
    // machine's first does: the push measured does not load the TypeScript stripper (some 30 MB).
    await pushCommand(small, '--dry-run');
    const push = await pushCommand(bundle);
    if (push.code !== 0) throw new Error(`ssp push oneroster exited ${push.code}: ${push.out.slice(-800)}`);
    // The same bundle again, the nightly case: the service now holds the memory of 80,000
    // entries, which the push reads before it starts.
    const again = await pushCommand(bundle);
    if (again.code !== 0)
      throw new Error(`ssp push oneroster exited ${again.code}: ${again.out.slice(-800)}`);

    const rows = STUDENTS + STUDENTS * PER_STUDENT;
    process.stdout.write(`  ${STUDENTS} students, ${STUDENTS * PER_STUDENT} enrolments (${kind})\n`);
    process.stdout.write(
      '  run                                           ms    rows/s   service peak RSS above start MB\n',
    );
    process.stdout.write(
      `  ${'full pull from a local OneRoster provider'.padEnd(42)} ${pullMs.toFixed(0).padStart(7)} ${(rows / (pullMs / 1000)).toFixed(0).padStart(9)} ${(peakAbove / 1024 / 1024).toFixed(1).padStart(12)}\n`,
    );
    process.stdout.write(
      `  ${'ssp push oneroster of the same data (bundle)'.padEnd(42)} ${push.ms.toFixed(0).padStart(7)} ${(rows / (push.ms / 1000)).toFixed(0).padStart(9)}   client peak RSS ${push.peakMb.toFixed(0)} MB\n`,
    );
    process.stdout.write(
      `  ${'the same push again (the memory read first)'.padEnd(42)} ${again.ms.toFixed(0).padStart(7)} ${(rows / (again.ms / 1000)).toFixed(0).padStart(9)}   client peak RSS ${again.peakMb.toFixed(0)} MB\n`,
    );
    process.stdout.write(`  pull / push: ${(pullMs / push.ms).toFixed(2)}x\n`);
  } finally {
    provider.stop();
    await app.close();
    await runtime.close();
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(options: BenchOptions): Promise<void> {
  // BENCH_ONLY=postgres (or pglite) measures one database alone.
  await onEachDatabase(options, benchOne);
}
