// Storage for the development identity provider: one Map per provider instance. oidc-provider's
// own memory adapter keeps a single store for the whole process, so two providers started by one
// test run (two issuers) would see each other's authorization codes; this one keeps them apart,
// and survives a key rotation (which replaces the Provider object but keeps the store).
import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';

interface Entry {
  payload: AdapterPayload;
  expiresAt: number | undefined;
}

export function createMemoryStore(now: () => number = Date.now): AdapterFactory {
  const entries = new Map<string, Entry>();

  const live = (key: string): Entry | undefined => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt !== undefined && entry.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };

  return (model: string): Adapter => {
    const keyOf = (id: string) => `${model}:${id}`;
    const findWhere = (match: (payload: AdapterPayload) => boolean): AdapterPayload | undefined => {
      for (const [key, entry] of entries) {
        if (key.startsWith(`${model}:`) && live(key) && match(entry.payload)) return entry.payload;
      }
      return undefined;
    };
    return {
      async upsert(id, payload, expiresIn) {
        entries.set(keyOf(id), {
          payload: { ...payload },
          expiresAt: expiresIn ? now() + expiresIn * 1000 : undefined,
        });
      },
      async find(id) {
        return live(keyOf(id))?.payload;
      },
      async findByUid(uid) {
        return findWhere((payload) => payload.uid === uid);
      },
      async findByUserCode(userCode) {
        return findWhere((payload) => payload.userCode === userCode);
      },
      async consume(id) {
        const entry = live(keyOf(id));
        if (entry) entry.payload.consumed = Math.floor(now() / 1000);
      },
      async destroy(id) {
        entries.delete(keyOf(id));
      },
      async revokeByGrantId(grantId) {
        for (const [key, entry] of entries) if (entry.payload.grantId === grantId) entries.delete(key);
      },
    };
  };
}
