// Campuses' statements: the rows matched by name (case-insensitive) or by an alias a campus
// merge left; each new or renamed campus gets (or relabels) its audience tag in the same statement.
import { campusNamesSql } from '../../campuses/names.ts';
import { matchStatement, rowsStatement, type SectionWrites } from './write.ts';

export interface StoredCampus {
  i: number;
  key: string;
  id: string | null;
  name: string | null;
  /** Matched through the alias a campus merge left, not the campus's own name. */
  via_alias: boolean | null;
}

export const matchCampuses = matchStatement<{ i: number; name: string }, StoredCampus>(
  `WITH names AS (${campusNamesSql})
     SELECT r.i, lower(r.name) AS key, c.id, c.name, n.via_alias
     FROM jsonb_to_recordset($2::jsonb) AS r(i int, name text)
     LEFT JOIN names n ON n.key = lower(r.name)
     LEFT JOIN campuses c ON c.id = n.id`,
);

export const writeCampuses: SectionWrites = {
  insert: rowsStatement(`WITH created AS (
         INSERT INTO campuses (institution_id, name, created_at, updated_at)
         SELECT $1, r.name, $3, $3 FROM jsonb_to_recordset($2::jsonb) AS r(name text)
         ON CONFLICT DO NOTHING
         RETURNING id, name)
       INSERT INTO audience_tags (institution_id, kind, source_id, label, created_at)
       SELECT $1, 'campus', id, name, $3 FROM created
       ON CONFLICT DO NOTHING`),
  update: rowsStatement(`WITH changed AS (
         UPDATE campuses c SET name = r.name, updated_at = $3
         FROM jsonb_to_recordset($2::jsonb) AS r(id uuid, name text)
         WHERE c.id = r.id AND c.institution_id = $1
         RETURNING c.id, c.name)
       INSERT INTO audience_tags (institution_id, kind, source_id, label, created_at)
       SELECT $1, 'campus', id, name, $3 FROM changed
       ON CONFLICT (institution_id, kind, source_id)
       DO UPDATE SET label = EXCLUDED.label WHERE audience_tags.label IS DISTINCT FROM EXCLUDED.label`),
};
