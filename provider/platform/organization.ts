/**
 * `Organization`: a platform organization, the scope above projects (Go SDK
 * `harness/harness-go-sdk` `harness/nextgen/api_organization.go`, TFP `harness_platform_organization`).
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below |
 * | diff | none: semantic fields; `identifier` replaces, the rest updates in place |
 * | create | `POST /ng/api/organizations` (or, with `adopt`, the `GET` below first); a create whose response was lost is found again by `GET` |
 * | read | `GET /ng/api/organizations/{identifier}`; missing (404 ENTITY_NOT_FOUND) means deleted outside Pulumi |
 * | update | `PUT /ng/api/organizations/{identifier}`: a full replace, with `If-Match` of the version read (PutOrganization's "Version number of the Organization"), so an edit between the read and the PUT is refused, not overwritten |
 * | delete | `DELETE /ng/api/organizations/{identifier}`; already gone is success |
 *
 * Deleting an organization deletes what it holds (its projects and their entities), as the
 * service does; a program that manages both orders the deletes itself (projects take the
 * organization's `identifier` output, so they go first).
 * @module
 */
import { z } from "zod";
import type { PlatformClient } from "../../sdk/platform/client";
import { entityName, Identifier, type OrganizationData, Tags } from "../../sdk/platform/schemas";
import type { Versioned } from "../../sdk/platform/versioned";
import { checkWith } from "../core/check";
import { type DiffSpec, diffInputs } from "../core/diff";
import { guardedUpdate, pickFields } from "../core/guard";
import { writeIfMatch } from "../core/if-match";
import { defineKind } from "../core/kind";
import { createOrAdopt, deleteIdempotent, GONE, readOrGone } from "../core/lifecycle";
import { AdoptInput, platformApi } from "../core/platform-common";
import { configure, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import { ORGANIZATION_TYPE } from "../types";

// ---------------------------------------------------------------------------------------------
// Inputs and outputs

/** The inputs of an {@link Organization}. */
export const OrganizationInputs = z.strictObject({
  /** Organization identifier (ref §3 pattern). Replaces the organization when changed. */
  identifier: Identifier,
  /** Display name. */
  name: entityName(),
  /** Description, at most 1024 characters. Default: empty. */
  description: z.string().max(1024, "description must be at most 1024 characters").default(""),
  /** Key/value tags; a key-only tag has the value `""` (ref §3). */
  tags: Tags.default({}),
  /** Take over an existing organization with this identifier instead of failing on the duplicate. */
  adopt: AdoptInput,
});
/** Checked inputs of an {@link Organization} (defaults applied). */
export type OrganizationInputs = z.output<typeof OrganizationInputs>;
/** What a program passes to an {@link Organization}, before defaults. */
export type OrganizationInputValues = z.input<typeof OrganizationInputs>;

/** The outputs of an {@link Organization}: its inputs plus what the service reports. */
export const OrganizationOutputs = OrganizationInputs.extend({
  /** Creation time, epoch milliseconds. */
  createdAt: z.number().int(),
  /** Last modification time, epoch milliseconds. */
  lastModifiedAt: z.number().int(),
  /** The organization's version as last seen (the answer's `ETag`, ref §1); an update sends it as `If-Match`. */
  version: z.number().int().optional(),
});
/** Outputs of an {@link Organization}. */
export type OrganizationOutputs = z.output<typeof OrganizationOutputs>;

// ---------------------------------------------------------------------------------------------
// Diff

/** Inputs whose change replaces the organization. */
export const organizationReplaceOnChange = [
  "identifier",
] as const satisfies readonly (keyof OrganizationInputs)[];

const organizationDiff: DiffSpec<keyof OrganizationInputs> = {
  fields: ["identifier", "name", "description", "tags"],
  replaceOnChange: organizationReplaceOnChange,
};

// ---------------------------------------------------------------------------------------------
// Lifecycle

function toOutputs(inputs: OrganizationInputs, data: Versioned<OrganizationData>): OrganizationOutputs {
  const o = data.organization;
  return {
    ...inputs,
    // The service looks identifiers up case-insensitively (ref §3); keep the program's spelling.
    identifier: inputs.identifier,
    name: o.name,
    description: o.description,
    tags: { ...o.tags },
    createdAt: data.createdAt,
    lastModifiedAt: data.lastModifiedAt,
    version: data.version,
  };
}

const body = (inputs: OrganizationInputs) => ({
  identifier: inputs.identifier,
  name: inputs.name,
  description: inputs.description,
  tags: inputs.tags,
});

const inputsOf = (props: Record<string, unknown>): OrganizationInputs =>
  OrganizationInputs.parse(
    Object.fromEntries(Object.entries(props).filter(([k]) => k in OrganizationInputs.shape)),
  );

const describeOrg = (identifier: string) => `organization "${identifier}"`;

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link organizationProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<OrganizationInputs, OrganizationOutputs> = {
  configure,

  check: checkWith({ schema: OrganizationInputs }),

  async diff(_id, olds, news) {
    const result = diffInputs(organizationDiff, olds, news);
    // Identifiers are case-insensitive on the service (ref §3): a change of case only must free
    // the old identifier before the new one can be created.
    const sameKey =
      typeof news.identifier === "string" && olds.identifier?.toLowerCase() === news.identifier.toLowerCase();
    return { ...result, deleteBeforeReplace: (result.replaces?.length ?? 0) > 0 && sameKey };
  },

  async create(inputs) {
    const api = platformApi();
    const { value, how } = await createOrAdopt<Versioned<OrganizationData>>({
      describe: describeOrg(inputs.identifier),
      adopt: inputs.adopt,
      lookup: () => readOrGone(() => api.organizations.get(inputs.identifier, {})),
      create: () => api.organizations.create(body(inputs)),
    });
    let outs = toOutputs(inputs, value);
    // An adopted (or recovered) organization is converged to the program with one PUT.
    if (how !== "created" && diffInputs(organizationDiff, outs, inputs).changes)
      outs = await put(api, inputs, outs);
    return { id: inputs.identifier, outs: plain(outs) };
  },

  async read(id, props) {
    // Without old state (a read by id, an import) the id is the identifier.
    const old = props as Partial<OrganizationOutputs> | undefined;
    const identifier = old?.identifier ?? id;
    const data = await readOrGone(() => platformApi().organizations.get(identifier, {}));
    if (data === undefined) return GONE;
    const outs = toOutputs(inputsOf({ ...(old ?? {}), identifier, name: data.organization.name }), data);
    const { createdAt: _c, lastModifiedAt: _l, version: _v, ...inputs } = outs;
    return { id, props: plain(outs), inputs: plain(inputs) as OrganizationInputs as OrganizationOutputs };
  },

  async update(id, olds, news) {
    return guardedUpdate({
      describe: describeOrg(olds.identifier),
      spec: organizationDiff,
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
    const data = await readOrGone(() => platformApi().organizations.get(inputs.identifier, {}));
    return data && { createdAt: data.createdAt };
  },

  async delete(_id, props) {
    const api = platformApi();
    await deleteIdempotent(
      () => api.organizations.delete(props.identifier, {}),
      () => api.organizations.get(props.identifier, {}),
    );
  },
};

/** Replaces the organization, guarded by the version of `live` (what was read, or looked up). */
async function put(
  api: PlatformClient,
  inputs: OrganizationInputs,
  live: OrganizationOutputs,
): Promise<OrganizationOutputs> {
  const data = await writeIfMatch(describeOrg(inputs.identifier), live.version, (ifMatch) =>
    api.organizations.update(body(inputs), { ifMatch }),
  );
  return toOutputs(inputs, data);
}

// ---------------------------------------------------------------------------------------------
// Provider and resource

/** The arguments of an {@link Organization}: each input may be a `pulumi.Input`. */
export type OrganizationArgs = ResourceArgs<OrganizationInputValues>;

/**
 * A platform organization.
 * @example
 * ```ts
 * const org = new Organization("payments-org", { identifier: "payments_org", name: "Payments", tags: { team: "payments" } });
 * new Project("checkout", { org: org.identifier, identifier: "checkout", name: "Checkout" });
 * ```
 */
export const Organization = resourceClass(
  "organization",
  ORGANIZATION_TYPE,
  OrganizationInputs,
  OrganizationOutputs,
);
/** An {@link Organization} object: one `Output` per member of {@link OrganizationOutputs}. */
export type Organization = InstanceType<typeof Organization>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const organizationProviderText = Organization.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: Organization,
  impl,
  area: "platform",
  replaceOnChange: organizationReplaceOnChange,
  importId: { form: "<identifier>", example: "payments_org" },
  doc: {
    what: "a platform organization (the scope of projects; a `Project`'s `org` may be its `identifier` output)",
    replaces: "identifier",
    updates: "name, description, tags (PUT with `If-Match`)",
  },
  example: {
    inputs: { identifier: "payments", name: "Payments", description: "The payments teams" },
    unique: ["identifier"],
  },
});
