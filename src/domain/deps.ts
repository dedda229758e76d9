// What a domain function may ask for, by name. Each function takes the few it uses
// (`Pick<Deps, 'db' | 'clock'>`), never the whole set, so its signature says what it touches;
// a process builds one Deps (src/runtime.ts) and the request context hands it to routes
// (`request.deps`). A function that needs only the database takes the `Db` or transaction itself.
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import type { Clock } from '../lib/clock.ts';
import type { Keyring } from '../lib/encryption.ts';
import type { OutboundPolicy } from '../lib/outbound-url.ts';
import type { Signal } from '../lib/signal.ts';
import type { FetchSettings } from './calendar/schedule.ts';
import type { OidcClient } from './people/oidc-client.ts';

export interface Deps {
  db: Db;
  clock: Clock;
  config: Config;
  /** Encryption of stored secrets. */
  keyring: Keyring;
  /** Which outbound addresses are allowed (loopback in development only), and the DNS checked. */
  policy: OutboundPolicy;
  /** Calendar fetches' limits and jitter, when not the defaults (tests). */
  calendarFetch?: FetchSettings;
  /** The OpenID Connect client; nothing is opened until a sign-in or a provider check uses it. */
  oidc: OidcClient;
  /**
   * Rung when a OneRoster pull is asked for ("Sync now", oneroster/pull/requests.ts): this
   * process's pull workers, listening while started, claim it at once instead of at their next
   * poll (a worker in another process finds it within its poll interval).
   */
  pullRequested: Signal;
}
