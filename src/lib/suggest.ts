// "Did you mean ...?": the closest of a few known names to a name that is not one of them.
// Used for misspelt top-level fields, where a wrong guess costs nothing but a missing one
// leaves the caller reading the documentation for a typo.

/** Levenshtein distance (insertions, deletions, substitutions), two rows of memory. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Array<number>(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, substitution);
    }
    [previous, current] = [current, previous];
  }
  return previous[b.length];
}

/** Compares names the way people misspell them: case, `_`, `-` and spaces do not count. */
const normalise = (name: string) => name.toLowerCase().replace(/[\s_-]/g, '');

/**
 * The known name closest to `name`, when it is close enough to be a likely misspelling:
 * at most one edit per three characters (at least one), after normalising. Ties go to the
 * earlier known name; names longer than 100 characters are never matched.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  if (name.length > 100) return undefined;
  const wanted = normalise(name);
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const normalised = normalise(candidate);
    const distance = editDistance(wanted, normalised);
    const allowed = Math.max(1, Math.floor(Math.max(wanted.length, normalised.length) / 3));
    if (distance <= allowed && (best === undefined || distance < best.distance)) {
      best = { name: candidate, distance };
    }
  }
  return best?.name;
}
