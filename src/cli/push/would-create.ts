// A first push's dry run: the service checks each section against the data stored now and
// writes nothing (the interface's rule), so enrolments that name terms and units of the same
// push, and units that name its programs and campuses, are all rejected as not found. The
// client knows what the earlier sections of the push send, so it tells those rejections apart
// and reports them as one line per section ("1,997 enrolments refer to terms this push would
// create; push the calendar for real first") instead of one row error each.
//
// Only a dry run keeps these keys (a real push sends sections in order, so they exist by then),
// and only for the sections a later section of the same push can refer to.

import type { Section } from './model.ts';
import type { Page } from './pages.ts';

/** The keys each earlier section sends, lower-cased. */
export type PlannedKeys = Map<Section, Set<string>>;

/** What a "not found" row error refers to: the section, and the fields naming it in the row. */
const REFERENCES: Record<string, { section: Section; fields: string[] }> = {
  term_not_found: { section: 'terms', fields: ['term_code'] },
  unit_not_found: { section: 'units', fields: ['unit_code'] },
  program_not_found: { section: 'programs', fields: ['program_code'] },
  campus_not_found: { section: 'campuses', fields: ['campus_name', 'campus_code'] },
  student_not_found: { section: 'roster', fields: ['email', 'student_id_ext'] },
};

/** The fields whose values a section's rows are referred to by. */
const KEYS: Partial<Record<Section, string[]>> = {
  terms: ['term_code'],
  units: ['unit_code'],
  programs: ['program_code'],
  campuses: ['name', 'campus_name'],
  roster: ['email', 'student_id_ext'],
};

/** Sections a later section of the push may refer to. */
const REFERRED_BY: Partial<Record<Section, Section[]>> = {
  programs: ['units'],
  campuses: ['units'],
  terms: ['enrolments'],
  units: ['enrolments'],
  roster: ['enrolments'],
};

/** The planned keys of a dry run of these sections (undefined when none can refer to another). */
export function plannedKeysFor(sections: Section[]): PlannedKeys | undefined {
  const planned: PlannedKeys = new Map();
  sections.forEach((section, i) => {
    const later = sections.slice(i + 1);
    if (REFERRED_BY[section]?.some((s) => later.includes(s))) planned.set(section, new Set());
  });
  return planned.size ? planned : undefined;
}

const key = (value: unknown) => (typeof value === 'string' ? value.trim().toLowerCase() : undefined);

/** Remembers the keys of a page about to be sent, when a later section may refer to them. */
export function rememberPlanned(planned: PlannedKeys, section: Section, page: Page): void {
  const into = planned.get(section);
  const fields = KEYS[section];
  if (!into || !fields) return;
  for (const row of rowsOf(page)) {
    for (const field of fields) {
      const k = key(row?.[field]);
      if (k) into.add(`${field === 'campus_name' ? 'name' : field}:${k}`);
    }
  }
}

function rowsOf(page: Page): (Record<string, unknown> | undefined)[] {
  return JSON.parse(page.json.toString('utf8'));
}

/** Whether a row error of a dry run is only a reference to a row this push would create. */
function explains(
  planned: PlannedKeys,
  rows: (Record<string, unknown> | undefined)[],
  error: { row?: unknown; code?: unknown },
): boolean {
  const reference = typeof error.code === 'string' ? REFERENCES[error.code] : undefined;
  const keys = reference && planned.get(reference.section);
  const row = typeof error.row === 'number' ? rows[error.row] : undefined;
  if (!keys || !row) return false;
  return reference.fields.some((field) => {
    const k = key(row[field]);
    const as = field === 'campus_name' || field === 'campus_code' ? 'name' : field;
    return k !== undefined && keys.has(`${as}:${k}`);
  });
}

export const plannedReference = { rowsOf, explains };

/** The report's line for `count` rows of `section` rejected with `code` in a dry run. */
export function deferredLine(section: Section, code: string, count: number): string {
  const referred = REFERENCES[code]?.section;
  const things: Partial<Record<Section, string>> = {
    terms: 'terms',
    units: 'units',
    programs: 'programs',
    campuses: 'campuses',
    roster: 'students',
  };
  const first =
    referred === 'terms' || referred === 'units'
      ? 'the calendar (terms and units)'
      : referred === 'roster'
        ? 'the roster'
        : 'the taxonomy (programs and campuses)';
  const rows = count === 1 ? section.replace(/s$/, '') : section;
  return (
    `${count.toLocaleString('en')} ${rows} ${count === 1 ? 'refers' : 'refer'} to ${things[referred!] ?? referred} ` +
    `this push would create; push ${first} for real first (a dry run writes nothing, so it cannot see them)`
  );
}
