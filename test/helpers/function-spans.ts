// Every function of a TypeScript file with its whole span in lines (from the line of its name or
// parameters to the line of its closing brace, blank lines and comments included: what a reader
// reads), for the architecture test. No parser is installed for TypeScript, so the types are
// stripped by Node (positions kept) and the JavaScript left is scanned: strings, template
// literals, comments and regular expressions are skipped, brackets matched, and a `{` opens a
// function body when it follows `=>`, or a `)` whose `(` does not follow a control keyword.
// Arrows whose body is a parenthesised expression (`=> ({ ... })`) are counted too.
import { stripTypeScriptTypes } from 'node:module';

export interface FunctionSpan {
  /** Enclosing functions and its own name, `outer > inner`; unnamed ones `callback of post`, `#2` if repeated. */
  name: string;
  line: number;
  lines: number;
}

const controlWords = new Set(['if', 'for', 'while', 'switch', 'catch', 'with', 'await']);
const regexAfterWords = new Set([
  'return',
  'typeof',
  'case',
  'do',
  'else',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'await',
  'yield',
]);

interface Open {
  char: '{' | '(' | '[' | '${';
  pos: number;
  /** Set when this bracket is a function's body. */
  fn?: { name: string; start: number };
}

export function functionSpans(source: string): FunctionSpan[] {
  const code = stripTypeScriptTypes(source, { mode: 'strip' });
  const lineStarts = [0];
  for (let i = 0; i < code.length; i++) if (code[i] === '\n') lineStarts.push(i + 1);
  const lineOf = (pos: number) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };

  const stack: Open[] = [];
  const parenOpenOf = new Map<number, number>();
  const spans: FunctionSpan[] = [];
  const seen = new Map<string, number>();
  // The last significant character and word, to tell a regular expression from a division.
  let lastChar = '';
  let lastWord = '';

  const isIdent = (c: string) => /[\w$]/.test(c);
  const before = (pos: number) => {
    let i = pos - 1;
    while (i >= 0 && /\s/.test(code[i])) i--;
    return i;
  };
  const wordEndingAt = (end: number) => {
    let i = end;
    while (i >= 0 && isIdent(code[i])) i--;
    return { word: code.slice(i + 1, end + 1), start: i + 1 };
  };
  const enclosing = () =>
    stack
      .filter((open) => open.fn)
      .map((open) => open.fn!.name)
      .join(' > ');
  /** The name of a function expression or arrow starting at `start`. */
  const nameBefore = (start: number): string => {
    let i = before(start);
    if (wordEndingAt(i).word === 'async') i = before(wordEndingAt(i).start);
    if (code[i] === '=' && code[i - 1] !== '=' && code[i - 1] !== '>') {
      return wordEndingAt(before(i)).word || 'anonymous';
    }
    if (code[i] === ':') return wordEndingAt(before(i)).word || 'anonymous';
    const call = [...stack].reverse().find((open) => open.char === '(' || open.char === '{');
    if (call?.char === '(') return `callback of ${wordEndingAt(before(call.pos)).word || 'call'}`;
    return 'anonymous';
  };
  const record = (name: string, start: number) => {
    const outer = enclosing();
    let full = outer ? `${outer} > ${name}` : name;
    const count = (seen.get(full) ?? 0) + 1;
    seen.set(full, count);
    if (count > 1) full = `${full} #${count}`;
    return { name: full, start };
  };
  /** When `{` or `(` at `pos` opens a function body, the function. */
  const functionAt = (pos: number, char: '{' | '('): Open['fn'] => {
    const prev = before(pos);
    if (code[prev] === '>' && code[prev - 1] === '=') {
      const arrow = before(prev - 1);
      let start: number;
      if (code[arrow] === ')') start = parenOpenOf.get(arrow) ?? arrow;
      else start = wordEndingAt(arrow).start;
      return record(nameBefore(start), start);
    }
    if (char === '(' || code[prev] !== ')') return undefined;
    const open = parenOpenOf.get(prev);
    if (open === undefined) return undefined;
    let wordEnd = before(open);
    if (code[wordEnd] === '*') wordEnd = before(wordEnd);
    const { word, start } = wordEndingAt(wordEnd);
    if (word === '' || controlWords.has(word)) return undefined;
    if (word === 'function') return record(nameBefore(start), start);
    const keyword = wordEndingAt(before(start));
    return record(word, keyword.word === 'function' ? keyword.start : start);
  };

  let i = 0;
  const templateDepth: number[] = [];
  const skipTemplate = () => {
    // At a character inside a template literal: up to its end, or into a `${`.
    while (i < code.length) {
      const c = code[i];
      if (c === '\\') i += 2;
      else if (c === '`') {
        i++;
        return;
      } else if (c === '$' && code[i + 1] === '{') {
        stack.push({ char: '${', pos: i });
        templateDepth.push(stack.length);
        i += 2;
        return;
      } else i++;
    }
  };
  while (i < code.length) {
    const c = code[i];
    if (c === '/' && code[i + 1] === '/') {
      while (i < code.length && code[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && code[i + 1] === '*') {
      i = code.indexOf('*/', i + 2) + 2;
      if (i === 1) break;
      continue;
    }
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '"' || c === "'") {
      i++;
      while (i < code.length && code[i] !== c) i += code[i] === '\\' ? 2 : 1;
      i++;
      lastChar = c;
      lastWord = '';
      continue;
    }
    if (c === '`') {
      i++;
      skipTemplate();
      lastChar = '`';
      lastWord = '';
      continue;
    }
    if (
      c === '/' &&
      (lastChar === '' || /[(,=:[!&|?{};+\-*%<>~^]/.test(lastChar) || regexAfterWords.has(lastWord))
    ) {
      i++;
      let inClass = false;
      while (i < code.length && (code[i] !== '/' || inClass)) {
        if (code[i] === '\\') i++;
        else if (code[i] === '[') inClass = true;
        else if (code[i] === ']') inClass = false;
        i++;
      }
      i++;
      while (isIdent(code[i] ?? '')) i++;
      lastChar = '/';
      lastWord = '';
      continue;
    }
    if (isIdent(c)) {
      const start = i;
      while (i < code.length && isIdent(code[i])) i++;
      lastWord = code.slice(start, i);
      lastChar = 'a';
      continue;
    }
    if (c === '{' || c === '(' || c === '[') {
      stack.push({ char: c, pos: i, fn: c === '[' ? undefined : functionAt(i, c) });
    } else if (c === '}' || c === ')' || c === ']') {
      const open = stack.pop();
      if (c === ')' && open) parenOpenOf.set(i, open.pos);
      if (open?.fn) {
        const line = lineOf(open.fn.start);
        spans.push({ name: open.fn.name, line, lines: lineOf(i) - line + 1 });
      }
      if (open?.char === '${') {
        templateDepth.pop();
        i++;
        skipTemplate();
        lastChar = '`';
        lastWord = '';
        continue;
      }
    }
    lastChar = c;
    lastWord = '';
    i++;
  }
  return spans;
}
