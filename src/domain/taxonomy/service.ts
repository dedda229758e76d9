// The taxonomy and enrolment feed (POST /api/sis/enrolments): sections are applied in
// dependency order in one transaction. Each section costs a fixed number of queries however
// many rows it has: one to match the rows against what is stored, one to insert the new
// rows, one to update the changed ones (rows travel as one JSON parameter).
//
// A dry run runs the same reading and classification in a READ ONLY transaction and skips
// the writes, so it cannot write anything. Each section of a dry run is checked against
// what is stored, never against another section of the same request (spec 4.2 rule 3).

import type { Db, Queryable } from '../../db/db.ts';
import { InstitutionLock, lockInstitution } from '../../db/locks.ts';
import { ApiError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { campusNamesSql } from '../campuses/names.ts';
import {
  type CampusRow,
  checkTermDates,
  type EnrolmentRow,
  type Parsed,
  type ProgramRow,
  parseCampus,
  parseEnrolment,
  parseProgram,
  parseTerm,
  parseUnit,
  type RowProblem,
  type TermRow,
  type UnitRow,
} from './rows.ts';

/** Every section of the endpoint, in the order a real run applies them. */
export const sectionOrder = ['programs', 'campuses', 'terms', 'units', 'enrolments'] as const;
export type SectionName = (typeof sectionOrder)[number];

/** Rows per section and request; more gives 413 batch_too_large (spec 4.2 rule 1). */
export const sectionLimits: Record<SectionName, number> = {
  programs: 1000,
  campuses: 200,
  terms: 500,
  units: 5000,
  enrolments: 5000,
};

export interface SectionReport {
  /** Rows sent in the section. */
  received: number;
  /** Rows that created a record (dry run: would create). */
  created: number;
  /** Rows that changed a stored record (dry run: would update). */
  updated: number;
  /** Rows identical to what is stored (nothing written). */
  unchanged: number;
  /** Rows rejected; each has at least one entry in `errors`. */
  rejected: number;
}

export interface RowError {
  section: SectionName;
  /** Zero-based position of the row in its section's array. */
  row: number;
  code: string;
  message: string;
  field?: string;
}

export interface PushResult {
  institution: string;
  dry_run: boolean;
  sections: Partial<Record<SectionName, SectionReport>>;
  errors: RowError[];
}

export type PushBody = Partial<Record<SectionName, unknown[]>>;

interface SectionContext {
  q: Queryable;
  institutionId: string;
  now: Date;
  dryRun: boolean;
  report: SectionReport;
  reject(row: number, problem: RowProblem): void;
}

/**
 * Checks the request-level limits of a push: every section within its row limit, or 413
 * batch_too_large naming the section, before anything is read or written.
 */
export function checkLimits(body: PushBody): void {
  for (const section of sectionOrder) {
    const rows = body[section];
    if (rows === undefined) continue;
    if (rows.length > sectionLimits[section]) {
      throw new ApiError('batch_too_large', {
        max: sectionLimits[section],
        field: section,
        detail: `at most ${sectionLimits[section]} ${section} per request (got ${rows.length}); split the push`,
      });
    }
  }
}

export function createTaxonomyService(db: Db, clock: Clock) {
  return {
    checkLimits,

    /** Applies (or, with dryRun, evaluates) every section present, in dependency order. */
    async push(
      institution: { id: string; slug: string },
      body: PushBody,
      options: { dryRun: boolean },
    ): Promise<PushResult> {
      checkLimits(body);
      const result: PushResult = {
        institution: institution.slug,
        dry_run: options.dryRun,
        sections: {},
        errors: [],
      };
      const now = clock.now();
      await db.transaction(async (q) => {
        if (options.dryRun) await q.query('SET TRANSACTION READ ONLY');
        // Pushes into one institution run one at a time, so a section's read-then-write is consistent.
        else await lockInstitution(q, institution.id, InstitutionLock.taxonomy);
        for (const section of sectionOrder) {
          const rows = body[section];
          if (rows === undefined) continue;
          const report: SectionReport = {
            received: rows.length,
            created: 0,
            updated: 0,
            unchanged: 0,
            rejected: 0,
          };
          result.sections[section] = report;
          const rejected = new Set<number>();
          const sectionErrors: RowError[] = [];
          const context: SectionContext = {
            q,
            institutionId: institution.id,
            now,
            dryRun: options.dryRun,
            report,
            reject(row, problem) {
              sectionErrors.push({ section, row, ...problem });
              rejected.add(row);
            },
          };
          await sectionHandlers[section](context, rows);
          report.rejected = rejected.size;
          // Errors in row order (a stable sort keeps several errors of one row in their order).
          result.errors.push(...sectionErrors.sort((a, b) => a.row - b.row));
        }
      });
      return result;
    },

    /** The institution's terms, by start date. */
    async listTerms(institutionId: string, page: Page) {
      const { rows } = await db.query<TermListing>(
        `SELECT id, code AS term_code, name, to_char(start_date, 'YYYY-MM-DD') AS start_date,
                to_char(end_date, 'YYYY-MM-DD') AS end_date, created_at, updated_at
         FROM terms WHERE institution_id = $1
         ORDER BY start_date, lower(code) LIMIT $2 OFFSET $3`,
        [institutionId, page.limit, page.offset],
      );
      return rows;
    },

    /** The institution's units with the program and campus they belong to. */
    async listUnits(institutionId: string, page: Page & { programCode?: string }) {
      const { rows } = await db.query<UnitListing>(
        `SELECT u.id, u.code AS unit_code, u.name, p.code AS program_code, c.name AS campus_name,
                u.created_at, u.updated_at
         FROM units u
         LEFT JOIN programs p ON p.id = u.program_id AND p.institution_id = u.institution_id
         LEFT JOIN campuses c ON c.id = u.campus_id AND c.institution_id = u.institution_id
         WHERE u.institution_id = $1 AND ($2::text IS NULL OR lower(p.code) = lower($2::text))
         ORDER BY lower(u.code) LIMIT $3 OFFSET $4`,
        [institutionId, page.programCode ?? null, page.limit, page.offset],
      );
      return rows;
    },

    /** The institution's enrolments, optionally of one term, unit, student email or status. */
    async listEnrolments(
      institutionId: string,
      page: Page & { termCode?: string; unitCode?: string; email?: string; status?: string },
    ) {
      const { rows } = await db.query<EnrolmentListing>(
        `SELECT e.id, s.email, s.student_id_ext, u.code AS unit_code, t.code AS term_code, e.status,
                e.created_at, e.updated_at
         FROM enrolments e
         JOIN students s ON s.id = e.student_id AND s.institution_id = e.institution_id
         JOIN units u ON u.id = e.unit_id AND u.institution_id = e.institution_id
         JOIN terms t ON t.id = e.term_id AND t.institution_id = e.institution_id
         WHERE e.institution_id = $1
           AND ($2::text IS NULL OR lower(t.code) = lower($2::text))
           AND ($3::text IS NULL OR lower(u.code) = lower($3::text))
           AND ($4::text IS NULL OR lower(s.email) = lower($4::text))
           AND ($5::text IS NULL OR e.status = lower($5::text))
         ORDER BY t.start_date, lower(t.code), lower(u.code), lower(s.email), e.id
         LIMIT $6 OFFSET $7`,
        [
          institutionId,
          page.termCode ?? null,
          page.unitCode ?? null,
          page.email ?? null,
          page.status ?? null,
          page.limit,
          page.offset,
        ],
      );
      return rows;
    },
  };
}

export interface Page {
  limit: number;
  offset: number;
}

interface Stamped {
  id: string;
  created_at: Date;
  updated_at: Date;
}

export interface TermListing extends Stamped {
  term_code: string;
  name: string | null;
  start_date: string;
  end_date: string;
}

export interface UnitListing extends Stamped {
  unit_code: string;
  name: string | null;
  program_code: string | null;
  campus_name: string | null;
}

export interface EnrolmentListing extends Stamped {
  email: string;
  student_id_ext: string;
  unit_code: string;
  term_code: string;
  status: string;
}

export type TaxonomyService = ReturnType<typeof createTaxonomyService>;

type SectionHandler = (context: SectionContext, rows: unknown[]) => Promise<void>;

/** Parses every row, reporting the malformed ones; returns the good ones with their positions. */
function parseAll<T>(context: SectionContext, rows: unknown[], parse: (row: unknown) => Parsed<T>) {
  const good: { i: number; value: T }[] = [];
  rows.forEach((row, i) => {
    const parsed = parse(row);
    if (parsed.ok) good.push({ i, value: parsed.value });
    else context.reject(i, parsed.problem);
  });
  return good;
}

/**
 * Keeps the first row of each key and rejects the later ones with duplicate_key. `key` is the
 * database's own lower() of the key, so duplicates are judged exactly as the unique index does.
 */
function firstOfEachKey<T extends { i: number; key: string }>(
  context: SectionContext,
  matched: T[],
  describeKey: (row: T) => string,
): T[] {
  const seen = new Map<string, number>();
  const kept: T[] = [];
  for (const row of [...matched].sort((a, b) => a.i - b.i)) {
    const first = seen.get(row.key);
    if (first !== undefined) {
      context.reject(row.i, {
        code: 'duplicate_key',
        message: `${describeKey(row)} appears already at row ${first} of this section; only the first is applied`,
      });
      continue;
    }
    seen.set(row.key, row.i);
    kept.push(row);
  }
  return kept;
}

/** undefined means "keep what is stored". */
const keep = <T>(incoming: T | undefined, stored: T): T => (incoming === undefined ? stored : incoming);

// ---------------------------------------------------------------- programs

interface StoredProgram {
  i: number;
  key: string;
  id: string | null;
  code: string | null;
  name: string | null;
  coordinator_name: string | null;
  coordinator_title: string | null;
}

const programs: SectionHandler = async (context, rows) => {
  const { q, institutionId, report } = context;
  const parsed = parseAll<ProgramRow>(context, rows, parseProgram);
  if (parsed.length === 0) return;
  const byIndex = new Map(parsed.map((row) => [row.i, row.value]));
  const { rows: matched } = await q.query<StoredProgram>(
    `SELECT r.i, lower(r.code) AS key, p.id, p.code, p.name, p.coordinator_name, p.coordinator_title
     FROM jsonb_to_recordset($2::jsonb) AS r(i int, code text)
     LEFT JOIN programs p ON p.institution_id = $1 AND lower(p.code) = lower(r.code)`,
    [institutionId, JSON.stringify(parsed.map((row) => ({ i: row.i, code: row.value.code })))],
  );
  const kept = firstOfEachKey(context, matched, (row) => `program_code "${byIndex.get(row.i)!.code}"`);
  const creates: Record<string, unknown>[] = [];
  const updates: Record<string, unknown>[] = [];
  for (const stored of kept) {
    const incoming = byIndex.get(stored.i)!;
    const next = {
      code: incoming.code,
      name: keep(incoming.name, stored.name),
      coordinator_name: keep(incoming.coordinator_name, stored.coordinator_name),
      coordinator_title: keep(incoming.coordinator_title, stored.coordinator_title),
    };
    if (!stored.id) {
      creates.push(next);
      report.created++;
    } else if (
      next.code !== stored.code ||
      next.name !== stored.name ||
      next.coordinator_name !== stored.coordinator_name ||
      next.coordinator_title !== stored.coordinator_title
    ) {
      updates.push({ id: stored.id, ...next });
      report.updated++;
    } else {
      report.unchanged++;
    }
  }
  if (context.dryRun) return;
  // Each new program gets its audience tag in the same statement; the tag's label is the
  // program's name, or its code while it has none.
  if (creates.length > 0) {
    await q.query(
      `WITH created AS (
         INSERT INTO programs (institution_id, code, name, coordinator_name, coordinator_title, created_at, updated_at)
         SELECT $1, r.code, r.name, r.coordinator_name, r.coordinator_title, $3, $3
         FROM jsonb_to_recordset($2::jsonb) AS r(code text, name text, coordinator_name text, coordinator_title text)
         ON CONFLICT DO NOTHING
         RETURNING id, code, name)
       INSERT INTO audience_tags (institution_id, kind, source_id, label, created_at)
       SELECT $1, 'program', id, coalesce(name, code), $3 FROM created
       ON CONFLICT DO NOTHING`,
      [institutionId, JSON.stringify(creates), context.now],
    );
  }
  if (updates.length > 0) {
    await q.query(
      `WITH changed AS (
         UPDATE programs p
         SET code = r.code, name = r.name, coordinator_name = r.coordinator_name,
             coordinator_title = r.coordinator_title, updated_at = $3
         FROM jsonb_to_recordset($2::jsonb)
           AS r(id uuid, code text, name text, coordinator_name text, coordinator_title text)
         WHERE p.id = r.id AND p.institution_id = $1
         RETURNING p.id, p.code, p.name)
       INSERT INTO audience_tags (institution_id, kind, source_id, label, created_at)
       SELECT $1, 'program', id, coalesce(name, code), $3 FROM changed
       ON CONFLICT (institution_id, kind, source_id)
       DO UPDATE SET label = EXCLUDED.label WHERE audience_tags.label IS DISTINCT FROM EXCLUDED.label`,
      [institutionId, JSON.stringify(updates), context.now],
    );
  }
};

// ---------------------------------------------------------------- campuses

interface StoredCampus {
  i: number;
  key: string;
  id: string | null;
  name: string | null;
  /** Matched through the alias a campus merge left, not the campus's own name. */
  via_alias: boolean | null;
}

const campuses: SectionHandler = async (context, rows) => {
  const { q, institutionId, report } = context;
  const parsed = parseAll<CampusRow>(context, rows, parseCampus);
  if (parsed.length === 0) return;
  const byIndex = new Map(parsed.map((row) => [row.i, row.value]));
  const { rows: matched } = await q.query<StoredCampus>(
    `WITH names AS (${campusNamesSql})
     SELECT r.i, lower(r.name) AS key, c.id, c.name, n.via_alias
     FROM jsonb_to_recordset($2::jsonb) AS r(i int, name text)
     LEFT JOIN names n ON n.key = lower(r.name)
     LEFT JOIN campuses c ON c.id = n.id`,
    [institutionId, JSON.stringify(parsed.map((row) => ({ i: row.i, name: row.value.name })))],
  );
  const kept = firstOfEachKey(context, matched, (row) => `campus "${byIndex.get(row.i)!.name}"`);
  const creates: Record<string, unknown>[] = [];
  const updates: Record<string, unknown>[] = [];
  for (const stored of kept) {
    const { name } = byIndex.get(stored.i)!;
    if (!stored.id) {
      creates.push({ name });
      report.created++;
    } else if (name !== stored.name && !stored.via_alias) {
      // Same campus, new spelling (matching ignores case): the console shows the latest one.
      updates.push({ id: stored.id, name });
      report.updated++;
    } else {
      report.unchanged++;
    }
  }
  if (context.dryRun) return;
  if (creates.length > 0) {
    await q.query(
      `WITH created AS (
         INSERT INTO campuses (institution_id, name, created_at, updated_at)
         SELECT $1, r.name, $3, $3 FROM jsonb_to_recordset($2::jsonb) AS r(name text)
         ON CONFLICT DO NOTHING
         RETURNING id, name)
       INSERT INTO audience_tags (institution_id, kind, source_id, label, created_at)
       SELECT $1, 'campus', id, name, $3 FROM created
       ON CONFLICT DO NOTHING`,
      [institutionId, JSON.stringify(creates), context.now],
    );
  }
  if (updates.length > 0) {
    await q.query(
      `WITH changed AS (
         UPDATE campuses c SET name = r.name, updated_at = $3
         FROM jsonb_to_recordset($2::jsonb) AS r(id uuid, name text)
         WHERE c.id = r.id AND c.institution_id = $1
         RETURNING c.id, c.name)
       INSERT INTO audience_tags (institution_id, kind, source_id, label, created_at)
       SELECT $1, 'campus', id, name, $3 FROM changed
       ON CONFLICT (institution_id, kind, source_id)
       DO UPDATE SET label = EXCLUDED.label WHERE audience_tags.label IS DISTINCT FROM EXCLUDED.label`,
      [institutionId, JSON.stringify(updates), context.now],
    );
  }
};

// ---------------------------------------------------------------- terms

interface StoredTerm {
  i: number;
  key: string;
  id: string | null;
  code: string | null;
  name: string | null;
  start_date: string | null;
  end_date: string | null;
}

const terms: SectionHandler = async (context, rows) => {
  const { q, institutionId, report } = context;
  const parsed = parseAll<TermRow>(context, rows, parseTerm);
  if (parsed.length === 0) return;
  const byIndex = new Map(parsed.map((row) => [row.i, row.value]));
  const { rows: matched } = await q.query<StoredTerm>(
    `SELECT r.i, lower(r.code) AS key, t.id, t.code, t.name,
            to_char(t.start_date, 'YYYY-MM-DD') AS start_date, to_char(t.end_date, 'YYYY-MM-DD') AS end_date
     FROM jsonb_to_recordset($2::jsonb) AS r(i int, code text)
     LEFT JOIN terms t ON t.institution_id = $1 AND lower(t.code) = lower(r.code)`,
    [institutionId, JSON.stringify(parsed.map((row) => ({ i: row.i, code: row.value.code })))],
  );
  const kept = firstOfEachKey(context, matched, (row) => `term_code "${byIndex.get(row.i)!.code}"`);
  const creates: Record<string, unknown>[] = [];
  const updates: Record<string, unknown>[] = [];
  for (const stored of kept) {
    const incoming = byIndex.get(stored.i)!;
    const next = {
      code: incoming.code,
      name: keep(incoming.name, stored.name),
      start_date: keep(incoming.start_date, stored.start_date),
      end_date: keep(incoming.end_date, stored.end_date),
    };
    if (!stored.id && (!next.start_date || !next.end_date)) {
      context.reject(stored.i, {
        code: 'missing_field',
        message: 'a new term needs start_date and end_date',
        field: next.start_date ? 'end_date' : 'start_date',
      });
      continue;
    }
    const order = checkTermDates(next);
    if (order) {
      // Only one date was sent and it crosses the stored other one.
      context.reject(stored.i, order.problem);
      continue;
    }
    if (!stored.id) {
      creates.push(next);
      report.created++;
    } else if (
      next.code !== stored.code ||
      next.name !== stored.name ||
      next.start_date !== stored.start_date ||
      next.end_date !== stored.end_date
    ) {
      updates.push({ id: stored.id, ...next });
      report.updated++;
    } else {
      report.unchanged++;
    }
  }
  if (context.dryRun) return;
  if (creates.length > 0) {
    await q.query(
      `INSERT INTO terms (institution_id, code, name, start_date, end_date, created_at, updated_at)
       SELECT $1, r.code, r.name, r.start_date, r.end_date, $3, $3
       FROM jsonb_to_recordset($2::jsonb) AS r(code text, name text, start_date date, end_date date)
       ON CONFLICT DO NOTHING`,
      [institutionId, JSON.stringify(creates), context.now],
    );
  }
  if (updates.length > 0) {
    await q.query(
      `UPDATE terms t SET code = r.code, name = r.name, start_date = r.start_date, end_date = r.end_date,
              updated_at = $3
       FROM jsonb_to_recordset($2::jsonb) AS r(id uuid, code text, name text, start_date date, end_date date)
       WHERE t.id = r.id AND t.institution_id = $1`,
      [institutionId, JSON.stringify(updates), context.now],
    );
  }
};

// ---------------------------------------------------------------- units

interface StoredUnit {
  i: number;
  key: string;
  id: string | null;
  code: string | null;
  name: string | null;
  program_id: string | null;
  campus_id: string | null;
  /** The program and campus the row names, when found. */
  found_program_id: string | null;
  found_campus_id: string | null;
}

const units: SectionHandler = async (context, rows) => {
  const { q, institutionId, report } = context;
  const parsed = parseAll<UnitRow>(context, rows, parseUnit);
  if (parsed.length === 0) return;
  const byIndex = new Map(parsed.map((row) => [row.i, row.value]));
  const { rows: matched } = await q.query<StoredUnit>(
    `WITH names AS (${campusNamesSql})
     SELECT r.i, lower(r.code) AS key, u.id, u.code, u.name, u.program_id, u.campus_id,
            p.id AS found_program_id, c.id AS found_campus_id
     FROM jsonb_to_recordset($2::jsonb) AS r(i int, code text, program_code text, campus_name text)
     LEFT JOIN units u ON u.institution_id = $1 AND lower(u.code) = lower(r.code)
     LEFT JOIN programs p ON p.institution_id = $1 AND lower(p.code) = lower(r.program_code)
     LEFT JOIN names n ON n.key = lower(r.campus_name)
     LEFT JOIN campuses c ON c.id = n.id`,
    [
      institutionId,
      JSON.stringify(
        parsed.map(({ i, value }) => ({
          i,
          code: value.code,
          program_code: value.program_code ?? null,
          campus_name: value.campus_name ?? null,
        })),
      ),
    ],
  );
  const kept = firstOfEachKey(context, matched, (row) => `unit_code "${byIndex.get(row.i)!.code}"`);
  const creates: Record<string, unknown>[] = [];
  const updates: Record<string, unknown>[] = [];
  for (const stored of kept) {
    const incoming = byIndex.get(stored.i)!;
    let missing = false;
    if (incoming.program_code && !stored.found_program_id) {
      missing = true;
      context.reject(stored.i, {
        code: 'program_not_found',
        message: `no program with program_code "${incoming.program_code}"`,
        field: 'program_code',
      });
    }
    if (incoming.campus_name && !stored.found_campus_id) {
      missing = true;
      context.reject(stored.i, {
        code: 'campus_not_found',
        message: `no campus named "${incoming.campus_name}"`,
        field: 'campus_name',
      });
    }
    if (missing) continue;
    const link = (given: string | null | undefined, found: string | null, current: string | null) =>
      given === undefined ? current : given === null ? null : found;
    const next = {
      code: incoming.code,
      name: keep(incoming.name, stored.name),
      program_id: link(incoming.program_code, stored.found_program_id, stored.program_id),
      campus_id: link(incoming.campus_name, stored.found_campus_id, stored.campus_id),
    };
    if (!stored.id) {
      creates.push(next);
      report.created++;
    } else if (
      next.code !== stored.code ||
      next.name !== stored.name ||
      next.program_id !== stored.program_id ||
      next.campus_id !== stored.campus_id
    ) {
      updates.push({ id: stored.id, ...next });
      report.updated++;
    } else {
      report.unchanged++;
    }
  }
  if (context.dryRun) return;
  if (creates.length > 0) {
    await q.query(
      `INSERT INTO units (institution_id, code, name, program_id, campus_id, created_at, updated_at)
       SELECT $1, r.code, r.name, r.program_id, r.campus_id, $3, $3
       FROM jsonb_to_recordset($2::jsonb) AS r(code text, name text, program_id uuid, campus_id uuid)
       ON CONFLICT DO NOTHING`,
      [institutionId, JSON.stringify(creates), context.now],
    );
  }
  if (updates.length > 0) {
    await q.query(
      `UPDATE units u SET code = r.code, name = r.name, program_id = r.program_id, campus_id = r.campus_id,
              updated_at = $3
       FROM jsonb_to_recordset($2::jsonb) AS r(id uuid, code text, name text, program_id uuid, campus_id uuid)
       WHERE u.id = r.id AND u.institution_id = $1`,
      [institutionId, JSON.stringify(updates), context.now],
    );
  }
};

// ---------------------------------------------------------------- enrolments

interface ResolvedEnrolment {
  i: number;
  by_email: string | null;
  by_ext: string | null;
  unit_id: string | null;
  term_id: string | null;
  id: string | null;
  status: string | null;
}

const enrolments: SectionHandler = async (context, rows) => {
  const { q, institutionId, report } = context;
  const parsed = parseAll<EnrolmentRow>(context, rows, parseEnrolment);
  if (parsed.length === 0) return;
  const byIndex = new Map(parsed.map((row) => [row.i, row.value]));
  // One statement resolves every reference and finds the stored enrolment. The student is
  // matched by email first, then by student_id_ext, like the roster.
  const { rows: resolved } = await q.query<ResolvedEnrolment>(
    `SELECT r.i, se.id AS by_email, sx.id AS by_ext, u.id AS unit_id, t.id AS term_id, e.id, e.status
     FROM jsonb_to_recordset($2::jsonb) AS r(i int, email text, ext text, unit text, term text)
     LEFT JOIN students se ON se.institution_id = $1 AND lower(se.email) = lower(r.email)
     LEFT JOIN students sx ON sx.institution_id = $1 AND sx.student_id_ext = r.ext
     LEFT JOIN units u ON u.institution_id = $1 AND lower(u.code) = lower(r.unit)
     LEFT JOIN terms t ON t.institution_id = $1 AND lower(t.code) = lower(r.term)
     LEFT JOIN enrolments e ON e.student_id = coalesce(se.id, sx.id) AND e.unit_id = u.id AND e.term_id = t.id`,
    [
      institutionId,
      JSON.stringify(
        parsed.map(({ i, value }) => ({
          i,
          email: value.email ?? null,
          ext: value.student_id_ext ?? null,
          unit: value.unit_code,
          term: value.term_code,
        })),
      ),
    ],
  );
  const found: (ResolvedEnrolment & { key: string; student_id: string })[] = [];
  for (const row of resolved) {
    const incoming = byIndex.get(row.i)!;
    const student = describeStudent(incoming);
    let missing = false;
    if (row.by_email && row.by_ext && row.by_email !== row.by_ext) {
      missing = true;
      context.reject(row.i, {
        code: 'student_conflict',
        message: `email "${incoming.email}" and student_id_ext "${incoming.student_id_ext}" name two different students`,
        field: 'student_id_ext',
      });
    } else if (!row.by_email && !row.by_ext) {
      missing = true;
      context.reject(row.i, {
        code: 'student_not_found',
        message: `no student with ${student}`,
        field: incoming.email !== undefined ? 'email' : 'student_id_ext',
      });
    }
    if (!row.unit_id) {
      missing = true;
      context.reject(row.i, {
        code: 'unit_not_found',
        message: `no unit with unit_code "${incoming.unit_code}"`,
        field: 'unit_code',
      });
    }
    if (!row.term_id) {
      missing = true;
      context.reject(row.i, {
        code: 'term_not_found',
        message: `no term with term_code "${incoming.term_code}"${context.dryRun ? ' among the stored terms (a dry run does not see terms of the same request)' : ''}`,
        field: 'term_code',
      });
    }
    if (missing) continue;
    const studentId = (row.by_email ?? row.by_ext)!;
    found.push({ ...row, student_id: studentId, key: `${studentId}/${row.unit_id}/${row.term_id}` });
  }
  const kept = firstOfEachKey(context, found, (row) => {
    const incoming = byIndex.get(row.i)!;
    return `the enrolment of ${describeStudent(incoming)} in unit "${incoming.unit_code}", term "${incoming.term_code}"`;
  });
  const creates: Record<string, unknown>[] = [];
  const updates: Record<string, unknown>[] = [];
  for (const row of kept) {
    const incoming = byIndex.get(row.i)!;
    if (!row.id) {
      creates.push({
        student_id: row.student_id,
        unit_id: row.unit_id,
        term_id: row.term_id,
        status: incoming.status ?? 'enrolled',
      });
      report.created++;
    } else if (incoming.status !== undefined && incoming.status !== row.status) {
      updates.push({ id: row.id, status: incoming.status });
      report.updated++;
    } else {
      report.unchanged++;
    }
  }
  if (context.dryRun) return;
  if (creates.length > 0) {
    await q.query(
      `INSERT INTO enrolments (institution_id, student_id, unit_id, term_id, status, created_at, updated_at)
       SELECT $1, r.student_id, r.unit_id, r.term_id, r.status, $3, $3
       FROM jsonb_to_recordset($2::jsonb) AS r(student_id uuid, unit_id uuid, term_id uuid, status text)
       ON CONFLICT DO NOTHING`,
      [institutionId, JSON.stringify(creates), context.now],
    );
  }
  if (updates.length > 0) {
    await q.query(
      `UPDATE enrolments e SET status = r.status, updated_at = $3
       FROM jsonb_to_recordset($2::jsonb) AS r(id uuid, status text)
       WHERE e.id = r.id AND e.institution_id = $1`,
      [institutionId, JSON.stringify(updates), context.now],
    );
  }
};

function describeStudent(row: EnrolmentRow): string {
  const keys = [];
  if (row.email !== undefined) keys.push(`email "${row.email}"`);
  if (row.student_id_ext !== undefined) keys.push(`student_id_ext "${row.student_id_ext}"`);
  return keys.join(' or ');
}

const sectionHandlers: Record<SectionName, SectionHandler> = {
  programs,
  campuses,
  terms,
  units,
  enrolments,
};
