/**
 * What the resources that live in a workspace share: the diff rules of their `workspace` and
 * `trafficType` inputs (the same object given by name or by id is no change: the state holds
 * both), a tag set, the natural-key import id `<workspace>/.../<name>`, and the look-up of an
 * object by name in a workspace list that fails with the valid names.
 * @module
 */
import { z } from "zod";
import type { Workspace } from "../../sdk/admin/schemas";
import type { FieldRule } from "./diff";
import type { ImportId } from "./kind";
import { NotFoundByName } from "./resolve";

/** Both are strings and equal. */
export const sameText = (a: unknown, b: unknown): boolean =>
  typeof a === "string" && typeof b === "string" && a === b;

/**
 * `workspace`: the recorded value, or the workspace's id or name recorded beside it
 * (`workspaceId`, `workspaceName`).
 */
export const workspaceRule: FieldRule = {
  equals: (o, n, olds) => sameText(n, o) || sameText(n, olds.workspaceId) || sameText(n, olds.workspaceName),
};

/** `environment`: the recorded value, or the environment's id or name recorded beside it. */
export const environmentRule: FieldRule = {
  equals: (o, n, olds) =>
    sameText(n, o) || sameText(n, olds.environmentId) || sameText(n, olds.environmentName),
};

/** `trafficType` (default `user`): the recorded value, or the traffic type's id recorded beside it. */
export const trafficTypeRule: FieldRule = {
  equals: (o, n, olds) => sameText(n, o ?? "user") || sameText(n, olds.trafficTypeId),
};

/** A set of strings as one canonical list: sorted, without duplicates. */
export const asSet = (values: readonly string[] | undefined): string[] => [...new Set(values ?? [])].sort();

/**
 * What takes the set `from` to the set `to`: the members to add and the members to remove, each
 * sorted; nothing for a member in both.
 */
export function setChanges(
  from: readonly string[],
  to: readonly string[],
): { add: string[]; remove: string[] } {
  const before = new Set(from);
  const after = new Set(to);
  return {
    add: [...after].filter((k) => !before.has(k)).sort(),
    remove: [...before].filter((k) => !after.has(k)).sort(),
  };
}

/** The diff rule of a set of strings: order and duplicates make no change. */
export const setRule: FieldRule = { normalize: (v) => asSet(v as string[] | undefined) };

/** Tags, a set: order and duplicates do not matter. Default: none. */
export const TagSet = z
  .array(z.string().min(1, "a tag must not be empty").max(256, "a tag must be at most 256 characters"))
  .default([])
  .transform(asSet);

/**
 * The parts of a natural-key import id of the kind's form (`<workspace>/<name>`, its definition's
 * `importId`): exactly as many non-empty parts as the form has, else an Error showing the form
 * and its example.
 */
export function importParts(importId: string, key: ImportId): string[] {
  const parts = importId.split("/");
  if (parts.length !== key.form.split("/").length || parts.some((p) => p === "")) {
    throw new Error(`import id "${importId}" must be ${key.form}, e.g. ${key.example}`);
  }
  return parts;
}

/**
 * The object of the workspace with this name (or id, where it has one) among `list`; a
 * {@link NotFoundByName} listing the valid names when there is none.
 */
export async function findInWorkspace<T extends { name: string; id?: string }>(
  kind: string,
  workspace: Workspace,
  nameOrId: string,
  list: AsyncIterable<T>,
): Promise<T> {
  const all: T[] = [];
  for await (const item of list) all.push(item);
  const found =
    all.find((x) => x.id !== undefined && x.id === nameOrId) ?? all.find((x) => x.name === nameOrId);
  if (found === undefined) {
    throw new NotFoundByName(
      kind,
      nameOrId,
      all.map((x) => x.name),
      ` in workspace "${workspace.name}"`,
    );
  }
  return found;
}
