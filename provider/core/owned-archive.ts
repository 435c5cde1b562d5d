/**
 * The change requests that take what an owner holds out of an environment that requires approvals
 * (ARCHIVE): a flag's definition, a segment's members, a rule-based segment's definition. Two kinds
 * submit each: the owned kind's delete (`./change-request.ts` `gatedDelete`) and, in every gated
 * environment, its owner's (`ownerDeleteGate`: `Flag`, `Segment`, `RuleBasedSegment`), so they
 * live here, below both, with what they need of the owned kind's request building (its subject
 * text, the key change of `SegmentKeys`, the definition document of `RuleBasedSegmentDefinition`).
 * @module
 */
import type { z } from "zod";
import type { RuleBasedSegmentDefinitionBody } from "../../sdk/admin/schemas";
import type { ChangeSubject } from "./change-request";
import { changeNote } from "./config";
import { plain } from "./resource";
import { setChanges } from "./workspace-fields";

/** Where the owned object lives: a workspace's environment, by id, and the environment's name for messages. */
export interface EnvironmentPlace {
  workspaceId: string;
  environmentId: string;
  environmentName: string;
}

// ---------------------------------------------------------------------------------------------
// A flag's definition

/** `flag "x" in environment "Production"`, for messages and notes. */
export function definitionSubject(flag: string, environment: string): string {
  return `flag "${flag}" in environment "${environment}"`;
}

/**
 * The change request that deletes a flag's definition in an environment (ARCHIVE, splitapiclient
 * `split_definition.py` `submit_change_request`): a `FlagDefinition`'s delete, and a `Flag`'s in
 * the environments that require approvals.
 */
export function definitionArchive(
  wsId: string,
  environment: { id: string; name: string },
  flagName: string,
): ChangeSubject {
  return {
    wsId,
    environmentId: environment.id,
    environmentName: environment.name,
    kind: "split",
    name: flagName,
    payload: {},
    operationType: "ARCHIVE",
    describe: `the definition of ${definitionSubject(flagName, environment.name)}`,
  };
}

/** The title and comment of a definition's delete where the program gives none: `changeNote`'s. */
export const definitionDeleteNote = (flagName: string, environmentName: string) =>
  changeNote("delete", definitionSubject(flagName, environmentName));

// ---------------------------------------------------------------------------------------------
// A segment's members

/**
 * The change request of a key change refused by a gated environment: UPDATE with the keys added,
 * or ARCHIVE with the keys removed (what the emulator models from splitapiclient's
 * `segment_definition.py` `submit_change_request(keys, operation_type, ...)`). The service keeps
 * one open request per segment and environment, so a change that both adds and removes keys is
 * refused, naming `keys`.
 */
export function keysChange(
  place: EnvironmentPlace,
  segment: string,
  from: readonly string[],
  to: readonly string[],
): ChangeSubject {
  const { add, remove } = setChanges(from, to);
  const where = `segment "${segment}" in environment "${place.environmentName}"`;
  if (add.length > 0 && remove.length > 0) {
    throw new Error(
      `keys: environment "${place.environmentName}" requires approvals, and a change request of ${where} either adds ` +
        `keys or removes them (one open change request per segment): this update adds ${add.length} and removes ` +
        `${remove.length}. Apply the additions and the removals in two updates`,
    );
  }
  return {
    wsId: place.workspaceId,
    environmentId: place.environmentId,
    environmentName: place.environmentName,
    kind: "segment",
    name: segment,
    payload: { keys: add.length > 0 ? add : remove },
    operationType: add.length > 0 ? "UPDATE" : "ARCHIVE",
    describe: `the keys of ${where}`,
  };
}

/**
 * The change request that removes every live member of a segment in an environment (ARCHIVE of
 * the keys): a `SegmentKeys`'s delete, and a `Segment`'s in the environments that require approvals.
 * `undefined` when it has none.
 */
export function keysArchive(
  place: EnvironmentPlace,
  segment: string,
  live: readonly string[],
): ChangeSubject | undefined {
  return live.length > 0 ? keysChange(place, segment, live, []) : undefined;
}

// ---------------------------------------------------------------------------------------------
// A rule-based segment's definition

type DefinitionBody = z.output<typeof RuleBasedSegmentDefinitionBody>;
/** The fields of a rule-based segment's definition itself, as its PUT sends them. */
export type RuleBasedDocField = "rules" | "excludedKeys" | "excludedSegments";
/** A rule-based segment's definition document: its rules, excluded keys and excluded segments. */
export type RuleBasedDoc = { [F in RuleBasedDocField]: NonNullable<DefinitionBody[F]> };

/** The definition document of these values, as the PUT and a change request send it. */
export const ruleBasedDoc = (v: RuleBasedDoc) =>
  plain({ rules: v.rules, excludedKeys: v.excludedKeys, excludedSegments: v.excludedSegments });

/** The change request of a definition refused by a gated environment: an UPDATE of the whole definition. */
export const ruleBasedChange = (
  place: EnvironmentPlace,
  segment: string,
  doc: RuleBasedDoc,
): ChangeSubject => ({
  wsId: place.workspaceId,
  environmentId: place.environmentId,
  environmentName: place.environmentName,
  kind: "ruleBasedSegment",
  name: segment,
  payload: ruleBasedDoc(doc),
  // An active segment's definition is replaced: splitapiclient sends the whole definition with
  // the caller's operation; CREATE would name a segment new to the environment (activation does that).
  operationType: "UPDATE",
  describe: `the definition of rule-based segment "${segment}" in environment "${place.environmentName}"`,
});

/**
 * The change request that takes a rule-based segment out of an environment (ARCHIVE, with the live
 * definition): a `RuleBasedSegmentDefinition`'s delete, and a `RuleBasedSegment`'s in the
 * environments that require approvals.
 */
export const ruleBasedArchive = (
  place: EnvironmentPlace,
  segment: string,
  live: RuleBasedDoc,
): ChangeSubject => ({
  ...ruleBasedChange(place, segment, live),
  operationType: "ARCHIVE",
});

/** Whether a definition holds anything (rules or exclusions): an empty one is no targeting to approve. */
export const holdsTargeting = (d: RuleBasedDoc) =>
  d.rules.length > 0 || d.excludedKeys.length > 0 || d.excludedSegments.length > 0;
