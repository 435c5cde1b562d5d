/**
 * The flagstack Pulumi resources and lookups.
 *
 * Each resource file also exports its `impl` (the lifecycle implementation its serialized provider
 * `require`s at call time); those are reached through `flagstack/provider/<file>`, not this barrel,
 * so the re-exports below are explicit.
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
  Connector,
  type ConnectorArgs,
  ConnectorInputs,
  ConnectorOutputs,
  connectorProviderText,
  connectorReplaceOnChange,
} from "./connector";
export {
  DeliveryEnvironment,
  type DeliveryEnvironmentArgs,
  DeliveryEnvironmentInputs,
  DeliveryEnvironmentOutputs,
  deliveryEnvironmentProviderText,
  deliveryEnvironmentReplaceOnChange,
  deliveryEnvironmentYaml,
} from "./delivery-environment";
export {
  Environment,
  type EnvironmentArgs,
  EnvironmentInputs,
  EnvironmentOutputs,
  environmentProviderText,
  environmentReplaceOnChange,
} from "./environment";
export { Flag, type FlagArgs, FlagInputs, FlagOutputs, flagProviderText, flagReplaceOnChange } from "./flag";
export {
  type BucketOutput,
  FlagDefinition,
  type FlagDefinitionArgs,
  FlagDefinitionInputs,
  FlagDefinitionOutputs,
  flagDefinitionProviderText,
  flagDefinitionReplaceOnChange,
  type RuleOutput,
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
  InfrastructureInputs,
  InfrastructureOutputs,
  infrastructureProviderText,
  infrastructureReplaceOnChange,
  infrastructureYaml,
} from "./infrastructure";
export {
  InputSet,
  type InputSetArgs,
  InputSetInputs,
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
export {
  getEnvironment,
  getFlagSet,
  getGroup,
  getLargeSegment,
  getRolloutStatus,
  getRuleBasedSegment,
  getSegment,
  getTrafficType,
  getUsers,
  getWorkspace,
  type LookupOptions,
  NotFoundByName,
} from "./lookups";
export {
  Organization,
  type OrganizationArgs,
  OrganizationInputs,
  OrganizationOutputs,
  organizationProviderText,
  organizationReplaceOnChange,
} from "./organization";
export {
  Pipeline,
  type PipelineArgs,
  PipelineInputs,
  PipelineOutputs,
  pipelineProviderText,
  pipelineReplaceOnChange,
} from "./pipeline";
export {
  PipelineModel,
  PipelineModelError,
  type PipelineModelInput,
  parsePipelineYaml,
  pipelinesEqual,
  RuntimeInput,
  renderPipelineYaml,
  runtimeInput,
} from "./pipeline-model";
export {
  getConnector,
  getConnectorOutput,
  getOrganization,
  getOrganizationOutput,
  getPipeline,
  getPipelineOutput,
  getProject,
  getProjectOutput,
  type PlatformLookupOptions,
} from "./platform-lookups";
export {
  Project,
  type ProjectArgs,
  ProjectInputs,
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
  Service,
  type ServiceArgs,
  ServiceInputs,
  ServiceOutputs,
  serviceProviderText,
  serviceReplaceOnChange,
  serviceYaml,
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
  Trigger,
  type TriggerArgs,
  TriggerInputs,
  TriggerOutputs,
  triggerProviderText,
  triggerReplaceOnChange,
  triggerYaml,
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
