// Campuses (spec 2.4): keyed by name, case-insensitively (or a merged name); each new one gets its audience tag.
// One statement matches the rows, one inserts the new ones, one updates the changed ones.
import { campusNamesSql } from '../../campuses/names.ts';
import { type CampusRow, parseCampus } from '../rows.ts';
import {
  firstOfEachKey,
  noChanges,
  parseAll,
  type SectionHandler,
  sortRow,
  writeChanges,
} from '../section.ts';

interface StoredCampus {
  i: number;
  key: string;
  id: string | null;
  name: string | null;
  /** Matched through the alias a campus merge left, not the campus's own name. */
  via_alias: boolean | null;
}

export const campuses: SectionHandler = async (context, rows) => {
  const { q, institutionId } = context;
  const parsed = parseAll<CampusRow>(context, rows, parseCampus);
  if (parsed.length === 0) return;
  const byIndex = new Map(parsed.map((row) => [row.i, row.value]));
  const { rows: matched } = await q.query<StoredCampus>(
    `WITH names AS (${campusNamesSql})
     SELECT r.i, lower(r.name) AS key, c.id, c.name, n.via_alias
     FROM jsonb_to_recordset($2::jsonb) AS r(i int, name text)
     LEFT JOIN names n ON n.key = lower(r.name)
     LEFT JOIN campuses c ON c.id = n.id`,
    [institutionId, JSON.stringify(parsed.map((row) => ({ i: row.i, name: row.value.name })))],
  );
  const kept = firstOfEachKey(context, matched, (row) => `the campus ${byIndex.get(row.i)!.name}`);
  const changes = noChanges();
  for (const stored of kept) {
    const { name } = byIndex.get(stored.i)!;
    // Same campus, new spelling (matching ignores case): the console shows the latest one. A
    // name that matched through a merge's alias never renames the surviving campus.
    sortRow(context, changes, stored, { name }, { name: stored.via_alias ? stored.name : name });
  }
  await writeChanges(context, changes, {
    insert: `WITH created AS (
         INSERT INTO campuses (institution_id, name, created_at, updated_at)
         SELECT $1, r.name, $3, $3 FROM jsonb_to_recordset($2::jsonb) AS r(name text)
         ON CONFLICT DO NOTHING
         RETURNING id, name)
       INSERT INTO audience_tags (institution_id, kind, source_id, label, created_at)
       SELECT $1, 'campus', id, name, $3 FROM created
       ON CONFLICT DO NOTHING`,
    update: `WITH changed AS (
         UPDATE campuses c SET name = r.name, updated_at = $3
         FROM jsonb_to_recordset($2::jsonb) AS r(id uuid, name text)
         WHERE c.id = r.id AND c.institution_id = $1
         RETURNING c.id, c.name)
       INSERT INTO audience_tags (institution_id, kind, source_id, label, created_at)
       SELECT $1, 'campus', id, name, $3 FROM changed
       ON CONFLICT (institution_id, kind, source_id)
       DO UPDATE SET label = EXCLUDED.label WHERE audience_tags.label IS DISTINCT FROM EXCLUDED.label`,
  });
};
