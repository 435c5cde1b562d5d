/**
 * The exact, resumable event import (`flagstack events import`): see {@link importEvents}.
 * @module
 */

export { type Batch, Batcher, DEFAULT_BATCH_SIZE, DEFAULT_MAX_BATCH_BYTES, MAX_BATCH_SIZE } from "./batcher";
export { readCsv } from "./csv-reader";
export {
  type BatchEvent,
  type BatchOutcome,
  type BatchRef,
  DEFAULT_CONCURRENCY,
  ImportError,
  ImportOptions,
  type ImportOptionsInput,
  type ImportSummary,
  importEvents,
  MAX_CONCURRENCY,
} from "./import-events";
export { BatchStatus, JournalEntry, JournalError, JournalHeader, readJournal } from "./journal";
export { readJsonArray } from "./json-array-reader";
export { readNdjson } from "./ndjson-reader";
export {
  createProgressReporter,
  formatSummary,
  type ImportCounts,
  type ImportProgress,
  PROGRESS_MODES,
  type ProgressMode,
  type ProgressReporter,
} from "./progress";
export { classifyFailure, type EventsBulkClient, type FailureKind, type WireHooks } from "./sender";
export { INPUT_FORMATS, type InputFormat, InputFormatError, type SourceItem } from "./source";
export { type RejectedRecord, type ValidRecord, validateItem } from "./validate";
export { DEFAULT_YOUNG_GENERATION_MB, importEventsInWorker, type WorkerImportOptions } from "./worker";
