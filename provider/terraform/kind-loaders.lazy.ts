/**
 * The provider bundle's {@link KIND_LOADERS} (`./kind-loaders.ts`, which the bundler swaps for this
 * file, `scripts/release-binary.mts`): each kind as the function that loads its module, so that a
 * door asked for one resource type at a time loads only the kinds it is asked for. OpenTofu starts
 * the Terraform door three to five times per command, and loading every kind (the platform SDK's
 * schemas with the flags') cost each start that serves a resource about 40 ms of CPU
 * (issue 35, `tofu_for_each_800_plan_unchanged_seconds`). test/provider/terraform/kind-loaders.test.ts
 * holds this table equal to the list of kinds.
 * @module
 */
import type { Kind } from "../core/kind";

/** Each kind's loader, by name, in the order of the list of kinds. */
export const KIND_LOADERS: Readonly<Record<string, () => Kind>> = {
  Environment: () => (require("../flags/environment") as typeof import("../flags/environment")).kind,
  TrafficType: () => (require("../flags/traffic-type") as typeof import("../flags/traffic-type")).kind,
  TrafficTypeAttribute: () =>
    (require("../flags/traffic-type-attribute") as typeof import("../flags/traffic-type-attribute")).kind,
  ApiKey: () => (require("../flags/api-key") as typeof import("../flags/api-key")).kind,
  Workspace: () => (require("../flags/workspace") as typeof import("../flags/workspace")).kind,
  Flag: () => (require("../flags/flag") as typeof import("../flags/flag")).kind,
  FlagDefinition: () =>
    (require("../flags/flag-definition") as typeof import("../flags/flag-definition")).kind,
  FlagDefinitions: () =>
    (require("../flags/flag-definitions") as typeof import("../flags/flag-definitions")).kind,
  Group: () => (require("../flags/group") as typeof import("../flags/group")).kind,
  UserInvite: () => (require("../flags/user-invite") as typeof import("../flags/user-invite")).kind,
  Organization: () => (require("../platform/organization") as typeof import("../platform/organization")).kind,
  Project: () => (require("../platform/project") as typeof import("../platform/project")).kind,
  Connector: () => (require("../platform/connector") as typeof import("../platform/connector")).kind,
  Pipeline: () => (require("../platform/pipeline") as typeof import("../platform/pipeline")).kind,
  Segment: () => (require("../flags/segment") as typeof import("../flags/segment")).kind,
  SegmentKeys: () => (require("../flags/segment-keys") as typeof import("../flags/segment-keys")).kind,
  LargeSegment: () => (require("../flags/large-segment") as typeof import("../flags/large-segment")).kind,
  RuleBasedSegment: () =>
    (require("../flags/rule-based-segment") as typeof import("../flags/rule-based-segment")).kind,
  RuleBasedSegmentDefinition: () =>
    (
      require("../flags/rule-based-segment-definition") as typeof import("../flags/rule-based-segment-definition")
    ).kind,
  FlagSet: () => (require("../flags/flag-set") as typeof import("../flags/flag-set")).kind,
  Restriction: () => (require("../flags/restriction") as typeof import("../flags/restriction")).kind,
  Secret: () => (require("../platform/secret") as typeof import("../platform/secret")).kind,
  Service: () => (require("../platform/service") as typeof import("../platform/service")).kind,
  DeliveryEnvironment: () =>
    (require("../platform/delivery-environment") as typeof import("../platform/delivery-environment")).kind,
  EnvironmentGroup: () =>
    (require("../platform/environment-group") as typeof import("../platform/environment-group")).kind,
  ServiceOverrides: () =>
    (require("../platform/service-overrides") as typeof import("../platform/service-overrides")).kind,
  Infrastructure: () =>
    (require("../platform/infrastructure") as typeof import("../platform/infrastructure")).kind,
  InputSet: () => (require("../platform/input-set") as typeof import("../platform/input-set")).kind,
  Trigger: () => (require("../platform/trigger") as typeof import("../platform/trigger")).kind,
  Template: () => (require("../platform/template") as typeof import("../platform/template")).kind,
};

/**
 * The bundle's `OWNER_KINDS` (`./kind-loaders.ts`): the kinds that own others, written out so that
 * a delete does not load every kind to learn them (test/provider/terraform/kind-loaders.test.ts
 * holds it equal to the kinds' `owner` marks).
 */
export const OWNER_KINDS: readonly string[] = ["Flag", "Segment", "RuleBasedSegment"];
