// The taxonomy and enrolment feed (POST /api/sis/enrolments): sections are applied in
// dependency order in one transaction. Each section costs a fixed number of queries however
// many rows it has: one to match the rows against what is stored, one to insert the new
// rows, one to update the changed ones (rows travel as one JSON parameter).
//
// A push that wrote a large share of a table refreshes its planner statistics once committed
// (src/db/statistics.ts): otherwise the next pages are planned against counts from before.
//
// A dry run runs the same reading and classification in a READ ONLY transaction and skips
// the writes, so it cannot write anything. Each section of a dry run is checked against
// what is stored, never against another section of the same request (spec 4.2 rule 3).

import type { Queryable } from '../../db/db.ts';
import { InstitutionLock, lockInstitution } from '../../db/locks.ts';
import { refreshStatistics } from '../../db/statistics.ts';
import type { Deps } from '../deps.ts';
import { checkBatchSize } from '../feeds/batch-limits.ts';
import { withLines } from '../runs/lines.ts';
import { type RunCredential, recordRun } from '../runs/runs.ts';
import {
  type PushBody,
  type PushResult,
  type RowError,
  type SectionContext,
  type SectionHandler,
  type SectionName,
  type SectionReport,
  sectionLimits,
  sectionOrder,
} from './section.ts';
import { campuses } from './sections/campuses.ts';
import { enrolments } from './sections/enrolments.ts';
import { programs } from './sections/programs.ts';
import { terms } from './sections/terms.ts';
import { units } from './sections/units.ts';
import { setReadOnly } from './sql/write.ts';

export {
  type PushBody,
  type PushResult,
  type RowError,
  type SectionName,
  type SectionReport,
  sectionLimits,
  sectionOrder,
};

export function checkLimits(body: PushBody): void {
  for (const section of sectionOrder) {
    const rows = body[section];
    if (rows === undefined) continue;
    checkBatchSize('enrolments', section, rows);
  }
}

/**
 * Applies (or, with dryRun, evaluates) every section present, in dependency order, and records
 * the push in the run history: inside the push's transaction, or after the READ ONLY transaction
 * of a dry run (which writes nothing else).
 */
export async function pushTaxonomy(
  deps: Pick<Deps, 'db' | 'clock'>,
  institution: { id: string; slug: string },
  body: PushBody,
  options: {
    dryRun: boolean;
    credential: RunCredential;
    /** The caller records the run itself (a OneRoster pull). */
    unrecorded?: boolean;
    /** Each section's rows' file lines, when the client knows them (runs/lines.ts). */
    lines?: Partial<Record<SectionName, readonly number[]>>;
  },
): Promise<PushResult & { run_id: string }> {
  checkLimits(body);
  const result: PushResult = {
    institution: institution.slug,
    dry_run: options.dryRun,
    sections: {},
    errors: [],
  };
  const now = deps.clock.now();
  const record = (q: Queryable) =>
    recordRun(q, {
      institutionId: institution.id,
      kind: 'enrolments',
      credential: options.credential,
      sections: Object.keys(body),
      dryRun: options.dryRun,
      received: Object.values(body).reduce((sum, rows) => sum + (rows?.length ?? 0), 0),
      counts: result.sections,
      errors: withLines(result.errors, (e) => options.lines?.[e.section]),
      startedAt: now,
      finishedAt: deps.clock.now(),
    });
  const runId = await deps.db.transaction(async (q) => {
    if (options.dryRun) await setReadOnly(q);
    // Pushes into one institution run one at a time, so a section's read-then-write is consistent.
    else await lockInstitution(q, institution.id, InstitutionLock.taxonomy);
    await applySections(q, { institutionId: institution.id, now, dryRun: options.dryRun }, body, result);
    return options.dryRun || options.unrecorded ? undefined : record(q);
  });
  if (!options.dryRun) {
    // A push that wrote a large share of a table: the next pushes' plans need to know.
    const written = (section: SectionName) =>
      (result.sections[section]?.created ?? 0) + (result.sections[section]?.updated ?? 0);
    await refreshStatistics(
      deps.db,
      institution.id,
      Object.fromEntries(sectionOrder.map((s) => [s, written(s)])) as Record<SectionName, number>,
    );
  }
  return { run_id: runId ?? (options.unrecorded ? '' : await record(deps.db)), ...result };
}

/** Runs each section present, in dependency order, adding its report and row errors to `result`. */
async function applySections(
  q: Queryable,
  push: { institutionId: string; now: Date; dryRun: boolean },
  body: PushBody,
  result: PushResult,
): Promise<void> {
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
      institutionId: push.institutionId,
      now: push.now,
      dryRun: push.dryRun,
      report,
      reject(row, problem, keys) {
        sectionErrors.push({ section, row, ...keys, ...problem });
        rejected.add(row);
      },
    };
    await sectionHandlers[section](context, rows);
    report.rejected = rejected.size;
    // Errors in row order (a stable sort keeps several errors of one row in their order).
    result.errors.push(...sectionErrors.sort((a, b) => a.row - b.row));
  }
}

const sectionHandlers: Record<SectionName, SectionHandler> = {
  programs,
  campuses,
  terms,
  units,
  enrolments,
};
