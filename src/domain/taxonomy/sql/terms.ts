// Terms' statements: the rows matched by code (case-insensitive), dates as YYYY-MM-DD.
import { matchStatement, rowsStatement, type SectionWrites } from './write.ts';

export interface StoredTerm {
  i: number;
  key: string;
  id: string | null;
  code: string | null;
  name: string | null;
  start_date: string | null;
  end_date: string | null;
}

export const matchTerms = matchStatement<{ i: number; code: string }, StoredTerm>(
  `SELECT r.i, lower(r.code) AS key, t.id, t.code, t.name,
            to_char(t.start_date, 'YYYY-MM-DD') AS start_date, to_char(t.end_date, 'YYYY-MM-DD') AS end_date
     FROM jsonb_to_recordset($2::jsonb) AS r(i int, code text)
     LEFT JOIN terms t ON t.institution_id = $1 AND lower(t.code) = lower(r.code)`,
);

export const writeTerms: SectionWrites = {
  insert:
    rowsStatement(`INSERT INTO terms (institution_id, code, name, start_date, end_date, created_at, updated_at)
       SELECT $1, r.code, r.name, r.start_date, r.end_date, $3, $3
       FROM jsonb_to_recordset($2::jsonb) AS r(code text, name text, start_date date, end_date date)
       ON CONFLICT DO NOTHING`),
  update:
    rowsStatement(`UPDATE terms t SET code = r.code, name = r.name, start_date = r.start_date, end_date = r.end_date,
              updated_at = $3
       FROM jsonb_to_recordset($2::jsonb) AS r(id uuid, code text, name text, start_date date, end_date date)
       WHERE t.id = r.id AND t.institution_id = $1`),
};
