/**
 * Results by reference: a tool result too large for the model is kept server-side for its
 * caller, and the model gets a preview, a `results://<id>` link and the handle (`keeper.ts`);
 * the rest is read through the resource and the `results_query` tool (`readers.ts`).
 *
 * @module
 */
import { processRecords } from '../state/process.ts';
import { ResultKeeper } from './keeper.ts';
import type { ResultPreviewSettings } from './settings.ts';
import { ResultStore } from './store.ts';

export {
  RESULT_META_KEY,
  RESULTS_QUERY_TOOL,
  RESULTS_SCHEME,
  ResultKeeper,
  resultIdOf,
  resultOwner,
} from './keeper.ts';
export { registerResultReaders } from './readers.ts';
export {
  DEFAULT_MAX_CHARS,
  type PreviewLimits,
  parseResultPreview,
  type ResultPreviewSettings,
} from './settings.ts';
export {
  ResultStore,
  type ResultStoreLimits,
  ResultUnavailableError,
  type StoredResult,
} from './store.ts';

/**
 * The keeper `settings` ask for, over the process's records (the cluster's signed Redis once it
 * joined one, so any replica serves a handle); none without `result_preview`.
 */
export function openResults(settings: ResultPreviewSettings | undefined): ResultKeeper | undefined {
  return settings && new ResultKeeper(settings, new ResultStore(processRecords, settings));
}
