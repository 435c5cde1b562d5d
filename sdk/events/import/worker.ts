/**
 * `importEventsInWorker`: {@link importEvents} run in a worker thread whose young generation is
 * capped. The `flagstack events import` command uses it.
 *
 * Why: V8 grows its young generation (the nursery every short-lived object is born in) as a
 * process allocates, up to 64 MiB per semi-space on a large machine. An import allocates fast
 * (every record is parsed, validated and serialized), so a long import's RSS creeps up for a minute
 * before levelling off, and a 1,000,000-event import peaked 50% above a 100,000-event one. A Worker
 * is the one place Node lets a program set that cap itself (`resourceLimits`), and it also keeps the
 * main thread free for the progress bar and Ctrl-C.
 *
 * Options that cannot cross threads stay here: the callbacks are forwarded as messages, the
 * signal as an `abort` message, and standard input is piped into the worker.
 * @module
 */
import { createRequire } from "node:module";
import type { Readable } from "node:stream";
import { pathToFileURL } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { ConfigurationError } from "../../core/options";
import {
  type BatchEvent,
  ImportError,
  type ImportOptionsInput,
  type ImportSummary,
  importEvents,
} from "./import-events";
import { JournalError } from "./journal";
import type { ImportProgress } from "./progress";
import type { SendRetryEvent } from "./sender";

const KIND = "flagstack-events-import";

/** Young-generation cap of the import worker, in MiB (V8's default on a large machine is 192). */
export const DEFAULT_YOUNG_GENERATION_MB = 24;

/** Options of {@link importEventsInWorker}: those of `importEvents` but `client`, plus the cap. */
export type WorkerImportOptions = Omit<ImportOptionsInput, "client"> & {
  /** Young-generation cap of the worker in MiB (default {@link DEFAULT_YOUNG_GENERATION_MB}). */
  youngGenerationMb?: number;
};

type FromWorker =
  | { type: "progress"; p: ImportProgress }
  | { type: "batch"; e: BatchEvent }
  | { type: "retry"; e: Omit<SendRetryEvent, "error"> & { error: string } }
  | { type: "done"; summary: ImportSummary }
  | { type: "error"; error: SerializedError };

interface SerializedError {
  name: string;
  message: string;
  summary?: ImportSummary;
  path?: string;
  option?: string;
  envVar?: string;
}

/**
 * Runs {@link importEvents} in a worker thread with a capped young generation; same options
 * (except `client`, which cannot cross threads), same result, same errors.
 */
export async function importEventsInWorker(options: WorkerImportOptions): Promise<ImportSummary> {
  const { signal, onProgress, onBatch, onRetry, stdin, youngGenerationMb, ...rest } = options;
  if ((options as { client?: unknown }).client !== undefined) {
    throw new ConfigurationError(
      "client",
      undefined,
      "importEventsInWorker: a client object cannot cross threads; pass eventsUrl and sdkKey",
    );
  }
  const readsStdin = rest.input === "-";
  const worker = new Worker(__filename, {
    workerData: {
      kind: KIND,
      options: rest,
      hooks: { progress: !!onProgress, batch: !!onBatch, retry: !!onRetry },
    },
    resourceLimits: { maxYoungGenerationSizeMb: youngGenerationMb ?? DEFAULT_YOUNG_GENERATION_MB },
    stdin: readsStdin,
    // Running from the TypeScript sources (tests, tsx): the worker needs the same loader.
    ...(__filename.endsWith(".ts") ? { execArgv: ["--import", tsxLoader()] } : {}),
  });
  const input: Readable | undefined = readsStdin ? (stdin ?? process.stdin) : undefined;
  if (input) input.pipe(worker.stdin!);
  const abort = () => worker.postMessage({ type: "abort" });
  if (signal?.aborted) abort();
  else signal?.addEventListener("abort", abort, { once: true });

  try {
    return await new Promise<ImportSummary>((resolve, reject) => {
      worker.on("message", (m: FromWorker) => {
        switch (m.type) {
          case "progress":
            onProgress?.(m.p);
            break;
          case "batch":
            onBatch?.(m.e);
            break;
          case "retry":
            onRetry?.(m.e);
            break;
          case "done":
            resolve(m.summary);
            break;
          case "error":
            reject(rebuild(m.error));
            break;
        }
      });
      worker.on("error", reject);
      worker.on("exit", (code) =>
        reject(new Error(`the import worker stopped (exit code ${code}) before it finished`)),
      );
    });
  } finally {
    signal?.removeEventListener("abort", abort);
    if (input) {
      input.unpipe(worker.stdin!);
      // Standard input would keep the process alive; nothing more is read from it.
      if (input === process.stdin) process.stdin.destroy();
    }
    await worker.terminate();
  }
}

function tsxLoader(): string {
  return pathToFileURL(createRequire(__filename).resolve("tsx")).href;
}

function serialize(e: unknown): SerializedError {
  if (!(e instanceof Error)) return { name: "Error", message: String(e) };
  const x = e as Error & Partial<SerializedError>;
  return {
    name: x.name,
    message: x.message,
    ...(x.summary ? { summary: x.summary } : {}),
    ...(typeof x.path === "string" ? { path: x.path } : {}),
    ...(typeof x.option === "string" ? { option: x.option, envVar: x.envVar } : {}),
  };
}

function rebuild(s: SerializedError): Error {
  let e: Error;
  if (s.name === "ImportError" && s.summary) e = new ImportError(s.message, s.summary);
  else if (s.name === "JournalError") e = new JournalError(s.message, s.path ?? "");
  else if (s.name === "ConfigurationError") e = new ConfigurationError(s.option ?? "", s.envVar, s.message);
  else {
    e = new Error(s.message);
    e.name = s.name;
  }
  if (s.summary && !(e instanceof ImportError)) Object.assign(e, { summary: s.summary });
  return e;
}

async function runInWorker(): Promise<void> {
  const port = parentPort!;
  const { options, hooks } = workerData as {
    options: ImportOptionsInput;
    hooks: { progress: boolean; batch: boolean; retry: boolean };
  };
  const ac = new AbortController();
  port.on("message", (m: { type?: string }) => {
    if (m?.type === "abort") ac.abort();
  });
  const post = (m: FromWorker) => port.postMessage(m);
  try {
    const summary = await importEvents({
      ...options,
      signal: ac.signal,
      ...(options.input === "-" ? { stdin: process.stdin } : {}),
      ...(hooks.progress ? { onProgress: (p: ImportProgress) => post({ type: "progress", p }) } : {}),
      ...(hooks.batch ? { onBatch: (e: BatchEvent) => post({ type: "batch", e }) } : {}),
      ...(hooks.retry
        ? {
            onRetry: (e: SendRetryEvent) =>
              post({
                type: "retry",
                e: { ...e, error: e.error instanceof Error ? e.error.message : String(e.error) },
              }),
          }
        : {}),
    });
    post({ type: "done", summary });
  } catch (e) {
    post({ type: "error", error: serialize(e) });
  }
}

if (!isMainThread && (workerData as { kind?: string } | null)?.kind === KIND) void runInWorker();
