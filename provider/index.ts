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
} from "./flags/api-key";
export {
  Environment,
  type EnvironmentArgs,
  EnvironmentChangePermissions,
  EnvironmentInputs,
  EnvironmentOutputs,
  environmentProviderText,
  environmentReplaceOnChange,
} from "./flags/environment";
export {
  Flag,
  type FlagArgs,
  FlagInputs,
  FlagOutputs,
  FlagOwner,
  flagProviderText,
  flagReplaceOnChange,
} from "./flags/flag";
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
} from "./flags/flag-definition";
export {
  DefinitionEntry,
  DefinitionEntryOutput,
  definitionsByEnvironment,
  EnvironmentOutput,
  FlagDefinitions,
  type FlagDefinitionsArgs,
  FlagDefinitionsInputs,
  FlagDefinitionsOutputs,
  flagDefinitionsProviderText,
  flagDefinitionsReplaceOnChange,
} from "./flags/flag-definitions";
export {
  FlagSet,
  type FlagSetArgs,
  FlagSetInputs,
  FlagSetOutputs,
  flagSetProviderText,
  flagSetReplaceOnChange,
} from "./flags/flag-set";
export {
  Group,
  type GroupArgs,
  GroupInputs,
  GroupOutputs,
  groupProviderText,
  groupReplaceOnChange,
} from "./flags/group";
export {
  LargeSegment,
  type LargeSegmentArgs,
  LargeSegmentInputs,
  LargeSegmentOutputs,
  largeSegmentProviderText,
  largeSegmentReplaceOnChange,
} from "./flags/large-segment";
export {
  Restriction,
  type RestrictionArgs,
  RestrictionInputs,
  RestrictionOutputs,
  restrictionProviderText,
  restrictionReplaceOnChange,
  Viewer,
} from "./flags/restriction";
export {
  RuleBasedSegment,
  type RuleBasedSegmentArgs,
  RuleBasedSegmentInputs,
  RuleBasedSegmentOutputs,
  ruleBasedSegmentProviderText,
  ruleBasedSegmentReplaceOnChange,
} from "./flags/rule-based-segment";
export {
  RuleBasedSegmentDefinition,
  type RuleBasedSegmentDefinitionArgs,
  RuleBasedSegmentDefinitionInputs,
  RuleBasedSegmentDefinitionOutputs,
  ruleBasedSegmentDefinitionProviderText,
  ruleBasedSegmentDefinitionReplaceOnChange,
} from "./flags/rule-based-segment-definition";
export {
  Segment,
  type SegmentArgs,
  SegmentInputs,
  SegmentOutputs,
  segmentProviderText,
  segmentReplaceOnChange,
} from "./flags/segment";
export {
  SegmentKeys,
  type SegmentKeysArgs,
  SegmentKeysInputs,
  SegmentKeysOutputs,
  segmentKeysProviderText,
  segmentKeysReplaceOnChange,
} from "./flags/segment-keys";
export {
  TrafficType,
  type TrafficTypeArgs,
  TrafficTypeInputs,
  TrafficTypeOutputs,
  trafficTypeProviderText,
  trafficTypeReplaceOnChange,
} from "./flags/traffic-type";
export {
  TrafficTypeAttribute,
  type TrafficTypeAttributeArgs,
  TrafficTypeAttributeInputs,
  TrafficTypeAttributeOutputs,
  trafficTypeAttributeProviderText,
  trafficTypeAttributeReplaceOnChange,
} from "./flags/traffic-type-attribute";
export {
  ON_DELETE,
  UserInvite,
  type UserInviteArgs,
  UserInviteInputs,
  UserInviteOutputs,
  userInviteProviderText,
  userInviteReplaceOnChange,
} from "./flags/user-invite";
export {
  Workspace,
  type WorkspaceArgs,
  WorkspaceInputs,
  WorkspaceOutputs,
  workspaceProviderText,
  workspaceReplaceOnChange,
} from "./flags/workspace";
export * from "./lookups";
export * from "./pipeline-model";
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
} from "./platform/connector";
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
} from "./platform/delivery-environment";
export {
  EnvironmentGroup,
  type EnvironmentGroupArgs,
  EnvironmentGroupInputs,
  EnvironmentGroupOutputs,
  environmentGroupProviderText,
  environmentGroupReplaceOnChange,
  environmentGroupYaml,
} from "./platform/environment-group";
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
} from "./platform/infrastructure";
export {
  InputSet,
  type InputSetArgs,
  InputSetInputs,
  type InputSetInputValues,
  InputSetOutputs,
  inputSetProviderText,
  inputSetReplaceOnChange,
  inputSetYaml,
} from "./platform/input-set";
export {
  Organization,
  type OrganizationArgs,
  OrganizationInputs,
  type OrganizationInputValues,
  OrganizationOutputs,
  organizationProviderText,
  organizationReplaceOnChange,
} from "./platform/organization";
export {
  Pipeline,
  type PipelineArgs,
  PipelineInputs,
  type PipelineInputValues,
  PipelineOutputs,
  pipelineProviderText,
  pipelineReplaceOnChange,
} from "./platform/pipeline";
export {
  Project,
  type ProjectArgs,
  ProjectInputs,
  type ProjectInputValues,
  ProjectOutputs,
  projectProviderText,
  projectReplaceOnChange,
} from "./platform/project";
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
} from "./platform/secret";
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
} from "./platform/service";
export {
  ConfigFileInput,
  ServiceOverrides,
  type ServiceOverridesArgs,
  ServiceOverridesInputs,
  ServiceOverridesOutputs,
  serviceOverridesProviderText,
  serviceOverridesReplaceOnChange,
  serviceOverridesYaml,
} from "./platform/service-overrides";
export {
  parseTemplateId,
  Template,
  type TemplateArgs,
  TemplateInputs,
  TemplateOutputs,
  templateProviderText,
  templateReplaceOnChange,
  templateYaml,
} from "./platform/template";
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
} from "./platform/trigger";
export * from "./platform-lookups";
// Every type token (`FLAG_TYPE`, ...), the module name and `typeName`.
export * from "./types";
