import { z } from 'zod';
import type { RecordedEvent } from '../../src/platform/eventstore/types';

/** A tenant (an operator company). Every record of the platform is scoped to one. */
export const DEFAULT_TENANT_ID = '00000000-0000-0000-0000-000000000001';

export const tenantStream = (tenantId: string) => `identity.tenant-${tenantId}-${tenantId}`;

export const TenantEventSchemas = {
  TenantCreated: z.object({ tenantId: z.string(), name: z.string() }),
} as const;

export type TenantEvent = { type: 'TenantCreated'; data: z.infer<typeof TenantEventSchemas.TenantCreated> };
export const TENANT_EVENT_TYPES = ['TenantCreated'] as const;

export type TenantState = { status: 'none' } | { status: 'active'; tenantId: string; name: string };

export const tenantEvolution = {
  initialState: { status: 'none' } as TenantState,
  evolve: (_state: TenantState, event: TenantEvent): TenantState => ({
    status: 'active',
    tenantId: event.data.tenantId,
    name: event.data.name,
  }),
  read: (event: RecordedEvent): TenantEvent => ({
    type: 'TenantCreated',
    data: TenantEventSchemas.TenantCreated.parse(event.data),
  }),
};
