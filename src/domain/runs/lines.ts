// One numbering of a run's rows for people: the 1-based line of the file the row came from,
// when the client sent it (`lines` of a feed request: ssp push does), else the row's 1-based
// place in the request. A response's `row` stays the 0-based index in the page (the interface's
// rule); the run keeps both, and the console and the run's CSV show `line`.

/** The row errors with their `line`: `lines[row]` when the client sent it, else `row + 1`. */
export function withLines<T extends { row: number }>(
  errors: readonly T[],
  lines: (error: T) => readonly number[] | undefined,
): (T & { line: number })[] {
  return errors.map((error) => {
    const sent = lines(error)?.[error.row];
    return { ...error, line: Number.isInteger(sent) && sent! > 0 ? sent! : error.row + 1 };
  });
}
