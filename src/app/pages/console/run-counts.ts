// A run's counts as people read them: what it created, updated and left unchanged, whatever its
// kind keeps (a roster run's top-level numbers, an enrolments push's report per section, a
// OneRoster pull's totals and sections), and a table per section for its page. The stored JSON
// is never shown as such.

const num = (value: unknown) => (typeof value === 'number' ? value : 0);
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Sections of a report, in the order a push applies them; any other after. */
const sectionOrder = ['programs', 'campuses', 'terms', 'units', 'students', 'enrolments'];
/** Columns of a section's report, in reading order. */
const columnOrder = ['received', 'created', 'updated', 'unchanged', 'rejected', 'imported'];

export interface RunTotals {
  created: number;
  /** Records changed; identical rows are not updates. */
  updated: number;
  /** Rows identical to what was stored, when the run knows. */
  unchanged?: number;
}

/** Section reports of the counts: objects of numbers holding at least `created` or `updated`. */
function sectionsOf(counts: Record<string, unknown>): [string, Record<string, unknown>][] {
  return Object.entries(counts)
    .filter(
      (entry): entry is [string, Record<string, unknown>] =>
        isRecord(entry[1]) && ('created' in entry[1] || 'updated' in entry[1]),
    )
    .sort(([a], [b]) => rank(a, sectionOrder) - rank(b, sectionOrder));
}

const rank = (key: string, order: readonly string[]) => {
  const i = order.indexOf(key);
  return i === -1 ? order.length : i;
};

/**
 * What a run created and updated: its top-level numbers when it has them (a roster run's
 * `updated` includes the identical rows it also counts as `unchanged`), else its sections' sums.
 * The same reading as the daily sums' SQL (src/domain/runs/queries.ts).
 */
export function runTotals(counts: Record<string, unknown>): RunTotals {
  // A roster dry run: what it would have done (its created and updated are 0).
  if (typeof counts.would_create === 'number') {
    return { created: counts.would_create, updated: num(counts.would_update) };
  }
  if (typeof counts.created === 'number' || typeof counts.updated === 'number') {
    const unchanged = typeof counts.unchanged === 'number' ? counts.unchanged : undefined;
    return {
      created: num(counts.created),
      updated: num(counts.updated) - (unchanged ?? 0),
      ...(unchanged === undefined ? {} : { unchanged }),
    };
  }
  const sections = sectionsOf(counts).map(([, report]) => report);
  const sum = (key: string) => sections.reduce((total, report) => total + num(report[key]), 0);
  return {
    created: sum('created'),
    updated: sum('updated'),
    ...(sections.some((r) => 'unchanged' in r) ? { unchanged: sum('unchanged') } : {}),
  };
}

export interface CountTable {
  caption: string;
  columns: string[];
  rows: { name: string; cells: number[] }[];
}

export interface CountsView {
  /** One table: a row per section (a roster run: one row, its students). */
  table?: CountTable;
  /** Other facts the run keeps, in words: "Mode: full". */
  facts: { label: string; value: string }[];
}

const words = (key: string) => {
  const text = key.replaceAll('_', ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
};

/** A fact's value in words: a number, a text, or an object's entries ("students: 12, terms: 2"). */
function factValue(value: unknown): string {
  if (isRecord(value)) {
    return Object.entries(value)
      .map(
        ([k, v]) =>
          `${k.replaceAll('_', ' ')}: ${isRecord(v) || Array.isArray(v) ? factValue(v) : String(v)}`,
      )
      .join(', ');
  }
  if (Array.isArray(value)) return value.map(factValue).join(', ');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value ?? '');
}

/**
 * The counts of a run's page: a table with a row per section and a column per count (a roster
 * run: its students, updated without the unchanged ones), and the other things it keeps as facts.
 * `skip` names keys shown elsewhere on the page (a full sync's report).
 */
export function countsView(counts: Record<string, unknown>, skip: readonly string[] = []): CountsView {
  const sections = sectionsOf(counts);
  const rosterLike =
    sections.length === 0 && (typeof counts.created === 'number' || typeof counts.updated === 'number');
  const reports: [string, Record<string, unknown>][] = rosterLike
    ? [['students', { ...counts, ...runTotals(counts) }]]
    : sections;
  const found = new Set(reports.flatMap(([, r]) => Object.keys(r).filter((k) => typeof r[k] === 'number')));
  const columns = columnOrder.filter((c) => found.has(c) && !(rosterLike && c === 'imported'));
  const inTable = new Set([
    ...sections.map(([name]) => name),
    ...(rosterLike || sections.length ? ['created', 'updated', 'unchanged', 'imported'] : []),
    ...(rosterLike ? ['would_create', 'would_update'] : []),
    ...skip,
  ]);
  const facts = Object.entries(counts)
    .filter(([key]) => !inTable.has(key))
    .map(([key, value]) => ({ label: words(key), value: factValue(value) }));
  if (!reports.length) return { facts };
  return {
    table: {
      caption: rosterLike ? 'Students' : 'Sections',
      columns: columns.map(words),
      rows: reports.map(([name, r]) => ({ name: words(name), cells: columns.map((c) => num(r[c])) })),
    },
    facts,
  };
}
