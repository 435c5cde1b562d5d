/**
 * Who a change reaches, from either door's plan: the flagstack resources of a plan before and after
 * ({@link ChangeTarget}s, read by `./plan.ts` from a Terraform plan and by `./preview.ts` from
 * `pulumi preview --json`) become, per workspace and environment, the definitions and segment
 * members of each side; the flags whose definition, whose segments' members or whose `IN_SPLIT`
 * dependencies change are measured by `sdk/split/impact.ts`. `flagstack impact` prints the result,
 * and the `max-traffic-shift` policy judges it.
 *
 * Each side's resources are read through the provider's own `check` (`./resources.ts`), so a
 * definition reads here exactly as the provider applies it. A value not known until apply cannot be
 * measured: the flag is listed in the report's notes, never guessed.
 * @module
 */
import { z } from "zod";
import { SegmentKeysInputs } from "../provider/flags/segment-keys";
import { type FlagToEvaluate, splitFor } from "../sdk/split/evaluate";
import { FlagImpact, measureImpact, type Population } from "../sdk/split/impact";
import { percent } from "./common";
import {
  type DefinitionView,
  definitionPropsOf,
  isType,
  isUnknownValueError,
  readDefinition,
  TYPES,
} from "./resources";

/** A flagstack resource of a plan on both sides: its props before (none: created) and after (none: deleted). */
export interface ChangeTarget {
  /** The Terraform address or the Pulumi URN. */
  address: string;
  /** The type token of either Pulumi family (`flagstack:index:FlagDefinition`, ...). */
  type: string;
  before?: Record<string, unknown> | undefined;
  after?: Record<string, unknown> | undefined;
  /** False when the door does not know the prior state (a Pulumi policy): `./live.ts` reads it. */
  beforeKnown?: boolean | undefined;
}

/** One flag's measured change, with where it is and the resource that declares it. */
export const FlagImpactEntry = FlagImpact.extend({
  workspace: z.string(),
  /** The definition's address (Terraform) or URN (Pulumi). */
  address: z.string(),
});
export type FlagImpactEntry = z.infer<typeof FlagImpactEntry>;

/** What `flagstack impact` and the policy read. */
export const ImpactReport = z.object({
  /** What the population is: "10,000 sampled keys", "42,118 keys of keys.jsonl". */
  population: z.string(),
  /** The flags that move traffic. */
  flags: z.array(FlagImpactEntry),
  /** Changed flags that move no key: a description, a configuration, a rule no key reaches. */
  quiet: z.array(
    z.object({ workspace: z.string(), environment: z.string(), flag: z.string(), change: z.string() }),
  ),
  /** What could not be measured, and why. */
  notes: z.array(z.string()),
});
export type ImpactReport = z.infer<typeof ImpactReport>;

/**
 * The targets with each FlagDefinitions split into one FlagDefinition target per environment of
 * either side (`definitionPropsOf`: the provider's split), each under the resource's address; the
 * others as they are. A side whose `definitions` holds a value not known until apply throws the
 * engine's error for it with `throwUnknown` (the policy: the engine reports it); otherwise the
 * resource is left out with a note in `notes`, never guessed.
 */
export function splitDefinitions(
  targets: readonly ChangeTarget[],
  throwUnknown = false,
  notes: string[] = [],
): ChangeTarget[] {
  return targets.flatMap((t) => {
    if (!isType(t.type, TYPES.definitions)) return [t];
    const sides: (Map<string, Record<string, unknown>> | undefined)[] = [];
    for (const [name, props] of [
      ["before", t.before],
      ["after", t.after],
    ] as const) {
      try {
        sides.push(props === undefined ? undefined : definitionPropsOf(props));
      } catch (e) {
        if (throwUnknown || !isUnknownValueError(e)) throw e;
        notes.push(
          `${t.address}: the definitions ${name} hold a value known only after apply, so their change is not measured`,
        );
        return [];
      }
    }
    const [before, after] = sides;
    const envs = new Set([...(before?.keys() ?? []), ...(after?.keys() ?? [])]);
    const type = `${t.type.slice(0, -"FlagDefinitions".length)}FlagDefinition`;
    return [...envs].map((env) => ({ ...t, type, before: before?.get(env), after: after?.get(env) }));
  });
}

interface Side {
  view?: DefinitionView | undefined;
}

/**
 * What a definition serves, for comparing two sides: the split the SDK evaluates, without what
 * changes no treatment (configurations, change number).
 */
function servedText(name: string, environment: string, v: DefinitionView | undefined): string | undefined {
  if (!v?.document) return undefined;
  const split = splitFor({ flagName: name, definition: v.document, trafficTypeName: "user", environment });
  return JSON.stringify({ ...split, changeNumber: 0, configurations: {} });
}

/** Flags an `IN_SPLIT` rule of the document depends on. */
function dependencies(v: DefinitionView | undefined): string[] {
  const out: string[] = [];
  for (const r of v?.document?.rules ?? [])
    for (const m of r.condition.matchers) if (m.depends?.splitName) out.push(m.depends.splitName);
  return out;
}

/** Segments the document reads (treatment targets and `IN_SEGMENT` rules). */
function segmentsOf(v: DefinitionView | undefined): string[] {
  const out: string[] = [];
  for (const t of v?.document?.treatments ?? []) out.push(...(t.segments ?? []));
  for (const r of v?.document?.rules ?? [])
    for (const m of r.condition.matchers) if (m.type === "IN_SEGMENT" && m.string) out.push(m.string);
  return out;
}

/** The first line of an error, for a note. */
const firstLine = (e: unknown) => (e instanceof Error ? e.message : String(e)).split("\n")[0];

/** The members a `SegmentKeys` resource declares, or undefined when its props are not readable. */
function readMembers(props: Record<string, unknown> | undefined) {
  if (props === undefined) return undefined;
  const picked = SegmentKeysInputs.pick({
    workspace: true,
    environment: true,
    segment: true,
    keys: true,
  }).safeParse({
    workspace: props.workspace,
    environment: props.environment,
    segment: props.segment,
    keys: props.keys,
  });
  return picked.success ? picked.data : undefined;
}

/** What {@link planImpact} measures, and how it treats a value not known until apply. */
export interface ImpactOptions {
  /** Measure only the definitions of the environments it accepts (the policy: production). */
  only?: ((environment: string, view: DefinitionView) => boolean) | undefined;
  /** Throw the reader's error for a value unknown until apply (a policy's "cannot run"), instead of a note. */
  throwUnknown?: boolean | undefined;
  /**
   * The seeds the service serves for a flag in an environment, when the caller has them (read from
   * the SDK's `splitChanges`): the sample's keys are then placed as the SDK places them, key by key.
   * Default: seeds derived from the names (shares and targeted keys do not depend on them).
   */
  seeds?:
    | ((environment: string, flag: string) => { seed: number; trafficAllocationSeed: number } | undefined)
    | undefined;
}

const envKey = (workspace: string, environment: string) => `${workspace}\u0000${environment.toLowerCase()}`;

interface Environment {
  workspace: string;
  environment: string;
  defs: Map<string, { address: string; before: Side; after: Side }>;
  segments: { before: Record<string, string[]>; after: Record<string, string[]> };
  changedSegments: Set<string>;
}

/**
 * Measures every change of a plan that moves traffic (see the module's comment). `only` limits it to
 * the environments a predicate accepts (the policy measures production only).
 */
export async function planImpact(
  targets: readonly ChangeTarget[],
  population: Population,
  options: ImpactOptions = {},
): Promise<ImpactReport> {
  const only = options.only ?? (() => true);
  const notes: string[] = [];
  const envs = new Map<string, Environment>();
  const envOf = (workspace: string, environment: string): Environment => {
    const k = envKey(workspace, environment);
    let e = envs.get(k);
    if (e === undefined) {
      e = {
        workspace,
        environment,
        defs: new Map(),
        segments: { before: {}, after: {} },
        changedSegments: new Set(),
      };
      envs.set(k, e);
    }
    return e;
  };

  for (const t of splitDefinitions(targets, options.throwUnknown, notes)) {
    if (isType(t.type, TYPES.definition)) {
      const read = async (props: Record<string, unknown> | undefined, side: string) => {
        if (props === undefined) return undefined;
        try {
          return await readDefinition(props);
        } catch (e) {
          if (isUnknownValueError(e)) {
            if (options.throwUnknown) throw e;
            const at = /value at \.(\S+)/.exec(e.message)?.[1];
            notes.push(
              `${t.address}: the definition ${side} holds a value known only after apply${at ? ` (${at})` : ""}, so its change is not measured`,
            );
            return null;
          }
          notes.push(
            `${t.address}: the definition ${side} cannot be read, so its change is not measured: ${firstLine(e)}`,
          );
          return null;
        }
      };
      const [before, after] = await Promise.all([read(t.before, "before"), read(t.after, "after")]);
      if (before === null || after === null) continue;
      const v = after ?? before;
      if (v?.flagName === undefined || v.environment === undefined || v.workspace === undefined) continue;
      if (!only(v.environment, v)) continue;
      for (const [side, view] of [
        ["before", before],
        ["after", after],
      ] as const) {
        if (view && !view.document)
          notes.push(
            `${t.address}: the definition ${side} is not well formed (${view.problems.join("; ")}), so its change is not measured`,
          );
      }
      envOf(v.workspace, v.environment).defs.set(v.flagName, {
        address: t.address,
        before: { view: before },
        after: { view: after },
      });
    } else if (isType(t.type, TYPES.segmentKeys)) {
      const before = readMembers(t.before);
      const after = readMembers(t.after);
      const m = after ?? before;
      if (m === undefined) continue;
      const e = envOf(m.workspace, m.environment);
      if (before) e.segments.before[before.segment] = before.keys;
      if (after) e.segments.after[after.segment] = after.keys;
      const same =
        before !== undefined &&
        after !== undefined &&
        before.keys.length === after.keys.length &&
        new Set([...before.keys, ...after.keys]).size === before.keys.length;
      if (!same) e.changedSegments.add(m.segment);
    }
  }

  const flags: FlagImpactEntry[] = [];
  const quiet: ImpactReport["quiet"] = [];
  for (const e of envs.values()) {
    // Segments the plan does not hold keep their members on both sides: unknown here, so empty.
    const changes = new Map<string, string>();
    for (const [name, d] of e.defs) {
      const b = d.before.view;
      const a = d.after.view;
      if (b?.document === undefined && a?.document === undefined) continue;
      if (servedText(name, e.environment, b) !== servedText(name, e.environment, a)) {
        changes.set(
          name,
          !b?.document
            ? "created"
            : !a?.document
              ? "deleted"
              : b.killed !== a.killed
                ? a.killed
                  ? "killed"
                  : "restored"
                : "updated",
        );
        continue;
      }
      const moved = segmentsOf(a).filter((s) => e.changedSegments.has(s));
      if (moved.length > 0)
        changes.set(name, `members of ${[...new Set(moved)].map((s) => `"${s}"`).join(", ")}`);
    }
    // Flags that depend on a changed flag move with it.
    for (let grew = true; grew; ) {
      grew = false;
      for (const [name, d] of e.defs) {
        if (changes.has(name)) continue;
        const on = [...dependencies(d.before.view), ...dependencies(d.after.view)].find((f) =>
          changes.has(f),
        );
        if (on !== undefined) {
          changes.set(name, `depends on "${on}"`);
          grew = true;
        }
      }
    }
    if (changes.size === 0) continue;
    const side = (which: "before" | "after"): FlagToEvaluate[] =>
      [...e.defs].flatMap(([name, d]) => {
        const v = d[which].view;
        return v?.document
          ? [
              {
                flagName: name,
                definition: v.document,
                trafficTypeName: v.trafficType ?? "user",
                environment: e.environment,
                ...options.seeds?.(e.environment, name),
              },
            ]
          : [];
      });
    const measured = await measureImpact(
      {
        environment: e.environment,
        before: { flags: side("before"), segments: e.segments.before },
        after: { flags: side("after"), segments: e.segments.after },
        flags: [...changes].map(([name, change]) => ({ name, change })),
      },
      population,
    );
    for (const m of measured) {
      if (m.transitions.length === 0 && m.moved.length === 0)
        quiet.push({ workspace: e.workspace, environment: m.environment, flag: m.flag, change: m.change });
      else flags.push({ ...m, workspace: e.workspace, address: e.defs.get(m.flag)?.address ?? "" });
    }
  }
  return { population: population.label, flags, quiet, notes };
}

// ---------------------------------------------------------------------------------------------
// Reports

/** `off → on`. */
const arrow = (from: string, to: string) => `${from} → ${to}`;

/** A share with its error when it has one: `15%`, `14.9% ± 0.7`. */
export function shareText(share: number, error: number): string {
  return error > 0 ? `${percent(share)} ± ${Number(error.toFixed(2))}` : percent(share);
}

const methodText = (f: FlagImpact) =>
  f.method === "exact" ? `exact, over ${f.basis}` : `sampled, over ${f.basis}`;

const movedText = (m: FlagImpact["moved"][number]) =>
  `${m.key} ${arrow(m.from, m.to)}${m.labels ? ` (${arrow(m.labels[0], m.labels[1])})` : ""}`;

/** How many moved keys a text or markdown report lists per flag (JSON lists all). */
export const LISTED_KEYS = 20;

/** The report as text, one block per environment. */
export function impactText(r: ImpactReport): string {
  const lines: string[] = [];
  let last = "";
  for (const f of r.flags) {
    const where = `${f.environment} (workspace ${f.workspace})`;
    if (where !== last) lines.push(...(last ? [""] : []), where);
    last = where;
    lines.push(`  ${f.flag}: ${f.change}, moves ${shareText(f.shift, f.shiftError)} (${methodText(f)})`);
    for (const t of f.transitions)
      lines.push(
        `    ${arrow(t.from, t.to).padEnd(24)} ${shareText(t.share, t.error).padEnd(14)} ${t.keys} of ${f.population} keys`,
      );
    if (f.namedKeys > 0) {
      lines.push(`    named keys: ${f.moved.length} of ${f.namedKeys} move`);
      for (const m of f.moved.slice(0, LISTED_KEYS)) lines.push(`      ${movedText(m)}`);
      if (f.moved.length > LISTED_KEYS) lines.push(`      ... and ${f.moved.length - LISTED_KEYS} more`);
    }
  }
  if (r.flags.length === 0) lines.push("No change moves traffic.");
  if (r.quiet.length > 0)
    lines.push(
      `Changed, moving no key: ${r.quiet.map((q) => `${q.flag} in ${q.environment} (${q.change})`).join(", ")}.`,
    );
  for (const n of r.notes) lines.push(`note: ${n}`);
  lines.push(`Population: ${r.population} (shares are of keys no target names).`);
  return `${lines.join("\n")}\n`;
}

const cell = (s: string) => s.replaceAll("|", "\\|");

/** The report as markdown (a pull-request comment): a table per environment. */
export function impactMarkdown(r: ImpactReport): string {
  const out: string[] = ["## Who this change reaches", ""];
  const groups = new Map<string, FlagImpactEntry[]>();
  for (const f of r.flags) {
    const k = `${f.environment} (workspace ${f.workspace})`;
    groups.set(k, [...(groups.get(k) ?? []), f]);
  }
  for (const [where, fs] of groups) {
    out.push(
      `### ${cell(where)}`,
      "",
      "| flag | change | moves | from → to | method |",
      "|---|---|---|---|---|",
    );
    for (const f of fs) {
      const moves = f.transitions
        .map((t) => `${cell(arrow(t.from, t.to))}: ${shareText(t.share, t.error)}`)
        .join("<br>");
      out.push(
        `| \`${cell(f.flag)}\` | ${cell(f.change)} | **${shareText(f.shift, f.shiftError)}** | ${moves || "none"} | ${cell(methodText(f))} |`,
      );
    }
    const named = fs.filter((f) => f.moved.length > 0);
    if (named.length > 0) {
      out.push("", "Named keys that move:");
      for (const f of named) {
        const listed = f.moved.slice(0, LISTED_KEYS).map((m) => `\`${cell(movedText(m))}\``);
        const more = f.moved.length > LISTED_KEYS ? ` and ${f.moved.length - LISTED_KEYS} more` : "";
        out.push(`- \`${cell(f.flag)}\` (${f.moved.length} of ${f.namedKeys}): ${listed.join(", ")}${more}`);
      }
    }
    out.push("");
  }
  if (r.flags.length === 0) out.push("No change moves traffic.", "");
  if (r.quiet.length > 0)
    out.push(
      `Changed, moving no key: ${r.quiet.map((q) => `\`${cell(q.flag)}\` in ${cell(q.environment)} (${cell(q.change)})`).join(", ")}.`,
      "",
    );
  for (const n of r.notes) out.push(`> ${cell(n)}`);
  out.push(`_Population: ${r.population}; shares are of keys no target names._`, "");
  return out.join("\n");
}

/** Flags whose shift is above the limit of their environment (`undefined`: no limit there). */
export function overLimit(
  r: ImpactReport,
  limitOf: (environment: string) => number | undefined,
): FlagImpactEntry[] {
  return r.flags.filter((f) => {
    const limit = limitOf(f.environment);
    return limit !== undefined && f.shift > limit;
  });
}
