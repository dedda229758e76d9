// Which columns each file may have, how another export's column names map onto ours, and how a
// CSV record becomes a feed row. Header problems are found once, before anything is sent, and
// all of them are reported together with a suggestion for each misspelt name.
import { CsvFileError } from './csv-source.ts';

export type FileKind = 'roster' | 'programs' | 'campuses' | 'terms' | 'units' | 'enrolments';

interface KindColumns {
  fields: string[];
  /** Each group needs at least one of its columns. */
  required: string[][];
}

export const COLUMNS: Record<FileKind, KindColumns> = {
  roster: {
    fields: [
      'email',
      'student_id_ext',
      'first_name',
      'last_name',
      'program_code',
      'campus_name',
      'campus_code',
      'first_in_family',
      'start_date',
    ],
    required: [['email'], ['student_id_ext']],
  },
  programs: {
    fields: ['program_code', 'name', 'coordinator_name', 'coordinator_title'],
    required: [['program_code']],
  },
  campuses: { fields: ['name', 'campus_name'], required: [['name', 'campus_name']] },
  terms: { fields: ['term_code', 'name', 'start_date', 'end_date'], required: [['term_code']] },
  units: {
    fields: ['unit_code', 'name', 'program_code', 'campus_name', 'campus_code'],
    required: [['unit_code']],
  },
  enrolments: {
    fields: ['email', 'student_id_ext', 'unit_code', 'term_code', 'status'],
    required: [['email', 'student_id_ext'], ['unit_code'], ['term_code']],
  },
};

/** Source column name (as in the file, compared case-insensitively) -> our field, or '' to ignore it. */
export type ColumnMap = Map<string, string>;

/**
 * Parses `--map` values: `"Source Name=our_field"`, several per value separated by commas
 * (a source name containing a comma goes in a --map-file instead), and a JSON map file.
 */
export function parseColumnMap(specs: string[], file?: Record<string, unknown>): ColumnMap {
  const map: ColumnMap = new Map();
  for (const [from, to] of Object.entries(file ?? {})) {
    if (typeof to !== 'string')
      throw new Error(`column map: the value of "${from}" must be a column name or ""`);
    map.set(normalise(from), to.trim());
  }
  for (const spec of specs) {
    for (const part of spec.split(',')) {
      if (!part.trim()) continue;
      const at = part.indexOf('=');
      if (at <= 0) throw new Error(`--map ${JSON.stringify(part)}: expected "Source column=our_column"`);
      map.set(normalise(part.slice(0, at)), part.slice(at + 1).trim());
    }
  }
  return map;
}

function normalise(name: string): string {
  return name.trim().toLowerCase();
}

/** Our name for a header cell: "Student ID Ext" and "student-id-ext" both read as student_id_ext. */
function canonical(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

export interface ResolvedHeader {
  /** For each CSV column, our field name or undefined (ignored). */
  fields: (string | undefined)[];
}

export function resolveHeader(
  file: string,
  kind: FileKind,
  header: string[],
  map: ColumnMap,
): ResolvedHeader {
  const { fields: known, required } = COLUMNS[kind];
  const problems: string[] = [];
  const fields: (string | undefined)[] = [];
  const seen = new Map<string, number>();
  const unknown: { name: string; column: number }[] = [];
  header.forEach((name, i) => {
    const mapped = map.get(normalise(name));
    let field: string | undefined;
    if (mapped !== undefined) {
      if (mapped === '' || mapped === '-') {
        fields.push(undefined);
        return;
      }
      if (!known.includes(mapped)) {
        problems.push(
          `column ${i + 1}: --map sends "${name}" to "${mapped}", which is not a ${kind} column` +
            suggestion(mapped, known),
        );
      } else field = mapped;
    } else if (known.includes(canonical(name))) {
      field = canonical(name);
    } else if (name === '') {
      problems.push(`column ${i + 1}: the header cell is empty (name it, or map it away with --map)`);
    } else {
      unknown.push({ name, column: i + 1 });
    }
    if (field !== undefined) {
      const before = seen.get(field);
      if (before !== undefined) {
        problems.push(`column ${i + 1}: "${name}" repeats ${field}, already column ${before}`);
        field = undefined;
      } else seen.set(field, i + 1);
    }
    fields.push(field);
  });
  for (const { name, column } of unknown) {
    const hint = suggestion(
      canonical(name),
      known.filter((k) => !seen.has(k)),
    );
    problems.push(
      `column ${column}: unknown column "${name}"${hint}; map it with --map "${name}=<column>", ` +
        `or ignore it with --map "${name}="`,
    );
  }
  for (const group of required) {
    if (group.some((f) => seen.has(f))) continue;
    const wanted = group.join('" or "');
    const close = unknown.find((u) => group.some((f) => distance(canonical(u.name), f) <= 2));
    problems.push(
      `missing column "${wanted}"` +
        (close ? ` (column ${close.column} "${close.name}" looks like a misspelling of it)` : ''),
    );
  }
  if (problems.length) {
    throw new CsvFileError(
      file,
      1,
      undefined,
      `the header does not fit a ${kind} file (expected columns: ${known.join(', ')}):\n  ${problems.join('\n  ')}`,
    );
  }
  return { fields };
}

function suggestion(name: string, candidates: string[]): string {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = distance(name, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best && bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? `: did you mean "${best}"?` : '';
}

/** Levenshtein distance (header names are short). */
export function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j] + 1,
        current[j - 1] + 1,
        previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length];
}

/**
 * A record as a feed row. Values are trimmed; an empty cell is left out of the row, which the
 * feeds read as "not sent" (a stored value is kept). A record whose field count differs from
 * the header's is a row problem, not a stop: the rest of the file still goes.
 */
export function toRow(
  header: ResolvedHeader,
  values: string[],
): { row: Record<string, string>; problem?: { column?: string; message: string } } {
  const row: Record<string, string> = {};
  if (values.length !== header.fields.length) {
    return {
      row,
      problem: {
        message:
          `${values.length} values but the header has ${header.fields.length} columns ` +
          '(an unquoted delimiter inside a value, or a missing one?)',
      },
    };
  }
  for (let i = 0; i < values.length; i++) {
    const field = header.fields[i];
    if (field === undefined) continue;
    const value = values[i].trim();
    if (value !== '') row[field] = value;
  }
  return { row };
}
