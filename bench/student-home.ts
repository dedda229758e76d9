// A student's home page (/app/) with its six weeks of events, server time (app.inject: routing,
// session check, queries, template), with a 10,000-event feed stored: 10,000 weekly events of 10
// occurrences each (100,000 rows, as bench/calendar.ts stores them), so about 60,000 occurrences
// fall in the student's six weeks. Two cases:
//   - the big feed is for everyone: the page lists the first 500 (MAX_HOME_EVENTS) and says so;
//   - the big feed is for another program, and a feed of 4 weekly events is for everyone: the student sees
//     its 24 occurrences in the six weeks, none of the other program's 60,000.
// Baseline measured in the same run: the same page for a student whose six weeks are over
// (session check, profile query and template, no event query). PostgreSQL when DATABASE_URL is
// set (the figures in docs/student-app.md), else PGlite.
import { randomBytes } from 'node:crypto';
import { buildApp } from '../src/app/app.ts';
import { loadConfig } from '../src/config.ts';
import type { Db } from '../src/db/db.ts';
import { startSession } from '../src/domain/people/sessions.ts';
import { createRuntime } from '../src/runtime.ts';
import { openScratchPglite, openScratchPostgres } from '../test/helpers/scratch-db.ts';
import { percentile } from './bench-app.ts';
import type { BenchOptions } from './run.ts';
import { size } from './size.ts';

const REQUESTS = size(300, 5, 'BENCH_REQUESTS');
const NOW = new Date('2026-09-21T08:00:00Z');
const COHORT_START = '2026-09-07';

/** Stores `events` weekly events of `weeks` occurrences each for a feed, in one statement. */
async function storeFeed(db: Db, institutionId: string, feedId: string, events: number, weeks: number) {
  await db.query(
    `INSERT INTO calendar_events (institution_id, feed_id, uid, recurrence_id, starts_at, ends_at, all_day, summary,
       location, description, status, content_hash)
     SELECT $1, $2, 'class-' || e || '@timetable.example.edu', to_char(s, 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), s,
       s + interval '1 hour', false, 'Module ' || (e / 4) || ' – Lecture', 'Building ' || (e % 30),
       'Weekly class. Bring your notes.', 'confirmed', md5(e::text || w::text)
     FROM generate_series(0, $3::int - 1) AS e,
          generate_series(0, $4::int - 1) AS w,
          LATERAL (SELECT timestamptz '2026-09-07 08:00Z' + (e % 5) * interval '1 day' + (e % 10) * interval '1 hour'
                          + w * interval '7 days' AS s) AS t`,
    [institutionId, feedId, events, weeks],
  );
}

async function benchKind(kind: 'pglite' | 'postgres', databaseUrl?: string) {
  const db =
    kind === 'pglite'
      ? await openScratchPglite()
      : await openScratchPostgres(databaseUrl!, { prefix: 'bench' });
  const config = loadConfig({
    OPERATOR_TOKEN: `ssp_op_${randomBytes(16).toString('hex')}`,
    LOG_LEVEL: 'silent',
    ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
    RUN_WORKERS: 'false',
  });
  const runtime = createRuntime({ db, config, clock: { now: () => NOW } });
  const app = await buildApp(runtime, { logger: false });
  await app.ready();
  try {
    const one = async <T>(sql: string, params: unknown[]) => (await db.query<T>(sql, params)).rows[0];
    const institution = await one<{ id: string }>(
      `INSERT INTO institutions (slug, name) VALUES ($1, $1) RETURNING id`,
      [`bench-${randomBytes(4).toString('hex')}`],
    );
    const cohort = await one<{ id: string }>(
      `INSERT INTO cohorts (institution_id, name, clock, start_date) VALUES ($1, 'Autumn', 'cohort', $2) RETURNING id`,
      [institution.id, COHORT_START],
    );
    const over = await one<{ id: string }>(
      `INSERT INTO cohorts (institution_id, name, clock, start_date) VALUES ($1, 'Spring', 'cohort', '2026-03-02') RETURNING id`,
      [institution.id],
    );
    const programs = await db.query<{ id: string; code: string }>(
      `INSERT INTO programs (institution_id, code, name) VALUES ($1, 'NURS', 'Nursing'), ($1, 'HIST', 'History')
       RETURNING id, code`,
      [institution.id],
    );
    const programId = (code: string) => programs.rows.find((p) => p.code === code)!.id;
    const historyTag = await one<{ id: string }>(
      `INSERT INTO audience_tags (institution_id, kind, source_id, label) VALUES ($1, 'program', $2, 'History') RETURNING id`,
      [institution.id, programId('HIST')],
    );
    const student = async (cohortId: string, email: string) => {
      const row = await one<{ id: string }>(
        `INSERT INTO students (institution_id, cohort_id, email, student_id_ext, first_name, program_id)
         VALUES ($1, $2, $3, $3, 'Ana', $4) RETURNING id`,
        [institution.id, cohortId, email, programId('NURS')],
      );
      const session = await startSession(runtime, {
        kind: 'student',
        studentId: row.id,
        institutionId: institution.id,
      });
      return `ssp_session=${session.token}`;
    };
    const during = await student(cohort.id, 'ana@example.edu');
    const after = await student(over.id, 'ben@example.edu');

    const big = await one<{ id: string }>(
      `INSERT INTO calendar_feeds (institution_id, url) VALUES ($1, 'https://timetable.example.edu/all.ics') RETURNING id`,
      [institution.id],
    );
    let started = performance.now();
    await storeFeed(db, institution.id, big.id, size(10_000, 20), 10);
    process.stdout.write(
      `${kind} stored ${size(10_000, 20)} weekly events (${size(10_000, 20) * 10} occurrences) in ${Math.round(performance.now() - started)} ms\n`,
    );

    const measure = async (label: string, cookie: string, expect: RegExp) => {
      const get = () => app.inject({ method: 'GET', url: '/app/', headers: { cookie } });
      const first = await get();
      if (first.statusCode !== 200 || !expect.test(first.body)) {
        throw new Error(`${label}: ${first.statusCode} ${first.body.slice(0, 300)}`);
      }
      const events = (first.body.match(/class="event[ "]/g) ?? []).length;
      for (let i = 0; i < size(20, 1); i++) await get();
      const times: number[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        started = performance.now();
        await get();
        times.push(performance.now() - started);
      }
      const p50 = percentile(times, 50);
      process.stdout.write(
        `${kind} ${label}: ${events} events listed, ${Math.round(first.body.length / 1024)} KB; p50 ${p50.toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms\n`,
      );
      return p50;
    };

    const baseline = await measure('baseline: six weeks over (no event query)', after, /are over/);
    const everyone = await measure('10,000-event feed for everyone (first 500 shown)', during, /Week 3 of 6/);
    // The big feed becomes another program's; a small feed is for everyone.
    await db.query(`UPDATE calendar_feeds SET audience_tag_ids = ARRAY[$2::uuid] WHERE id = $1`, [
      big.id,
      historyTag.id,
    ]);
    const small = await one<{ id: string }>(
      `INSERT INTO calendar_feeds (institution_id, url) VALUES ($1, 'https://events.example.edu/campus.ics') RETURNING id`,
      [institution.id],
    );
    await storeFeed(db, institution.id, small.id, 4, 10);
    const filtered = await measure(
      '10,000-event feed for another program + a 4-event weekly feed for everyone',
      during,
      /Week 3 of 6/,
    );
    process.stdout.write(
      `${kind} p50 over the baseline: everyone ${(everyone - baseline).toFixed(1)} ms, filtered ${(filtered - baseline).toFixed(1)} ms\n`,
    );
  } finally {
    await app.close();
    await runtime.close();
    await db.close();
  }
}

export async function run(options: BenchOptions): Promise<void> {
  if (options.databaseUrl) await benchKind('postgres', options.databaseUrl);
  else await benchKind('pglite');
}
