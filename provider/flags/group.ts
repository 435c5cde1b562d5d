/**
 * `Group`: a group of users of the feature-flag account (spec §2 "Group", §4 "Groups").
 *
 * | verb | API call |
 * |---|---|
 * | check | none: the zod schema below |
 * | diff | none: compares `name` and `description`; nothing replaces the group |
 * | create | `POST /groups`; with `adopt`, first the group list to find the name |
 * | read | the group list `GET /groups?offset&limit=200`, once for every read in one engine operation (`../core/list-reads.ts`); a group missing from it, or a read outside an engine operation, `GET /groups/{id}`; a 404 reports the group gone |
 * | update | `GET /groups/{id}`, compared with the recorded state (`../core/guard.ts`), then `PUT /groups/{id}` with `{id, name, description, type}` (a full replace, ref admin §5): the changed fields desired, the rest live |
 * | delete | `DELETE /groups/{id}`; a 404 counts as done |
 *
 * Group names are unique in the account (spec §8): creating a group whose name is taken fails with
 * a message that points at `adopt: true`, and a rename onto a taken name fails the same way.
 * @module
 */
import { z } from "zod";
import { GroupCreate, type Group as GroupResponse, LIMITS } from "../../sdk/admin/schemas";
import { isConflict } from "../../sdk/core/errors";
import { adminClient } from "../core/config";
import type { DiffSpec } from "../core/diff";
import { guardedUpdate } from "../core/guard";
import { defineKind } from "../core/kind";
import { createOrAdopt, deleteIdempotent, GONE, readOrGone } from "../core/lifecycle";
import { listRead } from "../core/list-reads";
import { forgetGroups, NotFoundByName, resolveGroups } from "../core/resolve";
import { dataVerbs, plain, type ResourceArgs, type ResourceHandlers, resourceClass } from "../core/resource";
import { GROUP_TYPE } from "../types";

/** The inputs of a {@link Group}. */
export const GroupInputs = z.strictObject({
  /** The group's name, unique in the account. */
  name: GroupCreate.shape.name,
  /** What the group is for. Default: empty. */
  description: GroupCreate.shape.description,
  /** Take over an existing group with the same name instead of failing. Default: false. */
  adopt: z.boolean().default(false),
});

/** The outputs of a {@link Group}: the inputs plus the service's id. */
export const GroupOutputs = GroupInputs.extend({
  /** The group's id (also the resource id). */
  groupId: z.string(),
});

/** Checked inputs of a group. */
export type GroupInputs = z.output<typeof GroupInputs>;
/** Outputs of a group. */
export type GroupOutputs = z.output<typeof GroupOutputs>;
/** The arguments of `new Group(...)`. */
export type GroupArgs = ResourceArgs<z.input<typeof GroupInputs>>;

/** Inputs whose change replaces a group: none; a rename is a PUT. */
export const groupReplaceOnChange = [] as const satisfies readonly (keyof GroupInputs)[];

const groupDiff: DiffSpec<Exclude<keyof GroupInputs, "adopt">> = {
  fields: ["name", "description"],
  replaceOnChange: groupReplaceOnChange,
};

function outputs(group: GroupResponse, inputs: Pick<GroupInputs, "adopt">): GroupOutputs {
  return plain({ name: group.name, description: group.description, adopt: inputs.adopt, groupId: group.id });
}

function renameConflict(name: string, cause: unknown): Error {
  return new Error(
    `a group named "${name}" already exists; group names are unique in the account (${(cause as Error).message})`,
    {
      cause,
    },
  );
}

/**
 * The `read` of `pulumi import` (native provider), which has the id alone and no state: the id is
 * the group's natural key, its name (unique in the account), or its id. The group is then read
 * as a refresh reads it, under its id.
 */
async function importGroup(importId: string): ReturnType<typeof impl.read> {
  const group = await resolveGroups(adminClient(), [importId]).then(
    ([found]) => found,
    (e: unknown) => {
      if (e instanceof NotFoundByName) return undefined;
      throw e;
    },
  );
  if (!group) return GONE;
  // A single read: an import's object is read alone, never through a list.
  const live = await readOrGone(() => adminClient().groups.get(group.id));
  return readResult({ adopt: false, groupId: group.id } as GroupOutputs, live);
}

/** The `read` result of a group as the service shows it (`undefined`: gone). */
function readResult(props: GroupOutputs | undefined, group: GroupResponse | undefined) {
  if (!group) return GONE;
  const outs = outputs(group, { adopt: props?.adopt ?? false });
  return {
    id: group.id,
    props: outs,
    inputs: { name: outs.name, description: outs.description, adopt: outs.adopt },
  };
}

/**
 * The provider: every lifecycle method. Each resource's `__provider` text
 * ({@link groupProviderText}) loads this object in the provider process; the tests call it directly.
 */
export const impl: ResourceHandlers<GroupInputs, GroupOutputs> = {
  ...dataVerbs({ schema: GroupInputs }, groupDiff),

  async create(inputs) {
    const admin = adminClient();
    const { value: group, how } = await createOrAdopt({
      describe: `a group named "${inputs.name}"`,
      adopt: inputs.adopt,
      lookup: () => admin.groups.getByName(inputs.name),
      create: () => admin.groups.create({ name: inputs.name, description: inputs.description }),
    });
    let current = group;
    if (how !== "created" && current.description !== inputs.description) {
      current = await admin.groups.put(group.id, {
        id: group.id,
        name: inputs.name,
        description: inputs.description,
        type: "group",
      });
    }
    forgetGroups(admin);
    return { id: current.id, outs: outputs(current, inputs) };
  },

  async read(id, props) {
    if (props?.groupId === undefined) return importGroup(id);
    const admin = adminClient();
    return readResult(
      props,
      await listRead({
        client: admin,
        scope: "groups",
        key: id,
        list: () => admin.groups.list(),
        pageSize: LIMITS.groupsMax,
        keys: (g) => [g.id],
        single: () => admin.groups.get(id),
      }),
    );
  },

  async update(id, olds, news) {
    const admin = adminClient();
    return guardedUpdate({
      describe: `group "${olds.name}" (${id})`,
      spec: groupDiff,
      recorded: olds,
      desired: news,
      // A single fresh GET, never a shared list (`../core/list-reads.ts`).
      read: async () => readResult(olds, await readOrGone(() => admin.groups.get(id))),
      write: async (fields, live) => {
        if (fields.length === 0) return { ...live, adopt: news.adopt };
        try {
          const group = await admin.groups.put(id, {
            id,
            name: fields.includes("name") ? news.name : live.name,
            description: fields.includes("description") ? news.description : live.description,
            type: "group",
          });
          forgetGroups(admin);
          return outputs(group, news);
        } catch (e) {
          if (isConflict(e)) throw renameConflict(news.name, e);
          throw e;
        }
      },
    });
  },

  async lookup(inputs) {
    return (await adminClient().groups.getByName(inputs.name)) && {};
  },

  async delete(id) {
    const admin = adminClient();
    await deleteIdempotent(() => admin.groups.delete(id));
    forgetGroups(admin);
  },
};

/**
 * A group of users.
 *
 * @example
 * ```ts
 * const reviewers = new Group("reviewers", { name: "flag-reviewers", description: "Approve rollouts" });
 * ```
 */
export const Group = resourceClass("group", GROUP_TYPE, GroupInputs, GroupOutputs);
/** A {@link Group} object: one `Output` per member of {@link GroupOutputs}. */
export type Group = InstanceType<typeof Group>;
/** What the engine stores as each object's `__provider`: a require of {@link impl}, no code, no secret. */
export const groupProviderText = Group.providerText;

/** The kind's one definition: what every registry, door, doc and kind-wide test reads (`../core/kind.ts`). */
export const kind = defineKind({
  resource: Group,
  impl,
  area: "flags",
  replaceOnChange: groupReplaceOnChange,
  importId: { form: "<name>", example: "platform-team" },
  doc: {
    what: "a user group",
    replaces: "",
    updates: "name, description (PUT)",
  },
  example: { inputs: { name: "payments-team", description: "The payments team" }, unique: ["name"] },
});
