// Every stable error code and its HTTP status, in one table. Bodies are flat:
// {"error": "<code>", ...extra}. Clients branch on the code; `detail` is for people.
// Domain services throw ApiError; the HTTP error handler turns it into the reply.

export const errorStatus = {
  // 400: the request itself is malformed
  malformed_json: 400,
  empty_body: 400,
  missing_field: 400,
  invalid_field: 400,
  invalid_request: 400,
  unknown_section: 400,
  unknown_field: 400,
  url_not_allowed: 400,
  invalid_cursor: 400,
  // 400: a query parameter the endpoint does not define (listings page by `cursor`, not `offset`)
  unknown_parameter: 400,
  invalid_idempotency_key: 400,
  // 400: an assignment names no one who may be assigned (field: assignee_id or assignee)
  assignee_not_found: 400,
  assignee_removed: 400,
  assignee_not_staff: 400,
  ambiguous_assignee: 400,
  // 401: credentials
  unauthorized: 401,
  sync_secret_missing: 401,
  sync_secret_wrong: 401,
  sync_secret_revoked: 401,
  sync_secret_never_issued: 401,
  // 403: authenticated, but the role or permission does not allow it
  forbidden: 403,
  csrf_invalid: 403,
  // 403: roles and permissions (src/domain/access/grant-changes.ts)
  manage_integrations_required: 403,
  own_roles_unchangeable: 403,
  // 403: only the platform operator assigns an institution's email domains
  email_domains_operator_only: 403,
  // 403: only the platform operator renames an institution (docs/display-names.md)
  institution_name_operator_only: 403,
  // 404
  not_found: 404,
  cohort_not_found: 404,
  institution_not_found: 404,
  help_request_not_found: 404,
  attempt_not_found: 404,
  student_not_found: 404,
  // 405: the path exists but takes other methods (the `Allow` header and `allowed` name them)
  method_not_allowed: 405,
  // 409
  conflict: 409,
  // 409: a display name or an email domain that another institution holds (field: name, email_domains)
  institution_name_taken: 409,
  email_domain_taken: 409,
  endpoint_disabled: 409,
  fetch_in_progress: 409,
  // 409: the institution has as many calendar feeds as it may (max: CALENDAR_FEEDS_PER_INSTITUTION)
  calendar_feed_limit_reached: 409,
  // a pull of the institution's OneRoster source is under way
  pull_in_progress: 409,
  // 409: the institution, or the cohort a push names, is archived (docs/archiving.md): pushes and
  // changes are refused until it is restored; reading goes on
  institution_archived: 409,
  cohort_archived: 409,
  // 409: notification settings are a person's own; the operator has none
  not_a_person: 409,
  // 409: a student's answer on a resolved request (they raise a new one instead)
  help_request_resolved: 409,
  // 409: the first request with this Idempotency-Key is still running
  idempotency_key_in_use: 409,
  // 413
  batch_too_large: 413,
  payload_too_large: 413,
  // 415
  unsupported_media_type: 415,
  // 422: an Idempotency-Key reused with a different request
  idempotency_key_reused: 422,
  // 429
  rate_limited: 429,
  // 5xx
  internal_error: 500,
  not_configured: 503,
  database_unavailable: 503,
  shutting_down: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof errorStatus;

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly extra: Record<string, unknown>;
  constructor(code: ErrorCode, extra: Record<string, unknown> = {}, status?: number) {
    super(typeof extra.detail === 'string' ? extra.detail : code);
    this.code = code;
    this.status = status ?? errorStatus[code];
    this.extra = extra;
  }
  body(): Record<string, unknown> {
    return { error: this.code, ...this.extra };
  }
}
