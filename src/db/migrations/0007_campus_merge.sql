-- Campus merge: a campus renamed upstream arrives as a second campus (spec 2.4); an operator
-- merges it into the original. The merged name stays as an alias, so the next push that uses
-- it matches the surviving campus instead of recreating it.
CREATE TABLE campus_aliases (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  alias text NOT NULL,
  campus_id uuid NOT NULL REFERENCES campuses (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX campus_aliases_alias_key ON campus_aliases (institution_id, lower(alias));

-- Operator actions on tenant data, append-only: the database refuses updates and deletes.
CREATE TABLE operator_audit (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  actor text NOT NULL,
  action text NOT NULL,
  details jsonb NOT NULL DEFAULT '{}',
  at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX operator_audit_institution_idx ON operator_audit (institution_id, at);

CREATE FUNCTION operator_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'operator_audit is append-only' USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER operator_audit_no_update BEFORE UPDATE OR DELETE ON operator_audit
  FOR EACH ROW EXECUTE FUNCTION operator_audit_append_only();
