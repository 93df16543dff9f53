/**
 * Tool-call loggers: JSONL (daily, gzipped, retention), one-line text (size rotation), Markdown
 * transcript, and a composite. All redact secrets and never throw or block the call.
 *
 * @module
 */
export { CompositeToolLogger } from './composite.ts';
export { JsonlToolLogger, type JsonlToolLoggerOptions } from './jsonl.ts';
export {
  REDACTED,
  type RedactionSettings,
  Redactor,
  redactParams,
  redactText,
  redactValue,
} from './redact.ts';
export { type TappedCall, ToolCallTap, type ToolCallTapOptions } from './tap.ts';
export { TextToolLogger, type TextToolLoggerOptions } from './text.ts';
export { TranscriptLogger, type TranscriptLoggerOptions } from './transcript.ts';
export type {
  CallDetails,
  CallOutcome,
  Clock,
  ToolLogger,
  ToolLoggerBaseOptions,
  WarningSink,
} from './types.ts';
