/**
 * Limits keyed on identity (`limits:`): rates, daily quotas and concurrent calls per principal,
 * and per principal × tool rule with a cost per call; shared across replicas through the
 * cluster's Redis. The dispatcher asks the {@link Limiter} before every call of every route.
 *
 * @module
 */
export { LIMIT_EXCEEDED, type LimitKind, type LimitRefusal, limitError } from './errors.ts';
export {
  type BudgetUsage,
  LIMITS_CHANNEL,
  type LimitDecision,
  type LimitEvent,
  type LimitedCall,
  Limiter,
  type LimiterOptions,
  type PrincipalUsage,
} from './limiter.ts';
export {
  type Budgets,
  type LimitSettings,
  parseLimitSettings,
  type Rate,
  type RatePeriod,
  type ToolRule,
} from './settings.ts';
export { clusterLimitStore, type LimitStore, memoryLimitStore } from './store.ts';
