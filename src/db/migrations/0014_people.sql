-- People and sign-in: the staff and admins of each institution, the platform's operators,
-- each institution's OpenID Connect provider, the links from a provider's subject to a person
-- or a roster student, pending sign-ins, server-side sessions, and the audit of changes people
-- make through the admin API.

-- Staff and admins of an institution (institution_id set), or platform operators
-- (institution_id NULL, roles {operator}). Students are not here: they are the roster's
-- students and sign in as such. Removing a person keeps the row (audit entries name it) and
-- ends their sessions; a removed person never signs in again until invited anew.
CREATE TABLE people (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid REFERENCES institutions (id) ON DELETE CASCADE,
  email text NOT NULL CHECK (length(email) BETWEEN 3 AND 320),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  roles text[] NOT NULL DEFAULT '{}',
  permissions text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  removed_at timestamptz
);
-- Emails match case-insensitively; one current person per email in an institution (or among
-- operators). The expression folds NULL institutions together so operators are unique too.
CREATE UNIQUE INDEX people_email_key
  ON people (coalesce(institution_id, '00000000-0000-0000-0000-000000000000'::uuid), lower(email))
  WHERE removed_at IS NULL;

-- One OpenID Connect provider per institution, and at most one for the platform's operators
-- (institution_id NULL). The client secret is encrypted with the service's key (never hashed:
-- the service must send it to the provider).
CREATE TABLE identity_providers (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid REFERENCES institutions (id) ON DELETE CASCADE,
  issuer text NOT NULL,
  client_id text NOT NULL,
  client_secret_encrypted text NOT NULL,
  email_domains text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX identity_providers_institution_key
  ON identity_providers (coalesce(institution_id, '00000000-0000-0000-0000-000000000000'::uuid));
-- The sign-in page finds an institution by the domain of an email address.
CREATE INDEX identity_providers_domains_idx ON identity_providers USING gin (email_domains);

-- A provider's (issuer, subject) linked to the person or student it signed in. Within one
-- institution a subject is linked to one party only (the unique index), so once linked a
-- person is found by subject whatever their email has become.
CREATE TABLE sign_in_links (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid REFERENCES institutions (id) ON DELETE CASCADE,
  issuer text NOT NULL,
  subject text NOT NULL,
  person_id uuid REFERENCES people (id) ON DELETE CASCADE,
  student_id uuid REFERENCES students (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_sign_in_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((person_id IS NULL) <> (student_id IS NULL))
);
CREATE UNIQUE INDEX sign_in_links_subject_key
  ON sign_in_links (coalesce(institution_id, '00000000-0000-0000-0000-000000000000'::uuid), issuer, subject);
-- A party has at most one subject per issuer: a second account at the provider that claims the
-- same email is refused rather than silently taking the person over.
CREATE UNIQUE INDEX sign_in_links_person_key ON sign_in_links (person_id, issuer) WHERE person_id IS NOT NULL;
CREATE UNIQUE INDEX sign_in_links_student_key ON sign_in_links (student_id, issuer) WHERE student_id IS NOT NULL;

-- Sign-ins under way: created when the browser is sent to the provider, consumed (deleted)
-- by the callback, so a replayed callback finds nothing. Only a hash of the state is stored;
-- the PKCE verifier is encrypted.
CREATE TABLE sign_in_flows (
  state_hash text PRIMARY KEY,
  institution_id uuid REFERENCES institutions (id) ON DELETE CASCADE,
  nonce text NOT NULL,
  code_verifier_encrypted text NOT NULL,
  return_to text,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
-- Expired flows are swept by age.
CREATE INDEX sign_in_flows_expires_idx ON sign_in_flows (expires_at);

-- One-time operator sign-in links (printed at first start, minted by `ssp operator-link`).
CREATE TABLE operator_sign_in_links (
  token_hash text PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);

-- Server-side sessions. The cookie carries a random token; only its SHA-256 is stored. A
-- session belongs to a person, a student or the operator; roles are read from `people` on
-- every request, so a removed role takes effect at once.
CREATE TABLE sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  token_hash text NOT NULL,
  institution_id uuid REFERENCES institutions (id) ON DELETE CASCADE,
  person_id uuid REFERENCES people (id) ON DELETE CASCADE,
  student_id uuid REFERENCES students (id) ON DELETE CASCADE,
  operator boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  ended_at timestamptz,
  ended_reason text,
  CHECK (num_nonnulls(person_id, student_id) + operator::int = 1)
);
CREATE UNIQUE INDEX sessions_token_key ON sessions (token_hash);
-- Ending all of a person's (or student's) sessions at once.
CREATE INDEX sessions_person_idx ON sessions (person_id) WHERE ended_at IS NULL;
CREATE INDEX sessions_student_idx ON sessions (student_id) WHERE ended_at IS NULL;

-- Every change made through the admin API, by whom, when and in which session: append-only.
CREATE TABLE admin_audit (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  institution_id uuid REFERENCES institutions (id) ON DELETE CASCADE,
  actor_kind text NOT NULL CHECK (actor_kind IN ('operator', 'person', 'student')),
  actor_id uuid,
  actor text NOT NULL,
  session_id uuid,
  action text NOT NULL,
  target text,
  status integer NOT NULL,
  request_id text,
  at timestamptz NOT NULL DEFAULT now()
);
-- Read newest first per institution.
CREATE INDEX admin_audit_institution_idx ON admin_audit (institution_id, at DESC, id DESC);

CREATE FUNCTION admin_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'admin_audit is append-only' USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER admin_audit_no_update BEFORE UPDATE OR DELETE ON admin_audit
  FOR EACH ROW EXECUTE FUNCTION admin_audit_append_only();
