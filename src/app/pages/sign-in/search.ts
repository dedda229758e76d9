// The sign-in page's search for an institution (by its name or a person's email): what was typed
// is checked here, so a search too long to look up is refused in a sentence next to the field,
// what was typed kept, rather than cut by the browser or answered with a schema path.
import { isStorableText } from '../../../lib/text.ts';

export const MAX_SEARCH = 200;

/** The search as typed (trimmed) and, when it cannot be looked up, the sentence that says why. */
export function signInSearch(raw: unknown): { q: string; problem?: string } {
  const q = typeof raw === 'string' ? raw.trim() : '';
  if (q.length > MAX_SEARCH)
    return { q, problem: `Institution or email must be ${MAX_SEARCH} characters or fewer` };
  if (!isStorableText(q)) return { q: '', problem: 'Institution or email is not valid' };
  return { q };
}
