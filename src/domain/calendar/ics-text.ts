// The bytes of an .ics response to text, and the checks that tell a calendar from something
// else (an HTML page answered 200, an empty or cut-off body) before the parser sees it.
//
// Unfolding happens on the BYTES, before UTF-8 decoding: RFC 5545 folds lines at 75 octets,
// so a fold may fall inside a multi-byte character (Outlook and Google both do this). Decoding
// first would turn each half into U+FFFD.

import { FeedProblem } from './problems.ts';

const CR = 0x0d;
const LF = 0x0a;
const SPACE = 0x20;
const TAB = 0x09;

/** Removes every fold (CRLF or a bare LF, followed by one space or tab) from the bytes. */
export function unfoldBytes(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === CR && bytes[i + 1] === LF && (bytes[i + 2] === SPACE || bytes[i + 2] === TAB)) {
      i += 2;
      continue;
    }
    if (b === LF && (bytes[i + 1] === SPACE || bytes[i + 1] === TAB)) {
      i += 1;
      continue;
    }
    out[n++] = b;
  }
  return out.subarray(0, n);
}

const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });

/**
 * Unfolds and decodes a feed body, refusing what is plainly not a whole iCalendar object.
 * Throws FeedProblem with a reason a person can act on.
 */
export function decodeCalendar(bytes: Uint8Array, contentType?: string): string {
  if (bytes.length === 0) throw new FeedProblem('the response was empty');
  const text = decoder.decode(unfoldBytes(bytes));
  const start = text.trimStart();
  if (start.length === 0) throw new FeedProblem('the response held only blank space');
  if (!/^BEGIN:VCALENDAR\r?(\n|$)/i.test(start)) {
    const looksHtml = /^<(!doctype|html|head|body|\?xml|!--)/i.test(start) || /html/i.test(contentType ?? '');
    throw new FeedProblem(
      looksHtml
        ? `the response is an HTML page, not an iCalendar file${contentType ? ` (Content-Type: ${contentType.slice(0, 100)})` : ''}; check that the URL is the calendar's .ics export address`
        : `the response is not an iCalendar file (it does not start with BEGIN:VCALENDAR${contentType ? `; Content-Type: ${contentType.slice(0, 100)}` : ''})`,
    );
  }
  if (!/END:VCALENDAR\s*$/i.test(text))
    throw new FeedProblem('the calendar is truncated: the response ends before END:VCALENDAR');
  return text;
}

/** Text a PostgreSQL text column accepts (no NUL, no lone surrogate), cut to a maximum length. */
export function storableText(value: unknown, max: number): string | null {
  if (typeof value !== 'string') return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what is removed
  const clean = value.replace(/\u0000/g, '').toWellFormed();
  if (clean.trim() === '') return null;
  return clean.length > max ? clean.slice(0, max) : clean;
}
