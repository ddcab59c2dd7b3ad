import sinon from 'sinon';
import { stopTestServer } from './database';

// Loaded by .mocharc before every spec file.
export const mochaHooks = {
  afterEach() {
    sinon.restore();
  },
};

export async function mochaGlobalTeardown(): Promise<void> {
  await stopTestServer();
}
