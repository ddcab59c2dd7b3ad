import { createHash } from 'node:crypto';
import { Conflict } from '../domain-errors';
import { assertNever, type Decider } from './decider';
import type { CommandContext, CommandHandler, ReservationKey } from './command-types';

export type { ReservationKey } from './command-types';

/**
 * Uniqueness across aggregates (an e-mail, a connector key, one draft per author): a small
 * stream per value whose optimistic append decides who holds it. The value is hashed so
 * personal data never appears in a stream name.
 */
export type ReservationEvent =
  { type: 'ReservationClaimed'; data: { owner: string } } | { type: 'ReservationReleased'; data: { owner: string } };

export type ReservationState = { status: 'free' } | { status: 'held'; owner: string };

export type ReservationCommand = { type: 'Claim'; owner: string } | { type: 'Release'; owner: string };

export function reservationDecider(what: string): Decider<ReservationCommand, ReservationState, ReservationEvent> {
  return {
    initialState: { status: 'free' },
    evolve: (_state, event) =>
      event.type === 'ReservationClaimed' ? { status: 'held', owner: event.data.owner } : { status: 'free' },
    decide(command, state) {
      switch (command.type) {
        case 'Claim':
          if (state.status === 'held') {
            if (state.owner === command.owner) return [];
            throw new Conflict(`${what} is already taken`);
          }
          return [{ type: 'ReservationClaimed', data: { owner: command.owner } }];
        case 'Release':
          return state.status === 'held' && state.owner === command.owner
            ? [{ type: 'ReservationReleased', data: { owner: command.owner } }]
            : [];
        default:
          return assertNever(command);
      }
    },
  };
}

export function reservationStream(context: string, tenantId: string, kind: string, value: string): string {
  const digest = createHash('sha256').update(value).digest('hex').slice(0, 40);
  return `${context}.reservation-${tenantId}-${kind}-${digest}`;
}

export async function claim(
  handle: CommandHandler,
  key: ReservationKey,
  owner: string,
  context: CommandContext,
): Promise<void> {
  await handle(
    reservationDecider(key.label),
    reservationStream(key.context, key.tenantId, key.kind, key.value),
    { type: 'Claim', owner },
    context,
  );
}

export async function release(
  handle: CommandHandler,
  key: ReservationKey,
  owner: string,
  context: CommandContext,
): Promise<void> {
  await handle(
    reservationDecider(key.label),
    reservationStream(key.context, key.tenantId, key.kind, key.value),
    { type: 'Release', owner },
    context,
  );
}
