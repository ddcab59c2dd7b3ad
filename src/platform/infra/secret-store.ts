import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';

/**
 * Secrets that must never appear in an event (password hashes, connector credentials):
 * an AES-256-GCM encrypted table keyed by name. Events carry only the name.
 * The name is bound in as associated data, so a ciphertext copied under another name
 * does not decrypt.
 */
export interface SecretStore {
  put(name: string, value: string): Promise<void>;
  get(name: string): Promise<string | null>;
  delete(name: string): Promise<void>;
}

export const SECRETS_TABLE = 'secrets';

export async function createSecretsTable(knex: Knex): Promise<void> {
  await knex.schema.createTable(SECRETS_TABLE, (t) => {
    t.text('name').primary();
    t.binary('iv').notNullable();
    t.binary('ciphertext').notNullable();
    t.binary('tag').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

/** `keyMaterial` is SECRET_STORE_KEY; any length ≥ 32 is stretched to 256 bits. */
export function createSecretStore(knex: Knex, keyMaterial: string): SecretStore {
  const key = createHash('sha256').update(keyMaterial).digest();
  return {
    async put(name, value) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(name));
      const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
      const row = { name, iv, ciphertext, tag: cipher.getAuthTag(), updated_at: new Date() };
      await knex(SECRETS_TABLE).insert(row).onConflict('name').merge();
    },
    async get(name) {
      const row = await knex(SECRETS_TABLE)
        .where({ name })
        .first<{ iv: Buffer; ciphertext: Buffer; tag: Buffer } | undefined>();
      if (!row) return null;
      const decipher = createDecipheriv('aes-256-gcm', key, row.iv);
      decipher.setAAD(Buffer.from(name));
      decipher.setAuthTag(row.tag);
      return Buffer.concat([decipher.update(row.ciphertext), decipher.final()]).toString('utf8');
    },
    async delete(name) {
      await knex(SECRETS_TABLE).where({ name }).delete();
    },
  };
}
