/**
 * The flagstack Pulumi resources and lookups. Generated from the list of kinds
 * (`provider/kinds.ts`) by `npm run generate` (`scripts/generate.ts`): do not edit.
 *
 * Each resource module also exports its `impl` (the lifecycle implementation its stored
 * provider text `require`s at call time) and its `kind` (its definition); those are reached
 * through `flagstack/provider/<file>`, not this barrel.
 * @module
 */

export {
  ApiKey,
  type ApiKeyArgs,
  ApiKeyInputs,
  ApiKeyOutputs,
  apiKeyProviderText,
  apiKeyReplaceOnChange,
} from "./api-key";
export {
  AwsInput,
  Connector,
  type ConnectorArgs,
  ConnectorInputs,
  type ConnectorInputValues,
  ConnectorOutputs,
  connectorProviderText,
  connectorReplaceOnChange,
  DOCKER_REGISTRY,
  DockerAuthInput,
  DockerRegistryInput,
  GcpInput,
  GenericConnectorInput,
  GithubInput,
  GitInput,
  HttpHelmInput,
  KubernetesInput,
  SecretRef,
  secretRefInput,
  type TypedSpecField,
} from "./connector";
export {
  DeliveryEnvironment,
  type DeliveryEnvironmentArgs,
  DeliveryEnvironmentInputs,
  type DeliveryEnvironmentInputValues,
  DeliveryEnvironmentOutputs,
  deliveryEnvironmentProviderText,
  deliveryEnvironmentReplaceOnChange,
  deliveryEnvironmentYaml,
  EnvironmentOverridesInput,
} from "./delivery-environment";
export {
  Environment,
  type EnvironmentArgs,
  EnvironmentChangePermissions,
  EnvironmentInputs,
  EnvironmentOutputs,
  environmentProviderText,
  environmentReplaceOnChange,
} from "./environment";
export {
  Flag,
  type FlagArgs,
  FlagInputs,
  FlagOutputs,
  FlagOwner,
  flagProviderText,
  flagReplaceOnChange,
} from "./flag";
export {
  type BucketOutput,
  FlagDefinition,
  type FlagDefinitionArgs,
  FlagDefinitionInputs,
  FlagDefinitionOutputs,
  flagDefinitionProviderText,
  flagDefinitionReplaceOnChange,
  type RuleOutput,
  TreatmentInput,
  type TreatmentOutput,
} from "./flag-definition";
export {
  FlagSet,
  type FlagSetArgs,
  FlagSetInputs,
  FlagSetOutputs,
  flagSetProviderText,
  flagSetReplaceOnChange,
} from "./flag-set";
export {
  Group,
  type GroupArgs,
  GroupInputs,
  GroupOutputs,
  groupProviderText,
  groupReplaceOnChange,
} from "./group";
export {
  Infrastructure,
  type InfrastructureArgs,
  InfrastructureDefinitionInput,
  InfrastructureInputs,
  type InfrastructureInputValues,
  InfrastructureOutputs,
  infrastructureProviderText,
  infrastructureReplaceOnChange,
  infrastructureYaml,
  KubernetesDirectInput,
  KubernetesGcpInput,
} from "./infrastructure";
export {
  InputSet,
  type InputSetArgs,
  InputSetInputs,
  type InputSetInputValues,
  InputSetOutputs,
  inputSetProviderText,
  inputSetReplaceOnChange,
  inputSetYaml,
} from "./input-set";
export {
  LargeSegment,
  type LargeSegmentArgs,
  LargeSegmentInputs,
  LargeSegmentOutputs,
  largeSegmentProviderText,
  largeSegmentReplaceOnChange,
} from "./large-segment";
export * from "./lookups";
export {
  Organization,
  type OrganizationArgs,
  OrganizationInputs,
  type OrganizationInputValues,
  OrganizationOutputs,
  organizationProviderText,
  organizationReplaceOnChange,
} from "./organization";
export {
  Pipeline,
  type PipelineArgs,
  PipelineInputs,
  type PipelineInputValues,
  PipelineOutputs,
  pipelineProviderText,
  pipelineReplaceOnChange,
} from "./pipeline";
export * from "./pipeline-model";
export * from "./platform-lookups";
export {
  Project,
  type ProjectArgs,
  ProjectInputs,
  type ProjectInputValues,
  ProjectOutputs,
  projectProviderText,
  projectReplaceOnChange,
} from "./project";
export {
  RuleBasedSegment,
  type RuleBasedSegmentArgs,
  RuleBasedSegmentInputs,
  RuleBasedSegmentOutputs,
  ruleBasedSegmentProviderText,
  ruleBasedSegmentReplaceOnChange,
} from "./rule-based-segment";
export {
  RuleBasedSegmentDefinition,
  type RuleBasedSegmentDefinitionArgs,
  RuleBasedSegmentDefinitionInputs,
  RuleBasedSegmentDefinitionOutputs,
  ruleBasedSegmentDefinitionProviderText,
  ruleBasedSegmentDefinitionReplaceOnChange,
} from "./rule-based-segment-definition";
export {
  HARNESS_SECRET_MANAGER,
  Secret,
  type SecretArgs,
  SecretInputs,
  type SecretInputValues,
  SecretOutputs,
  secretProviderText,
  secretRef,
  secretReplaceOnChange,
} from "./secret";
export {
  Segment,
  type SegmentArgs,
  SegmentInputs,
  SegmentOutputs,
  segmentProviderText,
  segmentReplaceOnChange,
} from "./segment";
export {
  SegmentKeys,
  type SegmentKeysArgs,
  SegmentKeysInputs,
  SegmentKeysOutputs,
  segmentKeysProviderText,
  segmentKeysReplaceOnChange,
} from "./segment-keys";
export {
  ArtifactSourceInput,
  KubernetesServiceInput,
  ManifestInput,
  Service,
  type ServiceArgs,
  ServiceInputs,
  type ServiceInputValues,
  ServiceOutputs,
  serviceProviderText,
  serviceReplaceOnChange,
  serviceYaml,
  VariableInput,
} from "./service";
export {
  TrafficType,
  type TrafficTypeArgs,
  TrafficTypeInputs,
  TrafficTypeOutputs,
  trafficTypeProviderText,
  trafficTypeReplaceOnChange,
} from "./traffic-type";
export {
  TrafficTypeAttribute,
  type TrafficTypeAttributeArgs,
  TrafficTypeAttributeInputs,
  TrafficTypeAttributeOutputs,
  trafficTypeAttributeProviderText,
  trafficTypeAttributeReplaceOnChange,
} from "./traffic-type-attribute";
export {
  CronExpression,
  Trigger,
  type TriggerArgs,
  TriggerInputs,
  type TriggerInputValues,
  TriggerOutputs,
  triggerProviderText,
  triggerReplaceOnChange,
  triggerYaml,
  WebhookInput,
} from "./trigger";
// Every type token (`FLAG_TYPE`, ...), the module name and `typeName`.
export * from "./types";
export {
  ON_DELETE,
  UserInvite,
  type UserInviteArgs,
  UserInviteInputs,
  UserInviteOutputs,
  userInviteProviderText,
  userInviteReplaceOnChange,
} from "./user-invite";
export {
  Workspace,
  type WorkspaceArgs,
  WorkspaceInputs,
  WorkspaceOutputs,
  workspaceProviderText,
  workspaceReplaceOnChange,
} from "./workspace";
