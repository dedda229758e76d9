// Options and files shared by the push commands: the common options, a CSV file as a job,
// and the push options (resume key, page size, retries) from the command line.
import fs from 'node:fs';
import type { Command } from 'commander';
import { EXIT } from '../exit-codes.ts';
import { type ColumnMap, type FileKind, parseColumnMap, resolveHeader, toRow } from './columns.ts';
import { type CsvReadOptions, type Encoding, type FileSource, openCsv } from './csv-source.ts';
import type { Item } from './pages.ts';
import type { Progress } from './progress.ts';
import type { PushIo, PushJob, PushOptions } from './run.ts';
import { PushStopped } from './send.ts';
import { pushKey } from './state.ts';

export const collect = (value: string, previous: string[]) => [...previous, value];
export const list = (value: string) =>
  value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

export interface CommonOptions {
  secret?: string;
  dryRun?: boolean;
  errors: string;
  state: string;
  restart?: boolean;
  pageSize?: string;
  encoding: string;
  delimiter?: string;
  retries: string;
  map: string[];
  mapFile?: string;
  fullSync?: boolean;
  syncId?: string;
}

export function common(command: Command): Command {
  return command
    .option(
      '--secret <secret>',
      'feed secret (default: $SSP_ROSTER_SECRET; prefer the variable: arguments show in process lists)',
    )
    .option('--dry-run', 'validate and match everything, write nothing; print what would happen')
    .option(
      '--errors <file>',
      'CSV of rejected rows (file, line, section, column, code, message, email, student_id_ext, student)',
      'ssp-push-errors.csv',
    )
    .option('--state <file>', 'resume state: pages answered so far', '.ssp-push-state.json')
    .option('--restart', 'ignore the resume state and push from the start')
    .option('--page-size <n>', 'rows per request (at most the feed limit: 5000 students)')
    .option('--encoding <encoding>', 'auto (UTF-8, or UTF-16 with a byte-order mark), utf8 or latin1', 'auto')
    .option(
      '--delimiter <char>',
      'column separator (default: detected from the header: comma, semicolon or tab)',
    )
    .option('--retries <n>', 'attempts per page on 429, 5xx and network errors', '6')
    .option(
      '--map <source=column>',
      'map a source column onto ours, e.g. "Student Number=student_id_ext" (repeatable; "Notes=" ignores a column)',
      collect,
      [],
    )
    .option('--map-file <file.json>', 'column map as JSON: {"Source column": "our_column"}');
}

export function sourceOf(path: string): FileSource {
  const stat = fs.statSync(path, { throwIfNoEntry: false });
  if (!stat?.isFile()) throw new PushStopped(`${path}: no such file`);
  return {
    name: path,
    size: stat.size,
    // 16 KB chunks: the records of a chunk are parsed and handed on together (csv-source.ts),
    // so the chunk's size is how many row objects are alive at once (about 250, not 1000).
    open: async () => fs.createReadStream(path, { highWaterMark: 16 * 1024 }),
  };
}

export function csvOptions(o: CommonOptions, progress: Progress): CsvReadOptions {
  if (!['auto', 'utf8', 'latin1'].includes(o.encoding)) {
    throw new PushStopped(`--encoding ${o.encoding}: expected auto, utf8 or latin1`, EXIT.usage);
  }
  if (o.delimiter !== undefined && [...o.delimiter].length !== 1 && o.delimiter !== '\\t') {
    throw new PushStopped('--delimiter takes one character', EXIT.usage);
  }
  return {
    encoding: o.encoding as Encoding,
    delimiter: o.delimiter === '\\t' ? '\t' : o.delimiter,
    notice: (m) => progress.note(m),
    onBytes: (n) => progress.bytes(n),
  };
}

export function columnMap(o: CommonOptions): ColumnMap {
  try {
    const file = o.mapFile ? JSON.parse(fs.readFileSync(o.mapFile, 'utf8')) : undefined;
    return parseColumnMap(o.map, file);
  } catch (error) {
    throw new PushStopped((error as Error).message, EXIT.usage);
  }
}

/** Opens a CSV file of our columns, checks its header, and returns its job. */
export async function csvJob(
  path: string,
  kind: FileKind,
  o: CommonOptions,
  progress: Progress,
  job: Omit<PushJob, 'items' | 'file' | 'size'>,
): Promise<PushJob> {
  const source = sourceOf(path);
  const file = await openCsv(source, csvOptions(o, progress));
  const header = resolveHeader(source.name, kind, file.header, columnMap(o));
  return {
    ...job,
    file: source.name,
    size: source.size,
    items: () =>
      (async function* (): AsyncGenerator<Item[]> {
        for await (const records of file.records) {
          yield records.map(({ line, values }): Item => {
            const origin = { file: source.name, line };
            const { row, problem } = toRow(header, values);
            return problem ? { origin, problem: { code: 'bad_record', ...problem } } : { origin, row };
          });
        }
      })(),
  };
}

export function optionsOf(
  program: Command,
  io: PushIo,
  o: CommonOptions,
  key: Record<string, unknown>,
  files: string[],
): PushOptions {
  const pageSize = o.pageSize === undefined ? undefined : Number(o.pageSize);
  if (pageSize !== undefined && !(Number.isInteger(pageSize) && pageSize > 0)) {
    throw new PushStopped('--page-size takes a positive whole number', EXIT.usage);
  }
  const attempts = Number(o.retries);
  return {
    url: program.opts().url as string,
    secret: o.secret ?? io.env.SSP_ROSTER_SECRET,
    dryRun: o.dryRun === true,
    errorsPath: o.errors,
    statePath: o.state,
    restart: o.restart === true,
    pageSize,
    attempts: Number.isInteger(attempts) && attempts > 0 ? attempts : 6,
    key: pushKey({ ...key, url: program.opts().url, pageSize, map: o.map, mapFile: o.mapFile }, files),
    io,
    json: program.opts().json === true,
  };
}
