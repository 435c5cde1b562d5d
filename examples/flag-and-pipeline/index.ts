/**
 * A feature flag and the delivery pipeline that ships the code behind it, in one stack. The
 * pipeline's scripts read the flag's name from the `Flag` resource's output instead of repeating
 * the string, so:
 * - the pipeline is created after the flag (Pulumi orders them by that dependency);
 * - renaming the flag (`pulumi config set flagName ...`) replaces the flag and its definition and
 *   updates the pipeline's YAML in the same `pulumi up`.
 */
import * as pulumi from "@pulumi/pulumi";
import { Flag, FlagDefinition, Pipeline, Project } from "flagstack/provider";

const config = new pulumi.Config();
const workspace = "Default";

const flag = new Flag("flag", {
  workspace,
  name: config.get("flagName") ?? "instant-search",
  description: "Search results while typing",
  tags: ["owner:search"],
  rolloutStatus: "Ramping",
});

new FlagDefinition("production", {
  workspace,
  flag: flag.name,
  environment: "Production",
  treatments: [{ name: "on", keys: ["release-bot"] }, { name: "off" }],
  defaultTreatment: "off",
  baselineTreatment: "off",
  defaultRule: [
    { treatment: "on", size: 20 },
    { treatment: "off", size: 80 },
  ],
});

const project = new Project("search", { identifier: "search", name: "Search", tags: { team: "search" } });

const release = new Pipeline("release", {
  project: project.identifier,
  pipeline: {
    name: "Release search",
    identifier: "release_search",
    // The flag's name is an output of the Flag resource; tags and scripts can use it directly.
    tags: { flag: flag.name },
    stages: [
      {
        type: "Custom",
        name: "Release behind the flag",
        identifier: "release",
        execution: {
          steps: [
            {
              type: "ShellScript",
              name: "Check the flag",
              identifier: "check_flag",
              script: pulumi.interpolate`echo "releasing behind feature flag ${flag.name}"
test "$(curl -fsS "$FLAGS_URL/flags/${flag.name}/treatment?key=release-bot")" = on`,
              environmentVariables: [
                { name: "FLAGS_URL", type: "String", value: "https://flags.example.com" },
                { name: "FLAG_NAME", type: "String", value: flag.name },
              ],
              outputVariables: [{ name: "FLAG", type: "String", value: "FLAG_NAME" }],
              timeout: "2m",
            },
            {
              type: "ShellScript",
              name: "Deploy",
              identifier: "deploy",
              script:
                'echo "deploying search <+pipeline.sequenceId> (flag <+execution.steps.check_flag.output.outputVariables.FLAG>)"',
              timeout: "10m",
            },
          ],
        },
        failureStrategies: [{ onFailure: { errors: ["AllErrors"], action: { type: "Abort" } } }],
      },
    ],
  },
});

export const flagName = flag.name;
export const pipelineYaml = release.yaml;
