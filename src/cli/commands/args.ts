// What the admin commands share when they turn arguments into a request: an institution's API
// path (every segment URL-encoded, so a slug or id typed with a slash or space cannot change
// the route) and comma-separated option values.

/** `/admin/v1/institutions/{slug}/{segments…}`, each part encoded; empty segments are left out. */
export function institutionPath(slug: string, ...segments: (string | undefined)[]): string {
  const rest = segments.filter((s): s is string => s !== undefined && s !== '').map(encodeURIComponent);
  return ['/admin/v1/institutions', encodeURIComponent(slug), ...rest].join('/');
}

/**
 * The path of an institution's `collection`, of one item of it (`id`), or of what follows the item
 * (`rest`, a `/sub-path` or a `?query` already encoded).
 */
export const itemPath =
  (collection: string) =>
  (slug: string, id?: string, rest = ''): string =>
    institutionPath(slug, collection, id) + rest;

/** `a, b,,c` as `['a', 'b', 'c']`; an option not given stays undefined (the API keeps its value). */
export function commaList(value: string): string[];
export function commaList(value: string | undefined): string[] | undefined;
export function commaList(value: string | undefined): string[] | undefined {
  return value
    ?.split(',')
    .map((v) => v.trim())
    .filter(Boolean);
}
