// Reading the files of a OneRoster bundle: the columns each must have, header checks before
// anything is sent, and records as objects keyed by lower-cased column name.
import {
  COLLECTIONS,
  type Collection,
  REQUIRED,
  type Rec,
  type RecordSource,
} from '../../domain/oneroster/records.ts';
import { distance } from './columns.ts';
import { CsvFileError, type CsvReadOptions, type FileSource, openCsv } from './csv-source.ts';

export { COLLECTIONS as FILES, type Collection as OneRosterFile, REQUIRED };

/** A file of the bundle as the mapping's record source (src/domain/oneroster). */
export function recordSource(source: FileSource, required: string[], csv: CsvReadOptions): RecordSource {
  return async function* () {
    for await (const { line, rec } of records(source, required, csv))
      yield { origin: { file: source.name, line }, rec };
  };
}

export async function headerOf(source: FileSource, csv: CsvReadOptions): Promise<string[]> {
  const file = await openCsv(source, { ...csv, onBytes: undefined, notice: undefined });
  file.close();
  return file.header.map((h) => h.toLowerCase());
}

export async function checkHeader(
  source: FileSource,
  required: string[],
  csv: CsvReadOptions,
): Promise<void> {
  const header = await headerOf(source, csv);
  const problems: string[] = [];
  for (const name of required) {
    if (header.includes(name.toLowerCase())) continue;
    const close = header.find((h) => distance(h, name.toLowerCase()) <= 2);
    problems.push(`missing column "${name}"${close ? ` (is "${close}" a misspelling of it?)` : ''}`);
  }
  if (problems.length) throw new CsvFileError(source.name, 1, undefined, problems.join('; '));
}

/** The records of a OneRoster file as objects keyed by lower-cased column name. */
export async function* records(
  source: FileSource,
  required: string[],
  csv: CsvReadOptions,
): AsyncGenerator<{ line: number; rec: Rec }> {
  const file = await openCsv(source, csv);
  const header = file.header.map((h) => h.toLowerCase());
  for (const name of required) {
    if (!header.includes(name.toLowerCase())) {
      throw new CsvFileError(source.name, 1, undefined, `missing column "${name}"`);
    }
  }
  for await (const batch of file.records) {
    for (const { line, values } of batch) {
      if (values.length !== header.length) {
        throw new CsvFileError(
          source.name,
          line,
          undefined,
          `${values.length} values but the header has ${header.length} columns`,
        );
      }
      const rec: Rec = {};
      for (let i = 0; i < header.length; i++) rec[header[i]] = values[i].trim();
      yield { line, rec };
    }
  }
}
