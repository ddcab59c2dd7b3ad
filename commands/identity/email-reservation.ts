import type { ReservationKey } from '../../src/platform/command-handling/reservation';

/** E-mail is unique on its lower-cased form across every tenant (login names no tenant). */
export function emailReservation(email: string): ReservationKey {
  return {
    context: 'identity',
    tenantId: 'global',
    kind: 'email',
    value: email.toLowerCase(),
    label: 'e-mail address',
  };
}
