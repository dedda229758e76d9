// The data map's tables with no personal data (configuration, taxonomy, public calendar events,
// hashed secrets): each text, JSON or array column and what it holds. data-map.ts registers them
// beside the tables with personal data; a new such table's columns go here.
/** Tables with no personal data: each text, JSON or array column and what it holds. */
/** A public calendar event's columns, as stored and as staged by a fetch. */
const calendarEventColumns = {
  uid: 'event uid',
  recurrence_id: 'recurrence',
  summary: 'public event title',
  location: 'public event place',
  description: 'public event text',
  status: 'status',
  content_hash: 'hash',
};

export const plainTables: Record<string, Record<string, string>> = {
  institutions: {
    slug: 'slug',
    name: 'name',
    time_zone: 'zone',
    name_lookalike_of: 'an older institution whose name looks the same',
  },
  cohorts: { name: 'name', clock: 'clock' },
  campuses: { name: 'name' },
  campus_aliases: { alias: 'old campus name' },
  audience_tags: { kind: 'kind', label: 'label' },
  terms: { code: 'code', name: 'name' },
  units: { code: 'code', name: 'name' },
  calendar_feeds: {
    url: 'public .ics URL',
    name: 'name',
    audience_tag_ids: 'tags',
    etag: 'HTTP validator',
    last_modified: 'HTTP validator',
    last_error: 'fetch error',
    last_status: 'status',
  },
  calendar_feed_fetches: {
    trigger: 'trigger',
    status: 'status',
    error: 'fetch error',
    problems: "public events' uid, title and why they were cut short",
  },
  saved_replies: { name: 'name of a reply template', body: 'reply template text written by admins' },
  // A fetch's writes between staging and applying them (migration 0111): the same public events.
  calendar_event_changes: { kind: 'kind of change', ...calendarEventColumns },
  calendar_events: calendarEventColumns,
  email_domain_claims: { domain: 'email domain' },
  roster_secrets: { secret_hash: 'SHA-256' },
  help_sync_secrets: { secret_hash: 'SHA-256' },
  operator_credentials: { token_hash: 'SHA-256', label: 'label' },
  operator_sign_in_links: { token_hash: 'SHA-256' },
  identity_providers: {
    issuer: 'issuer URL',
    client_id: 'client id',
    client_secret_encrypted: 'encrypted secret',
    email_domains: 'domains',
  },
  webhook_endpoints: {
    url: 'receiver URL',
    description: 'description',
    event_types: 'subscribed types',
    disabled_reason: 'reason',
    secret: 'signing key',
    previous_secret: 'signing key',
  },
  schema_migrations: { version: 'migration' },
};
