/**
 * What the platform entities that live at account, organization or project scope share (a
 * `Connector`, a `Secret`, a `Service`, ...): their identity inputs, the rule that a project needs
 * its organization, the scope and key they are read and deleted by, and their resource id.
 * @module
 */
import { z } from "zod";
import { entityName, Identifier, Tags } from "../../sdk/platform/schemas";
import type { InputProblem } from "./check";

/** The identity inputs of a scoped platform entity; spread into a resource's inputs schema. */
export const scopedEntityShape = {
  /** Organization; absent at account level. Replaces when changed. */
  org: Identifier.optional(),
  /** Project (needs `org`); absent at account or organization level. Replaces when changed. */
  project: Identifier.optional(),
  /** Identifier, unique in its scope. Replaces when changed. */
  identifier: Identifier,
  /** Display name. */
  name: entityName(128),
  /** Description, at most 1024 characters. Default: empty. */
  description: z.string().max(1024, "description must be at most 1024 characters").default(""),
  /** Key/value tags; a key-only tag has the value `""`. */
  tags: Tags.default({}),
};

/** The inputs whose change replaces a scoped entity. */
export const SCOPE_REPLACE_ON_CHANGE = ["org", "project", "identifier"] as const;

/** Where an entity lives. */
export interface EntityKey {
  org?: string | undefined;
  project?: string | undefined;
  identifier: string;
}

/** The problem of a project given without its organization (the service's "Project %s specified without the org Identifier"). */
export function projectNeedsOrg(inputs: Omit<EntityKey, "identifier">, noun: string): InputProblem[] {
  return inputs.project !== undefined && inputs.org === undefined
    ? [{ path: ["org"], message: `a project-level ${noun} needs org as well as project` }]
    : [];
}

/** The scope of the SDK's calls. */
export const scopeOf = (k: Omit<EntityKey, "identifier">) => ({ org: k.org, project: k.project });

/**
 * How other entities name a scoped one (ref platform §3 `allowScoped`): `account.<id>` at account
 * scope, `org.<id>` at organization scope, `<id>` from its own project.
 */
export function scopedRef(k: EntityKey): string {
  if (k.project !== undefined) return k.identifier;
  return k.org !== undefined ? `org.${k.identifier}` : `account.${k.identifier}`;
}

/**
 * The resource id of a scoped entity, in the peer providers' import-id shapes (ref platform §11):
 * `<identifier>`, `<org>/<identifier>` or `<org>/<project>/<identifier>`.
 */
export const scopedId = (key: EntityKey): string =>
  [key.org, key.project, key.identifier].filter((p) => p !== undefined).join("/");

/** Reads a {@link scopedId} back into its scope and identifier. */
export function parseScopedId(id: string): { org?: string; project?: string; identifier: string } {
  const parts = id.split("/");
  if (parts.length < 1 || parts.length > 3 || parts.some((p) => p === "")) {
    // The Connector's wording, which Secret and Service have always shown too.
    throw new Error(
      `invalid connector id ${JSON.stringify(id)}: expected <identifier>, <org>/<identifier> or <org>/<project>/<identifier>`,
    );
  }
  if (parts.length === 1) return { identifier: parts[0]! };
  if (parts.length === 2) return { org: parts[0]!, identifier: parts[1]! };
  return { org: parts[0]!, project: parts[1]!, identifier: parts[2]! };
}
