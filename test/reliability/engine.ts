/**
 * A small stand-in for the Pulumi engine's `up`, for the reliability suite: it drives providers
 * (through a {@link Driver}: the implementation directly, or the real gRPC host) with the same
 * step logic the engine uses, and keeps the state the engine would keep.
 *
 * Per desired resource, in dependency order: `check(old inputs, program inputs)`; no state: `create`;
 * state: `diff(id, old outputs, checked inputs)`, then a replacement (delete first when the
 * provider asks for it, else create, and delete the old object after every create and update), an
 * `update` when something changed or the last step left the object half-initialised, or nothing.
 * Resources in state the program no longer declares are deleted, dependents first.
 *
 * As in the engine: an error from `create` or `update` that carries an id and properties
 * (`ErrorResourceInitFailed`, ref pulumi-notes §5.6) records the object as created but
 * half-initialised; any other failure leaves the state as it was; a resource whose dependency
 * failed in this run is skipped. `up` reports every failure instead of throwing, so a test can
 * run it again, as a user runs `pulumi up` again, until it converges.
 */
import type { Driver } from "../provider/harness";

type Props = Record<string, unknown>;

/** One resource the program declares. */
export interface Declared {
  /** Unique name in the program (the URN's last part). */
  urn: string;
  /** Which provider manages it (a key of the engine's drivers). */
  kind: string;
  /** The program's inputs, before `check`. */
  inputs: Props;
  /** URNs this resource depends on (its inputs use their outputs). */
  deps: readonly string[];
}

/** What the engine keeps about one resource. */
export interface StateEntry {
  urn: string;
  kind: string;
  id: string;
  /** The checked inputs of the last successful step. */
  inputs: Props;
  outs: Props;
  deps: readonly string[];
  /** The last create or update failed after the object was created: the next run updates it. */
  initFailed: boolean;
}

/** One provider call the engine made that changes something. */
export interface Step {
  urn: string;
  op: "create" | "update" | "delete" | "replace";
}

/** A failed step. */
export interface StepError {
  urn: string;
  op: string;
  message: string;
}

/** The outcome of one {@link MiniEngine.up}. */
export interface UpResult {
  steps: Step[];
  errors: StepError[];
}

/** The id and properties of an `ErrorResourceInitFailed`, from a direct error or the host's. */
function initFailure(e: unknown): { id: string; properties: Props } | undefined {
  const fromHost = (e as { initFailed?: { id: string; properties: Props } }).initFailed;
  if (fromHost?.id) return fromHost;
  const direct = e as { id?: unknown; properties?: unknown };
  if (typeof direct.id === "string" && direct.id && typeof direct.properties === "object") {
    return { id: direct.id, properties: JSON.parse(JSON.stringify(direct.properties)) as Props };
  }
  return undefined;
}

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Runs `fn` over `items` with at most `parallel` at a time. */
async function pool<T>(items: readonly T[], parallel: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(parallel, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  });
  await Promise.all(workers);
}

/** Dependency levels: level 0 has no dependency among `urns`, level n depends on level < n. */
function levels<T extends { urn: string; deps: readonly string[] }>(items: readonly T[]): T[][] {
  const byUrn = new Map(items.map((i) => [i.urn, i]));
  const depth = new Map<string, number>();
  const depthOf = (i: T, seen: Set<string>): number => {
    const known = depth.get(i.urn);
    if (known !== undefined) return known;
    if (seen.has(i.urn)) throw new Error(`dependency cycle through ${i.urn}`);
    seen.add(i.urn);
    let d = 0;
    for (const dep of i.deps) {
      const other = byUrn.get(dep);
      if (other) d = Math.max(d, depthOf(other, seen) + 1);
    }
    depth.set(i.urn, d);
    return d;
  };
  const out: T[][] = [];
  for (const i of items) {
    const d = depthOf(i, new Set());
    const level = out[d] ?? [];
    level.push(i);
    out[d] = level;
  }
  return out.filter((l) => l !== undefined);
}

/** The engine; see the module comment. */
export class MiniEngine {
  readonly state = new Map<string, StateEntry>();
  /** Old objects of create-before-delete replacements whose delete has not succeeded yet. */
  readonly pendingDeletes: StateEntry[] = [];

  /**
   * @param drivers One driver per kind.
   * @param parallel Steps in flight at once (1: a fixed order, so a fault seed replays exactly).
   */
  constructor(
    private readonly drivers: Readonly<Record<string, Driver>>,
    private readonly parallel = 1,
  ) {}

  private driver(kind: string): Driver {
    const d = this.drivers[kind];
    if (!d) throw new Error(`no driver for ${kind}`);
    return d;
  }

  /** One `pulumi up` of `program`. */
  async up(program: readonly Declared[]): Promise<UpResult> {
    const steps: Step[] = [];
    const errors: StepError[] = [];
    const failed = new Set<string>();
    const fail = (urn: string, op: string, e: unknown) => {
      failed.add(urn);
      errors.push({ urn, op, message: messageOf(e) });
    };

    for (const level of levels(program)) {
      await pool(level, this.parallel, async (r) => {
        if (r.deps.some((d) => failed.has(d))) {
          fail(r.urn, "skip", new Error(`skipped: a dependency failed`));
          return;
        }
        try {
          await this.step(r, steps);
        } catch (e) {
          const init = initFailure(e);
          if (init) {
            const old = this.state.get(r.urn);
            this.state.set(r.urn, {
              urn: r.urn,
              kind: r.kind,
              id: init.id,
              inputs: old?.inputs ?? {},
              outs: init.properties,
              deps: r.deps,
              initFailed: true,
            });
          }
          fail(r.urn, "step", e);
        }
      });
    }

    // Old objects of replacements, then resources the program no longer declares: dependents first.
    const declared = new Set(program.map((r) => r.urn));
    const pending = this.pendingDeletes.splice(0);
    await pool(pending, this.parallel, async (old) => {
      try {
        await this.driver(old.kind).delete(old.id, old.outs);
        steps.push({ urn: old.urn, op: "delete" });
      } catch (e) {
        this.pendingDeletes.push(old);
        fail(old.urn, "delete replaced", e);
      }
    });
    const gone = [...this.state.values()].filter((s) => !declared.has(s.urn));
    for (const level of levels(gone).reverse()) {
      await pool(level, this.parallel, async (s) => {
        if (gone.some((o) => o.deps.includes(s.urn) && this.state.has(o.urn))) {
          fail(s.urn, "delete", new Error("skipped: a dependent is still there"));
          return;
        }
        try {
          await this.driver(s.kind).delete(s.id, s.outs);
          this.state.delete(s.urn);
          steps.push({ urn: s.urn, op: "delete" });
        } catch (e) {
          fail(s.urn, "delete", e);
        }
      });
    }
    return { steps, errors };
  }

  private async step(r: Declared, steps: Step[]): Promise<void> {
    const d = this.driver(r.kind);
    const old = this.state.get(r.urn);
    const checked = await d.check(old?.inputs ?? {}, r.inputs);
    if (checked.failures.length > 0) {
      throw new Error(
        `check failed: ${checked.failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`,
      );
    }
    const inputs = checked.inputs;
    const record = (id: string, outs: Props) =>
      this.state.set(r.urn, { urn: r.urn, kind: r.kind, id, inputs, outs, deps: r.deps, initFailed: false });

    if (!old) {
      const created = await d.create(inputs);
      record(created.id, created.outs);
      steps.push({ urn: r.urn, op: "create" });
      return;
    }
    const diff = await d.diff(old.id, old.outs, inputs);
    if (diff.replaces.length > 0) {
      if (diff.deleteBeforeReplace) {
        await d.delete(old.id, old.outs);
        this.state.delete(r.urn);
        const created = await d.create(inputs);
        record(created.id, created.outs);
      } else {
        const created = await d.create(inputs);
        record(created.id, created.outs);
        this.pendingDeletes.push(old);
      }
      steps.push({ urn: r.urn, op: "replace" });
      return;
    }
    if (diff.changes || old.initFailed) {
      const updated = await d.update(old.id, old.outs, inputs);
      record(old.id, updated.outs);
      steps.push({ urn: r.urn, op: "update" });
      return;
    }
    // No change: the engine keeps the old outputs and takes the new inputs.
    this.state.set(r.urn, { ...old, inputs, deps: r.deps });
  }

  /**
   * Runs {@link up} until a run has no error, at most `maxRuns` times; returns every run's result.
   * @throws when the last run still failed, listing its errors.
   */
  async upUntilConverged(program: readonly Declared[], maxRuns: number): Promise<UpResult[]> {
    const runs: UpResult[] = [];
    for (let i = 0; i < maxRuns; i++) {
      const result = await this.up(program);
      runs.push(result);
      if (result.errors.length === 0) return runs;
    }
    const last = runs[runs.length - 1]?.errors ?? [];
    throw new Error(
      `not converged after ${maxRuns} runs; last errors:\n${last.map((e) => `  ${e.urn} (${e.op}): ${e.message}`).join("\n")}`,
    );
  }

  /**
   * `pulumi refresh`: reads every resource; a gone one leaves the state, the others take the
   * properties and inputs read.
   */
  async refresh(): Promise<{ gone: string[]; errors: StepError[] }> {
    const gone: string[] = [];
    const errors: StepError[] = [];
    await pool([...this.state.values()], this.parallel, async (s) => {
      try {
        const read = await this.driver(s.kind).read(s.id, s.outs);
        if (!read.id || !read.props) {
          this.state.delete(s.urn);
          gone.push(s.urn);
          return;
        }
        this.state.set(s.urn, { ...s, id: read.id, outs: read.props, inputs: read.inputs ?? s.inputs });
      } catch (e) {
        errors.push({ urn: s.urn, op: "read", message: messageOf(e) });
      }
    });
    return { gone: gone.sort(), errors };
  }
}
