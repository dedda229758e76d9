// A pull's mapped data applied through the same domain paths as the feeds: the taxonomy's
// push for programs, campuses, terms, units and enrolments, the roster sync for students,
// in the feeds' page sizes and dependency order. A full pull's roster is a full sync (one
// sync id, the final page last): students it does not name depart, or are held above the
// departure threshold. Every row error names the OneRoster record (collection and sourcedId).
import { randomUUID } from 'node:crypto';
import { type RosterSyncDeps, syncRoster } from '../../roster/sync.ts';
import {
  type PushResult,
  pushTaxonomy,
  type SectionName,
  type SectionReport,
  sectionLimits,
} from '../../taxonomy/push.ts';
import type { MappedOneRoster } from '../plan.ts';
import type { Mapped, Origin } from '../records.ts';

export interface PullError {
  collection: string;
  sourcedId: string | null;
  /** Position of the record in its collection as the provider listed it (1-based). */
  position: number;
  section: string;
  code: string;
  message: string;
  field?: string;
}

export interface Applied {
  sections: Partial<Record<SectionName | 'roster', SectionReport>>;
  errors: PullError[];
  full_sync?: unknown;
  notes: string[];
}

/** The feeds' own dependencies: the database, the clock and the departure threshold. */
export type ApplyDeps = RosterSyncDeps;

const ROSTER_PAGE = 5000;

function pullError(
  origin: Origin,
  section: string,
  problem: { code: string; message: string; field?: string },
): PullError {
  return {
    collection: origin.file,
    sourcedId: origin.sourcedId ?? null,
    position: origin.line,
    section,
    code: problem.code,
    message: problem.message,
    ...(problem.field ? { field: problem.field } : {}),
  };
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const emptyReport = (): SectionReport => ({ received: 0, created: 0, updated: 0, unchanged: 0, rejected: 0 });

export async function applyMapped(
  deps: ApplyDeps,
  institution: { id: string; slug: string },
  cohortId: string,
  mapped: MappedOneRoster,
  options: { full: boolean },
): Promise<Applied> {
  const applied: Applied = { sections: {}, errors: [], notes: [] };
  const split = (items: Mapped[], section: string) => {
    const rows: Mapped[] = [];
    for (const item of items) {
      if (item.problem) applied.errors.push(pullError(item.origin, section, item.problem));
      else rows.push(item);
    }
    return rows;
  };
  const addReport = (section: SectionName | 'roster', report: Partial<SectionReport>) => {
    const total = applied.sections[section] ?? emptyReport();
    applied.sections[section] = total;
    for (const key of Object.keys(total) as (keyof SectionReport)[]) total[key] += report[key] ?? 0;
  };

  const taxonomySection = async (section: SectionName, items: Mapped[]) => {
    const rows = split(items, section);
    for (const page of chunks(rows, sectionLimits[section])) {
      const result: PushResult = await pushTaxonomy(
        deps,
        institution,
        { [section]: page.map((item) => item.row) },
        { dryRun: false, credential: 'oneroster_source', unrecorded: true },
      );
      addReport(section, result.sections[section] ?? {});
      for (const e of result.errors) applied.errors.push(pullError(page[e.row].origin, section, e));
    }
  };

  await taxonomySection('programs', mapped.programs);
  await taxonomySection('campuses', mapped.campuses);
  await taxonomySection('terms', mapped.terms);
  await taxonomySection('units', mapped.units);

  // The roster: the whole cohort held (a full sync must know its final page). A full pull's
  // roster ends with the rows naming students without an email (they stay: namingRows()).
  const roster: Mapped[] = [];
  for await (const item of mapped.users(cohortId, { fullSync: options.full })) roster.push(item);
  const rows = split(roster, 'roster');
  const importable = rows.filter((item) => !item.namesOnly).length;
  if (options.full && importable === 0) {
    applied.notes.push(
      'the provider listed no students: no departures were made (a full sync of nobody is refused)',
    );
  }
  const syncId = `oneroster-pull-${randomUUID()}`;
  const pages = importable ? chunks(rows, ROSTER_PAGE) : [];
  for (const [n, page] of pages.entries()) {
    const result = await syncRoster(deps, {
      institutionId: institution.id,
      cohortId,
      students: page.map((item) => item.row),
      dryRun: false,
      credential: 'oneroster_source',
      unrecorded: true,
      fullSync: options.full ? { syncId, finalPage: n === pages.length - 1 } : undefined,
    });
    // A naming row's rejection (no email) is expected: the no_email finding reported it.
    const errors = result.errors.filter((e) => !page[e.row].namesOnly);
    const naming = page.filter((item) => item.namesOnly).length;
    addReport('roster', {
      received: result.received - naming,
      created: result.created,
      updated: result.updated,
    });
    addReport('roster', { rejected: errors.length });
    for (const e of errors) applied.errors.push(pullError(page[e.row].origin, 'roster', e));
    if (result.full_sync) applied.full_sync = result.full_sync;
  }

  const enrolments: Mapped[] = [];
  for await (const item of mapped.enrolments()) enrolments.push(item);
  await taxonomySection('enrolments', enrolments);
  applied.notes.push(...mapped.notes());
  return applied;
}
