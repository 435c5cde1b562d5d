/**
 * `EnvironmentGroup`: a named group of a scope's delivery environments (`DeliveryEnvironment`s),
 * at account, organization or project scope, which a pipeline can deploy to as one (Go SDK
 * `harness/nextgen/api_environment_group.go`; Terraform provider
 * `internal/service/cd_nextgen/environment_group/resource_environment_group.go`). The service keeps
 * name, description, tags and the environments in a YAML `environmentGroup: {..., envIdentifiers}`;
 * this resource types them, and reads them back from the answer's fields.
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below (a project needs its organization) |
 * | diff | none: scope, identifier, name, description, tags, color, environments (a set); scope and identifier replace |
 * | create | `POST /ng/api/environmentGroup {identifier, orgIdentifier, projectIdentifier, color, yaml}` (or with `adopt` the `GET` below first, then one guarded `PUT` when it differs); a create whose response was lost is found again by `GET` |
 * | read | `GET /ng/api/environmentGroup/{identifier}`: the fields and the version (`ETag`); missing means deleted outside Pulumi |
 * | update | the read, compared with the recorded state (`./core/guard.ts`), then `PUT /ng/api/environmentGroup/{identifier}`, a full replace (the changed fields desired, the rest live) with `If-Match` of the version read (`./core/if-match.ts`) |
 * | delete | `DELETE /ng/api/environmentGroup/{identifier}`; already gone is success |
 * @module
 */
import YAML from "yaml";
import { z } from "zod";
import type { PlatformClient } from "../../sdk/platform/client";
import {
  DEFAULT_PROJECT_COLOUR,
  type EnvironmentGroupData,
  HEX_COLOUR,
  Identifier,
} from "../../sdk/platform/schemas";
import type { Versioned } from "../../sdk/platform/versioned";
import type { DiffSpec } from "../core/diff";
import { guardedUpdate } from "../core/guard";
import { writeIfMatch } from "../core/if-match";
import { defineKind, type ImportId, kindToken } from "../core/kind";
import { createOrAdopt, GONE, readOrGone } from "../core/lifecycle";
import { entityKeyOf, inputsFrom, lookupAndDelete } from "../core/ng-entity";
import { AdoptInput, platformApi } from "../core/platform-common";
import {
  projectNeedsOrg,
  SCOPE_REPLACE_ON_CHANGE,
  scopedEntityShape,
  scopedId,
  scopedRef,
  scopeOf,
} from "../core/platform-scope";
import { dataVerbs, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import { asSet, setRule } from "../core/workspace-fields";

/** The inputs of an {@link EnvironmentGroup}. */
export const EnvironmentGroupInputs = z.strictObject({
  ...scopedEntityShape,
  /** The group's colour, `#RRGGBB`. Default: `#0063F7`, the service's. */
  color: z.string().regex(HEX_COLOUR, "color must be a hex colour #RRGGBB").default(DEFAULT_PROJECT_COLOUR),
  /**
   * The identifiers of the scope's delivery environments in the group (`DeliveryEnvironment.identifier`),
   * a set: order and repetitions make no change. Default: none.
   */
  environments: z
    .array(Identifier, { error: "environments must be a list of environment identifiers" })
    .default([])
    .transform(asSet),
  /** Take over an existing environment group with this identifier in this scope instead of failing. */
  adopt: AdoptInput,
});
/** Checked inputs of an {@link EnvironmentGroup}. */
export type EnvironmentGroupInputs = z.output<typeof EnvironmentGroupInputs>;

/** The outputs of an {@link EnvironmentGroup}. */
export const EnvironmentGroupOutputs = EnvironmentGroupInputs.extend({
  /** The YAML the service stores. */
  yaml: z.string(),
  /** How a pipeline names the group: `account.<id>`, `org.<id>` or `<id>`. */
  ref: z.string(),
  /** The group's version as last seen (the `ETag`); an update sends it as `If-Match`. */
  version: z.number().int().optional(),
});
/** Outputs of an {@link EnvironmentGroup}. */
export type EnvironmentGroupOutputs = z.output<typeof EnvironmentGroupOutputs>;
/** The arguments of `new EnvironmentGroup(...)`. */
export type EnvironmentGroupArgs = ResourceArgs<z.input<typeof EnvironmentGroupInputs>>;

/** Inputs whose change replaces the group: its scope and identifier. */
export const environmentGroupReplaceOnChange =
  SCOPE_REPLACE_ON_CHANGE satisfies readonly (keyof EnvironmentGroupInputs)[];

const groupDiff: DiffSpec<Exclude<keyof EnvironmentGroupInputs, "adopt">> = {
  fields: ["org", "project", "identifier", "name", "description", "tags", "color", "environments"],
  replaceOnChange: environmentGroupReplaceOnChange,
  rules: {
    environments: setRule,
    color: { normalize: (v) => (typeof v === "string" ? v.toUpperCase() : v) },
  },
};

/** The YAML the service gets: `environmentGroup: {name, identifier, ..., envIdentifiers}` (TFP tests). */
export function environmentGroupYaml(i: EnvironmentGroupInputs): string {
  const environmentGroup = {
    name: i.name,
    identifier: i.identifier,
    description: i.description,
    orgIdentifier: i.org,
    projectIdentifier: i.project,
    tags: i.tags,
    envIdentifiers: i.environments,
  };
  return YAML.stringify({ environmentGroup: plain(environmentGroup) }, { lineWidth: 0 });
}

/** The group's natural key as an import id: its scope and identifier. */
const IMPORT_ID: ImportId = { form: "[<org>/[<project>/]]<identifier>", example: "default/payments/prod" };

const describe = (i: Pick<EnvironmentGroupInputs, "org" | "project" | "identifier">) =>
  `environment group "${i.identifier}" (${scopedRef(i)})`;

const request = (i: EnvironmentGroupInputs) => ({
  identifier: i.identifier,
  orgIdentifier: i.org,
  projectIdentifier: i.project,
  color: i.color,
  yaml: environmentGroupYaml(i),
});

/** The outputs of a group as the service answers it, with what only the program holds (`adopt`). */
function toOutputs(
  key: EnvironmentGroupInputs,
  data: Versioned<EnvironmentGroupData>,
): EnvironmentGroupOutputs {
  const g = data.envGroup;
  const inputs = inputsFrom(EnvironmentGroupInputs, {
    org: key.org,
    project: key.project,
    identifier: key.identifier,
    name: g.name,
    description: g.description,
    tags: { ...g.tags },
    color: g.color ?? DEFAULT_PROJECT_COLOUR,
    environments: g.envIdentifiers,
    adopt: key.adopt,
  });
  return plain({
    ...inputs,
    yaml: g.yaml ?? environmentGroupYaml(inputs),
    ref: scopedRef(inputs),
    version: data.version,
  });
}

/** Replaces the group, guarded by `ifMatch` (the version read). */
async function put(api: PlatformClient, inputs: EnvironmentGroupInputs, ifMatch: number | undefined) {
  const data = await writeIfMatch(describe(inputs), ifMatch, (version) =>
    api.environmentGroups.update(request(inputs), { ifMatch: version }),
  );
  return toOutputs(inputs, data);
}

/** The inputs part of outputs. */
const inputsOf = (o: EnvironmentGroupOutputs): EnvironmentGroupInputs => {
  const { yaml: _y, ref: _r, version: _v, ...inputs } = o;
  return inputs;
};

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link environmentGroupProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<EnvironmentGroupInputs, EnvironmentGroupOutputs> = {
  ...dataVerbs(
    {
      schema: EnvironmentGroupInputs,
      validate: (inputs) => projectNeedsOrg(inputs, "environment group"),
    },
    groupDiff,
  ),

  async create(inputs) {
    const api = platformApi();
    const { value, how } = await createOrAdopt<Versioned<EnvironmentGroupData>>({
      describe: describe(inputs),
      adopt: inputs.adopt,
      lookup: () => readOrGone(() => api.environmentGroups.get(inputs.identifier, scopeOf(inputs))),
      create: () => api.environmentGroups.create(request(inputs)),
    });
    let outs = toOutputs(inputs, value);
    // An adopted (or recovered) group that differs from the program is converged with one guarded PUT.
    if (how !== "created" && (await impl.diff(scopedId(inputs), outs, inputs)).changes) {
      outs = await put(api, inputs, outs.version);
    }
    return { id: scopedId(inputs), outs };
  },

  async read(id, props) {
    const prev = props as Partial<EnvironmentGroupOutputs> | undefined;
    const key = entityKeyOf(id, prev);
    const data = await readOrGone(() => platformApi().environmentGroups.get(key.identifier, scopeOf(key)));
    if (data === undefined) return GONE;
    const outs = toOutputs({ ...key, adopt: prev?.adopt ?? false } as EnvironmentGroupInputs, data);
    return { id, props: outs, inputs: plain(inputsOf(outs)) as EnvironmentGroupOutputs };
  },

  async update(id, olds, news) {
    return guardedUpdate({
      describe: describe(olds),
      spec: groupDiff,
      recorded: olds,
      desired: news,
      read: () => impl.read(id, olds),
      write: async (fields, live) => {
        if (fields.length === 0) return { ...live, adopt: news.adopt };
        const merged = { ...inputsOf(live), adopt: news.adopt } as Record<string, unknown>;
        for (const f of fields) merged[f] = news[f];
        return put(platformApi(), merged as EnvironmentGroupInputs, live.version ?? olds.version);
      },
    });
  },

  ...lookupAndDelete(
    () => platformApi().environmentGroups,
    (k: EnvironmentGroupInputs) => scopeOf(k),
  ),
};

/**
 * A group of delivery environments of a scope.
 * @example
 * ```ts
 * const prodGroup = new EnvironmentGroup("prod", {
 *   org: "default", project: "payments", identifier: "prod", name: "Production",
 *   environments: [prodEu.identifier, prodUs.identifier],
 * });
 * ```
 */
export const EnvironmentGroup = resourceClass(
  "environment-group",
  kindToken("EnvironmentGroup"),
  EnvironmentGroupInputs,
  EnvironmentGroupOutputs,
);
/** An {@link EnvironmentGroup} object: one `Output` per member of {@link EnvironmentGroupOutputs}. */
export type EnvironmentGroup = InstanceType<typeof EnvironmentGroup>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const environmentGroupProviderText = EnvironmentGroup.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`./core/kind.ts`). */
export const kind = defineKind({
  resource: EnvironmentGroup,
  impl,
  area: "platform",
  replaceOnChange: environmentGroupReplaceOnChange,
  importId: IMPORT_ID,
  doc: {
    what: "a group of a scope's `DeliveryEnvironment`s, deployed to as one",
    replaces: "identifier, scope",
    updates: "name, description, tags, color, environments (PUT with `If-Match`)",
  },
  example: {
    inputs: {
      org: "default",
      project: "payments",
      identifier: "production_group",
      name: "Production group",
      environments: ["production"],
    },
    refs: {
      project: { kind: "Project", output: "identifier", shared: true },
      "environments.0": { kind: "DeliveryEnvironment", output: "identifier" },
    },
    unique: ["identifier"],
  },
});
