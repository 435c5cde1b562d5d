/**
 * The platform resource classes wired through `pulumi.runtime.setMocks` (ref pulumi-notes §6.4):
 * distinct type tokens, `__provider` set to the resource module's provider text, every output seeded and
 * resolved, and a pipeline model holding outputs of other resources and runtime inputs arriving as
 * plain data the provider's `check` accepts.
 */
import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, it } from "vitest";
import { providerText } from "../../provider/core/resource";
import { renderPipelineYaml, runtimeInput } from "../../provider/pipeline-model";
import { Connector } from "../../provider/platform/connector";
import { Pipeline, impl as pipelineImpl } from "../../provider/platform/pipeline";
import { Project } from "../../provider/platform/project";
import { CONNECTOR_TYPE, PIPELINE_TYPE, PROJECT_TYPE } from "../../provider/types";

const registered: pulumi.runtime.MockResourceArgs[] = [];

beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        registered.push(args);
        const { __provider: _, ...inputs } = args.inputs as Record<string, unknown>;
        const state: Record<string, unknown> = { ...inputs, createdAt: 1, lastModifiedAt: 2 };
        if (args.type === CONNECTOR_TYPE) state.type = "DockerRegistry";
        if (args.type === PIPELINE_TYPE) state.yaml = "pipeline: {}";
        return { id: `${args.name}-id`, state };
      },
      call: () => ({}),
    },
    "shop",
    "dev",
  );
});

const output = <T>(o: pulumi.Output<T>): Promise<T> => new Promise((resolve) => o.apply(resolve));

describe("platform resource classes", () => {
  it("register distinct type tokens with the serialized provider, outputs seeded", async () => {
    const project = new Project("payments", { identifier: "payments", name: "Payments" });
    const connector = new Connector("cluster", {
      org: "default",
      project: project.identifier,
      identifier: "k8s_staging",
      name: "Staging cluster",
      generic: { type: "K8sCluster", spec: { credential: { type: "InheritFromDelegate" } } },
    });
    const pipeline = new Pipeline("deploy", {
      project: project.identifier,
      pipeline: {
        name: "Deploy",
        identifier: "deploy",
        stages: [
          {
            type: "Deployment",
            name: "Deploy",
            identifier: "deploy",
            service: { serviceRef: "checkout" },
            environment: { environmentRef: runtimeInput().default("staging") },
            infrastructure: { connectorRef: connector.identifier, namespace: "checkout" },
            execution: { steps: [{ type: "K8sRollingDeploy", name: "Roll", identifier: "roll" }] },
          },
        ],
      },
    });
    expect(await output(project.createdAt)).toBe(1);
    expect(await output(connector.type)).toBe("DockerRegistry");
    expect(await output(pipeline.yaml)).toBe("pipeline: {}");
    expect(registered.map((r) => r.type)).toEqual([PROJECT_TYPE, CONNECTOR_TYPE, PIPELINE_TYPE]);
    const files: Record<string, string> = {
      [PROJECT_TYPE]: "project",
      [CONNECTOR_TYPE]: "connector",
      [PIPELINE_TYPE]: "pipeline",
    };
    for (const r of registered) {
      expect((r.inputs as { __provider: string }).__provider).toBe(providerText(files[r.type]!));
    }
    expect([Project.__pulumiType, Connector.__pulumiType, Pipeline.__pulumiType]).toEqual([
      PROJECT_TYPE,
      CONNECTOR_TYPE,
      PIPELINE_TYPE,
    ]);

    // The engine resolves the connector's identifier inside the model and sends the runtime input as
    // its plain data; the provider's check reads both.
    const sent = registered[2]!.inputs as Record<string, unknown>;
    const stage = (sent.pipeline as { stages: Record<string, Record<string, unknown>>[] }).stages[0]!;
    expect(stage.infrastructure!.connectorRef).toBe("k8s_staging");
    expect(stage.environment!.environmentRef).toEqual({ $input: { default: "staging" } });
    const checked = await pipelineImpl.check({}, sent);
    expect(checked.failures).toBeUndefined();
    expect(renderPipelineYaml(checked.inputs!.pipeline!, { org: "default", project: "payments" })).toContain(
      "environmentRef: <+input>.default(staging)\n",
    );
  });
});
