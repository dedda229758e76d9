// The taxonomy and enrolment feed (POST /api/sis/enrolments): sections are applied in
// dependency order in one transaction. Each section costs a fixed number of queries however
// many rows it has: one to match the rows against what is stored, one to insert the new
// rows, one to update the changed ones (rows travel as one JSON parameter).
//
// A dry run runs the same reading and classification in a READ ONLY transaction and skips
// the writes, so it cannot write anything. Each section of a dry run is checked against
// what is stored, never against another section of the same request (spec 4.2 rule 3).

import type { Db, Queryable } from '../../db/db.ts';
import { ApiError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import {
  type CampusRow,
  type Parsed,
  type ProgramRow,
  parseCampus,
  parseProgram,
  type RowProblem,
} from './rows.ts';

/** Every section of the endpoint, in the order a real run applies them. */
export const sectionOrder = ['programs', 'campuses', 'terms', 'units', 'enrolments'] as const;
export type SectionName = (typeof sectionOrder)[number];

/** The sections this version applies; the others are refused with section_not_supported. */
export const supportedSections: readonly SectionName[] = ['programs', 'campuses'];

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

/** Serialises pushes into one institution, so the read-then-write of a section is consistent. */
const PUSH_LOCK_CLASS = 727_274_003;

export function createTaxonomyService(db: Db, clock: Clock) {
  return {
    /**
     * Checks the request-level limits of a push: the sections present must be supported and
     * within their row limits. Throws section_not_supported (422) or batch_too_large (413).
     */
    checkLimits(body: PushBody): void {
      for (const section of sectionOrder) {
        const rows = body[section];
        if (rows === undefined) continue;
        if (!supportedSections.includes(section)) {
          throw new ApiError('section_not_supported', {
            field: section,
            detail: `the ${section} section is not accepted by this version of the endpoint yet; send programs and campuses only`,
          });
        }
        if (rows.length > sectionLimits[section]) {
          throw new ApiError('batch_too_large', {
            max: sectionLimits[section],
            field: section,
            detail: `at most ${sectionLimits[section]} ${section} per request (got ${rows.length}); split the push`,
          });
        }
      }
    },

    /** Applies (or, with dryRun, evaluates) every section present, in dependency order. */
    async push(
      institution: { id: string; slug: string },
      body: PushBody,
      options: { dryRun: boolean },
    ): Promise<PushResult> {
      this.checkLimits(body);
      const result: PushResult = {
        institution: institution.slug,
        dry_run: options.dryRun,
        sections: {},
        errors: [],
      };
      const now = clock.now();
      await db.transaction(async (q) => {
        if (options.dryRun) await q.query('SET TRANSACTION READ ONLY');
        else
          await q.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [PUSH_LOCK_CLASS, institution.id]);
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
  };
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
}

const campuses: SectionHandler = async (context, rows) => {
  const { q, institutionId, report } = context;
  const parsed = parseAll<CampusRow>(context, rows, parseCampus);
  if (parsed.length === 0) return;
  const byIndex = new Map(parsed.map((row) => [row.i, row.value]));
  const { rows: matched } = await q.query<StoredCampus>(
    `SELECT r.i, lower(r.name) AS key, c.id, c.name
     FROM jsonb_to_recordset($2::jsonb) AS r(i int, name text)
     LEFT JOIN campuses c ON c.institution_id = $1 AND lower(c.name) = lower(r.name)`,
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
    } else if (name !== stored.name) {
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

const notSupported: SectionHandler = async () => {
  throw new ApiError('section_not_supported');
};

const sectionHandlers: Record<SectionName, SectionHandler> = {
  programs,
  campuses,
  terms: notSupported,
  units: notSupported,
  enrolments: notSupported,
};
