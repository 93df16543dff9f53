export {
  type HealthRoute,
  type HealthServer,
  type HealthServerOptions,
  PortInUseError,
  type Readiness,
  type ServerStats,
  startHealthServer,
} from './server.ts';
