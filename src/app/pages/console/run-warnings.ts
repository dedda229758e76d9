// A run's warnings as sentences for people: which value matched nothing and the rows it
// affects, instead of the objects the feed answers with. Pure; the run page and its tests use it.

/** Rows listed in full before "and N more": a page can carry thousands. */
export const ROWS_LISTED = 20;

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

/** "row 4", "rows 4, 9, 12", "lines 1, 2, … and 30 more". */
export function rowList(rows: readonly number[], word: 'row' | 'line' = 'row'): string {
  const shown = rows.slice(0, ROWS_LISTED).join(', ');
  const more = rows.length - ROWS_LISTED;
  return `${plural(rows.length, word, `${word}s`)} ${shown}${more > 0 ? ` and ${more} more` : ''}`;
}

interface Warning {
  code?: unknown;
  field?: unknown;
  value?: unknown;
  rows?: unknown;
  /** The same rows in the run's one numbering (src/domain/runs/lines.ts); older runs lack it. */
  lines?: unknown;
  message?: unknown;
}

const what: Record<string, { noun: (field: string) => string; among: string; without: string }> = {
  unknown_program_code: {
    noun: () => 'program code',
    among: 'your programs',
    without: 'a program',
  },
  unknown_campus: {
    noun: (field) => (field === 'campus_code' ? 'campus code' : 'campus'),
    among: 'your campuses',
    without: 'a campus',
  },
};

/**
 * One warning as a sentence, e.g. "3 rows name program code XYZ, which is not in your programs:
 * rows 4, 9, 12. They imported without a program (a stored one is kept)." A warning of another
 * shape (an older run, a code this page does not know) falls back to its message, else its JSON.
 */
export function warningSentence(warning: unknown): string {
  if (typeof warning === 'string') return warning;
  const w = (typeof warning === 'object' && warning !== null ? warning : {}) as Warning;
  const kind = typeof w.code === 'string' ? what[w.code] : undefined;
  const ints = (v: unknown) => (Array.isArray(v) && v.every(Number.isInteger) ? (v as number[]) : undefined);
  const lines = ints(w.lines);
  const rows = lines ?? ints(w.rows);
  if (kind && rows && rows.length > 0 && typeof w.value === 'string') {
    const n = rows.length;
    return (
      `${n} ${plural(n, 'row names', 'rows name')} ${kind.noun(String(w.field))} ${w.value}, ` +
      `which is not in ${kind.among}: ${rowList(rows, lines ? 'line' : 'row')}. ` +
      `${plural(n, 'It', 'They')} imported without ${kind.without} (a stored one is kept).`
    );
  }
  if (typeof w.message === 'string') return w.message;
  return JSON.stringify(warning);
}
