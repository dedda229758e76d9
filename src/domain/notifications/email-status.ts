// Whether the service sends email (SMTP_URL set), as the admin API, the console's pages and the
// integration health page say it: never the SMTP server's credentials.
import type { Config } from '../../config.ts';

export interface EmailStatus {
  /** Whether notification emails are sent: SMTP_URL is set. */
  enabled: boolean;
  /** The From address, when enabled. */
  from: string | null;
  /** The SMTP server's host and port (never its credentials), when enabled. */
  server: string | null;
}

/** The email status of a process's configuration. */
export function emailStatus(config: Pick<Config, 'smtpUrl' | 'smtpFrom'>): EmailStatus {
  if (!config.smtpUrl) return { enabled: false, from: null, server: null };
  const url = new URL(config.smtpUrl);
  return { enabled: true, from: config.smtpFrom, server: `${url.protocol}//${url.host}` };
}
