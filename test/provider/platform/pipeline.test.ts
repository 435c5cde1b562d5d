/**
 * Pipeline: check (model and raw YAML, field by field, no request), the semantic diff, and the
 * lifecycle against the emulator, directly and through the real dynamic-provider gRPC host with the
 * serialized provider (needs `npm run build`). Each lifecycle test makes the pipeline it needs under
 * an identifier of its own, so it passes alone.
 */
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import YAML from "yaml";
import { UNKNOWN } from "../../../provider/core/check";
import {
  type PipelineModelInput,
  parsePipelineYaml,
  renderPipelineYaml,
  runtimeInput,
  validatePipelineModel,
} from "../../../provider/pipeline-model";
import {
  effectiveYaml,
  impl,
  type PipelineArgs,
  PipelineInputs,
  pipelineProviderText,
  pipelineReplaceOnChange,
} from "../../../provider/platform/pipeline";
import type { PlatformClient } from "../../../sdk";
import { deployCheckout, hello } from "../fixtures/pipelines";
import { type Driver, MODES, type Mode } from "../harness";
import { diffOfEachChange, NO_CHANGE, replaces, replacing, UPDATE } from "../kind-checks";
import { createProject, itRefusesWithNoRequest, slug, startTestbed, type Testbed, unique } from "../testbed";

type Props = Record<string, unknown>;

const scope = { org: "default", project: "payments" };
/** Plain JSON, as the engine hands inputs to the provider (runtime inputs as `{ $input }`). */
const wire = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const helloYaml = renderPipelineYaml(hello, scope);

let bed: Testbed;
let platform: PlatformClient;
let drivers: Record<Mode, Driver>;

/** `METHOD path` of each request the provider sent since the last reset. */
const sent = () => bed.sent();
/** Forgets every request seen so far, by the emulator and by the proxy. */
const reset = () => bed.reset();

beforeAll(async () => {
  bed = await startTestbed();
  platform = bed.platform;
  drivers = await bed.drivers(impl, pipelineProviderText);
  await createProject(platform, "payments", "Payments");
});

afterAll(async () => {
  await bed?.stop();
});

describe("Pipeline check", () => {
  it("validates the model and returns it normalised (defaults applied, runtime inputs as text)", async () => {
    const result = await impl.check({}, { project: "payments", pipeline: wire(deployCheckout) });
    expect(result.failures).toBeUndefined();
    expect(result.inputs).toEqual({
      org: "default",
      project: "payments",
      pipeline: validatePipelineModel(deployCheckout),
      adopt: false,
    });
  });

  it("accepts raw YAML as given", async () => {
    expect(await impl.check({}, { project: "payments", yaml: helloYaml })).toEqual({
      inputs: { org: "default", project: "payments", yaml: helloYaml, adopt: false },
    });
  });

  const step = { type: "ShellScript", name: "Run", identifier: "run", script: "true" };
  const model = (stepChange: Props = {}, stageChange: Props = {}, change: Props = {}) => ({
    name: "P",
    identifier: "p",
    stages: [
      {
        type: "Custom",
        name: "One",
        identifier: "one",
        execution: { steps: [{ ...step, ...stepChange }] },
        ...stageChange,
      },
    ],
    ...change,
  });
  const rows: [label: string, inputs: Props, property: string, reason: string][] = [
    ["missing project", { pipeline: model() }, "project", "identifier is required"],
    ["bad project", { project: "pay-ments", pipeline: model() }, "project", "can only contain alphanumeric"],
    [
      "bad organization",
      { org: "$org", project: "payments", pipeline: model() },
      "org",
      "can only contain alphanumeric",
    ],
    [
      "neither model nor YAML",
      { project: "payments" },
      "pipeline",
      "exactly one of pipeline (the typed model) and yaml is required",
    ],
    [
      "both model and YAML",
      { project: "payments", pipeline: model(), yaml: helloYaml },
      "pipeline",
      "exactly one of pipeline (the typed model) and yaml is required",
    ],
    [
      "bad pipeline identifier",
      { project: "payments", pipeline: model({}, {}, { identifier: "my-pipeline" }) },
      "pipeline.identifier",
      "can only contain alphanumeric",
    ],
    [
      "empty pipeline name",
      { project: "payments", pipeline: model({}, {}, { name: "" }) },
      "pipeline.name",
      "name cannot be empty.",
    ],
    [
      "no stages",
      { project: "payments", pipeline: model({}, {}, { stages: [] }) },
      "pipeline.stages",
      "a pipeline needs at least one stage",
    ],
    [
      "a stage without steps",
      { project: "payments", pipeline: model({}, { execution: { steps: [] } }) },
      "pipeline.stages[0].execution.steps",
      "a stage needs at least one step",
    ],
    [
      "an unknown stage type",
      { project: "payments", pipeline: model({}, { type: "FeatureFlag" }) },
      "pipeline.stages[0].type",
      'unknown stage type "FeatureFlag"',
    ],
    [
      "an unknown step type",
      { project: "payments", pipeline: model({ type: "Http" }) },
      "pipeline.stages[0].execution.steps[0].type",
      'unknown step type "Http"',
    ],
    [
      "a timeout that is not a duration",
      { project: "payments", pipeline: model({ timeout: "10 minutes" }) },
      "pipeline.stages[0].execution.steps[0].timeout",
      '"10 minutes" must be a duration such as 10m',
    ],
    [
      "a bare-number timeout",
      { project: "payments", pipeline: model({ timeout: "10" }) },
      "pipeline.stages[0].execution.steps[0].timeout",
      '"10" must be a duration',
    ],
    [
      "an unknown shell",
      { project: "payments", pipeline: model({ shell: "Fish" }) },
      "pipeline.stages[0].execution.steps[0].shell",
      "shell must be one of Bash, PowerShell",
    ],
    [
      "a misspelt step field",
      { project: "payments", pipeline: model({ command: "ls" }) },
      "pipeline.stages[0].execution.steps[0].command",
      'unknown property "command"',
    ],
    [
      "a duplicate stage identifier",
      { project: "payments", pipeline: { ...model(), stages: [...model().stages, ...model().stages] } },
      "pipeline.stages[1].identifier",
      "stage identifier one is already used by stages[0]",
    ],
    [
      "a bad connector reference",
      {
        project: "payments",
        pipeline: {
          ...wire(deployCheckout),
          stages: [
            {
              ...wire(deployCheckout).stages![0],
              infrastructure: { connectorRef: "k8s cluster", namespace: "ns" },
            },
          ],
        },
      },
      "pipeline.stages[0].infrastructure.connectorRef",
      "connectorRef must be an identifier",
    ],
    ["YAML that does not parse", { project: "payments", yaml: "pipeline: [" }, "yaml", "invalid YAML:"],
    [
      "YAML with a duplicate key",
      { project: "payments", yaml: helloYaml.replace("  name: Hello\n", "  name: Hello\n  name: Again\n") },
      "yaml",
      "invalid YAML: Map keys must be unique",
    ],
    [
      "YAML without a pipeline mapping",
      { project: "payments", yaml: "stages: []\n" },
      "yaml.pipeline",
      "the YAML needs a top-level pipeline mapping",
    ],
    [
      "YAML with a bad identifier",
      { project: "payments", yaml: helloYaml.replace("identifier: hello", "identifier: 9hello") },
      "yaml.pipeline.identifier",
      "can only contain alphanumeric",
    ],
    [
      "YAML with a runtime-input identifier",
      { project: "payments", yaml: helloYaml.replace("identifier: hello", "identifier: <+input>") },
      "yaml.pipeline.identifier",
      "can only contain alphanumeric",
    ],
    [
      "YAML without a name",
      { project: "payments", yaml: helloYaml.replace("  name: Hello\n", "") },
      "yaml.pipeline.name",
      "name is required",
    ],
    [
      "YAML of another project",
      { project: "web", yaml: helloYaml },
      "yaml",
      'pipeline.projectIdentifier is "payments" but the resource\'s project is "web"',
    ],
    [
      "YAML of another organization",
      { org: "acme", project: "payments", yaml: helloYaml },
      "yaml",
      'pipeline.orgIdentifier is "default" but the resource\'s org is "acme"',
    ],
    ["YAML not a string", { project: "payments", yaml: { pipeline: {} } }, "yaml", "yaml must be a string"],
    [
      "misspelt input",
      { project: "payments", pipeline: model(), projectId: "payments" },
      "projectId",
      'unknown property "projectId"',
    ],
  ];

  itRefusesWithNoRequest(rows, () => ({ bed, drivers }));

  it("still reports the other bad fields of a model holding unknown values during a preview", async () => {
    const preview = wire(deployCheckout) as unknown as {
      stages: { infrastructure: Props; execution: { steps: Props[] } }[];
    };
    preview.stages[0]!.infrastructure.connectorRef = UNKNOWN;
    preview.stages[0]!.execution.steps[1]!.timeout = "soon";
    bed.emu.resetRequests();
    const result = await impl.check({}, { project: "payments", pipeline: preview });
    expect(result.failures).toEqual([
      {
        property: "pipeline.stages[0].execution.steps[1].timeout",
        reason: expect.stringContaining('"soon" must be a duration'),
      },
    ]);
    expect(bed.emu.requests()).toEqual([]);
  });

  it("passes a model holding values unknown during preview without failing", async () => {
    const preview = wire(deployCheckout) as unknown as { stages: { infrastructure: Props }[] };
    preview.stages[0]!.infrastructure.connectorRef = UNKNOWN;
    const result = await impl.check({}, { project: "payments", pipeline: preview });
    expect(result.failures).toBeUndefined();
  });
});

describe("Pipeline YAML sent", () => {
  it("renders the model into the resource's scope", () => {
    const inputs = { org: "default", project: "payments", pipeline: validatePipelineModel(hello) };
    expect(effectiveYaml(inputs)).toBe(helloYaml);
  });

  it("sends raw YAML that names the scope verbatim, and fills in a missing scope", () => {
    const raw = "# mine\npipeline:\n  name: Raw\n  identifier: raw\n  stages: []\n";
    expect(effectiveYaml({ org: "default", project: "payments", yaml: helloYaml })).toBe(helloYaml);
    const filled = effectiveYaml({ org: "default", project: "payments", yaml: raw });
    expect(filled).toContain("# mine\n");
    expect(YAML.parse(filled)).toEqual({
      pipeline: {
        name: "Raw",
        identifier: "raw",
        stages: [],
        projectIdentifier: "payments",
        orgIdentifier: "default",
      },
    });
  });
});

describe("Pipeline diff", () => {
  const inputs = {
    org: "default",
    project: "payments",
    pipeline: validatePipelineModel(deployCheckout),
    adopt: false,
  };
  const olds = {
    ...inputs,
    yaml: renderPipelineYaml(deployCheckout, scope),
    identifier: "deploy_checkout",
    name: "Deploy checkout",
  };

  it("sees no change for the same model", async () => {
    expect(await impl.diff("default/payments/deploy_checkout", olds, inputs)).toMatchObject({
      changes: false,
      replaces: [],
    });
  });

  it("sees no change when the stored YAML was reformatted by someone else", async () => {
    const reformatted = YAML.stringify(YAML.parse(olds.yaml), {
      indent: 4,
      defaultStringType: "QUOTE_DOUBLE",
    });
    expect(reformatted).not.toBe(olds.yaml);
    expect(
      await impl.diff("default/payments/deploy_checkout", { ...olds, yaml: reformatted }, inputs),
    ).toMatchObject({ changes: false });
  });

  it("sees no change when the same pipeline moves from the model to raw YAML", async () => {
    const asYaml = {
      org: "default",
      project: "payments",
      yaml: `# same pipeline\n${YAML.stringify(YAML.parse(olds.yaml), { indent: 3 })}`,
      adopt: false,
    };
    expect(await impl.diff("default/payments/deploy_checkout", olds, asYaml)).toMatchObject({
      changes: false,
    });
  });

  it("updates a changed step or name in place", async () => {
    const changed = validatePipelineModel({ ...deployCheckout, name: "Deploy the checkout" });
    expect(
      await impl.diff("default/payments/deploy_checkout", olds, { ...inputs, pipeline: changed }),
    ).toMatchObject({ changes: true, replaces: [] });
  });

  it("replaces on organization and project, and on the identifier its model or YAML gives; updates the rest in place", async () => {
    const renamed = validatePipelineModel({ ...deployCheckout, name: "Deploy the checkout" });
    const table = await diffOfEachChange(
      impl,
      PipelineInputs,
      "default/payments/deploy_checkout",
      olds,
      inputs,
      {
        org: { org: "acme" },
        project: { project: "billing" },
        pipeline: { pipeline: renamed },
        yaml: {
          pipeline: undefined,
          yaml: renderPipelineYaml({ ...renamed, identifier: "deploy_v2" }, scope),
        },
        adopt: { adopt: true },
      },
    );
    expect(table).toEqual({
      org: replaces("org"),
      project: replaces("project"),
      pipeline: UPDATE,
      yaml: replaces("identifier"),
      adopt: NO_CHANGE,
    });
    // The published replace list is the diff's, but the identifier: a field read from `pipeline` or
    // `yaml` (the kind's `diffFields`), which the native detailed diff names through them.
    expect([...pipelineReplaceOnChange, "yaml"]).toEqual(replacing(table));
  });

  it("replaces on a new identifier, project or organization", async () => {
    const renamed = validatePipelineModel({ ...deployCheckout, identifier: "deploy_checkout_v2" });
    expect(await impl.diff("x", olds, { ...inputs, pipeline: renamed })).toMatchObject({
      changes: true,
      replaces: ["identifier"],
    });
    expect(await impl.diff("x", olds, { ...inputs, project: "web" })).toMatchObject({
      changes: true,
      replaces: ["project"],
    });
    expect(await impl.diff("x", olds, { ...inputs, org: "acme" })).toMatchObject({
      changes: true,
      replaces: ["org"],
    });
  });

  it("treats a model holding an unknown value as a change, without replacing", async () => {
    const preview = wire(inputs) as unknown as { pipeline: { stages: { infrastructure: Props }[] } };
    preview.pipeline.stages[0]!.infrastructure.connectorRef = UNKNOWN;
    expect(await impl.diff("x", olds, preview as never)).toMatchObject({ changes: true, replaces: [] });
  });
});

describe.each(MODES)("Pipeline lifecycle from the typed model (%s)", (via) => {
  /** An identifier no other test uses. */
  const fresh = () => unique(`deploy_${slug(via)}`, "_");
  const modelFor = (identifier: string) => ({ ...deployCheckout, identifier });
  /** The model after its update: renamed and tagged. */
  const updatedFor = (identifier: string) => ({
    ...modelFor(identifier),
    name: "Deploy checkout v2",
    tags: { team: "payments" },
  });
  let d: Driver;
  /** A pipeline of the test's own, created by the provider from `model(identifier)`. */
  const createdPipeline = async (model: (identifier: string) => PipelineModelInput = modelFor) => {
    const identifier = fresh();
    const inputs = (await d.check({}, { project: "payments", pipeline: wire(model(identifier)) })).inputs;
    const { id, outs } = await d.create(inputs);
    return { identifier, inputs, id, outs };
  };

  beforeAll(() => {
    d = drivers[via];
  });

  it("creates it with one POST of the rendered YAML", async () => {
    const identifier = fresh();
    const model = modelFor(identifier);
    const inputs = (await d.check({}, { project: "payments", pipeline: wire(model) })).inputs;
    reset();
    const { id, outs } = await d.create(inputs);
    expect(id).toBe(`default/payments/${identifier}`);
    expect(sent()).toEqual(["POST /pipeline/api/pipelines/v2"]);
    const rendered = renderPipelineYaml(model, scope);
    expect(outs).toMatchObject({
      org: "default",
      project: "payments",
      identifier,
      name: "Deploy checkout",
      yaml: rendered,
    });
    expect((await platform.pipelines.get(identifier, scope)).yamlPipeline).toBe(rendered);
  });

  it("reads it back unchanged, and diffs as no change", async () => {
    const { inputs, id, outs } = await createdPipeline();
    const read = await d.read(id, outs);
    expect(read.props).toEqual(outs);
    expect(read.inputs).toEqual(inputs);
    expect(await d.diff(id, read.props!, inputs)).toMatchObject({ changes: false });
  });

  it("updates in place with one read and one PUT", async () => {
    const { identifier, id, outs } = await createdPipeline();
    const next = (await d.check({}, { project: "payments", pipeline: wire(updatedFor(identifier)) })).inputs;
    expect(await d.diff(id, outs, next)).toMatchObject({ changes: true, replaces: [] });
    reset();
    const updated = (await d.update(id, outs, next)).outs;
    expect(sent()).toEqual([
      `GET /pipeline/api/pipelines/${identifier}`,
      `PUT /pipeline/api/pipelines/v2/${identifier}`,
    ]);
    expect(updated).toMatchObject({ name: "Deploy checkout v2" });
    expect(parsePipelineYaml((await platform.pipelines.get(identifier, scope)).yamlPipeline)).toEqual(
      next.pipeline,
    );
  });

  it("records the version, and an out-of-band edit between the update's read and its PUT is refused, overwriting nothing", async () => {
    const { identifier, id, outs } = await createdPipeline();
    expect(outs.version).toBe((await platform.pipelines.get(identifier, scope)).version);
    const next = (await d.check({}, { project: "payments", pipeline: wire(updatedFor(identifier)) })).inputs;
    const theirs = renderPipelineYaml({ ...modelFor(identifier), description: "edited in the UI" }, scope);
    // The edit lands once the provider's GET has been answered, before its PUT.
    bed.proxy.once(
      { method: "GET", path: new RegExp(`^/pipeline/api/pipelines/${identifier}$`) },
      { after: async () => void (await platform.pipelines.update(identifier, theirs, scope)) },
    );
    reset();
    await expect(d.update(id, outs, next)).rejects.toThrow(
      `pipeline "${identifier}" in project default/payments was changed outside Pulumi while this update ran (after it read version ${outs.version}, before its write); the service refused the write, so nothing was overwritten. Run \`pulumi refresh\``,
    );
    expect(bed.proxy.requests().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET /pipeline/api/pipelines/${identifier} 200`,
      `PUT /pipeline/api/pipelines/v2/${identifier} 400`,
    ]);
    expect((await platform.pipelines.get(identifier, scope)).yamlPipeline).toBe(theirs);
    // After a refresh the update goes through, guarded by the version the refresh saw.
    const refreshed = await d.read(id, outs);
    const updated = (await d.update(id, refreshed.props!, next)).outs;
    expect(updated.version).toBe((await platform.pipelines.get(identifier, scope)).version);
    expect(updated.version).toBe((refreshed.props!.version as number) + 1);
  });

  it("an out-of-band reformat of the stored YAML is no drift", async () => {
    const { identifier, inputs, id, outs } = await createdPipeline(updatedFor);
    const stored = (await platform.pipelines.get(identifier, scope)).yamlPipeline;
    await platform.pipelines.update(
      identifier,
      `# reformatted\n${YAML.stringify(YAML.parse(stored), { indent: 4 })}`,
      scope,
    );
    const read = await d.read(id, outs);
    expect(read.props!.yaml).not.toBe(outs.yaml);
    expect(await d.diff(id, read.props!, inputs)).toMatchObject({ changes: false });
  });

  it("refresh shows an out-of-band change in the model's terms, and the next update restores the program", async () => {
    const { identifier, inputs, id, outs } = await createdPipeline(updatedFor);
    const changed = renderPipelineYaml({ ...updatedFor(identifier), description: "edited in the UI" }, scope);
    await platform.pipelines.update(identifier, changed, scope);
    const read = await d.read(id, outs);
    expect((read.inputs!.pipeline as Props).description).toBe("edited in the UI");
    expect(await d.diff(id, read.props!, inputs)).toMatchObject({ changes: true, replaces: [] });
    await d.update(id, read.props!, inputs);
    expect(
      parsePipelineYaml((await platform.pipelines.get(identifier, scope)).yamlPipeline).description,
    ).toBe(deployCheckout.description);
  });

  it("refresh after an out-of-band delete reports it gone", async () => {
    const { identifier, id, outs } = await createdPipeline(updatedFor);
    await platform.pipelines.delete(identifier, scope);
    expect((await d.read(id, outs)).id).toBeUndefined();
  });

  it("deletes, and deleting again succeeds", async () => {
    const { identifier, id, outs } = await createdPipeline(updatedFor);
    await d.delete(id, outs);
    await expect(platform.pipelines.get(identifier, scope)).rejects.toMatchObject({ kind: "not-found" });
    await expect(d.delete(id, outs)).resolves.toBeUndefined();
  });

  it("refuses a duplicate without adopt, and adopts it with adopt: true", async () => {
    const identifier = fresh();
    const inputs = (await d.check({}, { project: "payments", pipeline: wire(updatedFor(identifier)) }))
      .inputs;
    await platform.pipelines.create(renderPipelineYaml({ ...hello, identifier }, scope), scope);
    await expect(d.create(inputs)).rejects.toThrow(
      `pipeline "${identifier}" in project default/payments already exists. Set \`adopt: true\``,
    );
    reset();
    const adopted = await d.create({ ...inputs, adopt: true });
    expect(sent()).toEqual([
      `GET /pipeline/api/pipelines/${identifier}`,
      `PUT /pipeline/api/pipelines/v2/${identifier}`,
    ]);
    expect(parsePipelineYaml((await platform.pipelines.get(identifier, scope)).yamlPipeline)).toEqual(
      inputs.pipeline,
    );
    await d.delete(adopted.id, adopted.outs);
  });

  it("adopting a pipeline that already matches the program sends no write", async () => {
    const identifier = fresh();
    const inputs = (await d.check({}, { project: "payments", pipeline: wire(updatedFor(identifier)) }))
      .inputs;
    await platform.pipelines.create(
      `# by hand\n${YAML.stringify(YAML.parse(renderPipelineYaml(inputs.pipeline as never, scope)), { indent: 4 })}`,
      scope,
    );
    reset();
    const adopted = await d.create({ ...inputs, adopt: true });
    expect(sent()).toEqual([`GET /pipeline/api/pipelines/${identifier}`]);
    expect(await d.diff(adopted.id, adopted.outs, inputs)).toMatchObject({ changes: false });
    await d.delete(adopted.id, adopted.outs);
  });
});

describe.each(MODES)("Pipeline lifecycle from raw YAML (%s)", (via) => {
  const identifier = `raw_${slug(via)}`;
  const raw = `pipeline:\n  name: Raw ${via}\n  identifier: ${identifier}\n  stages:\n    - stage: {name: One, identifier: one, type: Custom, spec: {execution: {steps: [{step: {type: ShellScript, name: Echo, identifier: echo, timeout: 1m, spec: {shell: Bash, onDelegate: true, source: {type: Inline, spec: {script: echo hi}}}}}]}}}\n`;
  let d: Driver;
  beforeAll(() => {
    d = drivers[via];
  });

  it("fills in the scope, creates, reads back with no diff, updates and deletes", async () => {
    const inputs = (await d.check({}, { project: "payments", yaml: raw })).inputs;
    const { id, outs } = await d.create(inputs);
    expect(id).toBe(`default/payments/${identifier}`);
    const stored = (await platform.pipelines.get(identifier, scope)).yamlPipeline;
    expect(YAML.parse(stored).pipeline).toMatchObject({
      orgIdentifier: "default",
      projectIdentifier: "payments",
      identifier,
    });
    const read = await d.read(id, outs);
    expect(await d.diff(id, read.props!, inputs)).toMatchObject({ changes: false });
    const edited = (await d.check({}, { project: "payments", yaml: raw.replace("echo hi", "echo bye") }))
      .inputs;
    expect(await d.diff(id, read.props!, edited)).toMatchObject({ changes: true, replaces: [] });
    const updated = (await d.update(id, read.props!, edited)).outs;
    expect((await platform.pipelines.get(identifier, scope)).yamlPipeline).toContain("echo bye");
    await d.delete(id, updated);
    await expect(d.delete(id, updated)).resolves.toBeUndefined();
  });
});

describe.each(MODES)("Pipeline with a stage made from a template (%s)", (via) => {
  /** A Stage template of the project: a Custom stage whose one step runs `echo <version>`. */
  const stageTemplate = (identifier: string, version: string) => `template:
  name: Deploy stage
  identifier: ${identifier}
  versionLabel: "${version}"
  type: Stage
  orgIdentifier: default
  projectIdentifier: payments
  spec:
    type: Custom
    spec:
      execution:
        steps:
          - step:
              name: Echo
              identifier: echo
              type: ShellScript
              spec:
                shell: Bash
                onDelegate: true
                source:
                  type: Inline
                  spec:
                    script: echo ${version}
              timeout: <+input>
`;
  const template = unique(`stage_tpl_${slug(via)}`, "_");
  const modelFor = (identifier: string, versionLabel: string): PipelineModelInput => ({
    name: "Release",
    identifier,
    stages: [
      {
        type: "Template",
        name: "Deploy",
        identifier: "deploy",
        template: {
          templateRef: template,
          versionLabel,
          templateInputs: {
            type: "Custom",
            spec: {
              execution: { steps: [{ step: { identifier: "echo", type: "ShellScript", timeout: "5m" } }] },
            },
          },
        },
      },
    ],
  });
  let d: Driver;

  beforeAll(async () => {
    d = drivers[via];
    for (const version of ["1", "2"])
      await platform.templates.create({ template_yaml: stageTemplate(template, version) }, scope);
  });

  it("creates it with one POST, reads the typed model back, and diffs as no change", async () => {
    const identifier = unique(`release_${slug(via)}`, "_");
    const inputs = (await d.check({}, { project: "payments", pipeline: wire(modelFor(identifier, "1")) }))
      .inputs;
    reset();
    const { id, outs } = await d.create(inputs);
    expect(sent()).toEqual(["POST /pipeline/api/pipelines/v2"]);
    const rendered = renderPipelineYaml(modelFor(identifier, "1"), scope);
    expect((await platform.pipelines.get(identifier, scope)).yamlPipeline).toBe(rendered);
    const read = await d.read(id, outs);
    expect(read.inputs).toEqual(inputs);
    expect((read.inputs as Props).pipeline).toEqual(validatePipelineModel(modelFor(identifier, "1")));
    expect(await d.diff(id, read.props!, inputs)).toMatchObject({ changes: false });
  });

  it("updates the version label in place with one read and one PUT", async () => {
    const identifier = unique(`release_${slug(via)}`, "_");
    const inputs = (await d.check({}, { project: "payments", pipeline: wire(modelFor(identifier, "1")) }))
      .inputs;
    const { id, outs } = await d.create(inputs);
    const next = (await d.check({}, { project: "payments", pipeline: wire(modelFor(identifier, "2")) }))
      .inputs;
    expect(await d.diff(id, outs, next)).toMatchObject({ changes: true, replaces: [] });
    reset();
    await d.update(id, outs, next);
    expect(sent()).toEqual([
      `GET /pipeline/api/pipelines/${identifier}`,
      `PUT /pipeline/api/pipelines/v2/${identifier}`,
    ]);
    expect(parsePipelineYaml((await platform.pipelines.get(identifier, scope)).yamlPipeline)).toEqual(
      next.pipeline,
    );
  });

  it("fails a create naming a template version that does not exist, with the service's message", async () => {
    const identifier = unique(`release_${slug(via)}`, "_");
    const inputs = (await d.check({}, { project: "payments", pipeline: wire(modelFor(identifier, "9")) }))
      .inputs;
    await expect(d.create(inputs)).rejects.toThrow(
      `Template with template ID ${template} and version 9 not found.`,
    );
  });
});

describe.each(MODES)("Pipeline create whose response was lost (%s)", (mode) => {
  it("finds the pipeline it created instead of creating a duplicate", async () => {
    const identifier = `lost_${mode === "direct" ? "d" : "g"}`;
    const inputs = (
      await drivers[mode].check({}, { project: "payments", pipeline: wire({ ...hello, identifier }) })
    ).inputs;
    reset();
    bed.proxy.once({ method: "POST", path: /^\/pipeline\/api\/pipelines\/v2$/ }, { lose: true });
    const created = await drivers[mode].create(inputs);
    expect(created.id).toBe(`default/payments/${identifier}`);
    expect(sent()).toEqual(["POST /pipeline/api/pipelines/v2", `GET /pipeline/api/pipelines/${identifier}`]);
    await drivers[mode].delete(created.id, created.outs);
  });
});

describe("Pipeline arguments (types)", () => {
  it("take runtime inputs and pulumi.Inputs at any depth of the model", () => {
    const connectorRef = pulumi.output("k8s_staging");
    const args: PipelineArgs = {
      project: pulumi.output("payments"),
      pipeline: {
        ...deployCheckout,
        stages: [
          {
            type: "Deployment",
            name: "Deploy",
            identifier: "deploy",
            service: { serviceRef: "checkout" },
            environment: { environmentRef: runtimeInput().default("staging") },
            infrastructure: { connectorRef, namespace: Promise.resolve("checkout") },
            execution: {
              steps: [
                {
                  type: "ShellScript",
                  name: "Run",
                  identifier: "run",
                  script: "true",
                  timeout: runtimeInput(),
                },
              ],
            },
          },
        ],
      },
    };
    expectTypeOf(args.project).toEqualTypeOf<pulumi.Input<string>>();
    const step = {
      type: "ShellScript" as const,
      name: "Run",
      identifier: "run",
      script: "true",
      // @ts-expect-error: a timeout is a duration string or a runtime input, not a number
      timeout: 10 as number,
    } satisfies Exclude<
      NonNullable<PipelineModelInput["stages"]>[number],
      { type: "Template" }
    >["execution"]["steps"][number];
    const shell = {
      type: "ShellScript" as const,
      name: "Run",
      identifier: "run",
      script: "true",
      // @ts-expect-error: the shell is Bash or PowerShell
      shell: "Zsh" as const,
    } satisfies Exclude<
      NonNullable<PipelineModelInput["stages"]>[number],
      { type: "Template" }
    >["execution"]["steps"][number];
    expect([args.pipeline, step, shell]).toHaveLength(3);
  });
});
