// The API reference page's script (the 4 MB browser bundle of Scalar's API reference), read
// out of @scalar/fastify-api-reference's dist/index.js, where it is a JavaScript string literal.
// Importing that module would hold the script in the heap twice for the life of the process (its
// source text and the string, 16.5 MB). Instead the literal is decoded once, streamed a chunk at
// a time, with the first request for it, into one Buffer (4 MB outside the JavaScript heap) that
// every later request is answered from: no request decodes it again, and a server whose
// reference nobody reads never holds it. The literal is decoded as JavaScript
// reads it (escapes, line continuations; UTF-8 passes through), so the bytes sent are those the
// plugin sent; a bundle whose literal is not found, or not terminated, fails the requests
// (test/http/api-reference.test.ts compares the two).
import fs from 'node:fs';
import { Transform, type TransformCallback } from 'node:stream';
import { fileURLToPath } from 'node:url';

/** The file holding the literal, and what precedes it there. */
export const SCRIPT_BUNDLE = fileURLToPath(import.meta.resolve('@scalar/fastify-api-reference'));
const MARKER = Buffer.from('var standalone_default = "');
/** How far into the file the literal may start. */
const MARKER_WITHIN = 1 << 20;

const BACKSLASH = 0x5c;
const QUOTE = 0x22;
const SIMPLE: Record<number, number> = { 110: 0x0a, 114: 0x0d, 116: 0x09, 98: 0x08, 102: 0x0c, 118: 0x0b };

const hex = (data: Buffer, from: number, to: number): number => {
  const text = data.toString('latin1', from, to);
  if (!/^[0-9a-fA-F]+$/.test(text)) throw new Error(`bad escape in the API reference's script: ${text}`);
  return Number.parseInt(text, 16);
};

/** Writes code point `cp` as UTF-8 (a lone surrogate as U+FFFD, as a JS string is encoded). */
function writeUtf8(out: Buffer, at: number, cp: number): number {
  const c = cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp;
  if (c < 0x80) {
    out[at] = c;
    return at + 1;
  }
  if (c < 0x800) {
    out[at] = 0xc0 | (c >> 6);
    out[at + 1] = 0x80 | (c & 0x3f);
    return at + 2;
  }
  if (c < 0x10000) {
    out[at] = 0xe0 | (c >> 12);
    out[at + 1] = 0x80 | ((c >> 6) & 0x3f);
    out[at + 2] = 0x80 | (c & 0x3f);
    return at + 3;
  }
  out[at] = 0xf0 | (c >> 18);
  out[at + 1] = 0x80 | ((c >> 12) & 0x3f);
  out[at + 2] = 0x80 | ((c >> 6) & 0x3f);
  out[at + 3] = 0x80 | (c & 0x3f);
  return at + 4;
}

/** A `\u` escape at `i`: its code unit and length, or undefined when `data` ends within it. */
function unicodeEscape(data: Buffer, i: number): { cp: number; length: number } | undefined {
  if (data[i + 2] === 0x7b) {
    const close = data.indexOf(0x7d, i + 3);
    if (close === -1) {
      if (data.length - i > 12) throw new Error("bad \\u{} escape in the API reference's script");
      return undefined;
    }
    return { cp: hex(data, i + 3, close), length: close + 1 - i };
  }
  if (i + 6 > data.length) return undefined;
  const unit = hex(data, i + 2, i + 6);
  if (unit < 0xd800 || unit > 0xdbff) return { cp: unit, length: 6 };
  // A high surrogate: combined with a low one escaped right after it.
  if (i + 12 > data.length) return undefined;
  if (data[i + 6] === BACKSLASH && data[i + 7] === 0x75 && data[i + 8] !== 0x7b) {
    const low = hex(data, i + 8, i + 12);
    if (low >= 0xdc00 && low <= 0xdfff)
      return { cp: 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00), length: 12 };
  }
  return { cp: unit, length: 6 };
}

/**
 * Decodes the literal's text in `data` up to its closing quote: the bytes it stands for, how much
 * of `data` was used (the rest, an escape cut by the chunk's end, comes again with the next
 * chunk) and whether the literal ended.
 */
export function decodeLiteral(data: Buffer): { out: Buffer; used: number; ended: boolean } {
  const out = Buffer.allocUnsafe(data.length);
  let i = 0;
  let j = 0;
  while (i < data.length) {
    const b = data[i];
    if (b === QUOTE) return { out: out.subarray(0, j), used: i + 1, ended: true };
    if (b !== BACKSLASH) {
      out[j++] = b;
      i++;
      continue;
    }
    if (i + 4 > data.length) break; // the longest escape but \u's decided in 4 bytes
    const c = data[i + 1];
    const simple = SIMPLE[c];
    if (simple !== undefined) {
      out[j++] = simple;
      i += 2;
    } else if (c === 0x30 && !(data[i + 2] >= 0x30 && data[i + 2] <= 0x39)) {
      out[j++] = 0;
      i += 2;
    } else if (c >= 0x30 && c <= 0x39) {
      throw new Error("octal escape in the API reference's script");
    } else if (c === 0x78) {
      j = writeUtf8(out, j, hex(data, i + 2, i + 4));
      i += 4;
    } else if (c === 0x75) {
      const unicode = unicodeEscape(data, i);
      if (!unicode) break;
      j = writeUtf8(out, j, unicode.cp);
      i += unicode.length;
    } else if (c === 0x0d) {
      i += data[i + 2] === 0x0a ? 3 : 2; // line continuation
    } else if (c === 0x0a) {
      i += 2;
    } else if (c === 0xe2 && data[i + 2] === 0x80 && (data[i + 3] === 0xa8 || data[i + 3] === 0xa9)) {
      i += 4; // line continuation by U+2028 / U+2029
    } else {
      out[j++] = c; // \" \' \\ and any other character stand for themselves
      i += 2;
    }
  }
  return { out: out.subarray(0, j), used: i, ended: false };
}

/** The script's bytes from the bundle's text, as a stream of the decoded literal. */
class LiteralStream extends Transform {
  private pending: Buffer = Buffer.alloc(0);
  private skipped = 0;
  private state: 'before' | 'inside' | 'after' = 'before';

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    try {
      let data = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
      if (this.state === 'before') {
        const at = data.indexOf(MARKER);
        if (at === -1) {
          this.skipped += data.length;
          if (this.skipped > MARKER_WITHIN) throw new Error(`no script literal in ${SCRIPT_BUNDLE}`);
          this.pending = data.subarray(Math.max(0, data.length - MARKER.length));
          callback();
          return;
        }
        this.state = 'inside';
        data = data.subarray(at + MARKER.length);
      }
      if (this.state === 'inside') {
        const { out, used, ended } = decodeLiteral(data);
        if (out.length) this.push(out);
        if (ended) this.state = 'after';
        this.pending = ended ? Buffer.alloc(0) : Buffer.from(data.subarray(used));
      }
      callback();
    } catch (error) {
      callback(error as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    callback(this.state === 'after' ? null : new Error(`unterminated script literal in ${SCRIPT_BUNDLE}`));
  }
}

/** A stream of the API reference page's script, decoded from the bundle as it is read. */
export function referenceScriptStream(): NodeJS.ReadableStream {
  const source = fs.createReadStream(SCRIPT_BUNDLE);
  const literal = new LiteralStream();
  source.on('error', (error) => literal.destroy(error));
  return source.pipe(literal);
}

let decoded: Promise<Buffer> | undefined;

/** The API reference page's script, decoded on the first call (the first request) and kept for the process. */
export function referenceScript(): Promise<Buffer> {
  decoded ??= new Promise<Buffer>((resolve, reject) => {
    const parts: Buffer[] = [];
    referenceScriptStream()
      .on('data', (part: Buffer) => parts.push(part))
      .on('end', () => resolve(Buffer.concat(parts)))
      .on('error', reject);
  });
  return decoded;
}
