/**
 * InputSet: check (no request; values typed against the pipeline's runtime inputs), the diff by
 * meaning, and the lifecycle against the emulator directly and through the real dynamic-provider
 * gRPC host: one POST, refresh with drift, the version sent as `If-Match` (an edit between the
 * update's read and its PUT is refused), adopt, a lost create, import by id, a missing pipeline.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { UNKNOWN } from "../../../provider/core/check";
import {
  InputSet,
  InputSetInputs,
  impl,
  inputSetProviderText,
  inputSetYaml,
} from "../../../provider/platform/input-set";
import { type Driver, MODES, type Mode } from "../harness";
import { diffOfEachChange, NO_CHANGE, registrationOf, replaces, UPDATE } from "../kind-checks";
import { createProject, itRefusesWithNoRequest, slug, startTestbed, type Testbed, unique } from "../testbed";

const scope = { org: "default", project: "isets" };
const pipelineYaml = [
  "pipeline:",
  "  identifier: deploy",
  "  name: Deploy",
  "  orgIdentifier: default",
  "  projectIdentifier: isets",
  "  variables:",
  "    - name: env",
  "      type: String",
  "      value: <+input>",
  "    - name: region",
  "      type: String",
  "      value: eu",
  "  stages:",
  "    - stage:",
  "        name: Say hello",
  "        identifier: say_hello",
  "        type: Custom",
  "        spec:",
  "          execution:",
  "            steps:",
  "              - step:",
  "                  name: Echo",
  "                  identifier: echo",
  "                  type: ShellScript",
  "                  spec:",
  "                    shell: Bash",
  "                    onDelegate: true",
  "                    source:",
  "                      type: Inline",
  "                      spec:",
  "                        script: echo hello",
  "                  timeout: <+input>",
  "",
].join("\n");
const values = { variables: [{ name: "env", type: "String", value: "prod" }] };
const base = { ...scope, pipelineIdentifier: "deploy", name: "Prod" };

let bed: Testbed;
let drivers: Record<Mode, Driver>;

beforeAll(async () => {
  bed = await startTestbed();
  drivers = await bed.drivers(impl, inputSetProviderText);
  await createProject(bed.platform, "isets", "Input sets");
  await bed.platform.pipelines.create(pipelineYaml, scope);
});

afterAll(async () => {
  await bed?.stop();
});

const at = { ...scope, pipeline: "deploy" };
const byHand = (identifier: string, name: string, env: string) =>
  YAML.stringify({
    inputSet: {
      identifier,
      name,
      orgIdentifier: "default",
      projectIdentifier: "isets",
      pipeline: { identifier: "deploy", variables: [{ name: "env", type: "String", value: env }] },
    },
  });

describe("InputSet check", () => {
  itRefusesWithNoRequest(
    [
      [
        "a value for a field the pipeline does not mark <+input>",
        {
          ...base,
          identifier: "s",
          pipelineYaml,
          values: { variables: [{ name: "region", type: "String", value: "us" }] },
        },
        "values.variables[0].value",
        'not a runtime input: pipeline "deploy" does not mark it <+input>',
      ],
      [
        "a field the pipeline does not have",
        { ...base, identifier: "s", pipelineYaml, values: { timeout: "1h" } },
        "values.timeout",
        "not a field of the pipeline",
      ],
      [
        "a variable the pipeline does not have, in raw YAML",
        {
          ...base,
          identifier: "s",
          pipelineYaml,
          yaml: "inputSet:\n  pipeline:\n    variables:\n      - name: zone\n        value: a\n",
        },
        "yaml",
        "yaml.inputSet.pipeline.variables.0: no element of the pipeline with this identifier",
      ],
      [
        "the YAML of another pipeline",
        {
          ...base,
          identifier: "s",
          pipelineYaml: pipelineYaml.replace("identifier: deploy", "identifier: other"),
        },
        "pipelineYaml",
        'pipelineYaml is pipeline "other"',
      ],
      [
        "raw YAML naming another identifier",
        { ...base, identifier: "s", yaml: "inputSet:\n  identifier: t\n" },
        "yaml",
        'inputSet.identifier is "t"',
      ],
      [
        "raw YAML with a duplicate key",
        { ...base, identifier: "s", yaml: "inputSet:\n  a: 1\n  a: 2\n" },
        "yaml",
        "unique",
      ],
      [
        "both values and yaml",
        { ...base, identifier: "s", values, yaml: "inputSet: {}\n" },
        "yaml",
        "at most one",
      ],
      ["a bad identifier", { ...base, identifier: "1s" }, "identifier", ""],
      ["no pipeline", { ...scope, name: "Prod", identifier: "s" }, "pipelineIdentifier", ""],
    ],
    () => ({ bed, drivers }),
  );

  it("accepts values for the pipeline's runtime inputs and an unknown pipeline YAML", async () => {
    const step = { step: { identifier: "echo", type: "ShellScript", timeout: "5m" } };
    const stages = [
      { stage: { identifier: "say_hello", type: "Custom", spec: { execution: { steps: [step] } } } },
    ];
    const ok = await impl.check(
      {},
      { ...base, identifier: "s", pipelineYaml, values: { ...values, stages } },
    );
    expect(ok.failures).toBeUndefined();
    const unknown = await impl.check(
      {},
      { ...base, identifier: "s", pipelineYaml: UNKNOWN, values: { x: 1 } },
    );
    expect(unknown.failures).toBeUndefined();
    expect(ok.inputs).toMatchObject({ org: "default", description: "", tags: {}, adopt: false });
  });
});

describe("InputSet diff", () => {
  it("sees no change when the stored YAML says the same in another order, nor for the pipeline's YAML; a name changes it", async () => {
    const inputs = (await impl.check({}, { ...base, identifier: "s", values })).inputs!;
    const reordered = YAML.stringify(YAML.parse(inputSetYaml(inputs)), { sortMapEntries: true, indent: 4 });
    const olds = { ...inputs, yaml: reordered, version: 0 };
    expect(await impl.diff("i", olds, inputs)).toMatchObject({ changes: false });
    expect(await impl.diff("i", olds, { ...inputs, pipelineYaml })).toMatchObject({ changes: false });
    expect(await impl.diff("i", olds, { ...inputs, name: "Other" })).toMatchObject({
      changes: true,
      replaces: [],
    });
  });

  it("replaces when org, project, pipeline or identifier changes, updates in place for every other input but adopt and pipelineYaml", async () => {
    const inputs = (await impl.check({}, { ...base, identifier: "s", values })).inputs!;
    const olds = { ...inputs, yaml: inputSetYaml(inputs), version: 0 };
    const qa =
      "inputSet:\n  pipeline:\n    variables:\n      - name: env\n        type: String\n        value: qa\n";
    expect(
      await diffOfEachChange(impl, InputSetInputs, "default/isets/deploy/s", olds, inputs, {
        org: { org: "acme" },
        project: { project: "other" },
        pipelineIdentifier: { pipelineIdentifier: "release" },
        identifier: { identifier: "s_2" },
        name: { name: "Staging" },
        description: { description: "for prod" },
        tags: { tags: { team: "payments" } },
        adopt: { adopt: true },
        values: { values: { variables: [{ name: "env", type: "String", value: "qa" }] } },
        yaml: { values: undefined, yaml: qa },
        pipelineYaml: { pipelineYaml },
      }),
    ).toEqual({
      org: replaces("org"),
      project: replaces("project"),
      pipelineIdentifier: replaces("pipelineIdentifier"),
      identifier: replaces("identifier"),
      name: UPDATE,
      description: UPDATE,
      tags: UPDATE,
      adopt: NO_CHANGE,
      values: UPDATE,
      yaml: UPDATE,
      pipelineYaml: NO_CHANGE,
    });
  });
});

describe.each(MODES)("InputSet lifecycle (%s)", (via) => {
  const fresh = () => unique(`is_${slug(via)}`, "_");
  let d: Driver;
  const created = async (extra: Record<string, unknown> = {}) => {
    const identifier = fresh();
    const inputs = (await d.check({}, { ...base, identifier, values, pipelineYaml, ...extra })).inputs;
    const { id, outs } = await d.create(inputs);
    return { identifier, inputs, id, outs };
  };

  beforeAll(() => {
    d = drivers[via];
  });

  it("creates with one POST, reads back with no diff, finds drift, deletes twice", async () => {
    const identifier = fresh();
    const inputs = (await d.check({}, { ...base, identifier, values, pipelineYaml })).inputs;
    bed.reset();
    const { id, outs } = await d.create(inputs);
    expect(bed.sent()).toEqual(["POST /pipeline/api/inputSets"]);
    expect(id).toBe(`default/isets/deploy/${identifier}`);
    expect(outs).toEqual({ ...inputs, yaml: inputSetYaml(inputs as InputSetInputs), version: 0 });
    expect(YAML.parse(outs.yaml as string)).toEqual({
      inputSet: {
        identifier,
        name: "Prod",
        orgIdentifier: "default",
        projectIdentifier: "isets",
        description: "",
        tags: {},
        pipeline: { identifier: "deploy", ...values },
      },
    });
    const read = await d.read(id, outs);
    expect(read.props).toEqual(outs);
    expect(read.inputs).toEqual(inputs);
    expect(await d.diff(id, read.props!, inputs)).toMatchObject({ changes: false });

    await bed.platform.inputSets.update(byHand(identifier, "Theirs", "dev"), { ifMatch: 0 });
    const drifted = await d.read(id, outs);
    expect(drifted.props).toMatchObject({
      name: "Theirs",
      values: { variables: [{ name: "env", type: "String", value: "dev" }] },
      version: 1,
    });
    expect(await d.diff(id, drifted.props!, inputs)).toMatchObject({ changes: true });

    await d.delete(id, outs);
    await expect(bed.platform.inputSets.get(identifier, at)).rejects.toMatchObject({ kind: "not-found" });
    await expect(d.delete(id, outs)).resolves.toBeUndefined();
    expect(await d.read(id, outs)).toEqual({});
  });

  it("updates with one read and one PUT guarded by the version; an edit in between is refused and survives", async () => {
    const { identifier, id, outs, inputs } = await created();
    const next = { ...inputs, values: { variables: [{ name: "env", type: "String", value: "stage" }] } };
    bed.proxy.once(
      { method: "GET", path: new RegExp(`^/pipeline/api/inputSets/${identifier}`) },
      {
        after: async () =>
          void (await bed.platform.inputSets.update(byHand(identifier, "Theirs", "prod"), { ifMatch: 0 })),
      },
    );
    bed.reset();
    await expect(d.update(id, outs, next)).rejects.toThrow(
      `input set "${identifier}" of pipeline default/isets/deploy was changed outside Pulumi while this update ran (after it read version 0, before its write)`,
    );
    expect((await bed.platform.inputSets.get(identifier, at)).name).toBe("Theirs");
    const refreshed = await d.read(id, outs);
    bed.reset();
    const updated = (await d.update(id, refreshed.props!, next)).outs;
    expect(bed.sent()).toEqual([
      `GET /pipeline/api/inputSets/${identifier}`,
      `PUT /pipeline/api/inputSets/${identifier}`,
    ]);
    expect(updated).toEqual({
      ...next,
      yaml:
        `inputSet: { identifier: ${identifier}, name: Prod, orgIdentifier: default, projectIdentifier: isets, ` +
        'description: "", tags: {}, ' +
        "pipeline: { identifier: deploy, variables: [ { name: env, type: String, value: stage } ] } }\n",
      version: 2,
    });
  });

  it("adopts an existing input set with one read and one guarded PUT, and finds its own lost create", async () => {
    const identifier = fresh();
    await bed.platform.inputSets.create(byHand(identifier, "By hand", "dev"));
    const inputs = (await d.check({}, { ...base, identifier, values, adopt: true })).inputs;
    bed.reset();
    const adopted = await d.create(inputs);
    expect(bed.sent()).toEqual([
      `GET /pipeline/api/inputSets/${identifier}`,
      `PUT /pipeline/api/inputSets/${identifier}`,
    ]);
    expect(adopted.outs).toMatchObject({ name: "Prod", version: 1 });
    const lost = fresh();
    bed.proxy.once({ method: "POST", path: /^\/pipeline\/api\/inputSets/ }, { lose: true });
    bed.reset();
    const found = await d.create({ ...inputs, identifier: lost, adopt: false });
    expect(bed.sent()).toEqual(["POST /pipeline/api/inputSets", `GET /pipeline/api/inputSets/${lost}`]);
    expect(found.outs).toMatchObject({ identifier: lost, version: 0 });
  });

  it("imports by <org>/<project>/<pipeline>/<identifier> with the live YAML as input", async () => {
    const { identifier, outs } = await created();
    const imported = await d.read(`default/isets/deploy/${identifier}`, {});
    expect(imported.inputs).toEqual({
      ...scope,
      pipelineIdentifier: "deploy",
      identifier,
      name: "Prod",
      description: "",
      tags: {},
      adopt: false,
      yaml: outs.yaml,
    });
  });

  it("fails on a missing pipeline with the service's message", async () => {
    const inputs = (await d.check({}, { ...base, pipelineIdentifier: "nope", identifier: fresh(), values }))
      .inputs;
    bed.reset();
    await expect(d.create(inputs)).rejects.toThrow(
      "Pipeline [nope] under Project[isets], Organization [default] doesn't exist or has been deleted.",
    );
    expect(bed.sent()).toEqual(["POST /pipeline/api/inputSets"]);
  });
});

describe("the InputSet class", () => {
  it("registers the InputSet type with the provider of provider/input-set", async () => {
    expect(await registrationOf(InputSet, { ...base, identifier: "s", values })).toEqual({
      type: "pulumi-nodejs:dynamic/flagstack:InputSet",
      name: "r",
      provider: 'exports.handler = () => require("flagstack/provider/input-set").impl;\n',
    });
  });
});
