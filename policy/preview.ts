/**
 * `pulumi preview --json` as who-a-change-reaches reads it (`./impact.ts`): each flagstack
 * resource's step, with its state before (`oldState.outputs`: what the provider last read, as a
 * stack policy reads outputs) and its planned inputs after (`newState.inputs`, what the provider's
 * `check` returned). A value the engine does not know yet (its unknown sentinel in the JSON) reads
 * as the provider's `UNKNOWN`, which its `check` tolerates and the reader reports. Resources of both
 * families (dynamic and native) are read; a step that deletes has no after, one that creates no
 * before; a resource left as it is (`same`, listed with `--show-sames` only) has its inputs on
 * both sides.
 * @module
 */
import { z } from "zod";
import { UNKNOWN } from "../provider/core/check";
import type { ChangeTarget } from "./impact";
import { isType, TYPES } from "./resources";

/**
 * How `pulumi preview --json` writes a value not known until the update: the engine's unknown
 * sentinel, which is the provider's `UNKNOWN` (`provider/core/check.ts`), so the JSON's values are
 * read as they are.
 */
export const PREVIEW_UNKNOWN = UNKNOWN;

const State = z.looseObject({
  type: z.string(),
  inputs: z.record(z.string(), z.unknown()).optional(),
  outputs: z.record(z.string(), z.unknown()).optional(),
});
const Step = z.looseObject({
  op: z.string(),
  urn: z.string(),
  oldState: State.optional(),
  newState: State.optional(),
});
/** The part of `pulumi preview --json` read here. */
export const PreviewJson = z.looseObject({ steps: z.array(Step) });

/** Operations after which the resource no longer exists. */
const GONE = new Set(["delete", "delete-replaced", "discard", "read-discard", "remove-pending-replace"]);

/** The kinds who-a-change-reaches reads. */
const READ = [TYPES.definition, TYPES.definitions, TYPES.segmentKeys];

/** Reads the flagstack resources of `pulumi preview --json` (parsed); throws naming what is not a preview. */
export function readPreviewChanges(json: unknown): ChangeTarget[] {
  const parsed = PreviewJson.safeParse(json);
  if (!parsed.success)
    throw new Error(
      `not the JSON of pulumi preview --json: ${parsed.error.issues.map((i) => `${z.core.toDotPath(i.path) || "(document)"}: ${i.message}`).join("; ")}`,
    );
  const byUrn = new Map<string, ChangeTarget>();
  for (const step of parsed.data.steps) {
    const type = step.newState?.type ?? step.oldState?.type ?? "";
    if (!READ.some((k) => isType(type, k))) continue;
    const t = byUrn.get(step.urn) ?? { address: step.urn, type };
    byUrn.set(step.urn, t);
    const after = step.newState?.inputs ? step.newState.inputs : undefined;
    if (step.op === "same") {
      t.before = after;
      t.after = after;
      continue;
    }
    if (step.oldState?.outputs && t.before === undefined) t.before = step.oldState.outputs;
    if (!GONE.has(step.op) && after !== undefined) t.after = after;
  }
  return [...byUrn.values()];
}

/**
 * What a preview's JSON leaves out that the measure needs: without `--show-sames` it lists no
 * unchanged resource, so a segment change cannot reach the definitions that read it, nor a flag
 * its dependents.
 */
export function previewNotes(json: unknown): string[] {
  const parsed = PreviewJson.safeParse(json);
  const flagstackSame = (s: z.output<typeof Step>) =>
    s.op === "same" && READ.some((k) => isType(s.newState?.type ?? "", k));
  if (!parsed.success || parsed.data.steps.some(flagstackSame)) return [];
  return [
    "the preview lists no unchanged resource: run `pulumi preview --json --show-sames`, so that changes reaching through an unchanged definition or segment (members added to a segment a definition targets, a flag others depend on) are measured",
  ];
}
