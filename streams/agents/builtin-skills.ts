/**
 * Skills every tenant starts with. A tenant skill with the same key replaces one of these;
 * retiring the key hides it. Instructions are written for Texas RRC work (16 TAC chapter 3).
 */
export interface SkillDefinition {
  key: string;
  name: string;
  description: string;
  triggerWords: string[];
  instructions: string;
  version: number;
  builtIn: boolean;
}

export const BUILTIN_SKILLS: readonly SkillDefinition[] = Object.freeze([
  {
    key: 'flaring_authorization',
    name: 'Flaring authorizations (Statewide Rule 32)',
    description: 'Checks flaring and venting against Rule 32 exceptions and their authorized volumes.',
    triggerWords: ['flare', 'flaring', 'vent', 'venting', 'rule 32', 'sr32'],
    instructions:
      'Under 16 TAC §3.32 (Statewide Rule 32) gas may be flared without an exception for a limited period after completion; beyond it an exception (authorization) with an authorized daily volume is needed. Compare reported flared volumes with the authorized_mcf of each FlaringAuthorization, flag expired authorizations, and cite the authorization number.',
    version: 1,
    builtIn: true,
  },
  {
    key: 'production_reporting',
    name: 'Production reports (Form PR)',
    description: 'Monthly production and disposition reporting per lease.',
    triggerWords: ['production report', 'form pr', 'pr report', 'disposition'],
    instructions:
      'Form PR is filed monthly per lease with production and disposition of oil and gas. Reconcile well-level volumes to the lease, check disposition codes, and list missing months before a filing is prepared.',
    version: 1,
    builtIn: true,
  },
  {
    key: 'well_testing',
    name: 'Gas well tests (Form G-10) and oil well tests (W-10)',
    description: 'Annual and special well tests.',
    triggerWords: ['g-10', 'w-10', 'well test', 'potential test'],
    instructions:
      'G-10 (gas) and W-10 (oil) tests are due on the RRC schedule per district. Identify wells with tests due or overdue, and the data each test needs (test date, rates, pressures).',
    version: 1,
    builtIn: true,
  },
]);
