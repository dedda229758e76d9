// Which campus a name means in an institution: the campus's own name (case-insensitive) or,
// failing that, an alias a campus merge left behind, so a push that still uses a merged name
// matches the surviving campus instead of recreating the merged one.

/**
 * A CTE body listing every name of institution $1's campuses: `key` (lower-cased name) and
 * `id`, one row per key, own names winning over aliases. Join rows on `lower(value) = key`.
 */
export const campusNamesSql = `
  SELECT DISTINCT ON (key) key, id, via_alias FROM (
    SELECT lower(c.name) AS key, c.id, false AS via_alias FROM campuses c WHERE c.institution_id = $1
    UNION ALL
    SELECT lower(a.alias), a.campus_id, true FROM campus_aliases a WHERE a.institution_id = $1
  ) names
  ORDER BY key, via_alias`;
