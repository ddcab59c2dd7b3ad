/** Fixed test keys: tests must never depend on the development defaults in src/platform/config.ts. */
export const TEST_SIGNING_KEY = 'test-audit-signing-key-0123456789abcdef';
export const TEST_JWT_SECRET = 'test-jwt-secret-0123456789abcdef0123456789';
export const TEST_SECRET_STORE_KEY = 'test-secret-store-key-0123456789abcdef0123';
/** Ed25519 (PKCS#8 PEM) keys that sign evidence packages in tests; the second one is for rotation. */
export const TEST_EVIDENCE_KEY =
  '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEINLkrldt1nAw2dgmR+va4AV9hHCW7n7HdQp8U5jxG2Br\n-----END PRIVATE KEY-----\n';
export const TEST_EVIDENCE_KEY_2 =
  '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIAh6Ysq4Kq3fTvZbdh7VHoHuJ1rwf6ddVRLWLXnk/0Vm\n-----END PRIVATE KEY-----\n';
