-- One institution cannot pose as another on the shared sign-in page, which lists institutions by
-- display name and finds them by the domain of an email address typed in.

-- Display names are unique ignoring case and whitespace ("Bee College", "bee  college" and
-- "BeeCollege" are one name). Names shared before this migration: the oldest institution keeps
-- its name, the others get their slug appended ("Bee College (bee-2)") for the operator to sort
-- out.
UPDATE institutions i
SET name = left(i.name, 200 - length(i.slug) - 3) || ' (' || i.slug || ')'
WHERE EXISTS (
  SELECT 1 FROM institutions o
  WHERE lower(regexp_replace(o.name, '\s+', '', 'g')) = lower(regexp_replace(i.name, '\s+', '', 'g'))
    AND (o.created_at, o.id) < (i.created_at, i.id)
);
CREATE UNIQUE INDEX institutions_name_key ON institutions (lower(regexp_replace(name, '\s+', '', 'g')));

-- An email domain belongs to one institution. The providers' `email_domains` arrays stay the
-- settings as read and written; this table holds who owns each domain, its primary key being the
-- rule (an array column cannot carry a uniqueness across rows). The trigger below keeps it in
-- step with every write of identity_providers, so a second claim fails in the same statement
-- (23505 on email_domain_claims_pkey) whatever path wrote it, and two concurrent claims cannot
-- both succeed. The platform operators' provider (institution NULL) claims nothing: its domains
-- find no institution.
CREATE TABLE email_domain_claims (
  domain text PRIMARY KEY,
  institution_id uuid NOT NULL REFERENCES institutions (id) ON DELETE CASCADE
);
-- Removing an institution's provider or the institution itself releases its domains.
CREATE INDEX email_domain_claims_institution_idx ON email_domain_claims (institution_id);

-- Domains claimed by several institutions before this migration: the provider configured first
-- keeps each, and the later ones lose it from their settings.
INSERT INTO email_domain_claims (domain, institution_id)
SELECT DISTINCT ON (d.domain) d.domain, ip.institution_id
FROM identity_providers ip, unnest(ip.email_domains) AS d(domain)
WHERE ip.institution_id IS NOT NULL
ORDER BY d.domain, ip.created_at, ip.id;
UPDATE identity_providers ip
SET email_domains = ARRAY(
  SELECT d.domain FROM unnest(ip.email_domains) AS d(domain)
  WHERE EXISTS (
    SELECT 1 FROM email_domain_claims c WHERE c.domain = d.domain AND c.institution_id = ip.institution_id
  )
  ORDER BY d.domain
)
WHERE ip.institution_id IS NOT NULL;

CREATE FUNCTION identity_provider_domain_claims() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.institution_id IS NOT NULL THEN
    DELETE FROM email_domain_claims WHERE institution_id = OLD.institution_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.institution_id IS NOT NULL THEN
    INSERT INTO email_domain_claims (domain, institution_id)
    SELECT DISTINCT d.domain, NEW.institution_id FROM unnest(NEW.email_domains) AS d(domain);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER identity_providers_domain_claims
  AFTER INSERT OR UPDATE OR DELETE ON identity_providers
  FOR EACH ROW EXECUTE FUNCTION identity_provider_domain_claims();
