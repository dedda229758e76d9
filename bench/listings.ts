// Admin listings at scale, on PostgreSQL then PGlite: 100,000 students in one institution (and as many in
// 20 others, so indexes and the planner see a shared table), read through the API over a real
// socket page by page (limit 1000, following next_cursor), and exported as CSV. Baseline in
// the same run: one bare SELECT of the same rows and columns through the same driver.
// Memory: the server's heap is sampled during exports of 10,000 and of 100,000 students; a
// streamed export holds one batch, so the peak must not grow with the size.
// Targets: whole listing < 3 s, CSV export < 2 s, memory flat.

import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { buildApp } from '../src/app/app.ts';
import { loadConfig } from '../src/config.ts';
import type { Db } from '../src/db/db.ts';
import { createRuntime } from '../src/runtime.ts';
import { openScratchPglite, openScratchPostgres } from '../test/helpers/scratch-db.ts';
import { measures } from './bench-app.ts';
import type { BenchOptions } from './run.ts';
import { size } from './size.ts';

const STUDENTS = size(100_000, 500, 'BENCH_STUDENTS');
const SMALL = size(10_000, 100);
const BACKGROUND_INSTITUTIONS = size(20, 1);
const RUNS = size(3, 1);
const PAGE = 1000;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (n: number) => `${Math.round(n)} ms`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function seedInstitution(db: Db, slug: string, students: number): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    'INSERT INTO institutions (slug, name) VALUES ($1, $1) RETURNING id',
    [slug],
  );
  const id = rows[0].id;
  await db.query(
    `WITH c AS (INSERT INTO cohorts (institution_id, name) VALUES ($1, 'c') RETURNING id),
          p AS (INSERT INTO programs (institution_id, code, name)
                SELECT $1, 'P' || g, 'Program ' || g FROM generate_series(1, 20) g RETURNING id),
          k AS (INSERT INTO campuses (institution_id, name)
                SELECT $1, 'Campus ' || g FROM generate_series(1, 5) g RETURNING id)
     INSERT INTO students (institution_id, cohort_id, email, student_id_ext, first_name, last_name,
                           program_id, campus_id, start_date)
     SELECT $1, (SELECT id FROM c), 'student' || g || '@' || $2 || '.edu', 'S' || lpad(g::text, 7, '0'),
            (ARRAY['Ada','Grace','Alan','Edsger','Barbara'])[1 + g % 5], 'Surname' || (g % 997),
            (SELECT id FROM p ORDER BY id LIMIT 1 OFFSET g % 20), (SELECT id FROM k ORDER BY id LIMIT 1 OFFSET g % 5),
            date '2026-02-23'
     FROM generate_series(1, $3::int) g`,
    [id, slug, students],
  );
  return id;
}

export async function run(options: BenchOptions): Promise<void> {
  if (options.databaseUrl && measures('postgres')) {
    process.stdout.write('--- postgres ---\n');
    await benchDb(await openScratchPostgres(options.databaseUrl, { prefix: 'bench', max: 10 }));
  }
  if (measures('pglite')) {
    process.stdout.write('--- pglite ---\n');
    await benchDb(await openScratchPglite());
  }
}

async function benchDb(db: Db): Promise<void> {
  const operatorToken = `ssp_op_${randomBytes(16).toString('hex')}`;
  const config = { ...loadConfig({ OPERATOR_TOKEN: operatorToken, LOG_LEVEL: 'silent' }), runWorkers: false };
  const runtime = createRuntime({ db, config });
  const app = await buildApp(runtime, {
    logger: false,
    rateLimitNameSpace: `bench-${randomBytes(4).toString('hex')}:`,
  });
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 1 });
  try {
    const seedStart = performance.now();
    for (let i = 0; i < BACKGROUND_INSTITUTIONS; i++)
      await seedInstitution(db, `bg-${i}`, STUDENTS / BACKGROUND_INSTITUTIONS);
    const institutionId = await seedInstitution(db, 'big', STUDENTS);
    await seedInstitution(db, 'small', SMALL);
    await db.exec('ANALYZE');
    process.stdout.write(
      `seeded ${STUDENTS} students in one institution, ${STUDENTS} in ${BACKGROUND_INSTITUTIONS} others, in ${ms(performance.now() - seedStart)}\n`,
    );
    await app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/admin/v1/institutions`;
    const headers = { authorization: `Bearer ${operatorToken}` };

    const readListing = async (slug: string) => {
      let cursor: string | null = null;
      let rows = 0;
      let requests = 0;
      do {
        const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
        const res = await request(`${base}/${slug}/students?limit=${PAGE}${query}`, {
          dispatcher: agent,
          headers,
        });
        if (res.statusCode !== 200) throw new Error(`listing: ${res.statusCode} ${await res.body.text()}`);
        const body = (await res.body.json()) as { items: unknown[]; next_cursor: string | null };
        rows += body.items.length;
        cursor = body.next_cursor;
        requests++;
      } while (cursor);
      return { rows, requests };
    };

    const exportCsv = async (slug: string) => {
      let peakHeap = 0;
      const startHeap = process.memoryUsage().heapUsed;
      const sampler = setInterval(() => {
        peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed - startHeap);
      }, 5);
      const res = await request(`${base}/${slug}/students.csv`, { dispatcher: agent, headers });
      if (res.statusCode !== 200) throw new Error(`csv: ${res.statusCode}`);
      let bytes = 0;
      let lines = 0;
      for await (const chunk of res.body) {
        bytes += chunk.length;
        for (const byte of chunk as Buffer) if (byte === 10) lines++;
      }
      clearInterval(sampler);
      return { bytes, rows: lines - 1, peakHeap };
    };

    const baseline = async () => {
      const start = performance.now();
      const { rows } = await db.query(
        `SELECT s.id, s.cohort_id, s.email, s.student_id_ext, s.first_name, s.last_name, p.code, c.name,
                s.first_in_family, to_char(s.start_date, 'YYYY-MM-DD'), s.departed_at, s.created_at, s.updated_at
         FROM students s LEFT JOIN programs p ON p.id = s.program_id LEFT JOIN campuses c ON c.id = s.campus_id
         WHERE s.institution_id = $1 ORDER BY lower(s.email)`,
        [institutionId],
      );
      return { ms: performance.now() - start, rows: rows.length };
    };

    // Warm up: plans, connections, JIT of the serializers.
    await readListing('small');
    await exportCsv('small');
    await baseline();

    const listing: number[] = [];
    const csv: number[] = [];
    const floor: number[] = [];
    let pages = 0;
    let csvBytes = 0;
    for (let i = 0; i < RUNS; i++) {
      let start = performance.now();
      const read = await readListing('big');
      listing.push(performance.now() - start);
      if (read.rows !== STUDENTS) throw new Error(`listing read ${read.rows} rows`);
      pages = read.requests;
      start = performance.now();
      const exported = await exportCsv('big');
      csv.push(performance.now() - start);
      if (exported.rows !== STUDENTS) throw new Error(`csv exported ${exported.rows} rows`);
      csvBytes = exported.bytes;
      floor.push((await baseline()).ms);
    }
    const small = await exportCsv('small');
    const big = await exportCsv('big');
    const floorMs = median(floor);
    process.stdout.write(
      `students listing, ${STUDENTS} rows in ${pages} pages of ${PAGE}: median ${ms(median(listing))} ` +
        `(runs ${listing.map(ms).join(', ')}); ${(median(listing) / floorMs).toFixed(2)}x one bare SELECT of all rows (${ms(floorMs)}); target < 3000 ms\n` +
        `students CSV export, ${mb(csvBytes)}: median ${ms(median(csv))} (runs ${csv.map(ms).join(', ')}); ` +
        `${(median(csv) / floorMs).toFixed(2)}x the bare SELECT; target < 2000 ms\n` +
        `server heap above idle during an export: ${mb(small.peakHeap)} for ${SMALL} students, ${mb(big.peakHeap)} for ${STUDENTS}\n`,
    );
  } finally {
    await agent.close();
    await app.close();
    await runtime.close();
    await db.close();
  }
}
