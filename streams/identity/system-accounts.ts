import { DEFAULT_TENANT_ID } from './tenant';

/**
 * The four non-loginable accounts, for attribution (an event's actorId) and
 * referential integrity. They never get a password, so login always fails for them.
 */
export const SYSTEM_USER_ID = '00000000-0000-0000-0000-000000000000';

export const SYSTEM_ACCOUNTS = [
  { userId: SYSTEM_USER_ID, email: 'system@accounts.internal', displayName: 'System' },
  {
    userId: '00000000-0000-0000-0000-00000000000b',
    email: 'legacy-backfill@accounts.internal',
    displayName: 'Legacy backfill',
  },
  {
    userId: '00000000-0000-0000-0000-00000000000e',
    email: 'evaluation-runner@accounts.internal',
    displayName: 'Evaluation runner',
  },
  { userId: '00000000-0000-0000-0000-00000000000d', email: 'demo-seed@accounts.internal', displayName: 'Demo seed' },
] as const;

export const SYSTEM_ACCOUNTS_TENANT = DEFAULT_TENANT_ID;
