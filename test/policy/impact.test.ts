/**
 * policy/impact: both doors' plans read into before and after (a Terraform plan's prior state and
 * planned inputs, `pulumi preview --json` steps), what changed per flag (created, deleted, killed,
 * restored, updated, a segment's members, an IN_SPLIT dependency), changes that move no key kept
 * apart, unreadable values as notes, and the text and markdown reports.
 */
import { describe, expect, it } from "vitest";
import { impactMarkdown, impactText, planImpact } from "../../policy/impact";
import { readPlanChanges } from "../../policy/plan";
import { PREVIEW_UNKNOWN, previewNotes, readPreviewChanges } from "../../policy/preview";
import { UNKNOWN } from "../../provider/core/check";
import { FLAG_DEFINITION_TYPE, FLAG_DEFINITIONS_TYPE, SEGMENT_KEYS_TYPE } from "../../provider/types";
import { samplePopulation } from "../../sdk/split/population";

const population = samplePopulation(1000);
const def = (flag: string, on: number, extra: Record<string, unknown> = {}) => ({
  workspace: "Default",
  flag,
  environment: "Production",
  treatments: [{ name: "on" }, { name: "off" }],
  defaultTreatment: "off",
  defaultRule: [
    { treatment: "on", size: on },
    { treatment: "off", size: 100 - on },
  ],
  ...extra,
});
const target = (flag: string, before: object | undefined, after: object | undefined) => ({
  address: `d_${flag}`,
  type: FLAG_DEFINITION_TYPE,
  before: before as Record<string, unknown> | undefined,
  after: after as Record<string, unknown> | undefined,
});

describe("planImpact", () => {
  it("names each change, measures it, and keeps the ones that move no key apart", async () => {
    const r = await planImpact(
      [
        target("ramp", def("ramp", 10), def("ramp", 25)),
        target("kill", def("kill", 30), def("kill", 30, { killed: true })),
        target("restore", def("restore", 30, { killed: true }), def("restore", 30)),
        target("new", undefined, def("new", 50)),
        target("old", def("old", 50), undefined),
        target("same", def("same", 50), def("same", 50)),
        target("described", def("described", 50), def("described", 50, { comment: "why" })),
      ],
      population,
    );
    expect(r.flags.map((f) => [f.flag, f.change, f.shift, f.address])).toEqual([
      ["ramp", "updated", 15, "d_ramp"],
      ["kill", "killed", 30, "d_kill"],
      ["restore", "restored", 30, "d_restore"],
      ["new", "created", 0, "d_new"],
      ["old", "deleted", 0, "d_old"],
    ]);
    // A comment changes no treatment: not even listed as quiet (what it serves is the same).
    expect(r.quiet).toEqual([]);
    expect(r.notes).toEqual([]);
    expect(r.population).toBe("1,000 sampled keys");
  });

  it("a segment's members and a flag's dependents reach the definitions that read them", async () => {
    const beta = def("beta", 0, { treatments: [{ name: "on", segments: ["beta"] }, { name: "off" }] });
    const dependent = def("dep", 0, {
      rules: [
        {
          condition: {
            combiner: "AND",
            matchers: [{ type: "IN_SPLIT", depends: { splitName: "base", treatment: "on" } }],
          },
          buckets: [{ treatment: "on", size: 100 }],
        },
      ],
    });
    const members = (keys: string[]) => ({
      workspace: "Default",
      environment: "Production",
      segment: "beta",
      keys,
    });
    const r = await planImpact(
      [
        target("beta", beta, beta),
        { address: "k_beta", type: SEGMENT_KEYS_TYPE, before: members(["a"]), after: members(["a", "b"]) },
        target("base", def("base", 10), def("base", 20)),
        target("dep", dependent, dependent),
      ],
      population,
    );
    expect(
      r.flags.map((f) => [f.flag, f.change, f.method, f.moved.map((m) => `${m.key} ${m.from}>${m.to}`)]),
    ).toEqual([
      ["beta", 'members of "beta"', "exact", ["b off>on"]],
      ["base", "updated", "exact", []],
      ["dep", 'depends on "base"', "sampled", []],
    ]);
    expect(r.flags[2]!.transitions.map((t) => [t.from, t.to])).toEqual([["off", "on"]]);
  });

  it("a value unknown until apply is a note (or the policy's error), never a guess", async () => {
    const r = await planImpact(
      [target("x", def("x", 10), def("x", 20, { defaultTreatment: UNKNOWN }))],
      population,
    );
    expect(r.flags).toEqual([]);
    expect(r.notes).toEqual([
      "d_x: the definition after holds a value known only after apply (defaultTreatment), so its change is not measured",
    ]);
    await expect(
      planImpact([target("x", def("x", 10), def("x", 20, { defaultTreatment: UNKNOWN }))], population, {
        throwUnknown: true,
      }),
    ).rejects.toThrow("defaultTreatment");
  });

  it("a flag's definitions in several environments: each environment measured as a definition, under the resource's address", async () => {
    const { workspace, flag, environment: _, ...prod } = def("multi", 10);
    const entry = (on: number, extra: Record<string, unknown> = {}) => {
      const { workspace: _w, flag: _f, environment: _e, ...rest } = def("multi", on, extra);
      return rest;
    };
    const multi = (definitions: Record<string, unknown>) => ({ workspace, flag, definitions });
    const r = await planImpact(
      [
        {
          address: "defs_multi",
          type: FLAG_DEFINITIONS_TYPE,
          before: multi({ Production: prod, Staging: entry(40) }),
          after: multi({ Production: entry(30), Development: entry(50) }),
        },
      ],
      population,
    );
    expect(r.flags.map((f) => [f.flag, f.environment, f.change, f.shift, f.address])).toEqual([
      ["multi", "Production", "updated", 20, "defs_multi"],
      ["multi", "Staging", "deleted", 0, "defs_multi"],
      ["multi", "Development", "created", 0, "defs_multi"],
    ]);
    const unknown = await planImpact(
      [
        {
          address: "defs_multi",
          type: FLAG_DEFINITIONS_TYPE,
          before: multi({ Production: prod }),
          after: multi({ Production: entry(30, { defaultTreatment: UNKNOWN }) }),
        },
      ],
      population,
    );
    expect(unknown.notes).toEqual([
      "defs_multi: the definitions after hold a value known only after apply, so their change is not measured",
    ]);
  });

  it("reports as text and as markdown", async () => {
    const r = await planImpact(
      [
        target(
          "ramp",
          def("ramp", 10, { treatments: [{ name: "on", keys: ["qa-bot"] }, { name: "off" }] }),
          def("ramp", 25),
        ),
      ],
      population,
    );
    const moved = r.flags[0]!.moved;
    expect(moved.map((m) => [m.key, m.from, m.labels?.[0]])).toEqual([["qa-bot", "on", "whitelisted"]]);
    const qa = `qa-bot on → ${moved[0]!.to} (whitelisted → default rule)`;
    expect(impactText(r)).toBe(
      [
        "Production (workspace Default)",
        "  ramp: updated, moves 15% (exact, over the 100 buckets)",
        `    off → on                 15%            ${r.flags[0]!.transitions[0]!.keys} of 1000 keys`,
        "    named keys: 1 of 1 move",
        `      ${qa}`,
        "Population: 1,000 sampled keys (shares are of keys no target names).",
        "",
      ].join("\n"),
    );
    expect(impactMarkdown(r)).toBe(
      [
        "## Who this change reaches",
        "",
        "### Production (workspace Default)",
        "",
        "| flag | change | moves | from → to | method |",
        "|---|---|---|---|---|",
        "| `ramp` | updated | **15%** | off → on: 15% | exact, over the 100 buckets |",
        "",
        "Named keys that move:",
        `- \`ramp\` (1 of 1): \`${qa}\``,
        "",
        "_Population: 1,000 sampled keys; shares are of keys no target names._",
        "",
      ].join("\n"),
    );
  });
});

describe("the doors' plans", () => {
  it("a Terraform plan: the prior state before, the configured inputs after, a no-op the same on both sides", () => {
    const state = (on: number) => ({
      workspace: "Default",
      flag: "f",
      environment: "Production",
      treatments: [
        { name: "on", keys: null, segments: null, configurations: null, description: null },
        { name: "off", keys: null, segments: null, configurations: null, description: null },
      ],
      default_treatment: "off",
      default_rule: [
        { treatment: "on", size: on },
        { treatment: "off", size: 100 - on },
      ],
      rules: [],
      traffic_allocation: 100,
      killed: false,
      environment_name: "Production",
      flag_id: "id-1",
    });
    const rc = (name: string, actions: string[], before: object | null, after: object | null) => ({
      address: `flagstack_flag_definition.${name}`,
      mode: "managed",
      type: "flagstack_flag_definition",
      name,
      change: { actions, before, after, after_unknown: {} },
    });
    const set = ["workspace", "flag", "environment", "treatments", "default_treatment", "default_rule"];
    const changes = readPlanChanges({
      format_version: "1.2",
      resource_changes: [
        rc("up", ["update"], state(10), state(25)),
        rc("same", ["no-op"], state(50), state(50)),
        rc("gone", ["delete"], state(5), null),
      ],
      configuration: {
        root_module: {
          resources: ["up", "same", "gone"].map((name) => ({
            address: `flagstack_flag_definition.${name}`,
            mode: "managed",
            type: "flagstack_flag_definition",
            name,
            expressions: Object.fromEntries(set.map((a) => [a, {}])),
          })),
        },
      },
    });
    expect(changes.map((c) => [c.address, c.before?.defaultRule, c.after?.defaultRule])).toEqual([
      ["flagstack_flag_definition.up", state(10).default_rule, state(25).default_rule],
      ["flagstack_flag_definition.same", state(50).default_rule, state(50).default_rule],
      ["flagstack_flag_definition.gone", state(5).default_rule, undefined],
    ]);
    // The state is read as outputs are: every attribute, snake_case to the provider's names.
    expect(changes[0]!.before).toMatchObject({
      environmentName: "Production",
      flagId: "id-1",
      trafficAllocation: 100,
    });
    // A no-op reads its planned inputs on both sides.
    expect(changes[1]!.before).toBe(changes[1]!.after);
  });

  it("pulumi preview --json: oldState outputs before, newState inputs after, unknowns as the provider's", () => {
    const type = "pulumi-nodejs:dynamic/flagstack:FlagDefinition";
    const json = {
      steps: [
        { op: "same", urn: "u::same", newState: { type, inputs: def("same", 1) } },
        {
          op: "update",
          urn: "u::up",
          oldState: { type, outputs: def("up", 1) },
          newState: { type, inputs: def("up", 2) },
        },
        {
          op: "create",
          urn: "u::new",
          newState: { type, inputs: { ...def("new", 3), comment: PREVIEW_UNKNOWN } },
        },
        { op: "delete", urn: "u::old", oldState: { type, outputs: def("old", 4) } },
        { op: "same", urn: "u::stack", newState: { type: "pulumi:pulumi:Stack", inputs: {} } },
      ],
    };
    const changes = readPreviewChanges(json);
    expect(changes.map((c) => [c.address, c.before?.flag, c.after?.flag])).toEqual([
      ["u::same", "same", "same"],
      ["u::up", "up", "up"],
      ["u::new", undefined, "new"],
      ["u::old", "old", undefined],
    ]);
    expect(changes[2]!.after!.comment).toBe(UNKNOWN);
    expect(previewNotes(json)).toEqual([]);
    expect(previewNotes({ steps: json.steps.filter((s) => s.urn !== "u::same") })[0]).toContain(
      "pulumi preview --json --show-sames",
    );
    expect(() => readPreviewChanges({ steps: "no" })).toThrow(
      "not the JSON of pulumi preview --json: steps:",
    );
  });
});
