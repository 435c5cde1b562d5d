/**
 * Property test: the `Pipeline` resource's `check` and the emulator agree (sdk/platform/pipeline/
 * service.ts is the rules both apply). Every model and every raw YAML that `check` accepts is
 * accepted by the emulator's validation, and every document the emulator refuses is refused by
 * `check`, naming a field the emulator names too.
 *
 * Cases are generated with a seeded PRNG (mulberry32), so a failure replays: the edge table (every
 * edge string in every name, identifier and timeout position) plus {@link RANDOM_CASES} random
 * pipelines of 1-3 stages and 1-3 steps, one or two fields taken from the edge pools or made of
 * random characters, and for raw YAML a structural change (templates, step groups, parallel
 * stages, other step types, missing parts, wrong types, runtime inputs).
 */
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { mulberry32 } from "../../../../emulator/middleware/faults";
import { PlatformError } from "../../../../emulator/platform/errors";
import { parsePipelineYaml, validatePipeline } from "../../../../emulator/platform/pipeline-yaml";
import { effectiveYaml, impl, type PipelineInputs } from "../../../../provider/platform/pipeline";
import { RESERVED_IDENTIFIERS } from "../../../../sdk/platform/pipeline";

const SEED = 0x5eed_2015;
const RANDOM_CASES = 1000;
/** Each case parses and renders YAML a few times (about 5 ms); the machine may be shared. */
const SLOW = 120_000;
const scope = { org: "default", project: "payments" };

/** mulberry32 (the emulator's fault PRNG): every run generates the same cases. */
const prng = mulberry32;

const IDENTIFIERS = [
  ...["a", "_", "A1", "a_b", "a$b", "_$", "Step", "STATUS", "yes", "on", "Infinity", "NaN", "x".repeat(128)],
  ...["$a", "1a", "9lives", "a-b", "a.b", "a/b", "build/test", "a b", " a", "a ", "é", "ß", "中", "😀", ""],
  ...["x".repeat(129), "<+input>", "<+pipeline.x>", "account.a", ...RESERVED_IDENTIFIERS],
];
const NAMES = [
  ...[
    "Deploy",
    "a b",
    "a ",
    "1st",
    "-x",
    ".x",
    "a.b",
    "a\nb",
    "a\tb",
    "a\u00a0b",
    "a\u2028b",
    "true",
    "null",
  ],
  ...["123", "1e3", "0x1F", ".inf", "-", ".", "n".repeat(128), "n".repeat(129), "build/test", " a", "  ", ""],
  ...[
    "é",
    "café",
    "中文",
    "😀",
    "~",
    "a:b",
    "a#b",
    "a'b",
    'a"b',
    "<+input>",
    "\ufeffa",
    "a\\b",
    "a|b",
    "a@b",
  ],
  ...["a%b", "a&b", "a*b", "a!b", "a,b", "[a]", "{a}", "a`b", "a\r\nb"],
];
const TIMEOUTS = [
  ...[
    "10m",
    "1h30m",
    "1h 30m",
    "0m",
    "0s",
    "10",
    "10 m",
    "10m10m",
    "1m1h",
    "500ms",
    "1w2d",
    " 10m ",
    "<+input>",
  ],
  ...["<+input>.default(10m)", "x<+a>y", "<+>", "soon", "", "1.5h", "10M", "1d 2h", "2h1d"],
];
const CHARACTERS = [..."aZ09_$-./ \t\né中😀\u00a0:#'\"<+>\\@"];

type Rng = () => number;
const pick = <T>(rng: Rng, list: readonly T[]): T => list[Math.floor(rng() * list.length)]!;
const randomText = (rng: Rng) =>
  Array.from({ length: pick(rng, [0, 1, 2, 5, 20, 127, 128, 129]) }, () => pick(rng, CHARACTERS)).join("");

interface StepCase {
  name: string;
  identifier: string;
  timeout?: string;
}
interface StageCase {
  name: string;
  identifier: string;
  steps: StepCase[];
}
interface PipelineCase {
  name: string;
  identifier: string;
  stages: StageCase[];
}

/** A valid pipeline of the given shape: the values perturbation starts from. */
const valid = (stages: number[]): PipelineCase => ({
  name: "Pipeline",
  identifier: "pipeline",
  stages: stages.map((steps, i) => ({
    name: `Stage ${i}`,
    identifier: `stage${i}`,
    steps: Array.from({ length: steps }, (_, j) => ({ name: `Step ${j}`, identifier: `step${j}` })),
  })),
});

function model(p: PipelineCase) {
  return {
    name: p.name,
    identifier: p.identifier,
    stages: p.stages.map((s) => ({
      type: "Custom",
      name: s.name,
      identifier: s.identifier,
      execution: {
        steps: s.steps.map((t) => ({
          type: "ShellScript",
          name: t.name,
          identifier: t.identifier,
          script: "echo hi",
          ...(t.timeout === undefined ? {} : { timeout: t.timeout }),
        })),
      },
    })),
  };
}

// biome-ignore lint/suspicious/noExplicitAny: free-form YAML tree.
function document(p: PipelineCase): any {
  return {
    pipeline: {
      name: p.name,
      identifier: p.identifier,
      orgIdentifier: scope.org,
      projectIdentifier: scope.project,
      stages: p.stages.map((s) => ({
        stage: {
          name: s.name,
          identifier: s.identifier,
          type: "Custom",
          spec: {
            execution: {
              steps: s.steps.map((t) => ({
                step: {
                  name: t.name,
                  identifier: t.identifier,
                  type: "ShellScript",
                  ...(t.timeout === undefined ? {} : { timeout: t.timeout }),
                  spec: { shell: "Bash", source: { type: "Inline", spec: { script: "echo hi" } } },
                },
              })),
            },
          },
        },
      })),
    },
  };
}

/** Structural changes only raw YAML can carry (or that break it), applied to a document. */
// biome-ignore lint/suspicious/noExplicitAny: free-form YAML tree.
const CHANGES: [string, (d: any, rng: Rng) => void][] = [
  [
    "a template stage",
    (d) =>
      d.pipeline.stages.push({
        stage: { name: "T", identifier: "tpl", template: { templateRef: "account.t" } },
      }),
  ],
  [
    "a step group",
    (d, rng) => {
      const steps = d.pipeline.stages[0].stage.spec.execution.steps;
      steps.push({
        stepGroup: { name: pick(rng, NAMES), identifier: pick(rng, IDENTIFIERS), steps: [steps[0]] },
      });
    },
  ],
  ["parallel stages", (d) => (d.pipeline.stages = [{ parallel: d.pipeline.stages }])],
  [
    "a Wait step",
    (d) =>
      d.pipeline.stages[0].stage.spec.execution.steps.push({
        step: { name: "W", identifier: "wait", type: "Wait", spec: { duration: "1m" } },
      }),
  ],
  ["no step spec", (d) => delete d.pipeline.stages[0].stage.spec.execution.steps[0].step.spec],
  ["no steps", (d) => (d.pipeline.stages[0].stage.spec.execution.steps = [])],
  ["no stages", (d) => (d.pipeline.stages = [])],
  ["a runtime-input identifier", (d) => (d.pipeline.identifier = "<+input>")],
  [
    "a runtime-input shell",
    (d) => (d.pipeline.stages[0].stage.spec.execution.steps[0].step.spec.shell = "<+input>"),
  ],
  ["another shell", (d) => (d.pipeline.stages[0].stage.spec.execution.steps[0].step.spec.shell = "Zsh")],
  ["a numeric timeout", (d) => (d.pipeline.stages[0].stage.spec.execution.steps[0].step.timeout = 10)],
  ["no stage type", (d) => delete d.pipeline.stages[0].stage.type],
  ["no name", (d) => delete d.pipeline.name],
  ["a numeric name", (d) => (d.pipeline.stages[0].stage.name = 42)],
  [
    "no scope (check fills it in)",
    (d) => {
      delete d.pipeline.orgIdentifier;
      delete d.pipeline.projectIdentifier;
    },
  ],
  ["another project", (d) => (d.pipeline.projectIdentifier = "elsewhere")],
];

/** The emulator's verdict on YAML text: accepted, or refused naming these fields (`pipeline.x`). */
function emulator(text: string): { accepted: boolean; fields: string[] } {
  try {
    validatePipeline(parsePipelineYaml(text), scope);
    return { accepted: true, fields: [] };
  } catch (e) {
    if (!(e instanceof PlatformError)) throw e;
    const errors = (e.metadata as { schemaErrors?: { fqn: string }[] } | null)?.schemaErrors ?? [];
    return { accepted: false, fields: errors.map((x) => x.fqn.slice(2)) };
  }
}

/** The YAML path of a model field: `pipeline.stages[0].execution.steps[1].name` → the document's. */
const yamlPathOfModelField = (property: string) =>
  property
    .replace(/^pipeline\.stages\[(\d+)\]\.execution\./, "pipeline.stages[$1].stage.spec.execution.")
    .replace(/^pipeline\.stages\[(\d+)\]\.(?!stage\.)/, "pipeline.stages[$1].stage.")
    .replace(/(steps\[\d+\])\.(?!step\.)/, "$1.step.");

interface Verdict {
  label: string;
  check: boolean;
  emulator: boolean;
  detail: string;
}

/** Runs one case through `check` (model and YAML) and the emulator; returns the disagreements. */
async function disagreements(label: string, p: PipelineCase, change?: (typeof CHANGES)[number], rng?: Rng) {
  const out: Verdict[] = [];
  const doc = document(p);
  if (change) change[1](doc, rng!);
  // What the provider sends: the document with the resource's scope filled in where it has none.
  const sent = structuredClone(doc);
  if (
    sent.pipeline &&
    sent.pipeline.orgIdentifier === undefined &&
    sent.pipeline.projectIdentifier === undefined
  )
    Object.assign(sent.pipeline, { orgIdentifier: scope.org, projectIdentifier: scope.project });
  const server = emulator(YAML.stringify(sent));
  const note = (what: string, check: boolean, emu: boolean, detail: string) => {
    if (check !== emu || detail !== "")
      out.push({ label: `${label} (${what})`, check, emulator: emu, detail });
  };

  if (change === undefined) {
    const checked = await impl.check({}, { project: scope.project, pipeline: model(p) });
    const accepted = checked.failures === undefined;
    let detail = "";
    if (accepted && !emulator(effectiveYaml(checked.inputs as PipelineInputs)).accepted)
      detail = "the rendered YAML is refused";
    const unnamed = (checked.failures ?? []).filter(
      (f) => !server.fields.includes(yamlPathOfModelField(f.property)),
    );
    if (!accepted && server.fields.length > 0 && unnamed.length > 0)
      detail = `check names fields the emulator does not: ${JSON.stringify(unnamed)} vs ${JSON.stringify(server.fields)}`;
    note("model", accepted, server.accepted, detail);
  }

  const yaml = YAML.stringify(doc);
  const checked = await impl.check({}, { project: scope.project, yaml });
  const accepted = checked.failures === undefined;
  let detail = "";
  if (accepted && !emulator(effectiveYaml(checked.inputs as PipelineInputs)).accepted)
    detail = "the sent YAML is refused";
  // `check` names the fields of the YAML (or the whole `yaml` input for a scope it cannot fill in);
  // the emulator names each of them too.
  const scopeFields = ["pipeline.orgIdentifier", "pipeline.projectIdentifier"];
  const unnamed = (checked.failures ?? [])
    .map((f) => f.property.replace(/^yaml\.?/, ""))
    .filter(
      (f) => !server.fields.includes(f) && !(f === "" && server.fields.some((x) => scopeFields.includes(x))),
    );
  if (!accepted && server.fields.length > 0 && unnamed.length > 0)
    detail = `check names fields the emulator does not: ${JSON.stringify(unnamed)} vs ${JSON.stringify(server.fields)}`;
  note("yaml", accepted, server.accepted, detail);
  return { out, accepted: server.accepted };
}

describe("check and the emulator agree", () => {
  it("on a stage named build/test: both refuse it, naming the field", async () => {
    const p = valid([1]);
    p.stages[0]!.name = "build/test";
    const reason =
      'name can only contain alphanumeric, space, hyphen, underscore and dot characters; "/" is not allowed.';
    expect((await impl.check({}, { project: scope.project, pipeline: model(p) })).failures).toEqual([
      { property: "pipeline.stages[0].name", reason },
    ]);
    const yaml = YAML.stringify(document(p));
    expect((await impl.check({}, { project: scope.project, yaml })).failures).toEqual([
      { property: "yaml.pipeline.stages[0].stage.name", reason },
    ]);
    expect(emulator(yaml)).toEqual({ accepted: false, fields: ["pipeline.stages[0].stage.name"] });
  });

  it(
    "on every edge string in every name, identifier and timeout position",
    async () => {
      const failures: Verdict[] = [];
      let cases = 0;
      const positions: [string, (p: PipelineCase, v: string) => void, readonly string[]][] = [
        ["pipeline name", (p, v) => (p.name = v), NAMES],
        ["stage name", (p, v) => (p.stages[0]!.name = v), NAMES],
        ["step name", (p, v) => (p.stages[0]!.steps[0]!.name = v), NAMES],
        ["pipeline identifier", (p, v) => (p.identifier = v), IDENTIFIERS],
        ["stage identifier", (p, v) => (p.stages[0]!.identifier = v), IDENTIFIERS],
        ["step identifier", (p, v) => (p.stages[0]!.steps[0]!.identifier = v), IDENTIFIERS],
        ["step timeout", (p, v) => (p.stages[0]!.steps[0]!.timeout = v), TIMEOUTS],
      ];
      for (const [where, set, values] of positions) {
        for (const value of values) {
          const p = valid([1]);
          set(p, value);
          failures.push(...(await disagreements(`${where} ${JSON.stringify(value)}`, p)).out);
          cases += 1;
        }
      }
      expect(cases).toBe(3 * NAMES.length + 3 * IDENTIFIERS.length + TIMEOUTS.length);
      expect(failures).toEqual([]);
    },
    SLOW,
  );

  it(
    `on ${RANDOM_CASES} random pipelines (seed ${SEED})`,
    async () => {
      const rng = prng(SEED);
      const failures: Verdict[] = [];
      let accepted = 0;
      for (let n = 0; n < RANDOM_CASES; n++) {
        const p = valid(Array.from({ length: 1 + Math.floor(rng() * 3) }, () => 1 + Math.floor(rng() * 3)));
        const stage = pick(rng, p.stages);
        const step = pick(rng, stage.steps);
        const value = (pool: readonly string[]) => (rng() < 0.7 ? pick(rng, pool) : randomText(rng));
        const fields: (() => void)[] = [
          () => (p.name = value(NAMES)),
          () => (p.identifier = value(IDENTIFIERS)),
          () => (stage.name = value(NAMES)),
          () => (stage.identifier = rng() < 0.2 ? pick(rng, p.stages).identifier : value(IDENTIFIERS)),
          () => (step.name = value(NAMES)),
          () => (step.identifier = rng() < 0.2 ? pick(rng, stage.steps).identifier : value(IDENTIFIERS)),
          () => (step.timeout = value(TIMEOUTS)),
        ];
        for (let k = rng() < 0.5 ? 1 : 2; k > 0; k--) pick(rng, fields)();
        const change = rng() < 0.3 ? pick(rng, CHANGES) : undefined;
        const result = await disagreements(
          `case ${n}${change ? ` with ${change[0]}` : ""}: ${JSON.stringify(p)}`,
          p,
          change,
          rng,
        );
        failures.push(...result.out);
        if (result.accepted) accepted += 1;
      }
      expect(failures.slice(0, 5)).toEqual([]);
      // Both verdicts are well exercised (the seed gives 158 accepted, 842 refused).
      expect(accepted).toBeGreaterThan(RANDOM_CASES * 0.1);
      expect(accepted).toBeLessThan(RANDOM_CASES * 0.9);
    },
    SLOW,
  );
});
