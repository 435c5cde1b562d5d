/**
 * Trigger: check (no request; a cron expression checked field by field, exactly one source), the
 * diff by meaning, and the lifecycle against the emulator directly and through the real
 * dynamic-provider gRPC host: one POST, refresh with drift, the version sent as `If-Match`, adopt,
 * a lost create, import by id, a missing pipeline.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { renderPipelineYaml } from "../../../provider/pipeline-model";
import {
  impl,
  Trigger,
  TriggerInputs,
  triggerProviderText,
  triggerYaml,
} from "../../../provider/platform/trigger";
import { hello } from "../fixtures/pipelines";
import { type Driver, MODES, type Mode } from "../harness";
import { diffOfEachChange, NO_CHANGE, registrationOf, replaces, UPDATE } from "../kind-checks";
import { createProject, itRefusesWithNoRequest, slug, startTestbed, type Testbed, unique } from "../testbed";

const scope = { org: "default", project: "trig" };
const base = { ...scope, pipelineIdentifier: "hello", name: "Nightly" };
const cron = { expression: "0 3 * * 1-5" };
const webhook = { type: "Github", event: "Push", connectorRef: "github", repoName: "checkout" };

let bed: Testbed;
let drivers: Record<Mode, Driver>;

beforeAll(async () => {
  bed = await startTestbed();
  drivers = await bed.drivers(impl, triggerProviderText);
  await createProject(bed.platform, "trig", "Triggers");
  await bed.platform.pipelines.create(renderPipelineYaml(hello, scope), scope);
});

afterAll(async () => {
  await bed?.stop();
});

const at = { ...scope, pipeline: "hello" };
/** A trigger's YAML as someone else writes it: a cron trigger with `expression`. */
const byHand = (identifier: string, name: string, expression: string) =>
  YAML.stringify({
    trigger: {
      identifier,
      name,
      orgIdentifier: "default",
      projectIdentifier: "trig",
      pipelineIdentifier: "hello",
      enabled: true,
      source: { type: "Scheduled", spec: { type: "Cron", spec: { expression } } },
    },
  });

describe("Trigger check", () => {
  itRefusesWithNoRequest(
    [
      [
        "a cron of four fields",
        { ...base, identifier: "t", cron: { expression: "0 3 * *" } },
        "cron.expression",
        "has 5 fields",
      ],
      [
        "an hour of 24",
        { ...base, identifier: "t", cron: { expression: "0 24 * * *" } },
        "cron.expression",
        'hour field "24" is outside 0-23',
      ],
      [
        "a backwards range",
        { ...base, identifier: "t", cron: { expression: "0 3 * * 5-1" } },
        "cron.expression",
        "backwards range",
      ],
      [
        "a step of 0",
        { ...base, identifier: "t", cron: { expression: "*/0 3 * * *" } },
        "cron.expression",
        "step of 0",
      ],
      [
        "both sources",
        { ...base, identifier: "t", cron, webhook },
        "webhook",
        "exactly one of webhook and cron",
      ],
      ["no source", { ...base, identifier: "t" }, "webhook", "exactly one of webhook and cron"],
      [
        "an unknown webhook type",
        { ...base, identifier: "t", webhook: { ...webhook, type: "Svn" } },
        "webhook.type",
        "webhook type must be",
      ],
      [
        "a webhook without connector",
        { ...base, identifier: "t", webhook: { ...webhook, connectorRef: "" } },
        "webhook.connectorRef",
        "connectorRef cannot be empty",
      ],
      [
        "an empty input set ref",
        { ...base, identifier: "t", cron, inputSetRefs: [""] },
        "inputSetRefs[0]",
        "cannot be empty",
      ],
    ],
    () => ({ bed, drivers }),
  );
});

describe("Trigger diff", () => {
  it("sees no change when the stored YAML says the same in another order; a new schedule is an update", async () => {
    const inputs = (await impl.check({}, { ...base, identifier: "t", cron })).inputs!;
    const reordered = YAML.stringify(YAML.parse(triggerYaml(inputs)), { sortMapEntries: true, indent: 4 });
    const olds = { ...inputs, yaml: reordered, version: 0 };
    expect(await impl.diff("t", olds, inputs)).toMatchObject({ changes: false });
    expect(await impl.diff("t", olds, { ...inputs, cron: { expression: "0 4 * * *" } })).toMatchObject({
      changes: true,
      replaces: [],
    });
  });

  it("replaces when org, project, pipeline or identifier changes, updates in place for every other input but adopt", async () => {
    const inputs = (await impl.check({}, { ...base, identifier: "t", cron })).inputs!;
    const olds = { ...inputs, yaml: triggerYaml(inputs), version: 0 };
    expect(
      await diffOfEachChange(impl, TriggerInputs, "default/trig/hello/t", olds, inputs, {
        org: { org: "acme" },
        project: { project: "other" },
        pipelineIdentifier: { pipelineIdentifier: "deploy" },
        identifier: { identifier: "t_2" },
        name: { name: "Hourly" },
        description: { description: "every weekday" },
        tags: { tags: { team: "payments" } },
        adopt: { adopt: true },
        enabled: { enabled: false },
        webhook: { webhook, cron: undefined },
        cron: { cron: { expression: "0 4 * * *" } },
        inputSetRefs: { inputSetRefs: ["prod"] },
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
      enabled: UPDATE,
      webhook: UPDATE,
      cron: UPDATE,
      inputSetRefs: UPDATE,
    });
  });
});

describe.each(MODES)("Trigger lifecycle (%s)", (via) => {
  const fresh = () => unique(`tr_${slug(via)}`, "_");
  let d: Driver;
  const created = async (extra: Record<string, unknown> = {}) => {
    const identifier = fresh();
    const inputs = (await d.check({}, { ...base, identifier, cron, ...extra })).inputs;
    const { id, outs } = await d.create(inputs);
    return { identifier, inputs, id, outs };
  };

  beforeAll(() => {
    d = drivers[via];
  });

  it("creates a webhook trigger with one POST, reads it back with no diff, and deletes twice", async () => {
    const identifier = fresh();
    const inputs = (await d.check({}, { ...base, identifier, webhook, inputSetRefs: ["prod"] })).inputs;
    bed.reset();
    const { id, outs } = await d.create(inputs);
    expect(bed.sent()).toEqual(["POST /pipeline/api/triggers"]);
    expect(id).toBe(`default/trig/hello/${identifier}`);
    expect(outs).toEqual({ ...inputs, yaml: triggerYaml(inputs as TriggerInputs), version: 0 });
    expect(YAML.parse(outs.yaml as string).trigger).toEqual({
      identifier,
      name: "Nightly",
      orgIdentifier: "default",
      projectIdentifier: "trig",
      description: "",
      tags: {},
      enabled: true,
      pipelineIdentifier: "hello",
      source: {
        type: "Webhook",
        spec: {
          type: "Github",
          spec: { type: "Push", spec: { connectorRef: "github", repoName: "checkout", actions: [] } },
        },
      },
      inputSetRefs: ["prod"],
    });
    const read = await d.read(id, outs);
    expect(read.props).toEqual(outs);
    expect(read.inputs).toEqual(inputs);
    expect(await d.diff(id, read.props!, inputs)).toMatchObject({ changes: false });
    await d.delete(id, outs);
    await expect(bed.platform.triggers.get(identifier, at)).rejects.toMatchObject({ kind: "not-found" });
    await expect(d.delete(id, outs)).resolves.toBeUndefined();
    expect(await d.read(id, outs)).toEqual({});
  });

  it("finds drift on refresh; updates with one read and one PUT guarded by the version; an edit in between is refused", async () => {
    const { identifier, id, outs, inputs } = await created();
    await bed.platform.triggers.update(byHand(identifier, "Theirs", "0 5 * * *"), { ifMatch: 0 });
    const drifted = await d.read(id, outs);
    expect(drifted.props).toMatchObject({ name: "Theirs", cron: { expression: "0 5 * * *" }, version: 1 });
    expect(await d.diff(id, drifted.props!, inputs)).toMatchObject({ changes: true });

    const next = { ...inputs, cron: { expression: "30 2 * * *" } };
    bed.proxy.once(
      { method: "GET", path: new RegExp(`^/pipeline/api/triggers/${identifier}`) },
      {
        after: async () =>
          void (await bed.platform.triggers.update(byHand(identifier, "Again", "0 6 * * *"), { ifMatch: 1 })),
      },
    );
    await expect(d.update(id, drifted.props!, next)).rejects.toThrow(
      `trigger "${identifier}" of pipeline default/trig/hello was changed outside Pulumi while this update ran (after it read version 1, before its write)`,
    );
    expect((await bed.platform.triggers.get(identifier, at)).name).toBe("Again");
    const refreshed = await d.read(id, outs);
    bed.reset();
    const updated = (await d.update(id, refreshed.props!, next)).outs;
    expect(bed.sent()).toEqual([
      `GET /pipeline/api/triggers/${identifier}`,
      `PUT /pipeline/api/triggers/${identifier}`,
    ]);
    expect(updated).toEqual({
      ...next,
      yaml:
        `trigger: { identifier: ${identifier}, name: Nightly, orgIdentifier: default, projectIdentifier: trig, ` +
        'description: "", tags: {}, enabled: true, pipelineIdentifier: hello, ' +
        "source: { type: Scheduled, spec: { type: Cron, spec: { expression: 30 2 * * * } } } }\n",
      version: 3,
    });
  });

  it("a colleague's rename survives the program's schedule change (one read, one PUT of both); the same field changed by both is refused naming it", async () => {
    const { identifier, id, outs, inputs } = await created();
    const theirs = { ...inputs, name: "Theirs" } as unknown as TriggerInputs;
    await bed.platform.triggers.update(triggerYaml(theirs), { ifMatch: 0 });
    const next = { ...inputs, cron: { expression: "30 2 * * *" } };
    bed.reset();
    const updated = (await d.update(id, outs, next)).outs;
    expect(bed.sent()).toEqual([
      `GET /pipeline/api/triggers/${identifier}`,
      `PUT /pipeline/api/triggers/${identifier}`,
    ]);
    const both = { ...next, name: "Theirs" };
    expect(updated).toEqual({
      ...both,
      yaml:
        `trigger: { identifier: ${identifier}, name: Theirs, orgIdentifier: default, projectIdentifier: trig, ` +
        'description: "", tags: {}, enabled: true, pipelineIdentifier: hello, ' +
        "source: { type: Scheduled, spec: { type: Cron, spec: { expression: 30 2 * * * } } } }\n",
      version: 2,
    });
    expect((await bed.platform.triggers.get(identifier, at)).name).toBe("Theirs");

    const again = await created();
    await bed.platform.triggers.update(
      triggerYaml({ ...again.inputs, cron: { expression: "0 4 * * *" } } as unknown as TriggerInputs),
      { ifMatch: 0 },
    );
    bed.reset();
    await expect(
      d.update(again.id, again.outs, { ...again.inputs, cron: { expression: "0 5 * * *" } }),
    ).rejects.toThrow(
      `trigger "${again.identifier}" of pipeline default/trig/hello was changed outside Pulumi since its state was recorded, in a field this update changes:\n` +
        '  cron: recorded {"expression":"0 3 * * 1-5"}, live {"expression":"0 4 * * *"}, desired {"expression":"0 5 * * *"}\nNothing was written.',
    );
    expect(bed.proxy.writes()).toEqual([]);
  });

  it("adopts an existing trigger with one read and one guarded PUT, and finds its own lost create", async () => {
    const identifier = fresh();
    await bed.platform.triggers.create(byHand(identifier, "By hand", "0 1 * * *"));
    const inputs = (await d.check({}, { ...base, identifier, cron, adopt: true })).inputs;
    bed.reset();
    const adopted = await d.create(inputs);
    expect(bed.sent()).toEqual([
      `GET /pipeline/api/triggers/${identifier}`,
      `PUT /pipeline/api/triggers/${identifier}`,
    ]);
    expect(adopted.outs).toMatchObject({ name: "Nightly", cron, version: 1 });
    const lost = fresh();
    bed.proxy.once({ method: "POST", path: /^\/pipeline\/api\/triggers/ }, { lose: true });
    bed.reset();
    const found = await d.create({ ...inputs, identifier: lost, adopt: false });
    expect(bed.sent()).toEqual(["POST /pipeline/api/triggers", `GET /pipeline/api/triggers/${lost}`]);
    expect(found.outs).toMatchObject({ identifier: lost, version: 0 });
  });

  it("imports by <org>/<project>/<pipeline>/<identifier> with the source typed", async () => {
    const { identifier } = await created();
    const imported = await d.read(`default/trig/hello/${identifier}`, {});
    expect(imported.inputs).toEqual({
      ...base,
      identifier,
      description: "",
      tags: {},
      enabled: true,
      adopt: false,
      cron,
    });
  });

  it("fails on a missing pipeline with the service's message", async () => {
    const inputs = (await d.check({}, { ...base, pipelineIdentifier: "nope", identifier: fresh(), cron }))
      .inputs;
    bed.reset();
    await expect(d.create(inputs)).rejects.toThrow(
      "Pipeline [nope] under Project[trig], Organization [default] doesn't exist or has been deleted.",
    );
    expect(bed.sent()).toEqual(["POST /pipeline/api/triggers"]);
  });
});

describe("the Trigger class", () => {
  it("registers the Trigger type with the provider of provider/trigger", async () => {
    expect(await registrationOf(Trigger, { ...base, identifier: "t", cron })).toEqual({
      type: "pulumi-nodejs:dynamic/flagstack:Trigger",
      name: "r",
      provider: 'exports.handler = () => require("flagstack/provider/trigger").impl;\n',
    });
  });
});
