/**
 * `TrafficTypeAttribute`: an attribute of a traffic type's keys (id, display name, description,
 * data type, suggested values), used by targeting and identities (ref admin §1.1 "attributes",
 * §9.1 `split_traffic_type_attribute`).
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below (ref §9.1 limits: id and display name ≤200, description ≤500, ≤50 suggested values of ≤50 characters) |
 * | diff | none: `workspace`, `trafficType` and `attributeId` replace (delete first: ids are unique in a traffic type); the rest update in place |
 * | create | workspace and traffic type lists (once per process); `POST /schema/ws/{ws}/trafficTypes/{tt}`; with `adopt`, first the attribute list to find the id, then one `PATCH` for what differs |
 * | read | `GET /schema/ws/{ws}/trafficTypes/{tt}` and find the id; in a refresh, one list answers every attribute of the traffic type (`../core/list-reads.ts`) |
 * | update | the read, compared with the recorded state (`../core/guard.ts`), then one `PATCH …/{id}`: a `test` of the live value and a `replace` per changed field (`../core/field-patch.ts`) |
 * | delete | `DELETE /schema/ws/{ws}/trafficTypes/{tt}/{id}`; a 404 counts as done |
 * @module
 */
import { z } from "zod";
import { ATTRIBUTE_DATA_TYPES, type Attribute, AttributeBody } from "../../sdk/admin/schemas";
import { adminClient } from "../core/config";
import { changedFields, type DiffSpec } from "../core/diff";
import { replaceFields } from "../core/field-patch";
import { guardedUpdate } from "../core/guard";
import { defineKind, type ImportId } from "../core/kind";
import { createOrAdopt, deleteIdempotent, GONE, PartialFailure } from "../core/lifecycle";
import { listRead, oneRequest } from "../core/list-reads";
import { resolveTrafficType, resolveWorkspace } from "../core/resolve";
import { dataVerbs, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import { importParts, trafficTypeRule, workspaceRule } from "../core/workspace-fields";
import { TRAFFIC_TYPE_ATTRIBUTE_TYPE } from "../types";

/** The inputs of a {@link TrafficTypeAttribute}. */
export const TrafficTypeAttributeInputs = z.strictObject({
  /** The workspace, by name or id. Changing it replaces the attribute. */
  workspace: z.string().min(1, "workspace must not be empty"),
  /** The traffic type, by name or id. Default `user`. Changing it replaces the attribute. */
  trafficType: z.string().min(1, "trafficType must not be empty").default("user"),
  /** The attribute's id, unique in the traffic type (what targeting names). Changing it replaces the attribute. */
  attributeId: AttributeBody.shape.id,
  /** The name shown for it. */
  displayName: z.string().max(200, "displayName must be at most 200 characters").optional(),
  /** What it means. */
  description: z.string().max(500, "description must be at most 500 characters").optional(),
  /** `STRING`, `DATETIME`, `NUMBER` or `SET`. */
  dataType: z
    .enum(ATTRIBUTE_DATA_TYPES, { error: `dataType must be one of ${ATTRIBUTE_DATA_TYPES.join(", ")}` })
    .optional(),
  /** Values offered when targeting it, in this order. Default: none. */
  suggestedValues: z
    .array(z.string().max(50, "a suggested value must be at most 50 characters"))
    .max(50, "at most 50 suggested values")
    .default([]),
  /** Whether keys can be searched by it. Default: false. */
  isSearchable: z.boolean().default(false),
  /** Take over an existing attribute with the same id instead of failing. Default: false. */
  adopt: z.boolean().default(false),
});

/** The outputs of a {@link TrafficTypeAttribute}: the inputs plus ids. */
export const TrafficTypeAttributeOutputs = TrafficTypeAttributeInputs.extend({
  /** The workspace's id. */
  workspaceId: z.string(),
  /** The workspace's name. */
  workspaceName: z.string(),
  /** The traffic type's id. */
  trafficTypeId: z.string(),
});

/** Checked inputs of an attribute. */
export type TrafficTypeAttributeInputs = z.output<typeof TrafficTypeAttributeInputs>;
/** Outputs of an attribute. */
export type TrafficTypeAttributeOutputs = z.output<typeof TrafficTypeAttributeOutputs>;
/** The arguments of `new TrafficTypeAttribute(...)`. */
export type TrafficTypeAttributeArgs = ResourceArgs<z.input<typeof TrafficTypeAttributeInputs>>;

/** Inputs whose change replaces an attribute: its natural key. */
export const trafficTypeAttributeReplaceOnChange = [
  "workspace",
  "trafficType",
  "attributeId",
] as const satisfies readonly (keyof TrafficTypeAttributeInputs)[];

/** The fields a PATCH writes. */
const EDITABLE = ["displayName", "description", "dataType", "suggestedValues", "isSearchable"] as const;

const attributeDiff: DiffSpec<Exclude<keyof TrafficTypeAttributeInputs, "adopt">> = {
  fields: ["workspace", "trafficType", "attributeId", ...EDITABLE],
  replaceOnChange: trafficTypeAttributeReplaceOnChange,
  deleteBeforeReplace: true,
  rules: {
    workspace: workspaceRule,
    trafficType: trafficTypeRule,
    suggestedValues: { normalize: (v) => v ?? [] },
    isSearchable: { normalize: (v) => v ?? false },
  },
};

/** Where an attribute lives. */
interface Place {
  workspace: { id: string; name: string };
  trafficTypeId: string;
}

function outputs(
  a: Attribute,
  place: Place,
  inputs: Pick<TrafficTypeAttributeInputs, "workspace" | "trafficType" | "adopt">,
): TrafficTypeAttributeOutputs {
  return plain({
    workspace: inputs.workspace,
    trafficType: inputs.trafficType,
    attributeId: a.id,
    displayName: a.displayName ?? undefined,
    description: a.description ?? undefined,
    dataType: (a.dataType ?? undefined) as TrafficTypeAttributeOutputs["dataType"],
    suggestedValues: a.suggestedValues,
    isSearchable: a.isSearchable,
    adopt: inputs.adopt,
    workspaceId: place.workspace.id,
    workspaceName: place.workspace.name,
    trafficTypeId: place.trafficTypeId,
  });
}

/** The resource id: `<traffic type id>/<attribute id>` (attribute ids are unique per traffic type). */
const attributeResourceId = (trafficTypeId: string, attributeId: string) => `${trafficTypeId}/${attributeId}`;

/** The natural key: the import id's parts, written once for the import, the docs and the schema. */
const IMPORT_ID: ImportId = {
  form: "<workspace>/<traffic type>/<attribute id>",
  example: "Default/user/plan",
};

/**
 * The `read` of `pulumi import` (native provider), which has the id alone and no state: the id is
 * the natural key `<workspace>/<traffic type>/<attribute id>` (names or ids, e.g. `Default/user/plan`).
 */
async function importAttribute(
  importId: string,
): ReturnType<ResourceHandlers<TrafficTypeAttributeInputs, TrafficTypeAttributeOutputs>["read"]> {
  const [wsRef = "", ttRef = "", attributeId = ""] = importParts(importId, IMPORT_ID);
  const admin = adminClient();
  const workspace = await resolveWorkspace(admin, wsRef);
  const tt = await resolveTrafficType(admin, workspace, ttRef);
  const props = { workspace: wsRef, trafficType: ttRef, attributeId, adopt: false };
  const recorded = {
    ...props,
    workspaceId: workspace.id,
    workspaceName: workspace.name,
    trafficTypeId: tt.id,
  };
  return impl.read(attributeResourceId(tt.id, attributeId), recorded as TrafficTypeAttributeOutputs);
}

/** A read's answer from the attribute found, or gone. */
function readResult(id: string, props: TrafficTypeAttributeOutputs, attribute: Attribute | undefined) {
  if (!attribute) return GONE;
  const place = {
    workspace: { id: props.workspaceId, name: props.workspaceName },
    trafficTypeId: props.trafficTypeId,
  };
  const outs = outputs(attribute, place, props);
  const { workspaceId: _w, workspaceName: _n, trafficTypeId: _t, ...inputs } = outs;
  return { id, props: outs, inputs };
}

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link trafficTypeAttributeProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<TrafficTypeAttributeInputs, TrafficTypeAttributeOutputs> = {
  ...dataVerbs({ schema: TrafficTypeAttributeInputs }, attributeDiff),

  async create(inputs) {
    const admin = adminClient();
    const workspace = await resolveWorkspace(admin, inputs.workspace);
    const tt = await resolveTrafficType(admin, workspace, inputs.trafficType);
    const place = { workspace, trafficTypeId: tt.id };
    const { value: attribute, how } = await createOrAdopt({
      describe: `an attribute "${inputs.attributeId}" of traffic type "${tt.name}" in workspace "${workspace.name}"`,
      adopt: inputs.adopt,
      lookup: () => admin.attributes.find(workspace.id, tt.id, inputs.attributeId),
      create: () =>
        admin.attributes.create(workspace.id, tt.id, {
          id: inputs.attributeId,
          displayName: inputs.displayName ?? null,
          description: inputs.description ?? null,
          dataType: inputs.dataType ?? null,
          suggestedValues: inputs.suggestedValues,
          isSearchable: inputs.isSearchable,
        }),
    });
    const id = attributeResourceId(tt.id, attribute.id);
    const found = outputs(attribute, place, inputs);
    const ops =
      how === "created"
        ? []
        : replaceFields(found, inputs, changedFields(attributeDiff, found, inputs).filter(isEditable));
    if (ops.length === 0) return { id, outs: found };
    try {
      return {
        id,
        outs: outputs(await admin.attributes.patch(workspace.id, tt.id, attribute.id, ops), place, inputs),
      };
    } catch (e) {
      throw new PartialFailure(id, found, e, "updating the adopted attribute");
    }
  },

  async read(id, props) {
    if (props.workspaceId === undefined) return importAttribute(id);
    const admin = adminClient();
    const { workspaceId: wsId, trafficTypeId: ttId, attributeId } = props;
    return readResult(
      id,
      props,
      await listRead({
        client: admin,
        scope: `attributes of traffic type ${ttId} in workspace ${wsId}`,
        key: attributeId,
        list: () => oneRequest(() => admin.attributes.list(wsId, ttId)),
        pageSize: Number.POSITIVE_INFINITY,
        keys: (a) => [a.id],
        single: () => admin.attributes.find(wsId, ttId, attributeId),
      }),
    );
  },

  async update(id, olds, news) {
    const admin = adminClient();
    return guardedUpdate({
      describe: `attribute "${olds.attributeId}" of traffic type "${olds.trafficType}" in workspace "${olds.workspaceName}"`,
      spec: attributeDiff,
      recorded: olds,
      desired: news,
      // A single fresh read, never a shared list (`../core/list-reads.ts`).
      read: async () =>
        readResult(
          id,
          olds,
          await admin.attributes.find(olds.workspaceId, olds.trafficTypeId, olds.attributeId),
        ),
      write: async (fields, live) => {
        const kept = { ...live, adopt: news.adopt, workspace: news.workspace, trafficType: news.trafficType };
        const ops = replaceFields(live, news, fields.filter(isEditable));
        if (ops.length === 0) return kept;
        const patched = await admin.attributes.patch(
          olds.workspaceId,
          olds.trafficTypeId,
          olds.attributeId,
          ops,
        );
        const place = {
          workspace: { id: olds.workspaceId, name: olds.workspaceName },
          trafficTypeId: olds.trafficTypeId,
        };
        return outputs(patched, place, news);
      },
    });
  },

  async delete(_id, props) {
    await deleteIdempotent(() =>
      adminClient().attributes.delete(props.workspaceId, props.trafficTypeId, props.attributeId),
    );
  },

  async lookup(inputs) {
    const admin = adminClient();
    const workspace = await resolveWorkspace(admin, inputs.workspace);
    const tt = await resolveTrafficType(admin, workspace, inputs.trafficType);
    return (await admin.attributes.find(workspace.id, tt.id, inputs.attributeId)) && {};
  },
};

/** Whether a field is one a PATCH writes. */
function isEditable(field: string): field is (typeof EDITABLE)[number] {
  return (EDITABLE as readonly string[]).includes(field);
}

/**
 * An attribute of a traffic type's keys.
 *
 * @example
 * ```ts
 * const plan = new TrafficTypeAttribute("plan", {
 *   workspace: "Default",
 *   trafficType: "user",
 *   attributeId: "plan",
 *   displayName: "Plan",
 *   dataType: "STRING",
 *   suggestedValues: ["free", "pro", "enterprise"],
 * });
 * ```
 */
export const TrafficTypeAttribute = resourceClass(
  "traffic-type-attribute",
  TRAFFIC_TYPE_ATTRIBUTE_TYPE,
  TrafficTypeAttributeInputs,
  TrafficTypeAttributeOutputs,
);
/** A {@link TrafficTypeAttribute} object: one `Output` per member of {@link TrafficTypeAttributeOutputs}. */
export type TrafficTypeAttribute = InstanceType<typeof TrafficTypeAttribute>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const trafficTypeAttributeProviderText = TrafficTypeAttribute.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: TrafficTypeAttribute,
  impl,
  area: "flags",
  replaceOnChange: trafficTypeAttributeReplaceOnChange,
  importId: IMPORT_ID,
  doc: {
    what: "an attribute of a traffic type's keys",
    replaces: "workspace, traffic type, attribute id",
    updates: "display name, description, data type, suggested values, searchable (one guarded PATCH)",
  },
  example: {
    inputs: {
      workspace: "Default",
      trafficType: "user",
      attributeId: "plan",
      displayName: "Plan",
      description: "The account's billing plan",
      dataType: "STRING",
    },
    unique: ["attributeId"],
  },
});
