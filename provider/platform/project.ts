/**
 * `Project`: a platform project (spec §2 "Project"; ref platform-api-behaviour §4, cited "ref §4").
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below |
 * | diff | none: semantic fields; `org` and `identifier` replace, the rest updates in place |
 * | create | `POST /ng/api/projects` (or, with `adopt`, the `GET` below first); a create whose response was lost is found again by `GET` |
 * | read | `GET /ng/api/projects/{identifier}`; missing (404 ENTITY_NOT_FOUND) means deleted outside Pulumi |
 * | update | `PUT /ng/api/projects/{identifier}`: a full replace (ref §4), with `If-Match` of the version read, so an edit between the read and the PUT is refused, not overwritten (`../core/if-match.ts`) |
 * | delete | `DELETE /ng/api/projects/{identifier}`; already gone is success |
 *
 * Modules are server-owned (ref §4: the service enables every module and refuses to remove one), so
 * the `modules` input lists modules that must be enabled; it changes only when one is missing, and
 * an update never removes a module.
 *
 * A project is its FME workspace (admin ref §1.2): after a create and in every read, the output
 * `workspaceId` is looked up with `GET /internal/api/v2/workspaces?organizationIdentifier=
 * &projectIdentifier=` of the admin API. That lookup is best-effort: the platform API does not
 * need the admin settings, so without `flagstack:adminApiUrl` and `flagstack:adminApiKey` it is
 * skipped, and a lookup that fails (an account not under Harness, a key that cannot list the
 * workspace) or answers with a workspace of another project leaves `workspaceId` absent rather
 * than failing the project.
 * @module
 */
import { z } from "zod";
import type { PlatformClient } from "../../sdk/platform/client";
import {
  DEFAULT_ORG,
  DEFAULT_PROJECT_COLOUR,
  entityName,
  HEX_COLOUR,
  Identifier,
  type ProjectData,
  Tags,
} from "../../sdk/platform/schemas";
import type { Versioned } from "../../sdk/platform/versioned";
import { checkWith } from "../core/check";
import { type DiffSpec, diffInputs } from "../core/diff";
import { guardedUpdate, pickFields } from "../core/guard";
import { writeIfMatch } from "../core/if-match";
import { defineKind, type ImportId } from "../core/kind";
import { createOrAdopt, deleteIdempotent, GONE, readOrGone } from "../core/lifecycle";
import { AdoptInput, OrgInput, platformApi, splitId } from "../core/platform-common";
import { workspaceOf } from "../core/project-workspace";
import { configure, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import { PROJECT_TYPE } from "../types";

// ---------------------------------------------------------------------------------------------
// Inputs and outputs

/** The inputs of a {@link Project}. */
export const ProjectInputs = z.strictObject({
  /** Organization identifier; `default` when absent (ref §4). Replaces the project when changed. */
  org: OrgInput,
  /** Project identifier (ref §3 pattern). Replaces the project when changed. */
  identifier: Identifier,
  /** Display name. */
  name: entityName(),
  /** Colour `#RRGGBB`; the service's default `#0063F7` when absent (ref §4). */
  color: z
    .string({ error: "color must be a hex colour #RRGGBB" })
    .regex(HEX_COLOUR, "color must be a hex colour #RRGGBB")
    .default(DEFAULT_PROJECT_COLOUR),
  /** Modules that must be enabled (the service may enable more; none is ever removed). */
  modules: z.array(z.string().min(1, "module names cannot be empty")).default([]),
  /** Description, at most 1024 characters. Default: empty. */
  description: z.string().max(1024, "description must be at most 1024 characters").default(""),
  /** Key/value tags; a key-only tag has the value `""` (ref §3). */
  tags: Tags.default({}),
  /** Take over an existing project with this identifier instead of failing on the duplicate. */
  adopt: AdoptInput,
});
/** Checked inputs of a {@link Project} (defaults applied). */
export type ProjectInputs = z.output<typeof ProjectInputs>;
/** What a program passes to a {@link Project}, before defaults. */
export type ProjectInputValues = z.input<typeof ProjectInputs>;

/** The outputs of a {@link Project}: its inputs plus what the service reports. */
export const ProjectOutputs = ProjectInputs.extend({
  /** Modules enabled on the project, as the service reports them. */
  modules: z.array(z.string()),
  /** Creation time, epoch milliseconds. */
  createdAt: z.number().int(),
  /** Last modification time, epoch milliseconds. */
  lastModifiedAt: z.number().int(),
  /** The project's version as last seen (the service's `ETag`, ref §1); an update sends it as `If-Match`. */
  version: z.number().int().optional(),
  /**
   * The id of the project's FME workspace (the project is its workspace), read from the admin
   * API; absent when the provider has no admin API settings or the service names no workspace.
   */
  workspaceId: z.string().optional(),
});
/** Outputs of a {@link Project}. */
export type ProjectOutputs = z.output<typeof ProjectOutputs>;

// ---------------------------------------------------------------------------------------------
// Diff

/** The natural key: the import id's parts, written once for the import, the docs and the schema. */
const IMPORT_ID: ImportId = { form: "<org>/<identifier>", example: "default/payments" };

/** Inputs whose change replaces the project. */
export const projectReplaceOnChange = [
  "org",
  "identifier",
] as const satisfies readonly (keyof ProjectInputs)[];

const lower = (v: unknown) => (typeof v === "string" ? v.toLowerCase() : v);

const projectDiff: DiffSpec<keyof ProjectInputs> = {
  fields: ["org", "identifier", "name", "color", "modules", "description", "tags"],
  replaceOnChange: projectReplaceOnChange,
  rules: {
    color: { normalize: lower },
    // Changed only when a wanted module is not enabled: the service enables every module and never
    // removes one (ref §4), so its list is a superset of the input.
    modules: {
      equals: (oldValue, newValue) => {
        const enabled = new Set((oldValue as string[] | undefined) ?? []);
        return ((newValue as string[] | undefined) ?? []).every((m) => enabled.has(m));
      },
    },
  },
};

// ---------------------------------------------------------------------------------------------
// Lifecycle

/**
 * The resource id: `<org>/<identifier>` (the import id shape of the peer providers, ref §11).
 * @internal
 */
export const projectId = (org: string, identifier: string): string => `${org}/${identifier}`;

function toOutputs(
  inputs: ProjectInputs,
  data: Versioned<ProjectData>,
  workspaceId: string | undefined,
): ProjectOutputs {
  const p = data.project;
  return {
    ...inputs,
    org: p.orgIdentifier || inputs.org,
    // The service looks identifiers up case-insensitively (ref §3); keep the program's spelling.
    identifier: inputs.identifier,
    name: p.name,
    color: p.color,
    // The newest service no longer returns modules (ref §4): then what was asked for is what we know.
    modules: p.modules.length > 0 ? [...p.modules] : [...inputs.modules],
    description: p.description,
    tags: { ...p.tags },
    createdAt: data.createdAt,
    lastModifiedAt: data.lastModifiedAt,
    version: data.version,
    workspaceId,
  };
}

function body(inputs: ProjectInputs, enabled: readonly string[] = []) {
  return {
    orgIdentifier: inputs.org,
    identifier: inputs.identifier,
    name: inputs.name,
    color: inputs.color,
    modules: [...new Set([...enabled, ...inputs.modules])],
    description: inputs.description,
    tags: inputs.tags,
  };
}

const inputsOf = (props: Record<string, unknown>): ProjectInputs =>
  ProjectInputs.parse(Object.fromEntries(Object.entries(props).filter(([k]) => k in ProjectInputs.shape)));

const desiredDiffers = (inputs: ProjectInputs, live: ProjectOutputs): boolean =>
  diffInputs(projectDiff, live, inputs).changes === true;

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link projectProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<ProjectInputs, ProjectOutputs> = {
  configure,

  check: checkWith({ schema: ProjectInputs }),

  async diff(_id, olds, news) {
    const result = diffInputs(projectDiff, olds, news);
    // Identifiers are case-insensitive on the service (ref §3): a change of case only must free
    // the old identifier before the new one can be created.
    const sameKey =
      olds.org === news.org &&
      typeof news.identifier === "string" &&
      olds.identifier?.toLowerCase() === news.identifier.toLowerCase();
    return { ...result, deleteBeforeReplace: (result.replaces?.length ?? 0) > 0 && sameKey };
  },

  async create(inputs) {
    const api = platformApi();
    const { value, how } = await createOrAdopt<ProjectData>({
      describe: `project "${inputs.identifier}" in organization ${inputs.org}`,
      adopt: inputs.adopt,
      lookup: () => readOrGone(() => api.projects.get(inputs.identifier, { org: inputs.org })),
      create: () => api.projects.create(body(inputs), { org: inputs.org }),
    });
    let outs = toOutputs(inputs, value, await workspaceOf(inputs.org, inputs.identifier));
    // An adopted (or recovered) project is converged to the program with one PUT.
    if (how !== "created" && desiredDiffers(inputs, outs)) outs = await put(api, inputs, outs);
    return { id: projectId(inputs.org, inputs.identifier), outs: plain(outs) };
  },

  async read(id, props) {
    // Without old state (a read by id only) the id names the project.
    const old = props as Partial<ProjectOutputs> | undefined;
    const [org, identifier] = old?.identifier
      ? [old.org ?? DEFAULT_ORG, old.identifier]
      : splitId(id, IMPORT_ID.form.split("/").length, IMPORT_ID.form);
    const api = platformApi();
    const data = await readOrGone(() => api.projects.get(identifier!, { org: org! }));
    if (data === undefined) return GONE;
    const outs = toOutputs(
      inputsOf({ ...(old ?? {}), org, identifier, name: data.project.name }),
      data,
      await workspaceOf(org!, identifier!),
    );
    const { createdAt: _c, lastModifiedAt: _l, version: _v, workspaceId: _w, ...inputs } = outs;
    return { id, props: plain(outs), inputs: plain(inputs) as ProjectInputs as ProjectOutputs };
  },

  async update(id, olds, news) {
    return guardedUpdate({
      describe: `project "${olds.identifier}" in organization ${olds.org}`,
      spec: projectDiff,
      recorded: olds,
      desired: news,
      read: () => impl.read(id, olds),
      write: async (fields, live) =>
        plain(
          fields.length === 0
            ? { ...live, adopt: news.adopt }
            : await put(
                platformApi(),
                { ...inputsOf(live), ...pickFields(news, fields), adopt: news.adopt },
                live,
              ),
        ),
    });
  },

  async lookup(inputs) {
    const data = await readOrGone(() => platformApi().projects.get(inputs.identifier, { org: inputs.org }));
    return data && { createdAt: data.createdAt };
  },

  async delete(_id, props) {
    const api = platformApi();
    await deleteIdempotent(
      () => api.projects.delete(props.identifier, { org: props.org }),
      () => api.projects.get(props.identifier, { org: props.org }),
    );
  },
};

/** Replaces the project, guarded by the version of `live` (what was read, or looked up). */
async function put(
  api: PlatformClient,
  inputs: ProjectInputs,
  live: ProjectOutputs,
): Promise<ProjectOutputs> {
  const describe = `project "${inputs.identifier}" in organization ${inputs.org}`;
  const data = await writeIfMatch(describe, live.version, (ifMatch) =>
    api.projects.update(inputs.identifier, body(inputs, live.modules), { org: inputs.org, ifMatch }),
  );
  // The project's workspace is the same one after a PUT (a rename renames it, its id stays).
  return toOutputs(inputs, data, live.workspaceId);
}

// ---------------------------------------------------------------------------------------------
// Provider and resource

/** The arguments of a {@link Project}: each input may be a `pulumi.Input`. */
export type ProjectArgs = ResourceArgs<ProjectInputValues>;

/**
 * A platform project.
 * @example
 * ```ts
 * const payments = new Project("payments", { identifier: "payments", name: "Payments", color: "#1F8A70", tags: { team: "payments" } });
 * ```
 */
export const Project = resourceClass("project", PROJECT_TYPE, ProjectInputs, ProjectOutputs);
/** A {@link Project} object: one `Output` per member of {@link ProjectOutputs}. */
export type Project = InstanceType<typeof Project>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const projectProviderText = Project.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: Project,
  impl,
  area: "platform",
  replaceOnChange: projectReplaceOnChange,
  importId: IMPORT_ID,
  policy: ["identifier", "org", "tags"],
  doc: {
    what: "a platform project",
    replaces: "identifier, organization",
    updates: "name, colour, description, tags, modules (PUT)",
  },
  example: {
    inputs: { org: "default", identifier: "payments", name: "Payments", color: "#0063f7" },
    unique: ["identifier"],
  },
});
