/**
 * The `cluster.secret` every test cluster shares, so replicas a test starts as processes and
 * links it opens in-process derive the same keys.
 *
 * @module
 */

/** The `cluster.secret` of test clusters (tests only; a real one comes from openssl rand). */
export const TEST_CLUSTER_SECRET = 'test-cluster-secret-0123456789abcdef';
