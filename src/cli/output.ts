// What the CLI prints: JSON when asked (--json) or when stdout is not a terminal (a pipe, a
// file: scripts get the API's own body), and for people at a terminal, tables: a listing's
// rows one per line with the cursor of the next page under them, an object as field/value.

/** Widest cell of a table; longer values are cut with an ellipsis (use --json for all of it). */
const MAX_CELL = 48;

export function createPrinter(
  options: () => { json?: boolean },
  stream: NodeJS.WriteStream = process.stdout,
) {
  /** `human` reshapes the body for the table (a listing's columns); JSON is the body as sent. */
  return (value: unknown, human?: (value: unknown) => unknown) => {
    const json = options().json || !stream.isTTY;
    stream.write(json ? `${JSON.stringify(value, null, 2)}\n` : render(human ? human(value) : value));
  };
}

/** The human form of an API body. */
export function render(value: unknown): string {
  if (Array.isArray(value)) return table(value);
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    if (Array.isArray(record.items) && 'next_cursor' in record) {
      const next = record.next_cursor ? `next page: --cursor ${record.next_cursor}\n` : '';
      return `${table(record.items)}${next}`;
    }
    return table(Object.entries(record).map(([field, v]) => ({ field, value: v })));
  }
  return `${cell(value)}\n`;
}

function table(rows: unknown[]): string {
  if (rows.length === 0) return '(none)\n';
  const records = rows.map((row) =>
    row && typeof row === 'object' && !Array.isArray(row) ? (row as Record<string, unknown>) : { value: row },
  );
  const columns = [...new Set(records.flatMap((r) => Object.keys(r)))];
  const cells = records.map((r) => columns.map((c) => cell(r[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i].length)));
  const line = (values: string[]) =>
    `${values
      .map((v, i) => v.padEnd(widths[i]))
      .join('  ')
      .trimEnd()}\n`;
  return line(columns) + line(widths.map((w) => '-'.repeat(w))) + cells.map(line).join('');
}

function cell(value: unknown): string {
  const text =
    value === null || value === undefined
      ? ''
      : typeof value === 'object'
        ? JSON.stringify(value)
        : String(value).replace(/\s+/g, ' ');
  return text.length > MAX_CELL ? `${text.slice(0, MAX_CELL - 1)}…` : text;
}
