import { z } from 'zod';
import type { RecordedEvent } from '../../src/platform/eventstore/types';

/**
 * A tenant's admin roster: one seat per active admin. "The last active admin cannot be
 * removed" spans every user of a tenant, which no user stream holds; this one stream does,
 * so the rule is decided by its optimistic append on every instance alike.
 *
 * Seats are a subset of the tenant's active admins: a seat is released before its holder
 * stops being an active admin and granted only after a user has become one. So while the
 * roster holds a seat, the tenant has an active admin.
 *
 * Tenants that predate the roster need no migration: the first command on an empty roster
 * opens it with the active admins the user directory lists (`AdminRosterOpened`), and the
 * roster's own events decide from then on.
 */
export const adminRosterStream = (tenantId: string) => `identity.admin-roster-${tenantId}-${tenantId}`;

export const AdminRosterEventSchemas = {
  AdminRosterOpened: z.object({ userIds: z.array(z.string()) }),
  AdminSeatGranted: z.object({ userId: z.string() }),
  AdminSeatReleased: z.object({ userId: z.string() }),
} as const;

type Data<K extends keyof typeof AdminRosterEventSchemas> = z.infer<(typeof AdminRosterEventSchemas)[K]>;
export type AdminRosterEvent = {
  [K in keyof typeof AdminRosterEventSchemas]: { type: K; data: Data<K> };
}[keyof typeof AdminRosterEventSchemas];
export const ADMIN_ROSTER_EVENT_TYPES = Object.keys(AdminRosterEventSchemas) as AdminRosterEvent['type'][];

/** `unopened`: nothing written yet, the user directory is the starting point. */
export type AdminRosterState = { status: 'unopened' } | { status: 'open'; seats: string[] };

export const initialAdminRosterState: AdminRosterState = { status: 'unopened' };

export function evolveAdminRoster(state: AdminRosterState, event: AdminRosterEvent): AdminRosterState {
  const seats = state.status === 'open' ? state.seats : [];
  switch (event.type) {
    case 'AdminRosterOpened':
      return { status: 'open', seats: [...new Set(event.data.userIds)] };
    case 'AdminSeatGranted':
      return { status: 'open', seats: seats.includes(event.data.userId) ? seats : [...seats, event.data.userId] };
    case 'AdminSeatReleased':
      return { status: 'open', seats: seats.filter((id) => id !== event.data.userId) };
    default:
      return state;
  }
}

export function readAdminRosterEvent(event: RecordedEvent): AdminRosterEvent {
  const schema = AdminRosterEventSchemas[event.type as keyof typeof AdminRosterEventSchemas];
  if (!schema) throw new Error(`unknown admin roster event type ${event.type}`);
  return { type: event.type, data: schema.parse(event.data) } as AdminRosterEvent;
}

export const adminRosterEvolution = {
  initialState: initialAdminRosterState,
  evolve: evolveAdminRoster,
  read: readAdminRosterEvent,
};
