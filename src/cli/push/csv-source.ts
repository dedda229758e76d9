// Reading one CSV file as a stream of records, each with the line it starts on. Bytes are
// decoded here (UTF-8 by default, its byte-order mark skipped; UTF-16 when a UTF-16 mark says
// so; Latin-1 only when asked, because guessing it silently would store mojibake), the
// delimiter is detected from the header line, and csv-parse does the CSV itself. Memory is a
// few chunks whatever the file's size. Any problem that stops the file is a CsvFileError
// naming the file, line and column.

import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { CsvError, parse } from 'csv-parse';

export interface FileSource {
  /** Shown in messages and in the errors CSV (the path as given, or `bundle.zip:users.csv`). */
  name: string;
  /** Bytes, when known: the progress bar's total. */
  size?: number;
  open(): Promise<Readable>;
}

export type Encoding = 'auto' | 'utf8' | 'latin1';

export interface CsvReadOptions {
  encoding?: Encoding;
  /** A single character; detected from the header line when absent. */
  delimiter?: string;
  /** Called once per file with things worth saying that are not errors (a semicolon delimiter). */
  notice?: (message: string) => void;
  /** Called with the count of bytes read so far (before decoding), for progress. */
  onBytes?: (bytes: number) => void;
}

export class CsvFileError extends Error {
  readonly file: string;
  readonly line: number | undefined;
  readonly column: string | undefined;
  constructor(file: string, line: number | undefined, column: string | undefined, problem: string) {
    const where = [file, line, column === undefined ? undefined : `column ${column}`]
      .filter((p) => p !== undefined)
      .join(':');
    super(`${where}: ${problem}`);
    this.file = file;
    this.line = line;
    this.column = column;
  }
}

export interface CsvRecord {
  /** 1-based line of the file the record starts on (a quoted newline makes a record span lines). */
  line: number;
  values: string[];
}

export interface CsvFile {
  header: string[];
  /** Records after the header, in batches (those of a chunk of the file); blank lines are skipped. */
  records: AsyncGenerator<CsvRecord[]>;
  /** Stops reading early (the file is closed). */
  close(): void;
}

/** Opens a CSV file; the header is read before this resolves, so header problems surface at once. */
export async function openCsv(source: FileSource, options: CsvReadOptions = {}): Promise<CsvFile> {
  const stream = await source.open();
  const text = decode(source, stream, options);
  const first = await text.next();
  if (first.done || first.value.trim() === '') {
    stream.destroy();
    throw new CsvFileError(source.name, 1, undefined, 'the file is empty');
  }
  const delimiter = options.delimiter ?? detectDelimiter(first.value);
  if (delimiter === ';' && !options.delimiter) {
    options.notice?.(`${source.name}:1: columns are separated by ";" (detected from the header line)`);
  } else if (delimiter === '\t' && !options.delimiter) {
    options.notice?.(`${source.name}:1: columns are separated by tabs (detected from the header line)`);
  }
  const parser = parse({
    delimiter,
    info: true,
    relax_column_count: true,
    skip_empty_lines: false,
    record_delimiter: ['\r\n', '\n', '\r'],
  });
  const iterator = batches(
    source.name,
    (async function* () {
      yield first.value;
      yield* text;
    })(),
    parser,
  );
  let firstBatch: CsvRecord[] = [];
  while (!firstBatch.length) {
    const next = await iterator.next();
    if (next.done) throw new CsvFileError(source.name, 1, undefined, 'the file is empty');
    firstBatch = next.value;
  }
  const header = firstBatch[0].values.map((h) => h.trim());
  const rest = firstBatch.slice(1);
  return {
    header,
    records: (async function* () {
      if (rest.length) yield rest;
      yield* iterator;
    })(),
    close() {
      stream.destroy();
      parser.destroy();
    },
  };
}

type Parsed = { record: string[]; info: { lines: number } };

/**
 * The records of the text, a chunk's worth at a time: csv-parse emits the records of a chunk
 * while it is written, so there is one await per chunk of the file rather than one per row
 * (per-row promises were most of what a push allocated).
 */
async function* batches(
  file: string,
  chunks: AsyncIterable<string>,
  parser: ReturnType<typeof parse>,
): AsyncGenerator<CsvRecord[]> {
  let parsed: Parsed[] = [];
  parser.on('data', (p: Parsed) => parsed.push(p));
  parser.on('error', () => {}); // read from parser.errored, where it is set at once
  let lastLine = 0;
  const take = () => {
    const batch: CsvRecord[] = [];
    for (const { record, info } of parsed) {
      const line = lastLine + 1;
      lastLine = info.lines;
      // A blank line (or one of only spaces) is skipped rather than reported.
      if (record.length === 1 && record[0].trim() === '') continue;
      batch.push({ line, values: record });
    }
    parsed = [];
    return batch;
  };
  try {
    for await (const chunk of chunks) {
      parser.write(chunk);
      // The records before a bad one are read first, as they are in the file.
      const batch = take();
      if (batch.length) yield batch;
      if (parser.errored) throw parser.errored;
    }
    parser.end();
    await finished(parser);
    const batch = take();
    if (batch.length) yield batch;
  } catch (error) {
    if (error instanceof CsvFileError) throw error;
    if (error instanceof CsvError) throw fromCsvError(file, lastLine + 1, error);
    throw error;
  }
}

function fromCsvError(file: string, line: number, error: CsvError): CsvFileError {
  const index = (error as unknown as { index?: unknown }).index;
  const field = typeof index === 'number' ? index : undefined;
  const column = field === undefined ? undefined : String(field + 1);
  switch (error.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return new CsvFileError(
        file,
        line,
        undefined,
        'a quoted value opened on this line is never closed (a stray " in a value? double it as "")',
      );
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return new CsvFileError(
        file,
        line,
        column,
        'text follows a closing quote (a " inside a quoted value must be doubled as "")',
      );
    default:
      return new CsvFileError(file, line, column, error.message);
  }
}

/** The header line's most frequent separator among comma, semicolon and tab, outside quotes. */
export function detectDelimiter(text: string): string {
  const counts: Record<string, number> = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && ch in counts) counts[ch]++;
  }
  let best = ',';
  for (const d of [';', '\t']) if (counts[d] > counts[best]) best = d;
  return best;
}

/**
 * Bytes to text. The first chunk yielded holds at least the header line (chunks are joined
 * until a newline or the end), so the delimiter can be detected from it.
 */
async function* decode(
  source: FileSource,
  stream: Readable,
  options: CsvReadOptions,
): AsyncGenerator<string> {
  const encoding = options.encoding ?? 'auto';
  let decoder: InstanceType<typeof TextDecoder> | undefined;
  let validate = false;
  let pending: Buffer = Buffer.alloc(0); // an incomplete UTF-8 sequence carried to the next chunk
  let bytes = 0;
  let line = 1;
  let column = 0; // characters since the last newline, for the position of a bad byte
  let first = '';
  let started = false;
  const track = (text: string) => {
    let at = text.indexOf('\n');
    if (at === -1) {
      column += text.length;
      return;
    }
    let last = at;
    while (at !== -1) {
      line++;
      last = at;
      at = text.indexOf('\n', at + 1);
    }
    column = text.length - last - 1;
  };
  for await (const raw of stream) {
    let chunk = raw as Buffer;
    bytes += chunk.length;
    options.onBytes?.(bytes);
    if (!decoder) {
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) {
        chunk = chunk.subarray(3);
        options.notice?.(`${source.name}:1: UTF-8 byte-order mark skipped`);
        // The mark says UTF-8 whatever --encoding says.
        decoder = new TextDecoder('utf-8');
        validate = true;
      } else if ((chunk[0] === 0xff && chunk[1] === 0xfe) || (chunk[0] === 0xfe && chunk[1] === 0xff)) {
        decoder = new TextDecoder(chunk[0] === 0xff ? 'utf-16le' : 'utf-16be');
        options.notice?.(`${source.name}:1: UTF-16 file (byte-order mark); decoded as such`);
      } else if (encoding === 'latin1') {
        decoder = new TextDecoder('latin1');
      } else {
        decoder = new TextDecoder('utf-8');
        validate = true;
      }
    }
    if (validate) {
      const joined = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      const cut = completeUtf8Length(joined);
      const whole = joined.subarray(0, cut);
      pending = Buffer.from(joined.subarray(cut));
      if (!isUtf8(whole)) {
        const bad = firstInvalidUtf8(whole);
        track(whole.subarray(0, bad).toString('utf8'));
        throw new CsvFileError(
          source.name,
          line,
          String(column + 1),
          `byte 0x${whole[bad].toString(16).toUpperCase().padStart(2, '0')} is not UTF-8; the file looks Latin-1 ` +
            '(Windows-1252) encoded: save it as UTF-8, or pass --encoding latin1',
        );
      }
      chunk = whole;
    }
    const text = decoder.decode(chunk, { stream: true });
    if (validate) track(text);
    if (!started) {
      first += text;
      if (!/[\r\n]/.test(first)) continue;
      started = true;
      yield first;
      first = '';
    } else if (text) {
      yield text;
    }
  }
  if (validate && pending.length) {
    throw new CsvFileError(source.name, line, String(column + 1), 'the file ends inside a UTF-8 character');
  }
  const rest = (decoder?.decode() ?? '') + first;
  if (rest) yield rest;
}

/** Length of the prefix of `buf` that does not end inside a multi-byte UTF-8 sequence. */
function completeUtf8Length(buf: Buffer): number {
  const n = buf.length;
  for (let back = 1; back <= Math.min(3, n); back++) {
    const b = buf[n - back];
    if ((b & 0xc0) !== 0x80) {
      // b starts a sequence: how long should it be?
      const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
      return need > back ? n - back : n;
    }
  }
  return n;
}

/** Offset of the first byte that breaks UTF-8 (called only when isUtf8 said there is one). */
function firstInvalidUtf8(buf: Buffer): number {
  let i = 0;
  while (i < buf.length) {
    const b = buf[i];
    const need =
      b < 0x80 ? 0 : b >= 0xc2 && b < 0xe0 ? 1 : b >= 0xe0 && b < 0xf0 ? 2 : b >= 0xf0 && b < 0xf5 ? 3 : -1;
    if (need === -1) return i;
    for (let k = 1; k <= need; k++) if (i + k >= buf.length || (buf[i + k] & 0xc0) !== 0x80) return i;
    if (need > 0 && !isUtf8(buf.subarray(i, i + need + 1))) return i; // overlong or surrogate forms
    i += need + 1;
  }
  return buf.length - 1;
}
