-- Archiving (docs/archiving.md): an institution or a cohort made by mistake is archived, never
-- deleted. `archived_at` is when it was archived, null while it is active; restoring clears it.
-- Nothing else changes: every row that belongs to an archived institution or cohort stays.
--
-- No index: the workers' claims test the flag of the few institutions their due rows belong to
-- (a primary-key probe each), and the listings read it from rows they fetch anyway.
ALTER TABLE institutions ADD COLUMN archived_at timestamptz;
ALTER TABLE cohorts ADD COLUMN archived_at timestamptz;
