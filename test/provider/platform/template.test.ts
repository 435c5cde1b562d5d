/**
 * Template lifecycle against the emulator, directly and through the gRPC host: check (failures
 * naming the field, the body a type takes, no request), create (one POST of the rendered YAML),
 * read back into the typed body, what replaces, a guarded update (one PUT of the version's YAML; a
 * colleague's edit of the same field refused naming it), `isStable` (PUT .../stable), refresh after
 * a deletion out of band, delete, delete again, adopt, import by id, and the stable version after
 * the stable one is deleted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { impl, parseTemplateId, templateProviderText } from "../../../provider/platform/template";
import { type Driver, MODES } from "../harness";
import { createProject, slug, startTestbed, type Testbed, unique } from "../testbed";

let bed: Testbed;
const BASE = "/v1/orgs/default/projects/templates/templates";
const at = { org: "default", project: "templates" };

beforeAll(async () => {
  bed = await startTestbed();
  await createProject(bed.platform, "templates", "Templates");
});
afterAll(async () => {
  await bed?.stop();
});

const echo = (script: string) => ({
  type: "Custom",
  execution: {
    steps: [{ type: "ShellScript", name: "Echo", identifier: "echo", script, timeout: "10m" }],
  },
});

/** The YAML the provider sends for a Stage template of {@link echo}. */
const yamlOf = (identifier: string, script: string, name = "Deploy stage", version = "v1") =>
  `template:
  name: ${name}
  identifier: ${identifier}
  versionLabel: ${version}
  type: Stage
  projectIdentifier: templates
  orgIdentifier: default
  tags: {}
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
                    script: ${script}
                environmentVariables: []
                outputVariables: []
                executionTarget: {}
              timeout: 10m
        rollbackSteps: []
    tags: {}
    failureStrategies: []
`;

/** The checked typed stage of {@link echo}. */
const checkedStage = (script: string) => ({
  type: "Custom",
  execution: {
    steps: [
      {
        type: "ShellScript",
        name: "Echo",
        identifier: "echo",
        timeout: "10m",
        shell: "Bash",
        script,
        environmentVariables: [],
        outputVariables: [],
        onDelegate: true,
      },
    ],
    rollbackSteps: [],
  },
  failureStrategies: [],
  tags: {},
});

describe.each(MODES)("Template (%s)", (mode) => {
  let p: Driver;
  const fresh = () => unique(`tpl_${slug(mode)}`, "_");
  const programFor = (identifier: string, script = "echo one", more: Record<string, unknown> = {}) => ({
    org: "default",
    project: "templates",
    identifier,
    versionLabel: "v1",
    name: "Deploy stage",
    type: "Stage",
    stage: echo(script),
    ...more,
  });
  const created = async (script = "echo one", more: Record<string, unknown> = {}) => {
    const identifier = fresh();
    const { id, outs } = await p.create((await p.check({}, programFor(identifier, script, more))).inputs);
    return { identifier, id, outs };
  };

  beforeAll(async () => {
    p = await bed.driver(mode, impl, templateProviderText);
  });

  it("refuses bad input naming each field, with no request", async () => {
    bed.reset();
    const checked = await p.check(
      {},
      {
        project: "templates",
        identifier: "t-1",
        versionLabel: "v 1",
        name: "T",
        type: "Stage",
        stage: { type: "Custom", name: "S", execution: { steps: [] } },
        extra: 1,
      },
    );
    expect(checked.failures).toEqual([
      { property: "identifier", reason: expect.stringContaining("can only contain") },
      { property: "versionLabel", reason: "versionLabel must be 1-64 of [0-9a-zA-Z_.-]" },
      { property: "stage.execution.steps", reason: "a stage needs at least one step" },
      { property: "stage.name", reason: 'unknown property "name"' },
      { property: "extra", reason: 'unknown property "extra"' },
    ]);
    const bodies = await p.check({}, { ...programFor("t"), org: undefined, type: "Pipeline" });
    expect(bodies.failures).toEqual([
      { property: "org", reason: "a project-level template needs org as well as project" },
      { property: "stage", reason: "a Pipeline template takes pipeline (or the raw spec), not stage" },
    ]);
    const none = await p.check({}, { ...programFor("t"), stage: undefined, type: "Step" });
    expect(none.failures).toEqual([
      { property: "spec", reason: "a Step template needs exactly one body: spec" },
    ]);
    const steps = await p.check(
      {},
      {
        ...programFor("t"),
        stage: {
          type: "Custom",
          execution: {
            steps: [
              { type: "Run", name: "R", identifier: "r", command: "make", image: "node" },
              { type: "ShellScript", name: "E", identifier: "r", script: "x", timeout: "1m" },
            ],
          },
        },
      },
    );
    expect(steps.failures).toEqual([
      {
        property: "stage.execution.steps[0].type",
        reason: "a Run step cannot run in a Custom stage; a Custom stage takes ShellScript, HarnessApproval",
      },
      {
        property: "stage.execution.steps[1].identifier",
        reason: "step identifier r is used more than once in the stage",
      },
    ]);
    expect(bed.emu.requests()).toEqual([]);
  });

  it("creates with one POST of the rendered YAML, and reads it back into the typed stage", async () => {
    const identifier = fresh();
    const inputs = (await p.check({}, programFor(identifier, "echo one", { comments: "first" }))).inputs;
    expect(inputs).toEqual({
      ...programFor(identifier),
      stage: checkedStage("echo one"),
      description: "",
      tags: {},
      isStable: true,
      comments: "first",
      adopt: false,
    });
    bed.reset();
    const made = await p.create(inputs);
    expect(made).toEqual({
      id: `default/templates/${identifier}/versions/v1`,
      outs: { ...inputs, yaml: yamlOf(identifier, "echo one"), stable: true, version: 0 },
    });
    expect(
      bed.proxy.writes().map(({ method, path, body, status }) => ({ method, path, body, status })),
    ).toEqual([
      {
        method: "POST",
        path: BASE,
        body: { template_yaml: yamlOf(identifier, "echo one"), is_stable: true, comments: "first" },
        status: 201,
      },
    ]);
    expect(await p.read(made.id, made.outs)).toEqual({ id: made.id, props: made.outs, inputs });
  });

  it("replaces on another identifier, version label or scope; the body, name and isStable update in place", async () => {
    const { identifier, id, outs } = await created();
    for (const [change, field] of [
      [{ identifier: `${identifier}_b` }, "identifier"],
      [{ versionLabel: "v2" }, "versionLabel"],
      [{ project: "other" }, "project"],
    ] as const) {
      const news = (await p.check(outs, { ...programFor(identifier), ...change })).inputs;
      expect((await p.diff(id, outs, news)).replaces).toEqual([field]);
    }
    for (const change of [{ stage: echo("echo two") }, { name: "Renamed" }, { isStable: false }]) {
      const news = (await p.check(outs, { ...programFor(identifier), ...change })).inputs;
      expect(await p.diff(id, outs, news)).toEqual({
        changes: true,
        replaces: [],
        deleteBeforeReplace: false,
      });
    }
    const same = (await p.check(outs, { ...programFor(identifier), comments: "only a comment" })).inputs;
    expect((await p.diff(id, outs, same)).changes).toBe(false);
  });

  it("replaces, deleting the same version first, when the type or the stage's type changes: the service changes neither in place", async () => {
    const { identifier, id, outs } = await created();
    const pipeline = {
      type: "Pipeline",
      stage: undefined,
      pipeline: { stages: [{ ...echo("echo p"), name: "S", identifier: "s" }] },
    };
    const approval = {
      stage: {
        type: "Approval",
        execution: {
          steps: [
            {
              type: "HarnessApproval",
              name: "A",
              identifier: "a",
              timeout: "1d",
              approvers: { userGroups: ["ops"] },
            },
          ],
        },
      },
    };
    for (const [change, replaces] of [
      [pipeline, ["type"]],
      [approval, ["stage"]],
    ] as const) {
      const news = (await p.check(outs, { ...programFor(identifier), ...change })).inputs;
      expect(await p.diff(id, outs, news)).toMatchObject({
        changes: true,
        replaces,
        deleteBeforeReplace: true,
      });
      // With another version label it is a new version: created before the old one is deleted.
      const moved = (await p.check(outs, { ...programFor(identifier), ...change, versionLabel: "v9" }))
        .inputs;
      expect(await p.diff(id, outs, moved)).toMatchObject({
        changes: true,
        replaces: ["versionLabel", ...replaces],
        deleteBeforeReplace: false,
      });
    }
  });

  it("refuses to adopt a version of another type, naming the field, with nothing written", async () => {
    const identifier = fresh();
    await bed.platform.templates.create({ template_yaml: yamlOf(identifier, "echo theirs") }, at);
    const approval = {
      type: "Approval",
      execution: {
        steps: [
          {
            type: "HarnessApproval",
            name: "A",
            identifier: "a",
            timeout: "1d",
            approvers: { userGroups: ["ops"] },
          },
        ],
      },
    };
    bed.reset();
    await expect(
      p.create((await p.check({}, { ...programFor(identifier), stage: approval, adopt: true })).inputs),
    ).rejects.toThrow(
      `template "${identifier}" version "v1" (project default/templates) exists as a Stage template of type Custom, the program's stage.type is Approval: the service changes no template's type in place, and adopt does not delete. Use another identifier or versionLabel, or delete that version first`,
    );
    expect(bed.sent()).toEqual([`GET ${BASE}/${identifier}/versions/v1`]);
  });

  it("updates the stage with a read and one PUT of the version's YAML", async () => {
    const { identifier, id, outs } = await created();
    const news = (await p.check(outs, { ...programFor(identifier, "echo two"), comments: "why" })).inputs;
    bed.reset();
    const { outs: after } = await p.update(id, outs, news);
    expect(bed.sent()).toEqual([
      `GET ${BASE}/${identifier}/versions/v1`,
      `PUT ${BASE}/${identifier}/versions/v1`,
    ]);
    expect(bed.proxy.writes().map((w) => w.body)).toEqual([
      { template_yaml: yamlOf(identifier, "echo two"), comments: "why" },
    ]);
    expect(after).toEqual({
      ...outs,
      stage: checkedStage("echo two"),
      comments: "why",
      yaml: yamlOf(identifier, "echo two"),
      version: 1,
    });
  });

  it("refuses an update of the stage a colleague changed, naming the field, with nothing written", async () => {
    const { identifier, id, outs } = await created();
    await bed.platform.templates.update(
      identifier,
      "v1",
      { template_yaml: yamlOf(identifier, "echo colleague") },
      at,
    );
    const news = (await p.check(outs, programFor(identifier, "echo mine"))).inputs;
    bed.reset();
    await expect(p.update(id, outs, news)).rejects.toThrow(
      `template "${identifier}" version "v1" (project default/templates) was changed outside Pulumi since its state was recorded, in a field this update changes:\n` +
        '  stage.execution.steps[0].script: recorded "echo one", live "echo colleague", desired "echo mine"\n' +
        "Nothing was written. Run `pulumi refresh` to record the live values (the next `pulumi preview` then shows exactly what `pulumi up` will change), or `pulumi up --refresh`.",
    );
    expect(bed.proxy.writes()).toEqual([]);
  });

  it("isStable: a later version made stable, the earlier one made stable again by PUT .../stable", async () => {
    const v1 = await created();
    const v2Inputs = (await p.check({}, { ...programFor(v1.identifier), versionLabel: "v2" })).inputs;
    const v2 = await p.create(v2Inputs);
    expect(v2.outs.stable).toBe(true);
    // v1 is no longer the stable one: a refresh shows isStable false.
    const refreshed = await p.read(v1.id, v1.outs);
    expect(refreshed.props).toEqual({ ...v1.outs, isStable: false, stable: false });
    bed.reset();
    const { outs } = await p.update(
      v1.id,
      refreshed.props!,
      (await p.check({}, programFor(v1.identifier))).inputs,
    );
    expect(bed.sent()).toEqual([
      `GET ${BASE}/${v1.identifier}/versions/v1`,
      `PUT ${BASE}/${v1.identifier}/versions/v1/stable`,
    ]);
    expect(outs).toEqual(v1.outs);
    expect((await bed.platform.templates.get(v1.identifier, undefined, at)).template.version_label).toBe(
      "v1",
    );
    // Deleting the stable version while v2 exists: v2, made stable before, is the stable one again.
    await p.delete(v1.id, outs);
    expect((await bed.platform.templates.get(v1.identifier, undefined, at)).template.version_label).toBe(
      "v2",
    );
  });

  it("refresh reports a version deleted out of band as gone; delete is one DELETE, and again succeeds", async () => {
    const gone = await created();
    await bed.platform.templates.delete(gone.identifier, "v1", at);
    expect(await p.read(gone.id, gone.outs)).toEqual({ id: undefined, props: undefined, inputs: undefined });
    const { identifier, id, outs } = await created();
    bed.reset();
    await p.delete(id, outs);
    expect(bed.sent()).toEqual([`DELETE ${BASE}/${identifier}/versions/v1`]);
    await expect(bed.platform.templates.get(identifier, "v1", at)).rejects.toMatchObject({ status: 404 });
    await expect(p.delete(id, outs)).resolves.toBeUndefined();
  });

  it("refuses an existing version unless adopt is set, then converges it with one PUT", async () => {
    const identifier = fresh();
    await bed.platform.templates.create({ template_yaml: yamlOf(identifier, "echo theirs") }, at);
    await expect(p.create((await p.check({}, programFor(identifier))).inputs)).rejects.toThrow(
      `template "${identifier}" version "v1" (project default/templates) already exists. Set \`adopt: true\``,
    );
    bed.reset();
    const adopted = await p.create((await p.check({}, { ...programFor(identifier), adopt: true })).inputs);
    expect(bed.sent()).toEqual([
      `GET ${BASE}/${identifier}/versions/v1`,
      `PUT ${BASE}/${identifier}/versions/v1`,
    ]);
    expect(adopted.outs).toMatchObject({
      stage: checkedStage("echo one"),
      yaml: yamlOf(identifier, "echo one"),
      adopt: true,
    });
  });

  it("a Pipeline template at organization level: the pipeline's members rendered as the spec, read back typed", async () => {
    const identifier = fresh();
    const program = {
      org: "default",
      identifier,
      versionLabel: "1.0",
      name: "Release",
      type: "Pipeline",
      description: "the release pipeline",
      tags: { team: "pay" },
      pipeline: {
        variables: [{ name: "env", type: "String", value: "<+input>" }],
        stages: [{ ...echo("echo release"), name: "Release", identifier: "release" }],
      },
    };
    const inputs = (await p.check({}, program)).inputs;
    bed.reset();
    const made = await p.create(inputs);
    const yaml = `template:
  name: Release
  identifier: ${identifier}
  versionLabel: "1.0"
  type: Pipeline
  orgIdentifier: default
  description: the release pipeline
  tags:
    team: pay
  spec:
    allowStageExecutions: false
    variables:
      - name: env
        type: String
        value: <+input>
    stages:
      - stage:
          name: Release
          identifier: release
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
                          script: echo release
                      environmentVariables: []
                      outputVariables: []
                      executionTarget: {}
                    timeout: 10m
              rollbackSteps: []
          tags: {}
          failureStrategies: []
`;
    expect(bed.proxy.writes().map(({ method, path, body }) => ({ method, path, body }))).toEqual([
      { method: "POST", path: "/v1/orgs/default/templates", body: { template_yaml: yaml, is_stable: true } },
    ]);
    expect(made).toEqual({
      id: `default/${identifier}/versions/1.0`,
      outs: { ...inputs, yaml, stable: true, version: 0 },
    });
    expect(inputs.pipeline).toEqual({
      allowStageExecutions: false,
      variables: [{ name: "env", type: "String", value: "<+input>" }],
      stages: [{ ...checkedStage("echo release"), name: "Release", identifier: "release" }],
    });
    expect(await p.read(made.id, made.outs)).toEqual({ id: made.id, props: made.outs, inputs });
    const imported = await p.read(`default/${identifier}`, {});
    expect(imported).toEqual({ id: made.id, props: { ...made.outs, adopt: false }, inputs });
    await p.delete(made.id, made.outs);
  });

  it("a Step template at account level takes the raw spec, its keys sorted, and reads it back", async () => {
    const identifier = fresh();
    const spec = { type: "ShellScript", timeout: "10m", spec: { shell: "Bash" } };
    const inputs = (
      await p.check({}, { identifier, versionLabel: "v1", name: "Step", type: "Step", spec, isStable: false })
    ).inputs;
    const made = await p.create(inputs);
    const yaml = `template:\n  name: Step\n  identifier: ${identifier}\n  versionLabel: v1\n  type: Step\n  tags: {}\n  spec:\n    spec:\n      shell: Bash\n    timeout: 10m\n    type: ShellScript\n`;
    // The first version of a template is the stable one, whatever isStable says; false is kept.
    expect(made).toEqual({
      id: `${identifier}/versions/v1`,
      outs: { ...inputs, yaml, stable: true, version: 0 },
    });
    expect(await p.read(made.id, made.outs)).toEqual({ id: made.id, props: made.outs, inputs });
    expect((await p.read(identifier, {})).props).toEqual({ ...made.outs, isStable: true });
    bed.reset();
    await p.delete(made.id, made.outs);
    expect(bed.sent()).toEqual([`DELETE /v1/templates/${identifier}/versions/v1`]);
  });

  it("imports by id, with the version or the stable one, at project, organization and account level", async () => {
    const { identifier, id, outs } = await created();
    const { adopt: _a, comments: _c, ...expected } = outs as Record<string, unknown>;
    const imported = await p.read(`default/templates/${identifier}`, {});
    expect(imported.id).toBe(id);
    expect(imported.props).toEqual({ ...expected, adopt: false });
    expect((await p.read(id, {})).props).toEqual({ ...expected, adopt: false });
    expect(parseTemplateId("t")).toEqual({ identifier: "t", versionLabel: undefined });
    expect(parseTemplateId("o/t/versions/1.0")).toEqual({ org: "o", identifier: "t", versionLabel: "1.0" });
    expect(parseTemplateId("o/p/t")).toEqual({
      org: "o",
      project: "p",
      identifier: "t",
      versionLabel: undefined,
    });
    expect(() => parseTemplateId("a/b/c/d")).toThrow(
      'invalid template id "a/b/c/d": expected [<org>/[<project>/]]<identifier>[/versions/<versionLabel>], such as default/payments/deploy_stage/versions/v1',
    );
  });
});
