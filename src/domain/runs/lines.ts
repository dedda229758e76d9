// One numbering of a run's rows for people: the 1-based line of the file the row came from,
// when the client sent it (`lines` of a feed request: ssp push does), else the row's 1-based
// place in the request. A response's `row` stays the 0-based index in the page (the interface's
// rule); the run keeps both, and the console and the run's CSV show `line`.

/** A row's line: `lines[row]` when the client sent it, else `row + 1`. */
export function lineOf(row: number, lines: readonly number[] | undefined): number {
  const sent = lines?.[row];
  return sent !== undefined && Number.isInteger(sent) && sent > 0 ? sent : row + 1;
}

/** The row errors with their `line`. */
export function withLines<T extends { row: number }>(
  errors: readonly T[],
  lines: (error: T) => readonly number[] | undefined,
): (T & { line: number })[] {
  return errors.map((error) => ({ ...error, line: lineOf(error.row, lines(error)) }));
}

/** Warnings naming rows (0-based in the page) with the same rows as `lines`, the one numbering people see. */
export function warningsWithLines<T extends { rows: readonly number[] }>(
  warnings: readonly T[],
  lines: readonly number[] | undefined,
): (T & { lines: number[] })[] {
  return warnings.map((warning) => ({ ...warning, lines: warning.rows.map((row) => lineOf(row, lines)) }));
}
