/**
 * The Terraform door's dispatch against the emulator, RPC by RPC as OpenTofu calls them: configure
 * (snake_case settings), validate (the kind's `check`: diagnostics naming the attribute path, no
 * request), plan (create: defaults and unknowns; update: the kind's diff, `requires_replace` from
 * its replace list; no change: the prior state), apply (create, one PATCH for one changed field,
 * delete), read (drift shown, the configuration's spelling kept), import by the kind's import id,
 * and the state upgrade at version 0.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Emulator, startEmulator } from "../../../emulator";
import { resetProvider } from "../../../provider/core/config";
import { forgetOwnerGates, ownerGatesMade } from "../../../provider/core/gate-ledger";
import { PartialFailure } from "../../../provider/core/lifecycle";
import { KIND_LIST } from "../../../provider/kinds";
import { decode, isUnknown } from "../../../provider/terraform/msgpack";
import { attributePath, catalog, pathText, TerraformProvider } from "../../../provider/terraform/server";
import {
  blockType,
  type DynamicValue,
  decodeDynamic,
  encodeDynamic,
  type TfObject,
} from "../../../provider/terraform/values";
import { AdminClient } from "../../../sdk";

let emu: Emulator;
let admin: AdminClient;
const cat = catalog();
const p = new TerraformProvider(cat);
const FLAG = "flagstack_flag";
const flagType = blockType(cat.resources.get(FLAG)?.attributes ?? []);
const configType = blockType(cat.config);
const dv = (value: TfObject | null) => encodeDynamic(value, flagType);
const state = (v: DynamicValue | undefined) => decodeDynamic(v, flagType) as TfObject | null;
/** The requests that change something (a delete's dry-run probes of approval gates change nothing). */
const writes = () =>
  emu
    .requests()
    .filter((r) => r.api !== "emulator" && r.method !== "GET" && !r.query.includes("dry_run=true"))
    .map((r) => `${r.method} ${r.path}`);

/** A flag's configuration as OpenTofu sends it: every attribute, null where the configuration is silent. */
const flagConfig = (name: string, change: TfObject = {}): TfObject =>
  decodeDynamic(
    dv({
      workspace: "Default",
      name,
      description: "One-page checkout",
      tags: ["web", "payments"],
      ...change,
    }),
    flagType,
  ) as TfObject;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  admin = new AdminClient({ baseUrl: emu.url, apiKey: emu.adminKey });
  const configured = await p.configureProvider({
    config: encodeDynamic(
      { admin_api_url: emu.url, admin_api_key: emu.adminKey, max_retries: 0 },
      configType,
    ),
  });
  expect(configured.diagnostics).toEqual([]);
});
afterAll(async () => {
  resetProvider();
  await emu?.stop();
});

describe("attribute paths", () => {
  const type = blockType(cat.resources.get("flagstack_flag_definition")?.attributes ?? []);
  it.each([
    ["trafficAllocation", "traffic_allocation"],
    ["treatments[1].name", "treatments[1].name"],
    ["defaultRule[0].treatment", "default_rule[0].treatment"],
    ["", ""],
  ])("%s → %s", (property, text) => {
    expect(pathText(attributePath(property, type))).toBe(text);
  });
  it("steps: attribute names, list indexes, map keys", () => {
    expect(attributePath("rules[2].condition.matchers[0].between.from", type)).toEqual([
      { attribute_name: "rules" },
      { element_key_int: 2 },
      { attribute_name: "condition" },
      { attribute_name: "matchers" },
      { element_key_int: 0 },
      { attribute_name: "between" },
      { attribute_name: "from" },
    ]);
  });
});

describe("server capabilities", () => {
  it("the schema is optional after a start: OpenTofu asks a command's later starts for none (issue 35)", () => {
    // Every method serves without a GetProviderSchema first (the dispatch loads on the first
    // request that needs it), so OpenTofu reuses the schema of the command's first start.
    // A delete is planned with the provider too (`plan_destroy`): the owner gate reads ahead there.
    const capabilities = { plan_destroy: true, get_provider_schema_optional: true };
    expect(p.getMetadata().server_capabilities).toEqual(capabilities);
    expect(p.getProviderSchema().server_capabilities).toEqual(capabilities);
    const fresh = new TerraformProvider(cat);
    expect(
      fresh.upgradeResourceState({ type_name: FLAG, version: 0, raw_state: { json: Buffer.from("{}") } }),
    ).toMatchObject({ diagnostics: [] });
  });
});

describe("provider configuration", () => {
  it("refuses a malformed setting, naming it in snake_case", () => {
    const result = p.validateProviderConfig({
      config: encodeDynamic({ admin_api_url: "ftp://x", max_retries: -1 }, configType),
    });
    expect(result.diagnostics).toEqual([
      {
        severity: 1,
        summary: "admin_api_url: must be an http(s) URL",
        detail: "",
        attribute: { steps: [{ attribute_name: "admin_api_url" }] },
      },
      {
        severity: 1,
        summary: "max_retries: must be 0 or more",
        detail: "",
        attribute: { steps: [{ attribute_name: "max_retries" }] },
      },
    ]);
  });
});

describe("flagstack_flag, RPC by RPC", () => {
  const name = "tf-checkout";
  let created: TfObject;

  it("validate: a bad name is a diagnostic on the attribute, and no request", async () => {
    emu.resetRequests();
    const result = await p.validateResourceConfig({ type_name: FLAG, config: dv(flagConfig("9 bad name")) });
    expect(result.diagnostics).toHaveLength(1);
    expect(result.diagnostics[0]?.attribute).toEqual({ steps: [{ attribute_name: "name" }] });
    expect(result.diagnostics[0]?.summary).toMatch(/^name: /);
    expect(emu.requests().filter((r) => r.api !== "emulator")).toEqual([]);
  });

  it("plan of a create: the check's defaults, the rest unknown", async () => {
    const config = flagConfig(name);
    const plan = await p.planResourceChange({
      type_name: FLAG,
      prior_state: dv(null),
      proposed_new_state: dv(config),
      config: dv(config),
    });
    expect(plan.diagnostics).toEqual([]);
    const planned = state(plan.planned_state) as TfObject;
    expect(planned.traffic_type).toBe("user");
    expect(planned.adopt).toBeNull();
    expect(planned.tags).toEqual(["web", "payments"]);
    expect(
      Object.entries(planned)
        .filter(([, v]) => isUnknown(v))
        .map(([k]) => k),
    ).toEqual([
      "id",
      "rollout_status",
      "owners",
      "flag_id",
      "creation_time",
      "rollout_status_id",
      "rollout_status_timestamp",
      "workspace_id",
      "workspace_name",
      "traffic_type_id",
    ]);
  });

  it("apply of the create: the flag exists; the configured values stay as configured", async () => {
    const config = flagConfig(name);
    const plan = await p.planResourceChange({
      type_name: FLAG,
      prior_state: dv(null),
      proposed_new_state: dv(config),
      config: dv(config),
    });
    emu.resetRequests();
    const applied = await p.applyResourceChange({
      type_name: FLAG,
      prior_state: dv(null),
      planned_state: plan.planned_state,
      config: dv(config),
    });
    expect(applied.diagnostics).toEqual([]);
    created = state(applied.new_state) as TfObject;
    const live = await admin.flags.get((await admin.workspaces.getByName("Default"))?.id as string, name);
    expect(created.id).toBe(live.id);
    expect(created.flag_id).toBe(live.id);
    // The configuration's order; the service holds the set sorted.
    expect(created.tags).toEqual(["web", "payments"]);
    expect(created.rollout_status).toBe("Pre-Production");
    expect(writes().map((w) => w.split(" ")[0])).toEqual(["POST", "PATCH"]);
  });

  it("plan with no change: the prior state, nothing to replace, no request", async () => {
    // OpenTofu's proposal: the configuration, with the prior state's computed values.
    const config = flagConfig(name);
    emu.resetRequests();
    const plan = await p.planResourceChange({
      type_name: FLAG,
      prior_state: dv(created),
      proposed_new_state: dv(created),
      config: dv(config),
    });
    expect(plan.requires_replace).toEqual([]);
    expect(state(plan.planned_state)).toEqual(created);
    expect(emu.requests().filter((r) => r.api !== "emulator")).toEqual([]);
  });

  it("plan of a rename: requires_replace names the attribute", async () => {
    const config = flagConfig(`${name}-2`);
    const plan = await p.planResourceChange({
      type_name: FLAG,
      prior_state: dv(created),
      proposed_new_state: dv({ ...created, name: `${name}-2` }),
      config: dv(config),
    });
    expect(plan.requires_replace).toEqual([{ steps: [{ attribute_name: "name" }] }]);
    expect(isUnknown((state(plan.planned_state) as TfObject).id)).toBe(true);
  });

  it("one changed field: one PATCH", async () => {
    const config = flagConfig(name, { description: "Two-page checkout" });
    const proposed = { ...created, description: "Two-page checkout" };
    const plan = await p.planResourceChange({
      type_name: FLAG,
      prior_state: dv(created),
      proposed_new_state: dv(proposed),
      config: dv(config),
    });
    expect(plan.requires_replace).toEqual([]);
    emu.resetRequests();
    const applied = await p.applyResourceChange({
      type_name: FLAG,
      prior_state: dv(created),
      planned_state: plan.planned_state,
      config: dv(config),
    });
    expect(applied.diagnostics).toEqual([]);
    expect(writes()).toEqual([
      expect.stringMatching(new RegExp(`^PATCH /internal/api/v2/splits/ws/[^/]+/${name}$`)),
    ]);
    created = state(applied.new_state) as TfObject;
    expect(created.description).toBe("Two-page checkout");
  });

  it("read: an edit made outside shows; an unchanged input keeps the configuration's spelling", async () => {
    const ws = (await admin.workspaces.getByName("Default"))?.id as string;
    await admin.flags.patch(ws, name, [{ op: "replace", path: "/description", value: "edited" }]);
    const read = await p.readResource({ type_name: FLAG, current_state: dv(created) });
    const now = state(read.new_state) as TfObject;
    expect(now.description).toBe("edited");
    expect(now.tags).toEqual(["web", "payments"]);
    expect(now.workspace).toBe("Default");
  });

  it("import by the kind's import id, then delete; a gone object reads as null", async () => {
    const imported = await p.importResourceState({ type_name: FLAG, id: `Default/${name}` });
    expect(imported.diagnostics).toEqual([]);
    const st = state(imported.imported_resources[0]?.state) as TfObject;
    expect([st.id, st.name, st.workspace, st.description]).toEqual([created.id, name, "Default", "edited"]);
    // `adopt` only the configuration holds (not computed): none in the imported state, as a
    // configuration that leaves it out has it, so the plan after the import finds no change.
    expect(st.adopt).toBeNull();
    emu.resetRequests();
    const gone = await p.applyResourceChange({
      type_name: FLAG,
      prior_state: dv(st),
      planned_state: dv(null),
      config: dv(null),
    });
    expect(gone.diagnostics).toEqual([]);
    expect(state(gone.new_state)).toBeNull();
    expect(writes()).toEqual([
      expect.stringMatching(new RegExp(`^DELETE /internal/api/v2/splits/ws/[^/]+/${name}$`)),
    ]);
    expect(state((await p.readResource({ type_name: FLAG, current_state: dv(st) })).new_state)).toBeNull();
    const missing = await p.importResourceState({ type_name: FLAG, id: `Default/${name}` });
    expect(missing.diagnostics.map((d) => [d.summary, d.detail])).toEqual([
      [
        `${FLAG} Default/${name} does not exist`,
        "The import id has the form <workspace>/<name>, such as Default/new-checkout.",
      ],
    ]);
  });

  it("upgrade: the stored JSON state as it is, at schema version 0, answered as MessagePack", () => {
    const json = Buffer.from(JSON.stringify({ id: "f1", name: "x", tags: ["a"] }));
    const up = p.upgradeResourceState({ type_name: FLAG, version: 0, raw_state: { json } });
    // MessagePack, never the stored JSON back: OpenTofu decodes a JSON DynamicValue several times
    // slower, once per resource in every walk.
    expect(Object.keys(up.upgraded_state ?? {})).toEqual(["msgpack"]);
    const st = state(up.upgraded_state) as TfObject;
    expect([st.id, st.name, st.tags, st.workspace]).toEqual(["f1", "x", ["a"], null]);
    // On the wire, every attribute of the schema is present (the absent ones nil), as OpenTofu
    // requires of an object: the raw MessagePack map, not the decoded value, which fills them in.
    const raw = decode(Buffer.from(up.upgraded_state?.msgpack ?? [])) as Record<string, unknown>;
    expect(Object.keys(raw).sort()).toEqual(
      cat.resources
        .get(FLAG)
        ?.attributes.map((a) => a.name)
        .sort(),
    );
    expect([raw.id, raw.workspace]).toEqual(["f1", null]);
  });

  it("upgrade: a stored state that no longer fits (an attribute the schema lacks, a value of another type) is converted", () => {
    const json = Buffer.from(JSON.stringify({ id: "f1", name: "x", retired: true, tags: ["a"] }));
    const up = p.upgradeResourceState({ type_name: FLAG, version: 0, raw_state: { json } });
    expect(Object.keys(up.upgraded_state ?? {})).toEqual(["msgpack"]);
    const st = state(up.upgraded_state) as TfObject;
    expect([st.id, st.name, st.tags, "retired" in st]).toEqual(["f1", "x", ["a"], false]);
    const wrongType = Buffer.from(JSON.stringify({ id: "f1", name: "x", tags: "a" }));
    const up2 = p.upgradeResourceState({ type_name: FLAG, version: 0, raw_state: { json: wrongType } });
    expect(Object.keys(up2.upgraded_state ?? {})).toEqual(["msgpack"]);
  });

  it("validate, then plan of the same configuration bytes: the kind's check runs once", async () => {
    const flag = cat.resources.get(FLAG)?.kind;
    if (flag === undefined) throw new Error("no Flag kind");
    const check = vi.spyOn(flag.impl, "check");
    try {
      const config = dv(flagConfig("tf-memo"));
      expect((await p.validateResourceConfig({ type_name: FLAG, config })).diagnostics).toEqual([]);
      const plan = await p.planResourceChange({
        type_name: FLAG,
        prior_state: dv(null),
        proposed_new_state: config,
        config,
      });
      expect(plan.diagnostics).toEqual([]);
      expect((state(plan.planned_state) as TfObject).name).toBe("tf-memo");
      expect(check).toHaveBeenCalledTimes(1);
      // Other bytes are checked again.
      await p.validateResourceConfig({ type_name: FLAG, config: dv(flagConfig("tf-memo-2")) });
      expect(check).toHaveBeenCalledTimes(2);
    } finally {
      check.mockRestore();
    }
  });
});

describe("a held delete that fails at the end of the run", () => {
  it("is noted, and the next run in the directory reports it once as a warning when it configures the provider", async () => {
    const saved = process.env.FLAGSTACK_JOURNAL_DIR;
    process.env.FLAGSTACK_JOURNAL_DIR = mkdtempSync(join(tmpdir(), "flagstack-held-"));
    try {
      const run = new TerraformProvider(cat);
      run.held.hold("owner", {
        describe: "flagstack_flag_definition f1:e1",
        run: async () => {
          throw new Error("503 Service Unavailable");
        },
      });
      expect(await run.finish()).toEqual(["flagstack_flag_definition f1:e1: 503 Service Unavailable"]);
      const next = new TerraformProvider(cat);
      const config = {
        config: encodeDynamic(
          { admin_api_url: emu.url, admin_api_key: emu.adminKey, max_retries: 0 },
          configType,
        ),
      };
      const first = await next.configureProvider(config);
      expect(first.diagnostics.map((d) => [d.severity, d.summary])).toEqual([
        [
          2,
          "A delete held back in an earlier run failed: flagstack_flag_definition f1:e1: 503 Service Unavailable",
        ],
      ]);
      expect(first.diagnostics[0]?.detail).toMatch(
        /^At \d{4}-\d\d-\d\dT.* The object may still exist on the service/,
      );
      expect((await next.configureProvider(config)).diagnostics).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.FLAGSTACK_JOURNAL_DIR;
      else process.env.FLAGSTACK_JOURNAL_DIR = saved;
    }
  });
});

describe("a create that fails after the object was made", () => {
  it("records the object (its id and outputs) with the error, so it is not lost", async () => {
    const flag = KIND_LIST.find((k) => k.name === "Flag");
    if (flag === undefined) throw new Error("no Flag kind");
    const failing = {
      ...flag,
      impl: {
        ...flag.impl,
        create: async () => {
          throw new PartialFailure(
            "f-1",
            { workspace: "Default", name: "half", flagId: "f-1" },
            new Error("503"),
            "PATCH of the tags",
          );
        },
      },
    };
    const half = new TerraformProvider(catalog([failing]));
    const config = flagConfig("half");
    const applied = await half.applyResourceChange({
      type_name: FLAG,
      prior_state: dv(null),
      planned_state: dv(config),
      config: dv(config),
    });
    expect(applied.diagnostics.map((d) => d.summary)).toEqual([
      "PATCH of the tags failed after the object was created (id f-1): 503",
    ]);
    const st = state(applied.new_state) as TfObject;
    expect([st.id, st.name, st.flag_id, st.description]).toEqual(["f-1", "half", "f-1", null]);
  });
});

describe("data sources", () => {
  it("flagstack_workspace runs getWorkspace: the result, the argument as configured", async () => {
    const d = cat.dataSources.get("flagstack_workspace");
    if (d === undefined) throw new Error("no flagstack_workspace");
    const type = blockType(d.attributes);
    const read = await p.readDataSource({
      type_name: "flagstack_workspace",
      config: encodeDynamic({ name: "Default" }, type),
    });
    expect(read.diagnostics).toEqual([]);
    const ws = await admin.workspaces.getByName("Default");
    expect(decodeDynamic(read.state, type)).toEqual({
      name: "Default",
      id: ws?.id,
      type: ws?.type,
      requires_title_and_comments: ws?.requiresTitleAndComments,
    });
  });

  it("a lookup that finds nothing is an error diagnostic", async () => {
    const d = cat.dataSources.get("flagstack_workspace");
    const type = blockType(d?.attributes ?? []);
    const read = await p.readDataSource({
      type_name: "flagstack_workspace",
      config: encodeDynamic({ name: "Nowhere" }, type),
    });
    expect(read.diagnostics).toHaveLength(1);
    expect(read.diagnostics[0]?.severity).toBe(1);
  });
});

describe("flagstack_flag_definition: drift of a defaulted input, and deletes held for the flag's", () => {
  const DEF = "flagstack_flag_definition";
  const defType = blockType(cat.resources.get(DEF)?.attributes ?? []);
  const ddv = (value: TfObject | null) => encodeDynamic(value, defType);
  const dstate = (v: DynamicValue | undefined) => decodeDynamic(v, defType) as TfObject | null;
  /** A definition's configuration as OpenTofu sends it (traffic_allocation left out). */
  const defConfig = (flag: string, environment: string): TfObject =>
    decodeDynamic(
      ddv({
        workspace: "Default",
        flag,
        environment,
        treatments: [{ name: "on" }, { name: "off" }],
        default_treatment: "off",
      }),
      defType,
    ) as TfObject;

  async function create(type: string, t: ReturnType<typeof blockType>, config: TfObject): Promise<TfObject> {
    const enc = (v: TfObject | null) => encodeDynamic(v, t);
    const plan = await p.planResourceChange({
      type_name: type,
      prior_state: enc(null),
      proposed_new_state: enc(config),
      config: enc(config),
    });
    const applied = await p.applyResourceChange({
      type_name: type,
      prior_state: enc(null),
      planned_state: plan.planned_state,
      config: enc(config),
    });
    expect(applied.diagnostics).toEqual([]);
    return decodeDynamic(applied.new_state, t) as TfObject;
  }

  const destroy = async (type: string, t: ReturnType<typeof blockType>, prior: TfObject) =>
    p.applyResourceChange({
      type_name: type,
      prior_state: encodeDynamic(prior, t),
      planned_state: encodeDynamic(null, t),
      config: encodeDynamic(null, t),
    });

  it("an edit made outside of an input left out (traffic_allocation) plans its default back, and the state is the live value", async () => {
    await create(FLAG, flagType, flagConfig("tf-drift"));
    const config = defConfig("tf-drift", "Staging");
    const made = await create(DEF, defType, config);
    expect(made.traffic_allocation).toBe(100);
    const ws = (await admin.workspaces.getByName("Default"))?.id as string;
    await admin.definitions.patch(ws, "tf-drift", "Staging", [
      { op: "replace", path: "/trafficAllocation", value: 40 },
    ]);
    const read = dstate(
      (await p.readResource({ type_name: DEF, current_state: ddv(made) })).new_state,
    ) as TfObject;
    expect(read.traffic_allocation).toBe(40);
    // OpenTofu's proposal keeps the prior (refreshed) value of an optional+computed attribute left out.
    const plan = await p.planResourceChange({
      type_name: DEF,
      prior_state: ddv(read),
      proposed_new_state: ddv({ ...config, ...read }),
      config: ddv(config),
    });
    expect(plan.diagnostics).toEqual([]);
    expect((dstate(plan.planned_state) as TfObject).traffic_allocation).toBe(100);
    emu.resetRequests();
    const applied = await p.applyResourceChange({
      type_name: DEF,
      prior_state: ddv(read),
      planned_state: plan.planned_state,
      config: ddv(config),
    });
    expect(applied.diagnostics).toEqual([]);
    expect(writes()).toEqual([
      expect.stringMatching(/^PATCH \/internal\/api\/v2\/splits\/ws\/[^/]+\/tf-drift\/environments\/[^/]+$/),
    ]);
    expect((dstate(applied.new_state) as TfObject).traffic_allocation).toBe(100);
    expect((await admin.definitions.get(ws, "tf-drift", "Staging")).trafficAllocation).toBe(100);
  });

  it("a program-only input (wait_for_approval) the configuration no longer gives is planned away, and gone from the state", async () => {
    await create(FLAG, flagType, flagConfig("tf-program"));
    const withWait = {
      ...defConfig("tf-program", "Staging"),
      wait_for_approval: { timeout_seconds: 60, poll_seconds: 1 },
    };
    const made = await create(DEF, defType, decodeDynamic(ddv(withWait), defType) as TfObject);
    expect(made.wait_for_approval).toEqual({ timeout_seconds: 60, poll_seconds: 1 });
    const read = dstate(
      (await p.readResource({ type_name: DEF, current_state: ddv(made) })).new_state,
    ) as TfObject;
    expect(read.wait_for_approval).toEqual({ timeout_seconds: 60, poll_seconds: 1 });
    const config = defConfig("tf-program", "Staging");
    // OpenTofu's proposal: an attribute that is not computed is the configuration's (null).
    const plan = await p.planResourceChange({
      type_name: DEF,
      prior_state: ddv(read),
      proposed_new_state: ddv({ ...read, wait_for_approval: null }),
      config: ddv(config),
    });
    expect((dstate(plan.planned_state) as TfObject).wait_for_approval).toBeNull();
    emu.resetRequests();
    const applied = await p.applyResourceChange({
      type_name: DEF,
      prior_state: ddv(read),
      planned_state: plan.planned_state,
      config: ddv(config),
    });
    expect([applied.diagnostics, writes()]).toEqual([[], []]);
    expect((dstate(applied.new_state) as TfObject).wait_for_approval).toBeNull();
  });

  it("definitions destroyed before their flag: no DELETE of their own, the flag's one DELETE takes them", async () => {
    const flag = await create(FLAG, flagType, flagConfig("tf-owned"));
    const defs = [
      await create(DEF, defType, defConfig("tf-owned", "Production")),
      await create(DEF, defType, defConfig("tf-owned", "Staging")),
    ];
    emu.resetRequests();
    for (const d of defs) {
      const gone = await destroy(DEF, defType, d);
      expect([gone.diagnostics, dstate(gone.new_state)]).toEqual([[], null]);
    }
    expect([writes(), p.held.size]).toEqual([[], 2]);
    const flagGone = await destroy(FLAG, flagType, flag);
    expect(flagGone.diagnostics).toEqual([]);
    expect(writes()).toEqual([
      expect.stringMatching(/^DELETE \/internal\/api\/v2\/splits\/ws\/[^/]+\/tf-owned$/),
    ]);
    expect(p.held.size).toBe(0);
    expect(await p.finish()).toEqual([]);
    expect(writes()).toHaveLength(1);
  });

  it("a definition destroyed while its flag stays: its own DELETE at the end of the run (or before the next create)", async () => {
    await create(FLAG, flagType, flagConfig("tf-stays"));
    const def = await create(DEF, defType, defConfig("tf-stays", "Staging"));
    emu.resetRequests();
    const gone = await destroy(DEF, defType, def);
    expect([gone.diagnostics, writes()]).toEqual([[], []]);
    expect(await p.finish()).toEqual([]);
    expect(writes()).toEqual([
      expect.stringMatching(/^DELETE \/internal\/api\/v2\/splits\/ws\/[^/]+\/tf-stays\/environments\/[^/]+$/),
    ]);
    const again = await create(DEF, defType, defConfig("tf-stays", "Staging"));
    emu.resetRequests();
    await destroy(DEF, defType, again);
    // A create comes after the held delete: the re-created definition does not meet the old one.
    await create(DEF, defType, defConfig("tf-stays", "Staging"));
    expect(writes().map((w) => w.split(" ")[0])).toEqual(["DELETE", "POST"]);
    const ws = (await admin.workspaces.getByName("Default"))?.id as string;
    expect((await admin.definitions.get(ws, "tf-stays", "Staging")).treatments.map((t) => t.name)).toEqual([
      "on",
      "off",
    ]);
  });
  it("a delete's plan reads the owner gate once, notes it for the apply, and warns where an approval stands in front", async () => {
    const ws = (await admin.workspaces.getByName("Default"))?.id as string;
    const gatedEnv = (await admin.environments.create(ws, { name: "GatedPlan", production: false })).id;
    const flag = await create(FLAG, flagType, flagConfig("tf-gate-plan"));
    const staging = await create(DEF, defType, defConfig("tf-gate-plan", "Staging"));
    const gated = await create(DEF, defType, defConfig("tf-gate-plan", "GatedPlan"));
    // A flag's definitions in several environments, one of them gated: its plan names that one.
    const DEFS = "flagstack_flag_definitions";
    const defsType = blockType(cat.resources.get(DEFS)?.attributes ?? []);
    await create(FLAG, flagType, flagConfig("tf-gate-plan-2"));
    const entry = { treatments: [{ name: "on" }, { name: "off" }], default_treatment: "off" };
    const several = await create(
      DEFS,
      defsType,
      decodeDynamic(
        encodeDynamic(
          { workspace: "Default", flag: "tf-gate-plan-2", definitions: { Staging: entry, GatedPlan: entry } },
          defsType,
        ),
        defsType,
      ) as TfObject,
    );
    await admin.environments.patch(ws, gatedEnv, [
      { op: "replace", path: "/changePermissions", value: { areApprovalsRequired: true } },
    ]);
    // The memo of this process's client would answer from before the change: a process of its own.
    resetProvider();
    forgetOwnerGates();
    await p.configureProvider({
      config: encodeDynamic(
        { admin_api_url: emu.url, admin_api_key: emu.adminKey, max_retries: 0 },
        configType,
      ),
    });
    const envs = await admin.environments.list(ws);
    const planDelete = async (type: string, t: ReturnType<typeof blockType>, prior: TfObject) =>
      p.planResourceChange({
        type_name: type,
        prior_state: encodeDynamic(prior, t),
        proposed_new_state: encodeDynamic(null, t),
        config: encodeDynamic(null, t),
      });
    try {
      emu.resetRequests();
      const plain = await planDelete(DEF, defType, staging);
      expect([plain.diagnostics, plain.planned_state]).toEqual([[], ddv(null)]);
      const reads = () =>
        emu
          .requests()
          .filter((r) => r.api !== "emulator")
          .map((r) => `${r.method} ${r.path}${r.query.includes("dry_run=true") ? " dry_run" : ""}`)
          .sort();
      expect(reads()).toEqual(
        [
          `GET /internal/api/v2/environments/ws/${ws}`,
          ...envs.map((e) => `PATCH /internal/api/v2/environments/ws/${ws}/${e.id} dry_run`),
        ].sort(),
      );
      emu.resetRequests();
      expect((await planDelete(DEF, defType, gated)).diagnostics).toEqual([
        {
          severity: 2,
          summary: 'Environment "GatedPlan" requires approvals',
          detail:
            "The apply asks for this delete with an ARCHIVE change request; the object stays, and stays in the state, until the request is approved (`wait_for_approval` waits for it).",
        },
      ]);
      expect((await planDelete(DEFS, defsType, several)).diagnostics).toEqual([
        {
          severity: 2,
          summary: 'Environment "GatedPlan" requires approvals',
          detail:
            "The apply asks for this delete with an ARCHIVE change request; the object stays, and stays in the state, until the request is approved (`wait_for_approval` waits for it).",
        },
      ]);
      expect((await planDelete(FLAG, flagType, flag)).diagnostics).toEqual([
        {
          severity: 2,
          summary: 'Environment "GatedPlan" requires approvals',
          detail:
            'Deleting it deletes what it holds in every environment: where it holds anything in "GatedPlan", the apply first asks for that with an ARCHIVE change request, and it stays, and stays in the state, until each request is approved.',
        },
      ]);
      // Read once: the later plans sent nothing, and the reads are noted for the apply's process.
      expect(reads()).toEqual([]);
      expect(Object.values(ownerGatesMade()).map((f) => f.environments.filter((e) => e.approvals))).toEqual([
        [{ id: gatedEnv, name: "GatedPlan", approvals: true }],
      ]);
    } finally {
      await admin.environments.patch(ws, gatedEnv, [
        { op: "replace", path: "/changePermissions", value: { areApprovalsRequired: false } },
      ]);
      forgetOwnerGates();
    }
  });
});
