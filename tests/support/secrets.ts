/** Fixed test keys: tests must never depend on the development defaults in src/platform/config.ts. */
export const TEST_SIGNING_KEY = 'test-audit-signing-key-0123456789abcdef';
export const TEST_JWT_SECRET = 'test-jwt-secret-0123456789abcdef0123456789';
export const TEST_SECRET_STORE_KEY = 'test-secret-store-key-0123456789abcdef0123';
