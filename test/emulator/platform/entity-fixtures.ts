/**
 * Fixtures of the v2 entity tests (issue 19): an in-process emulator with the project `proj` of
 * the organization `default` and its pipeline `pipe`, and the smallest valid body of each entity.
 */
import { afterAll, beforeAll, expect } from "vitest";
import {
  failureBody,
  type InProcessPlatform,
  inProcessPlatform,
  type Reply,
  simplePipeline,
} from "./harness";

/** The scope every fixture lives in. */
export const ORG = "default";
export const PROJECT = "proj";
export const PIPELINE = "pipe";
/** A secret value that must never come back. */
export const SENTINEL = "s3ntinel-VALUE-9f1c";

/** An in-process emulator with `default/proj` and the pipeline `pipe` in it. */
export async function platformWithProject(): Promise<InProcessPlatform> {
  const p = await inProcessPlatform();
  await p.call("POST", "/ng/api/projects", { json: { project: { identifier: PROJECT, name: PROJECT } } });
  await p.call("POST", "/pipeline/api/pipelines/v2", {
    query: { orgIdentifier: ORG, projectIdentifier: PROJECT },
    yaml: simplePipeline(PIPELINE, PROJECT),
  });
  return p;
}

/**
 * A {@link platformWithProject} for the whole test file (built before its tests, closed after):
 * the returned function gives it, with `setup` run once it exists.
 */
export function useProjectPlatform(
  setup?: (p: InProcessPlatform) => Promise<unknown>,
): () => InProcessPlatform {
  let p: InProcessPlatform | undefined;
  beforeAll(async () => {
    p = await platformWithProject();
    await setup?.(p);
  });
  afterAll(() => p?.close());
  return () => p!;
}

/** The NG scope fields of a body in `default/proj`. */
export const inProject = { orgIdentifier: ORG, projectIdentifier: PROJECT };
/** The query of a read, list or delete in `default/proj`. */
export const projectQuery = { orgIdentifier: ORG, projectIdentifier: PROJECT };

/** A Kubernetes service with one manifest and one artifact source. */
export const serviceYaml = (id: string) => `service:
  name: ${id}
  identifier: ${id}
  orgIdentifier: ${ORG}
  projectIdentifier: ${PROJECT}
  serviceDefinition:
    type: Kubernetes
    spec:
      manifests:
        - manifest:
            identifier: m1
            type: K8sManifest
            spec:
              store:
                type: Github
                spec:
                  connectorRef: gh
                  gitFetchType: Branch
                  paths: [k8s]
                  branch: main
      artifacts:
        primary:
          primaryArtifactRef: img
          sources:
            - identifier: img
              type: DockerRegistry
              spec:
                connectorRef: docker
                imagePath: library/nginx
                tag: <+input>
`;

/** A service request body. */
export const serviceBody = (id: string, extra: Record<string, unknown> = {}) => ({
  identifier: id,
  name: id,
  ...inProject,
  yaml: serviceYaml(id),
  ...extra,
});

/** An environment request body. */
export const environmentBody = (id: string, extra: Record<string, unknown> = {}) => ({
  identifier: id,
  name: id,
  ...inProject,
  type: "PreProduction",
  ...extra,
});

/** An infrastructure YAML of `type` in environment `env`. */
export const infrastructureYaml = (
  id: string,
  env: string,
  type = "KubernetesDirect",
  spec = "",
) => `infrastructureDefinition:
  name: ${id}
  identifier: ${id}
  orgIdentifier: ${ORG}
  projectIdentifier: ${PROJECT}
  environmentRef: ${env}
  deploymentType: Kubernetes
  type: ${type}
  spec:
    connectorRef: k8s
    namespace: apps
    releaseName: release-<+INFRA_KEY>
${spec}  allowSimultaneousDeployments: false
`;

/** An infrastructure request body. */
export const infrastructureBody = (id: string, env: string, type?: string, spec?: string) => ({
  identifier: id,
  name: id,
  ...inProject,
  environmentRef: env,
  type: type ?? "KubernetesDirect",
  yaml: infrastructureYaml(id, env, type, spec),
});

/** An inline text secret body holding `value`. */
export const textSecret = (id: string, value: string, extra: Record<string, unknown> = {}) => ({
  secret: {
    type: "SecretText",
    name: id,
    identifier: id,
    ...inProject,
    spec: { secretManagerIdentifier: "harnessSecretManager", valueType: "Inline", value },
    ...extra,
  },
});

/** An input set YAML for `pipe`. */
export const inputSetYaml = (id: string, pipeline = PIPELINE) => `inputSet:
  name: ${id}
  identifier: ${id}
  orgIdentifier: ${ORG}
  projectIdentifier: ${PROJECT}
  tags:
    team: web
  pipeline:
    identifier: ${pipeline}
    variables:
      - name: key
        type: String
        value: v
`;

/** A trigger YAML for `pipe`: a GitHub push webhook, or a cron schedule. */
export const triggerYaml = (id: string, kind: "webhook" | "cron", pipeline = PIPELINE) => `trigger:
  name: ${id}
  identifier: ${id}
  enabled: true
  orgIdentifier: ${ORG}
  projectIdentifier: ${PROJECT}
  pipelineIdentifier: ${pipeline}
  source:
${
  kind === "webhook"
    ? `    type: Webhook
    spec:
      type: Github
      spec:
        type: Push
        spec:
          connectorRef: gh
          autoAbortPreviousExecutions: false
          payloadConditions: []
          headerConditions: []
          actions: []
`
    : `    type: Scheduled
    spec:
      type: Cron
      spec:
        expression: 0 4 * * *
`
}  inputYaml: |
    pipeline: {}
`;

/** The query of an input set or trigger route. */
export const pipelineQuery = (param: "pipelineIdentifier" | "targetIdentifier", pipeline = PIPELINE) => ({
  ...projectQuery,
  [param]: pipeline,
});

/** Asserts a reply's exact status and body. */
export function answers(reply: Reply, status: number, body: unknown): void {
  expect([reply.status, reply.body]).toEqual([status, body]);
}

/** Asserts the 400 FailureDTO RESOURCE_NOT_FOUND_EXCEPTION of a javax `NotFoundException` (ref §2). */
export function answersNotFound(reply: Reply, message: string): void {
  answers(reply, 400, failureBody("RESOURCE_NOT_FOUND_EXCEPTION", message));
}
