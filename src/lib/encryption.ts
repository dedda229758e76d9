// Encryption at rest for secrets the service must be able to use again (identity-provider
// client secrets, PKCE verifiers of sign-ins under way, webhook signing keys): a copy of the
// database alone reveals none of them. AES-256-GCM with a 32-byte key from configuration
// (ENCRYPTION_KEY) or, for the embedded default, a key generated once and kept beside the
// data directory. Each value names the key that sealed it, so the key can be rotated:
// the new key encrypts, previous keys (ENCRYPTION_KEYS_PREVIOUS) still decrypt, and
// `ssp encryption-rotate` re-seals every stored value with the new key (docs/sign-in.md).
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const PREFIX = 'enc:v1';

export interface Keyring {
  /** Seals a value with the current key: `enc:v1:<key id>:<iv>:<tag>:<ciphertext>` (base64url). */
  encrypt(plaintext: string): string;
  /** Opens a sealed value with whichever known key sealed it; throws when none did. */
  decrypt(sealed: string): string;
  /** Whether a value is sealed with the current key (rotation re-seals the others). */
  isCurrent(sealed: string): boolean;
  readonly currentKeyId: string;
  /** A key for another purpose (e.g. CSRF token MACs), derived from the current key. */
  derive(label: string): Buffer;
}

/** Parses a key given as 64 hexadecimal characters or 43-44 base64(url) characters. */
export function parseKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  const bytes = Buffer.from(trimmed, 'base64url');
  return bytes.length === 32 && /^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed) ? bytes : undefined;
}

export function generateKey(): string {
  return randomBytes(32).toString('base64url');
}

function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 8);
}

export function createKeyring(current: Buffer, previous: Buffer[] = []): Keyring {
  const currentId = keyId(current);
  const keys = new Map<string, Buffer>([[currentId, current]]);
  for (const key of previous) if (!keys.has(keyId(key))) keys.set(keyId(key), key);
  return {
    currentKeyId: currentId,
    encrypt(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [
        PREFIX,
        currentId,
        iv.toString('base64url'),
        tag.toString('base64url'),
        body.toString('base64url'),
      ].join(':');
    },
    decrypt(sealed) {
      const parts = sealed.split(':');
      if (parts.length !== 6 || `${parts[0]}:${parts[1]}` !== PREFIX)
        throw new Error('not an encrypted value');
      const key = keys.get(parts[2]);
      if (!key)
        throw new Error(`sealed with an unknown key (${parts[2]}): add it to ENCRYPTION_KEYS_PREVIOUS`);
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(parts[3], 'base64url'));
      decipher.setAuthTag(Buffer.from(parts[4], 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(parts[5], 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    },
    derive(label) {
      return createHmac('sha256', current).update(`ssp derived key: ${label}`).digest();
    },
    isCurrent(sealed) {
      return sealed.startsWith(`${PREFIX}:${currentId}:`);
    },
  };
}

export function isSealed(value: string): boolean {
  return value.startsWith(`${PREFIX}:`);
}

/**
 * The embedded default's key: read from `<dataDir>/encryption.key`, created (mode 0600) on
 * first use. Back it up with the data directory: without it the stored secrets are lost.
 */
export function embeddedKey(dataDir: string): Buffer {
  const file = path.join(dataDir, 'encryption.key');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dataDir, { recursive: true });
    try {
      fs.writeFileSync(file, `${generateKey()}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process created it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const key = parseKey(fs.readFileSync(file, 'utf8'));
  if (!key) throw new Error(`${file} does not hold a 32-byte key`);
  return key;
}

/** The keyring of a configuration: ENCRYPTION_KEY, or the embedded default's key file. */
export function keyringFromConfig(config: {
  encryptionKey: Buffer | undefined;
  encryptionKeysPrevious: Buffer[];
  dataDir: string;
}): Keyring {
  return createKeyring(config.encryptionKey ?? embeddedKey(config.dataDir), config.encryptionKeysPrevious);
}
