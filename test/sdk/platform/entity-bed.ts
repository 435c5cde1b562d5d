/**
 * A platform client against its own emulator on 127.0.0.1:0, with a recording dispatcher (the
 * exact requests sent) and the project `default/payments`: what the v2 entity namespaces' tests
 * share.
 */
import { afterAll, beforeAll, beforeEach } from "vitest";
import { type Emulator, startEmulator } from "../../../emulator";
import { closeSharedPools } from "../../../sdk/core/pool";
import { PlatformClient } from "../../../sdk/platform/client";
import { type Recorder, recordingDispatcher } from "../helpers/recording-dispatcher";

/** A running {@link startPlatformBed}. */
export interface PlatformBed {
  emu: Emulator;
  rec: Recorder;
  platform: PlatformClient;
  /** What the emulator saw since the last {@link reset}: `METHOD path?query status`. */
  seen(): string[];
  /** `if-match` of each request sent since the last {@link reset} (`-` when none). */
  ifMatches(): string[];
  reset(): void;
  stop(): Promise<void>;
}

/** Starts a {@link PlatformBed}. */
export async function startPlatformBed(): Promise<PlatformBed> {
  const emu = await startEmulator({ port: 0 });
  const rec = recordingDispatcher();
  const platform = new PlatformClient({
    baseUrl: emu.url,
    apiKey: emu.platformKey,
    accountId: emu.accountId,
    requestsPerSecond: Number.POSITIVE_INFINITY,
    dispatcher: rec.dispatcher,
  });
  await platform.projects.create({ identifier: "payments", name: "Payments" });
  const reset = () => {
    emu.resetRequests();
    rec.sent.length = 0;
  };
  reset();
  return {
    emu,
    rec,
    platform,
    seen: () => emu.requests().map((r) => `${r.method} ${r.path}${r.query ? `?${r.query}` : ""} ${r.status}`),
    ifMatches: () => rec.sent.map((s) => s.headers["if-match"] ?? "-"),
    reset,
    async stop() {
      await emu.stop();
      await closeSharedPools();
    },
  };
}

/** Every item of an async iterable. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of items) out.push(x);
  return out;
}

/**
 * A {@link PlatformBed} for the calling test file: started before its tests, its request records
 * forgotten before each, stopped after them. Its members are read when the tests run.
 */
export function usePlatformBed(): PlatformBed {
  let bed: PlatformBed | undefined;
  beforeAll(async () => {
    bed = await startPlatformBed();
  });
  afterAll(async () => {
    await bed?.stop();
  });
  beforeEach(() => bed?.reset());
  const get = (): PlatformBed => {
    if (bed === undefined) throw new Error("the platform bed is not started yet");
    return bed;
  };
  return {
    get emu() {
      return get().emu;
    },
    get rec() {
      return get().rec;
    },
    get platform() {
      return get().platform;
    },
    seen: () => get().seen(),
    ifMatches: () => get().ifMatches(),
    reset: () => get().reset(),
    stop: () => get().stop(),
  };
}

/** Creates the pipeline `identifier` in `default/payments`, with one runtime input (`<+input>` tag). */
export async function createPipeline(platform: PlatformClient, identifier: string): Promise<void> {
  const step = {
    step: {
      type: "ShellScript",
      name: "hello",
      identifier: "hello",
      timeout: "10m",
      spec: { shell: "Bash", onDelegate: true, source: { type: "Inline", spec: { script: "<+input>" } } },
    },
  };
  await platform.pipelines.create(
    {
      pipeline: {
        name: identifier,
        identifier,
        orgIdentifier: "default",
        projectIdentifier: "payments",
        stages: [
          {
            stage: {
              name: "build",
              identifier: "build",
              type: "Custom",
              spec: { execution: { steps: [step] } },
            },
          },
        ],
      },
    },
    { org: "default", project: "payments" },
  );
}
