/**
 * The Terraform door speaks Terraform everywhere (issue 34): every diagnostic the door's server
 * (provider/terraform/server.ts, the in-process `TerraformProvider` as OpenTofu drives it, with the
 * door set to Terraform as the plugin sets it at start) answers on the error paths of every kind
 * names Terraform's commands and syntax, never Pulumi's: no `pulumi`, no stack, no
 * `npx flagstack recover`, no `adopt: true`, no `` `up` ``. A rule over the messages, not a list of
 * them: the paths are provoked on every kind of `provider/kinds.ts` through its sample
 * (test/reliability/samples.ts), the summaries and details collected, and the rule checked at the
 * end over all of them:
 * - bad inputs: every attack derived from the kind's inputs schema and its hand rows, through
 *   `ValidateResourceConfig` (and the kind's check reasons the door prints), and the rows only the
 *   service judges through a create;
 * - a create that meets the object it made (the conflict, which names the `import` block);
 * - a colleague's edit of a field the configuration then changes (the guard's refusal);
 * - the object deleted outside, then updated, read and imported;
 * - a kind the API cannot import;
 * - in an environment that requires approvals: create, update and delete (change requests);
 * - missing settings (no URL, no key), a malformed setting, a data source that finds nothing, a
 *   legacy state, the warning of a held delete that failed in an earlier run, and a create whose
 *   answer is lost while its look-up fails.
 * And every attribute a message names is spelled as the configuration spells it (`traffic_type`),
 * never as the kinds' schemas do (`trafficType`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TERRAFORM_WORDS, useDoor } from "../../../provider/core/door";
import { noteFailedHeldDeletes } from "../../../provider/terraform/held-deletes";
import type { TfResource } from "../../../provider/terraform/schema";
import {
  catalog,
  type Diagnostic,
  TerraformProvider,
  terraformNames,
} from "../../../provider/terraform/server";
import {
  blockType,
  type DynamicValue,
  decodeDynamic,
  encodeDynamic,
  fromProvider,
  type TfObject,
  toProvider,
} from "../../../provider/terraform/values";
import { applyChange } from "../../reliability/bad-inputs";
import { checked, type KindBed, plainJson, startKindBed } from "../../reliability/kind-bed";
import { type KindUnderTest, kindsUnderTest } from "../../reliability/samples";
import { schemaAttacks } from "../../reliability/schema-attacks";

type Props = Record<string, unknown>;

/** What the Terraform door must never print. */
const PULUMI_TERMS = /pulumi|\bstack\b|npx flagstack recover|adopt: true|`up`/i;

const cat = catalog();
const kinds = kindsUnderTest();
let bed: KindBed;
let p: TerraformProvider;

/** Every diagnostic the door answered, with where it was provoked. */
const said: { where: string; text: string }[] = [];
const record = (where: string, diagnostics: readonly Diagnostic[] | undefined) => {
  for (const d of diagnostics ?? []) said.push({ where, text: `${d.summary}\n${d.detail}` });
};

/** The provider block's arguments for the bed (through its recording proxy). */
const providerBlock = () => ({
  admin_api_url: bed.proxy.url,
  admin_api_key: bed.emu.adminKey,
  platform_api_url: bed.proxy.url,
  platform_api_key: bed.emu.platformKey,
  account_id: bed.emu.accountId,
  requests_per_second: 1000,
  max_retries: 0,
});

async function configure(provider: TerraformProvider, values: Props): Promise<Diagnostic[]> {
  const type = blockType(cat.config);
  const object: TfObject = {};
  for (const a of cat.config) object[a.name] = (values[a.name] ?? null) as TfObject[string];
  return (await provider.configureProvider({ config: encodeDynamic(object, type) })).diagnostics;
}

beforeAll(async () => {
  useDoor(TERRAFORM_WORDS);
  bed = await startKindBed();
  p = new TerraformProvider(cat);
  record("configure", await configure(p, providerBlock()));
});
afterAll(async () => {
  await bed?.stop();
});

/** The Terraform resource of a kind. */
const resourceOf = (kind: KindUnderTest): TfResource =>
  [...cat.resources.values()].find((r) => r.kind.name === kind.name) as TfResource;

/** A configuration in the door's wire form from the kind's inputs (provider form). */
function wire(r: TfResource, inputs: Props): DynamicValue {
  const type = blockType(r.attributes);
  const config = fromProvider(inputs, type) as TfObject;
  for (const a of r.attributes) if (a.computed && !a.optional) config[a.name] = null;
  return encodeDynamic(config, type);
}

/** Plan and apply as OpenTofu does: the change's diagnostics recorded; the new state, when there is one. */
async function planApply(
  where: string,
  r: TfResource,
  prior: DynamicValue | undefined,
  config: DynamicValue | null,
): Promise<DynamicValue | undefined> {
  const type = blockType(r.attributes);
  const none = encodeDynamic(null, type);
  const plan = await p.planResourceChange({
    type_name: r.typeName,
    prior_state: prior ?? none,
    proposed_new_state: config ?? none,
    config: config ?? none,
  });
  record(`${where}: plan`, plan.diagnostics);
  if (plan.diagnostics.length > 0) return undefined;
  const applied = await p.applyResourceChange({
    type_name: r.typeName,
    prior_state: prior ?? none,
    planned_state: plan.planned_state,
    config: config ?? none,
  });
  record(`${where}: apply`, applied.diagnostics);
  return applied.diagnostics.length > 0 ? undefined : applied.new_state;
}

/** The id and outputs (provider form) of a resource's state. */
function recorded(r: TfResource, state: DynamicValue): { id: string; outs: Props } {
  const type = blockType(r.attributes);
  const value = decodeDynamic(state, type) as TfObject;
  const outs = (toProvider(value, type, undefined) ?? {}) as Props;
  const id = String(outs.id ?? "");
  delete outs.id;
  return { id, outs: plainJson(outs) };
}

describe.each(kinds.map((k) => k.name))("%s through the Terraform door", (name) => {
  const kind = kinds.find((k) => k.name === name) as KindUnderTest;
  const r = resourceOf(kind);
  const { impl, sample } = kind;

  it("bad inputs, a create conflict, a colleague's edit, the object gone", async () => {
    const raw = await sample.inputs(bed.ctx);
    // Bad inputs: each attack the schema gives, through the door's validate, and the kind's reasons.
    for (const attack of schemaAttacks(kind.inputs, raw)) {
      const v = await p.validateResourceConfig({ type_name: r.typeName, config: wire(r, attack.inputs) });
      record(`${name} ${attack.label}: validate`, v.diagnostics);
      for (const f of (await impl.check({}, attack.inputs)).failures ?? [])
        said.push({ where: `${name} ${attack.label}: check`, text: f.reason });
    }
    for (const row of sample.badInputs ?? []) {
      const bad = applyChange(raw, row.change);
      if (row.create) await planApply(`${name} ${row.label}`, r, undefined, wire(r, bad));
      else {
        const v = await p.validateResourceConfig({ type_name: r.typeName, config: wire(r, bad) });
        record(`${name} ${row.label}: validate`, v.diagnostics);
        for (const f of (await impl.check({}, bad)).failures ?? [])
          said.push({ where: `${name} ${row.label}: check`, text: f.reason });
      }
    }
    // The create, then the same create again: the object exists.
    const config = wire(r, raw);
    const state = await planApply(`${name} create`, r, undefined, config);
    expect(state, JSON.stringify(said.slice(-3))).toBeDefined();
    await planApply(`${name} create again`, r, undefined, config);
    const { id, outs } = recorded(r, state as DynamicValue);
    const inputs = await checked(name, raw);
    // A colleague's edit of a field the configuration then changes.
    const edits = Object.entries(await sample.edits(bed.ctx, inputs)).filter(
      ([field, [a, b]]) =>
        JSON.stringify(a) !== JSON.stringify(b) &&
        !sample.keepsOutOfBand?.[field] &&
        !sample.writeOnly?.[field],
    );
    const [field, [theirs, ours]] = edits[0] ?? ["", [undefined, undefined]];
    if (field !== "") {
      await impl.update(id, outs, await checked(name, { ...inputs, [field]: theirs }));
      await planApply(`${name} ${field} edited outside`, r, state, wire(r, { ...raw, [field]: ours }));
    }
    // Deleted outside: the update, the refresh and the import.
    await impl.delete(id, outs);
    const change = field === "" ? raw : { ...raw, [field]: ours };
    await planApply(`${name} deleted outside`, r, state, wire(r, change));
    const read = await p.readResource({ type_name: r.typeName, current_state: state });
    record(`${name} read of a gone object`, read.diagnostics);
    const importId = r.kind.importId === undefined ? id : r.kind.importId.example;
    const imported = await p.importResourceState({ type_name: r.typeName, id: importId });
    record(`${name} import`, imported.diagnostics);
    await planApply(`${name} destroy of a gone object`, r, state, null);
  });
});

describe("approval-gated environments", () => {
  const gated = kinds.filter((k) => k.sample.environmentInput !== undefined);

  it.each(gated.map((k) => k.name))("%s: create, update and delete as change requests", async (name) => {
    const kind = gated.find((k) => k.name === name) as KindUnderTest;
    const r = resourceOf(kind);
    const group = await bed.ctx.admin.groups.create({ name: bed.ctx.unique("approvers") });
    const approvers = [{ type: "group", id: group.id }];
    const env = await bed.ctx.make("Environment", {
      changePermissions: { areApprovalsRequired: false, approvers },
    });
    const input = kind.sample.environmentInput as string;
    const raw = await kind.sample.inputs(bed.ctx);
    const inEnv = { ...raw, [input]: Array.isArray(raw[input]) ? [env.outs.name] : env.outs.name };
    const state = await planApply(`${name} create before the gate`, r, undefined, wire(r, inEnv));
    const environment = [...cat.resources.values()].find((x) => x.kind.name === "Environment") as TfResource;
    await environment.kind.impl.update(
      env.id,
      env.outs,
      await checked("Environment", {
        ...env.inputs,
        changePermissions: { areApprovalsRequired: true, approvers },
      }),
    );
    if (state === undefined) return;
    const inputs = await checked(name, inEnv);
    const edits = Object.entries(await kind.sample.edits(bed.ctx, inputs));
    const changed = { ...inEnv, ...Object.fromEntries(edits.map(([f, [, b]]) => [f, b])) };
    await planApply(`${name} update behind the gate`, r, state, wire(r, changed));
    await planApply(`${name} delete behind the gate`, r, state, null);
    const fresh = { ...(await kind.sample.inputs(bed.ctx)), [input]: inEnv[input] };
    await planApply(`${name} create behind the gate`, r, undefined, wire(r, fresh));
  });
});

describe("the provider and its data sources", () => {
  it("a malformed setting, a data source that finds nothing, a legacy state, an earlier run's failed delete", async () => {
    const type = blockType(cat.config);
    record(
      "malformed setting",
      p.validateProviderConfig({ config: encodeDynamic({ admin_api_url: "ftp://x", max_retries: -1 }, type) })
        .diagnostics,
    );
    for (const [typeName, d] of cat.dataSources) {
      const args: TfObject = {};
      for (const a of d.attributes)
        if (a.required) args[a.name] = a.type.kind === "string" ? "no-such-thing" : null;
      const read = await p.readDataSource({
        type_name: typeName,
        config: encodeDynamic(args, blockType(d.attributes)),
      });
      record(`${typeName} of nothing`, read.diagnostics);
    }
    record(
      "legacy state",
      p.upgradeResourceState({ type_name: "flagstack_flag", version: 0, raw_state: {} }).diagnostics,
    );
    noteFailedHeldDeletes(["flagstack_flag_definition abc: 500 Internal Server Error"]);
    record("an earlier run's failed held delete", await configure(p, providerBlock()));
  });

  it("missing settings: no URL, then URLs and no key", async () => {
    const keys = [
      "FLAGSTACK_ADMIN_API_KEY",
      "FLAGSTACK_PLATFORM_API_KEY",
      "FLAGSTACK_ADMIN_API_URL",
      "FLAGSTACK_PLATFORM_API_URL",
      "FLAGSTACK_ACCOUNT_ID",
    ];
    const saved = Object.fromEntries(keys.map((k) => [k, process.env[k]]));
    for (const k of keys) delete process.env[k];
    const urls = { admin_api_url: bed.proxy.url, platform_api_url: bed.proxy.url, max_retries: 0 };
    try {
      for (const [label, block] of [
        ["no settings", {}],
        ["no keys", urls],
      ] as const) {
        const bare = new TerraformProvider(cat);
        record(`${label}: configure`, await configure(bare, block));
        for (const kind of kinds) {
          const r = resourceOf(kind);
          const raw = r.kind.example?.inputs ?? {};
          const none = encodeDynamic(null, blockType(r.attributes));
          const plan = await bare.planResourceChange({
            type_name: r.typeName,
            prior_state: none,
            proposed_new_state: wire(r, raw),
            config: wire(r, raw),
          });
          record(`${kind.name} with ${label}: plan`, plan.diagnostics);
          if (plan.diagnostics.length > 0) continue;
          const applied = await bare.applyResourceChange({
            type_name: r.typeName,
            prior_state: none,
            planned_state: plan.planned_state,
            config: wire(r, raw),
          });
          record(`${kind.name} with ${label}: apply`, applied.diagnostics);
        }
      }
    } finally {
      for (const k of keys) if (saved[k] !== undefined) process.env[k] = saved[k];
      await configure(p, providerBlock());
    }
  });

  it("a create whose answer is lost and whose look-up fails", async () => {
    const r = [...cat.resources.values()].find((x) => x.typeName === "flagstack_flag") as TfResource;
    const raw = { workspace: "Default", name: bed.ctx.unique("lost") };
    bed.proxy.once(
      { method: "POST", path: /\/splits\/ws\// },
      { lose: true, after: async () => void bed.emu.setFaults({ rate503: 1, apis: ["admin"] }) },
    );
    try {
      await planApply("a lost create, its look-up failing", r, undefined, wire(r, raw));
    } finally {
      bed.emu.setFaults({});
    }
  });
});

describe("the rule", () => {
  it("no message of the Terraform door names Pulumi's commands or terms", () => {
    // The paths above were provoked: each kind's create conflict and the missing key among them.
    expect(said.length).toBeGreaterThan(kinds.length * 3);
    expect(said.some((s) => s.text.includes("npx flagstack terraform recover"))).toBe(true);
    expect(said.some((s) => s.text.includes("set `admin_api_key` in the provider block"))).toBe(true);
    expect(said.some((s) => s.text.includes("may have been created"))).toBe(true);
    const offending = said.filter((s) => PULUMI_TERMS.test(s.text)).map((s) => `${s.where}: ${s.text}`);
    expect(offending).toEqual([]);
  });

  it("no message names an attribute as the kinds spell it (trafficAllocation), only as the configuration does (traffic_allocation)", () => {
    const names = terraformNames(cat);
    expect(names.get("trafficAllocation")).toBe("traffic_allocation");
    // What the door answered (not the kinds' own check reasons, recorded beside them for the first rule).
    const answered = said.filter((s) => !s.where.endsWith(": check"));
    const camel = answered.flatMap((s) =>
      [...s.text.matchAll(/[A-Za-z0-9_$]+/g)]
        .map((m) => m[0])
        .filter((word) => names.has(word))
        .map((word) => `${s.where}: ${word}`),
    );
    expect([...new Set(camel)]).toEqual([]);
    // the checks' own messages name the attributes, in the configuration's spelling
    expect(answered.some((s) => /\btraffic_allocation\b/.test(s.text))).toBe(true);
  });
});
