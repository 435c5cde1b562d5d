/**
 * The bed of the kind-wide suites: the emulator on port 0 with a state file (so that what it
 * stores can be counted), a recording proxy in front of it that can lose or rewrite a chosen
 * write's answer, the provider's process settings pointed at the proxy, and a
 * {@link SampleContext} that makes every kind's sample through the kinds' own lifecycle.
 * @module
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Emulator, type EmulatorOptions, startEmulator } from "../../emulator";
import { configureProvider, resetProvider } from "../../provider/core/config";
import { withValueAt } from "../../provider/core/kind";
import { providerText } from "../../provider/core/resource";
import { NATIVE_KINDS } from "../../provider/native/kinds";
import { AdminClient, PlatformClient } from "../../sdk";
import {
  type Driver,
  directDriver,
  hostDriver,
  type Mode,
  type ProviderHost,
  type RecordingProxy,
  startRecordingProxy,
} from "../provider/harness";
import { implOf, type KindUnderTest, type SampleContext, sampleOf } from "./samples";

type Props = Record<string, unknown>;

/** A running bed. */
export interface KindBed {
  emu: Emulator;
  proxy: RecordingProxy;
  ctx: SampleContext;
  config: Record<string, string>;
  /** Every object `ctx.make` made, in order. */
  made(): { kind: string; id: string; inputs: Props; outs: Props }[];
  /** How many stored objects each collection of the emulator's state file holds now. */
  census(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

let serial = 0;

/** The checked inputs of `kind`'s sample (with `change` over them), failing on a check failure. */
export async function checked(kind: string, raw: Props): Promise<Props> {
  const r = await implOf(kind).check({}, raw);
  if (r.failures?.length) {
    throw new Error(`the ${kind} sample does not check: ${JSON.stringify(r.failures)}`);
  }
  return r.inputs as Props;
}

/** Starts a {@link KindBed}; `options` go to the emulator (its keys, say). */
export async function startKindBed(
  options: Omit<EmulatorOptions, "port" | "statePath"> = {},
): Promise<KindBed> {
  const dir = mkdtempSync(join(tmpdir(), "flagstack-kinds-"));
  const statePath = join(dir, "state.json");
  const emu = await startEmulator({ ...options, port: 0, statePath });
  const proxy = await startRecordingProxy(emu.url);
  process.env.PULUMI_NODEJS_PROJECT = "shop";
  process.env.PULUMI_NODEJS_STACK = "dev";
  const config: Record<string, string> = {
    "flagstack:adminApiUrl": proxy.url,
    "flagstack:adminApiKey": emu.adminKey,
    "flagstack:platformApiUrl": proxy.url,
    "flagstack:platformApiKey": emu.platformKey,
    "flagstack:accountId": emu.accountId,
    "flagstack:requestsPerSecond": "1000",
  };
  resetProvider();
  configureProvider({ get: (k) => config[k] });
  const admin = new AdminClient({
    baseUrl: emu.url,
    apiKey: emu.adminKey,
    requestsPerSecond: Number.POSITIVE_INFINITY,
  });
  const platform = new PlatformClient({
    baseUrl: emu.url,
    apiKey: emu.platformKey,
    accountId: emu.accountId,
    requestsPerSecond: Number.POSITIVE_INFINITY,
  });
  let project: Promise<string> | undefined;
  const made: { kind: string; id: string; inputs: Props; outs: Props }[] = [];
  const ctx: SampleContext = {
    emu,
    admin,
    platform,
    unique(prefix) {
      serial += 1;
      return `${prefix}_${String(serial).padStart(3, "0")}`;
    },
    async make(kind, change = {}) {
      const native = NATIVE_KINDS.find((k) => k.name === kind);
      if (!native) throw new Error(`no kind ${kind}`);
      let raw: unknown = await sampleOf(native).inputs(ctx);
      for (const [path, value] of Object.entries(change)) raw = withValueAt(raw, path, value);
      const inputs = await checked(kind, raw as Props);
      const { id, outs } = await implOf(kind).create(inputs);
      const object = { id, inputs, outs: JSON.parse(JSON.stringify(outs ?? {})) as Props };
      made.push({ kind, ...object });
      return object;
    },
    project() {
      project ??= (async () => {
        const identifier = ctx.unique("kinds");
        await platform.projects.create(
          { orgIdentifier: "default", identifier, name: "Kind-wide suites", color: "#0063F7" },
          { org: "default" },
        );
        return identifier;
      })();
      return project;
    },
  };
  return {
    emu,
    proxy,
    ctx,
    config,
    made: () => made.slice(),
    async census() {
      // Every response is held until its change is on disk, so the file is current here.
      return census(JSON.parse(readFileSync(statePath, "utf8")));
    },
    async stop() {
      await proxy.stop();
      await emu.stop();
      resetProvider();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The number of live records in each collection of a state file: arrays and maps of records, at
 * the top level and one level down (`platform.connectors`), leaving out SDK tombstones and records
 * marked deleted. Two creates of the same sample change it by the same amounts.
 */
export function census(state: Record<string, unknown>): Record<string, number> {
  const out: Record<string, number> = {};
  const live = (r: unknown) =>
    !(
      r !== null &&
      typeof r === "object" &&
      ((r as Props).deleted === true || (r as Props).archived === true)
    );
  const count = (path: string, v: unknown, depth: number) => {
    if (/tombstone|changeNumber|journal/i.test(path)) return;
    if (Array.isArray(v)) out[path] = v.filter(live).length;
    else if (v !== null && typeof v === "object") {
      const values = Object.values(v as Props);
      const records = values.every((x) => x !== null && typeof x === "object" && !Array.isArray(x));
      if (depth > 0 && records && values.length > 0) out[path] = values.filter(live).length;
      if (depth < 2)
        for (const [k, x] of Object.entries(v as Props)) count(path ? `${path}.${k}` : k, x, depth + 1);
    }
  };
  count("", state, 0);
  return out;
}

/** What changed between two censuses: `collection: +n` for each collection that changed. */
export function censusDelta(
  before: Record<string, number>,
  after: Record<string, number>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const d = (after[k] ?? 0) - (before[k] ?? 0);
    if (d !== 0) out[k] = d;
  }
  return out;
}

/** Each kind's name, for `describe.each`. */
export const names = (kinds: readonly KindUnderTest[]): string[] => kinds.map((k) => k.name);

/** Where `v` holds `undefined` (the engine refuses it: "Unexpected struct type."). */
export function undefinedPaths(v: unknown, path = ""): string[] {
  if (v === undefined) return [path || "(root)"];
  if (v === null || typeof v !== "object") return [];
  return Object.entries(v as Props).flatMap(([k, x]) => undefinedPaths(x, path ? `${path}.${k}` : k));
}

/** What the engine does with a create: its result, or the object it records from a partial failure. */
export async function createAsEngine(
  impl: {
    create(i: never): Promise<{ id: string; outs?: unknown }>;
    update(id: string, o: never, n: never): Promise<{ outs?: unknown }>;
    diff(id: string, o: never, n: never): Promise<{ changes?: boolean }>;
  },
  inputs: Props,
): Promise<{ id: string; outs: Props; failures: string[] }> {
  const failures: string[] = [];
  for (let run = 0; run < 3; run++) {
    try {
      const r = await impl.create(inputs as never);
      return { id: r.id, outs: r.outs as Props, failures };
    } catch (e) {
      failures.push(e instanceof Error ? e.message : String(e));
      const partial = e as { id?: string; properties?: Props };
      if (partial.id) {
        // ErrorResourceInitFailed: the engine records the object; the next `up` updates it.
        const props = JSON.parse(JSON.stringify(partial.properties ?? {})) as Props;
        const diff = await impl.diff(partial.id, props as never, inputs as never);
        if (!diff.changes) return { id: partial.id, outs: props, failures };
        const r = await impl.update(partial.id, props as never, inputs as never);
        return { id: partial.id, outs: r.outs as Props, failures };
      }
    }
  }
  throw new Error(`create did not converge in three runs: ${failures.join(" | ")}`);
}

/** A value as the engine carries it: plain JSON (`undefined` members dropped). */
export const plainJson = (v: unknown): Props => JSON.parse(JSON.stringify(v ?? {})) as Props;

/** A kind's driver in `mode`: its implementation, or `host` with the kind's `__provider` text. */
export function kindDriver(kind: KindUnderTest, mode: Mode, host: ProviderHost | undefined): Driver {
  if (mode === "direct") return directDriver(kind.impl as never);
  if (!host) throw new Error("the gRPC host mode needs a host");
  return hostDriver(host, providerText(kind.file));
}
