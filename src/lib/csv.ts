// CSV as RFC 4180 writes it (CRLF line ends; a field holding a comma, a quote or a line break
// quoted, with its quotes doubled), made safe to open in a spreadsheet: a cell whose text
// starts with =, +, -, @, a tab or a carriage return would be read as a formula (CSV
// injection, see OWASP), so it is prefixed with a single quote and shown as text.

const formulaStart = /^[=+\-@\t\r]/;
const needsQuotes = /[",\r\n]/;

/** One cell: null and undefined are empty, dates ISO 8601, everything else its string form. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = value instanceof Date ? value.toISOString() : String(value);
  if (formulaStart.test(text)) text = `'${text}`;
  return needsQuotes.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, with its line end. */
export function csvRow(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
