/**
 * `flagstack events import FILE|-`: the exact, resumable bulk import of tracking events (spec §4
 * "Event import"), a thin shell over `importEvents` (run in a worker thread, see
 * `sdk/events/import/worker.ts`).
 *
 * Exit codes: 0 every valid record is accepted (invalid ones are in the rejects file); 1 the
 * import could not run or stopped on an error; 2 it ran to the end but batches are left whose
 * outcome is unknown or that the service refused; 130 interrupted (Ctrl-C), resumable.
 * @module
 */
import { existsSync } from "node:fs";
import { type Command, InvalidArgumentError, Option } from "commander";
import {
  createProgressReporter,
  formatSummary,
  ImportError,
  type ImportProgress,
  type ImportSummary,
  INPUT_FORMATS,
  importEventsInWorker,
  MAX_BATCH_SIZE,
  MAX_CONCURRENCY,
  PROGRESS_MODES,
  type ProgressMode,
} from "../sdk/events/import";

/** Exit codes of `flagstack events import`; see the module comment. */
export const EXIT = { ok: 0, error: 1, incomplete: 2, interrupted: 130 } as const;

const wholeNumber = (name: string, min: number, max: number) => (v: string) => {
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || n < min || n > max) {
    throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}`);
  }
  return n;
};

/**
 * Parses a list of batch numbers: `3,7,10-12` (the numbers the summary prints for unknown
 * batches). Throws naming the option on anything else.
 */
export const batchList = (name: string) => (v: string) => {
  const out: number[] = [];
  for (const part of v.split(",")) {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part);
    const from = m ? Number(m[1]) : Number.NaN;
    const to = m?.[2] === undefined ? from : Number(m[2]);
    if (!m || to < from || to - from >= 100_000) {
      throw new InvalidArgumentError(
        `${name} must list batch numbers separated by commas, with ranges as 10-12 (e.g. 3,7,10-12)`,
      );
    }
    for (let b = from; b <= to; b++) if (!out.includes(b)) out.push(b);
  }
  return out;
};

/** Adds `events import` to the program. */
export function register(program: Command): void {
  const events = program.command("events").description("Tracking events: bulk import");
  events
    .command("import")
    .description(
      "Import tracking events from an NDJSON, JSON-array or CSV file (- reads standard input). " +
        "Resumable: a journal beside the file records acknowledged batches, so re-running the same " +
        "command after a crash or Ctrl-C sends each event exactly once.",
    )
    .argument("<file>", "events file, or - for standard input")
    .addOption(new Option("--events-url <url>", "base URL of the events API").env("FLAGSTACK_EVENTS_URL"))
    .addOption(new Option("--sdk-key <key>", "server- or client-side SDK key").env("FLAGSTACK_SDK_KEY"))
    .addOption(
      new Option("--format <format>", "input format (default: by extension, else sniffed)").choices(
        INPUT_FORMATS,
      ),
    )
    .option(
      "--batch-size <n>",
      `records per request, 1-${MAX_BATCH_SIZE} (default 1000, or the journal's when resuming)`,
      wholeNumber("--batch-size", 1, MAX_BATCH_SIZE),
    )
    .option(
      "--max-batch-bytes <n>",
      "byte cap of one request body (default 4194304, or the journal's when resuming)",
      wholeNumber("--max-batch-bytes", 32 * 1024 + 2, 16 * 1024 * 1024),
    )
    .option(
      "--concurrency <n>",
      `requests in flight at once, 1-${MAX_CONCURRENCY} (default 4)`,
      wholeNumber("--concurrency", 1, MAX_CONCURRENCY),
    )
    .option(
      "--requests-per-second <n>",
      "client-side request rate limit (default: FLAGSTACK_REQUESTS_PER_SECOND, else 10: with 1000 records a request, about 10,000 records/s)",
      (v) => {
        const n = Number(v);
        if (!(n > 0)) throw new InvalidArgumentError("--requests-per-second must be a number greater than 0");
        return n;
      },
    )
    .option("--rejects <file>", "where invalid records go (default <file>.rejects.ndjson)")
    .option("--journal <file>", "the import journal (default <file>.import-journal; none for stdin)")
    .option(
      "--resend-batches <list>",
      "send again these batches whose outcome is unknown, after checking the service lacks their events (e.g. 3,7,10-12)",
      batchList("--resend-batches"),
    )
    .option(
      "--mark-accepted <list>",
      "record these batches whose outcome is unknown as accepted, after checking the service holds their events",
      batchList("--mark-accepted"),
    )
    .option(
      "--resend-unknown",
      "send again every batch whose outcome is unknown (those the service holds are then recorded twice)",
      false,
    )
    .option("--dry-run", "validate and count without sending", false)
    .addOption(
      new Option("--progress <mode>", "progress display: bar on a terminal, else lines (auto)")
        .choices(PROGRESS_MODES)
        .default("auto"),
    )
    .option("--progress-interval <seconds>", "time between two progress lines (default 5)", (v) => {
      const n = Number(v);
      if (!(n > 0))
        throw new InvalidArgumentError("--progress-interval must be a number of seconds greater than 0");
      return n;
    })
    .option("--json", "print the summary as JSON on standard output", false)
    .action(async (file: string, opts: CommandOptions, command: Command) => {
      const urlSource =
        command.getOptionValueSource("eventsUrl") === "env" ? "FLAGSTACK_EVENTS_URL" : "--events-url";
      process.exitCode = await runImport(file, opts, urlSource);
    });
}

/** The library's option names, as the flags the user typed. */
const FLAG_OF_OPTION: Record<string, string> = {
  eventsUrl: "--events-url",
  baseUrl: "--events-url",
  sdkKey: "--sdk-key",
  format: "--format",
  batchSize: "--batch-size",
  maxBatchBytes: "--max-batch-bytes",
  concurrency: "--concurrency",
  requestsPerSecond: "--requests-per-second",
  rejects: "--rejects",
  journal: "--journal",
  resendBatches: "--resend-batches",
  markAccepted: "--mark-accepted",
  resendUnknown: "--resend-unknown",
  dryRun: "--dry-run",
};

/**
 * A library message as the command's user reads it: without the function that threw
 * (`importEvents: invalid option batchSize: `, `EventsClient: `), option names as flags, and the
 * base URL's origin as the flag or variable it came from (`urlSource`).
 */
export function asCliMessage(message: string, urlSource: string): string {
  return (
    message
      .replace(
        /^(?:importEvents|importEventsInWorker|EventsClient): (?:invalid option (\w+): )?/,
        (_, option?: string) =>
          option ? `${Object.hasOwn(FLAG_OF_OPTION, option) ? FLAG_OF_OPTION[option] : option}: ` : "",
      )
      .replaceAll("from the baseUrl option", `from ${urlSource}`)
      .replaceAll("pass { sdkKey } instead", "pass the key with --sdk-key")
      // Only camelCase names: `format` or `journal` in a sentence are English.
      .replace(
        /\b[a-z]+[A-Z]\w*\b/g,
        (word) => (Object.hasOwn(FLAG_OF_OPTION, word) ? FLAG_OF_OPTION[word] : word) as string,
      )
      // `--batch-size: --batch-size must be ...` says the flag once.
      .replace(/^(--[\w-]+): \1 /, "$1 ")
  );
}

/**
 * Refuses an events URL the client would refuse, naming the flag or variable it came from
 * (`--events-url must be an absolute http(s) URL, got "events.example.com"`). A value that looks
 * like a key (16 or more letters and digits in a row, or credentials) is not repeated.
 */
export function checkEventsUrl(raw: string, urlSource: string): void {
  const shown =
    /[A-Za-z0-9]{16,}/.test(raw) || /\/\/[^/?#]*@/.test(raw) ? "a value not shown here" : `"${raw}"`;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new Error(
      `${urlSource} must be an absolute http(s) URL such as http://127.0.0.1:8787, got ${shown}`,
    );
  }
  if (url.username || url.password) {
    throw new Error(`${urlSource} must not contain credentials; pass the key with --sdk-key`);
  }
}

interface CommandOptions {
  eventsUrl?: string;
  sdkKey?: string;
  format?: (typeof INPUT_FORMATS)[number];
  batchSize?: number;
  maxBatchBytes?: number;
  concurrency?: number;
  requestsPerSecond?: number;
  rejects?: string;
  journal?: string;
  resendBatches?: number[];
  markAccepted?: number[];
  resendUnknown: boolean;
  dryRun: boolean;
  progress: ProgressMode;
  progressInterval?: number;
  json: boolean;
}

/** Runs one import and returns the exit code. */
async function runImport(file: string, opts: CommandOptions, urlSource: string): Promise<number> {
  // Empty values (an exported but empty variable) count as absent.
  const eventsUrl = opts.eventsUrl?.trim() || undefined;
  const sdkKey = opts.sdkKey?.trim() || undefined;
  if (!opts.dryRun && !eventsUrl)
    throw new Error("missing events URL: pass --events-url or set FLAGSTACK_EVENTS_URL");
  if (!opts.dryRun && !sdkKey) throw new Error("missing SDK key: pass --sdk-key or set FLAGSTACK_SDK_KEY");
  if (eventsUrl !== undefined) checkEventsUrl(eventsUrl, urlSource);
  if (file !== "-" && !existsSync(file)) throw new Error(`events file ${file}: no such file`);
  const ac = new AbortController();
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts++;
    if (interrupts === 1) {
      process.stderr.write(
        `\nflagstack: ${signal}: no new batches; waiting for those in flight, then writing the journal (again to quit at once)\n`,
      );
      ac.abort();
    } else {
      // Every batch sent so far has its intent in the journal: a re-run reports them as unknown.
      process.exit(EXIT.interrupted);
    }
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  if (file === "-" && process.stdin.isTTY) {
    process.stderr.write("flagstack: reading events from the terminal; end with Ctrl-D\n");
  }
  const reporter = createProgressReporter(opts.progress, {
    stream: process.stderr,
    ...(opts.progressInterval ? { intervalMs: opts.progressInterval * 1000 } : {}),
  });
  let last: ImportProgress | undefined;
  let summary: ImportSummary;
  try {
    // In a worker with a capped young generation: flat memory, and this thread stays free for
    // the progress bar and signals.
    summary = await importEventsInWorker({
      input: file,
      format: opts.format,
      eventsUrl,
      sdkKey,
      batchSize: opts.batchSize,
      maxBatchBytes: opts.maxBatchBytes,
      concurrency: opts.concurrency,
      requestsPerSecond: opts.requestsPerSecond,
      rejects: opts.rejects,
      journal: opts.journal,
      resendUnknown: opts.resendUnknown,
      resendBatches: opts.resendBatches,
      markAccepted: opts.markAccepted,
      dryRun: opts.dryRun,
      signal: ac.signal,
      onProgress: (p) => {
        last = p;
        reporter.update(p);
      },
    });
  } catch (e) {
    if (last) reporter.stop(last);
    if (e instanceof ImportError) {
      print(e.summary, opts.json, urlSource);
      process.stderr.write(`flagstack: ${asCliMessage(e.message, urlSource)}\n`);
      return e.summary.interrupted ? EXIT.interrupted : EXIT.error;
    }
    // The library names its options; here the user typed flags.
    if (e instanceof Error && e.name === "ConfigurationError") {
      throw new Error(asCliMessage(e.message, urlSource));
    }
    throw e;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  if (last) reporter.stop(last);
  print(summary, opts.json, urlSource);
  if (summary.interrupted) return EXIT.interrupted;
  if (summary.unknown > 0 || summary.failed > 0) return EXIT.incomplete;
  return EXIT.ok;
}

function print(summary: ImportSummary, json: boolean, urlSource: string): void {
  process.stdout.write(
    json
      ? `${JSON.stringify(summary, null, 2)}\n`
      : formatSummary(summary).replaceAll("from the baseUrl option", `from ${urlSource}`),
  );
}
