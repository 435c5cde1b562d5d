/**
 * The recovery of a killed `terraform apply` (provider/terraform/recover.ts), against the
 * emulator, from plan JSON as `tofu show -json` writes it: the plan's creates of flagstack types
 * with their planned inputs (camelCase, unknowns named), the provider block's arguments (a constant
 * or one variable), each create looked up by its natural key (found with its import id, absent, or
 * undecided with why), the file of `import` blocks (exact text, read back), the whole recovery
 * (written, nothing written, an earlier file kept or removed), the CLI found on PATH and the plan
 * run through it.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../../emulator";
import { resetProvider } from "../../../provider/core/config";
import {
  configureFromArguments,
  findCli,
  importBlocksText,
  lookUp,
  type PlanJson,
  type PlanResourceChange,
  parseImportBlocks,
  plannedObjects,
  providerArguments,
  RECOVERED_FILE,
  recoverConfiguration,
  reportLines,
  runPlan,
} from "../../../provider/terraform/recover";
import { catalog } from "../../../provider/terraform/server";
import { AdminClient } from "../../../sdk";

const cat = catalog();
let emu: Emulator;
let admin: AdminClient;
let wsId: string;
const dir = mkdtempSync(join(tmpdir(), "flagstack-tf-recover-"));

/** A flag's planned create as `tofu show -json` writes it (from a real plan of OpenTofu 1.12.6). */
const flagCreate = (address: string, name: string): PlanResourceChange => ({
  address,
  mode: "managed",
  type: "flagstack_flag",
  change: {
    actions: ["create"],
    after: { adopt: null, description: "", name, tags: [], traffic_type: "user", workspace: "Default" },
    after_unknown: {
      creation_time: true,
      flag_id: true,
      id: true,
      owners: true,
      rollout_status: true,
      rollout_status_id: true,
      rollout_status_timestamp: true,
      tags: [],
      traffic_type_id: true,
      workspace_id: true,
      workspace_name: true,
    },
  },
});

/** A definition's planned create; `flag` unknown when it names a flag's output still to be made. */
const definitionCreate = (address: string, flag: string | undefined): PlanResourceChange => ({
  address,
  mode: "managed",
  type: "flagstack_flag_definition",
  change: {
    actions: ["create"],
    after: {
      adopt: null,
      default_rule: [{ size: 100, treatment: "off" }],
      default_treatment: "off",
      environment: "Production",
      ...(flag === undefined ? {} : { flag }),
      killed: false,
      rules: [],
      traffic_allocation: 100,
      treatments: [
        { configurations: null, description: null, keys: null, name: "on", segments: null },
        { configurations: null, description: null, keys: null, name: "off", segments: null },
      ],
      workspace: "Default",
    },
    after_unknown: {
      creation_time: true,
      environment_id: true,
      ...(flag === undefined ? { flag: true } : {}),
      id: true,
      treatments: [{}, {}],
    },
  },
});

/** A plan of the emulator's provider block (`admin_api_url = var.admin_api_url`) with these changes. */
const plan = (changes: PlanResourceChange[]): PlanJson => ({
  format_version: "1.2",
  variables: { admin_api_url: { value: emu.url }, requests_per_second: { value: 100000 } },
  resource_changes: changes,
  configuration: {
    provider_config: {
      flagstack: {
        name: "flagstack",
        expressions: {
          admin_api_url: { references: ["var.admin_api_url"] },
          requests_per_second: { references: ["var.requests_per_second"] },
        },
      },
    },
  },
});

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  admin = new AdminClient({ baseUrl: emu.url, apiKey: emu.adminKey });
  wsId = ((await admin.workspaces.getByName("Default")) as { id: string }).id;
  process.env.FLAGSTACK_ADMIN_API_KEY = emu.adminKey;
});
afterAll(async () => {
  delete process.env.FLAGSTACK_ADMIN_API_KEY;
  resetProvider();
  rmSync(dir, { recursive: true, force: true });
  await emu?.stop();
});

describe("the plan's creates", () => {
  it("flagstack types created alone, with their planned inputs; imports listed; the rest passed over", () => {
    const planned = plannedObjects(
      {
        resource_changes: [
          flagCreate('flagstack_flag.f["a"]', "tf-a"),
          definitionCreate("module.m.flagstack_flag_definition.d[3]", undefined),
          { address: "flagstack_flag.g", type: "flagstack_flag", change: { actions: ["no-op"] } },
          { address: "flagstack_flag.r", type: "flagstack_flag", change: { actions: ["delete", "create"] } },
          {
            address: "flagstack_flag.i",
            type: "flagstack_flag",
            change: { actions: ["no-op"], importing: { id: "Default/i" } },
          },
          {
            address: "data.flagstack_workspace.w",
            mode: "data",
            type: "flagstack_workspace",
            change: { actions: ["read"] },
          },
          { address: "null_resource.n", type: "null_resource", change: { actions: ["create"] } },
        ],
      },
      cat,
    );
    expect(planned).toEqual({
      creates: [
        {
          address: 'flagstack_flag.f["a"]',
          type: "flagstack_flag",
          inputs: { description: "", name: "tf-a", tags: [], trafficType: "user", workspace: "Default" },
          unknown: ["rollout_status", "owners"],
        },
        {
          address: "module.m.flagstack_flag_definition.d[3]",
          type: "flagstack_flag_definition",
          inputs: {
            defaultRule: [{ size: 100, treatment: "off" }],
            defaultTreatment: "off",
            environment: "Production",
            killed: false,
            rules: [],
            trafficAllocation: 100,
            treatments: [{ name: "on" }, { name: "off" }],
            workspace: "Default",
          },
          unknown: ["flag"],
        },
      ],
      importing: [{ address: "flagstack_flag.i", id: "Default/i" }],
    });
  });
});

describe("the provider block's arguments", () => {
  it("a constant or one variable's value; any other expression left to the environment", () => {
    expect(
      providerArguments({
        variables: { url: { value: "http://x" }, unset: { value: null } },
        configuration: {
          provider_config: {
            flagstack: {
              expressions: {
                admin_api_url: { references: ["var.url"] },
                max_retries: { constant_value: 2 },
                admin_auth: { references: ["local.auth"] },
                change_title: { references: ["var.url", "var.unset"] },
                change_comment: { references: ["var.unset"] },
              },
            },
          },
        },
      }),
    ).toEqual({
      values: { admin_api_url: "http://x", max_retries: 2 },
      unresolved: ["admin_auth", "change_title", "change_comment"],
    });
    expect(providerArguments({})).toEqual({ values: {}, unresolved: [] });
  });
});

describe("looking each create up by its natural key", () => {
  beforeAll(async () => {
    await configureFromArguments(cat, { admin_api_url: emu.url });
    await admin.flags.create(wsId, "user", { name: "rc-found" });
  });

  it("found (its import id, read as the import reads it), absent, or undecided with why", async () => {
    const made = await admin.flags.get(wsId, "rc-found");
    const { creates } = plannedObjects(
      {
        resource_changes: [
          flagCreate('flagstack_flag.f["found"]', "rc-found"),
          flagCreate("flagstack_flag.f[1]", "rc-absent"),
          definitionCreate("flagstack_flag_definition.d[0]", "rc-found"),
          definitionCreate("flagstack_flag_definition.d[1]", undefined),
          flagCreate("flagstack_flag.bad", "9 bad name"),
          {
            address: "flagstack_api_key.k",
            type: "flagstack_api_key",
            change: {
              actions: ["create"],
              after: {
                name: "rc-key",
                api_key_type: "server_side",
                workspace: "Default",
                environments: ["Production"],
              },
              after_unknown: { id: true },
            },
          },
          {
            address: "flagstack_environment.e",
            type: "flagstack_environment",
            change: {
              actions: ["create"],
              after: { workspace: "Nowhere", name: "Staging" },
              after_unknown: {},
            },
          },
        ],
      },
      cat,
    );
    const findings = await lookUp(creates, cat);
    expect(findings.slice(0, 4)).toEqual([
      {
        address: 'flagstack_flag.f["found"]',
        type: "flagstack_flag",
        status: "found",
        id: "Default/rc-found",
        createdAt: made.creationTime,
      },
      { address: "flagstack_flag.f[1]", type: "flagstack_flag", status: "absent" },
      { address: "flagstack_flag_definition.d[0]", type: "flagstack_flag_definition", status: "absent" },
      {
        address: "flagstack_flag_definition.d[1]",
        type: "flagstack_flag_definition",
        status: "undecided",
        reason:
          "its planned inputs do not check (not known until the apply: flag): flag: Invalid input: expected string, received undefined",
      },
    ]);
    expect(findings[4]).toEqual({
      address: "flagstack_flag.bad",
      type: "flagstack_flag",
      status: "undecided",
      reason:
        "its planned inputs do not check: name: name must start with a letter and use only letters, digits, '-' and '_'",
    });
    expect(findings[5]).toEqual({
      address: "flagstack_api_key.k",
      type: "flagstack_api_key",
      status: "undecided",
      reason:
        'the create of ApiKey named "rc-key" may have made a key that nothing manages: revoke any key named "rc-key" in the admin settings; the next `terraform apply` creates a new one',
    });
    expect(findings[6]).toMatchObject({ address: "flagstack_environment.e", status: "undecided" });
    expect((findings[6] as { reason: string }).reason).toMatch(/^looking it up failed: .*Nowhere/);
  });
});

describe("the file of import blocks", () => {
  const blocks = [
    { address: 'flagstack_flag.f["a \\"b\\""]', id: "Default/a" },
    { address: "module.m.flagstack_flag_definition.d[2]", id: ["Default/$", "{x}/%{y}"].join("") },
  ];
  const text = [
    "# Written by `npx flagstack terraform recover`: objects this configuration declares that the",
    "# service has and the state did not hold (left by a killed `terraform apply` or `destroy`).",
    "# The next `terraform apply` imports them; `npx flagstack terraform recover` removes this file once",
    "# every one is in the state.",
    "",
    "import {",
    '  to = flagstack_flag.f["a \\"b\\""]',
    '  id = "Default/a"',
    "}",
    "",
    "import {",
    "  to = module.m.flagstack_flag_definition.d[2]",
    '  id = "Default/$${x}/%%{y}"',
    "}",
    "",
  ].join("\n");
  it("one block per object, addresses as the plan gives them, ids as HCL strings", () => {
    expect(importBlocksText(blocks)).toBe(text);
  });
  it("reads its own blocks back", () => {
    expect(parseImportBlocks(text)).toEqual(blocks);
    expect(parseImportBlocks("# nothing\n")).toEqual([]);
  });
});

describe("the whole recovery, from a plan given", () => {
  const file = join(dir, RECOVERED_FILE);
  beforeAll(async () => {
    await admin.flags.create(wsId, "user", { name: "rc-whole" });
  });

  it("writes the blocks of what the service has, and says so", async () => {
    const lines: string[] = [];
    const report = await recoverConfiguration({
      dir,
      catalog: cat,
      plan: plan([
        flagCreate('flagstack_flag.f["w"]', "rc-whole"),
        flagCreate("flagstack_flag.f2", "rc-none"),
      ]),
      log: (l) => lines.push(l),
    });
    expect(report.written).toBe(file);
    expect(readFileSync(file, "utf8")).toBe(
      importBlocksText([{ address: 'flagstack_flag.f["w"]', id: "Default/rc-whole" }]),
    );
    expect(lines).toEqual([]);
    const created = (report.findings[0] as { createdAt: number }).createdAt;
    expect(reportLines(report, "tofu")).toEqual([
      "2 object(s) the configuration declares are not in the state: 1 on the service, 1 not, 0 undecided",
      `  found flagstack_flag.f["w"]: Default/rc-whole (created ${new Date(created).toISOString()})`,
      `wrote 1 import block(s) to ${file}; \`tofu apply\` imports them and creates the 1 object(s) not on the service`,
    ]);
  });

  it("keeps the blocks the plan still imports beside new ones; drops those in the state", async () => {
    writeFileSync(
      file,
      importBlocksText([
        { address: "flagstack_flag.pending", id: "Default/p" },
        { address: "flagstack_flag.done", id: "Default/d" },
      ]),
    );
    const report = await recoverConfiguration({
      dir,
      catalog: cat,
      plan: plan([
        {
          address: "flagstack_flag.pending",
          type: "flagstack_flag",
          change: { actions: ["no-op"], importing: { id: "Default/p" } },
        },
        flagCreate('flagstack_flag.f["w"]', "rc-whole"),
      ]),
    });
    expect(report.pending).toEqual([{ address: "flagstack_flag.pending", id: "Default/p" }]);
    expect(parseImportBlocks(readFileSync(file, "utf8"))).toEqual([
      { address: "flagstack_flag.pending", id: "Default/p" },
      { address: 'flagstack_flag.f["w"]', id: "Default/rc-whole" },
    ]);
  });

  it("--dry-run writes nothing", async () => {
    rmSync(file, { force: true });
    const report = await recoverConfiguration({
      dir,
      catalog: cat,
      dryRun: true,
      plan: plan([flagCreate('flagstack_flag.f["w"]', "rc-whole")]),
    });
    expect(report.written).toBeUndefined();
    expect(existsSync(file)).toBe(false);
    expect(reportLines(report).at(-1)).toBe(`dry run: ${RECOVERED_FILE} not written`);
  });

  it("nothing missing: writes nothing", async () => {
    const report = await recoverConfiguration({
      dir,
      catalog: cat,
      plan: plan([flagCreate("flagstack_flag.x", "rc-none")]),
    });
    expect(report).toEqual({
      findings: [{ address: "flagstack_flag.x", type: "flagstack_flag", status: "absent" }],
      pending: [],
    });
    expect(existsSync(file)).toBe(false);
    expect(reportLines(report)).toEqual([
      "1 object(s) the configuration declares are not in the state: 0 on the service, 1 not, 0 undecided",
      "nothing to recover: wrote nothing",
    ]);
  });

  it("every block of an earlier file in the state: the file is removed", async () => {
    writeFileSync(file, importBlocksText([{ address: "flagstack_flag.done", id: "Default/d" }]));
    const report = await recoverConfiguration({ dir, catalog: cat, plan: plan([]) });
    expect(report).toEqual({ findings: [], pending: [], removed: file });
    expect(existsSync(file)).toBe(false);
    expect(reportLines(report)).toEqual([
      "every object the configuration declares is in the state",
      `every import block of ${file} is in the state: removed it`,
    ]);
  });

  it("an errored plan is refused", async () => {
    await expect(recoverConfiguration({ dir, catalog: cat, plan: { errored: true } })).rejects.toThrow(
      "the plan is errored (it did not complete): fix what it reported and run again",
    );
  });
});

describe("the plan, run by the CLI", () => {
  const bin = join(dir, "bin");
  const other = join(dir, "other");
  const argsFile = join(dir, "args.txt");
  beforeAll(() => {
    mkdirSync(bin, { recursive: true });
    mkdirSync(other, { recursive: true });
    writeFileSync(join(dir, "plan.json"), JSON.stringify({ format_version: "1.2" }));
    // A stand-in for tofu: records its arguments, reports a warning, writes and shows the plan.
    writeFileSync(
      join(bin, "tofu"),
      [
        "#!/bin/sh",
        `echo "$@" >> ${JSON.stringify(argsFile)}`,
        'if [ "$1" = plan ]; then',
        `  echo '{"type":"diagnostic","diagnostic":{"severity":"warning","summary":"A delete held back","detail":"it failed"}}'`,
        `  echo '{"type":"change_summary"}'`,
        '  [ "$FAIL" = 1 ] && { echo \'{"type":"diagnostic","diagnostic":{"severity":"error","summary":"Error acquiring the state lock"}}\'; exit 1; }',
        "  exit 0",
        "fi",
        `cat ${JSON.stringify(join(dir, "plan.json"))}`,
      ].join("\n"),
    );
    chmodSync(join(bin, "tofu"), 0o755);
    writeFileSync(join(other, "terraform"), "#!/bin/sh\n");
    chmodSync(join(other, "terraform"), 0o755);
  });

  it("tofu first, then terraform, on PATH", () => {
    expect(findCli({ PATH: `/nowhere:${other}:${bin}` })).toBe(join(bin, "tofu"));
    expect(findCli({ PATH: other })).toBe(join(other, "terraform"));
    expect(findCli({ PATH: "/nowhere" })).toBeUndefined();
  });

  it("plan -json -out, then show -json of that file; its diagnostics reported", async () => {
    rmSync(argsFile, { force: true });
    const lines: string[] = [];
    const cli = join(bin, "tofu");
    const got = await runPlan({ cli, dir, planArgs: ["-var=x=1"], log: (l) => lines.push(l) });
    expect(got).toEqual({ format_version: "1.2" });
    const [planArgs, showArgs] = readFileSync(argsFile, "utf8").trim().split("\n") as [string, string];
    const planFile = /-out=(\S+)/.exec(planArgs)?.[1] as string;
    expect(planArgs).toBe(`plan -input=false -json -out=${planFile} -var=x=1`);
    expect(showArgs).toBe(`show -json ${planFile}`);
    expect(existsSync(planFile)).toBe(false);
    expect(lines).toEqual([`${cli} plan: warning: A delete held back: it failed`]);
  });

  it("a failed plan fails the recovery, its errors reported", async () => {
    const lines: string[] = [];
    const cli = join(bin, "tofu");
    await expect(
      runPlan({ cli, dir, env: { ...process.env, FAIL: "1" }, log: (l) => lines.push(l) }),
    ).rejects.toThrow(`\`${cli} plan\` failed in ${dir}`);
    expect(lines).toEqual([
      `${cli} plan: warning: A delete held back: it failed`,
      `${cli} plan: error: Error acquiring the state lock`,
    ]);
  });

  it("no CLI on PATH and no plan: says what to give", async () => {
    await expect(recoverConfiguration({ dir, catalog: cat, env: { PATH: "/nowhere" } })).rejects.toThrow(
      "neither `tofu` nor `terraform` is on PATH: name one with --tofu PATH or --terraform PATH, or give a plan with --plan FILE",
    );
  });
});
