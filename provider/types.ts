/**
 * Type tokens of every flagstack resource. Each resource passes `module` ("flagstack") and its
 * type name to `dynamic.Resource`, so its URN type is `pulumi-nodejs:dynamic/flagstack:<Type>`.
 * The policy pack and the tests import these constants instead of repeating the strings.
 * @module
 */
export const MODULE = "flagstack";

export const FLAG_TYPE = "pulumi-nodejs:dynamic/flagstack:Flag";
export const FLAG_DEFINITION_TYPE = "pulumi-nodejs:dynamic/flagstack:FlagDefinition";
export const GROUP_TYPE = "pulumi-nodejs:dynamic/flagstack:Group";
export const USER_INVITE_TYPE = "pulumi-nodejs:dynamic/flagstack:UserInvite";
export const ORGANIZATION_TYPE = "pulumi-nodejs:dynamic/flagstack:Organization";
export const PROJECT_TYPE = "pulumi-nodejs:dynamic/flagstack:Project";
export const CONNECTOR_TYPE = "pulumi-nodejs:dynamic/flagstack:Connector";
export const PIPELINE_TYPE = "pulumi-nodejs:dynamic/flagstack:Pipeline";
export const ENVIRONMENT_TYPE = "pulumi-nodejs:dynamic/flagstack:Environment";
export const TRAFFIC_TYPE_TYPE = "pulumi-nodejs:dynamic/flagstack:TrafficType";
export const TRAFFIC_TYPE_ATTRIBUTE_TYPE = "pulumi-nodejs:dynamic/flagstack:TrafficTypeAttribute";
export const API_KEY_TYPE = "pulumi-nodejs:dynamic/flagstack:ApiKey";
export const WORKSPACE_TYPE = "pulumi-nodejs:dynamic/flagstack:Workspace";
export const SEGMENT_TYPE = "pulumi-nodejs:dynamic/flagstack:Segment";
export const SEGMENT_KEYS_TYPE = "pulumi-nodejs:dynamic/flagstack:SegmentKeys";
export const LARGE_SEGMENT_TYPE = "pulumi-nodejs:dynamic/flagstack:LargeSegment";
export const RULE_BASED_SEGMENT_TYPE = "pulumi-nodejs:dynamic/flagstack:RuleBasedSegment";
export const RULE_BASED_SEGMENT_DEFINITION_TYPE =
  "pulumi-nodejs:dynamic/flagstack:RuleBasedSegmentDefinition";
export const FLAG_SET_TYPE = "pulumi-nodejs:dynamic/flagstack:FlagSet";
export const SECRET_TYPE = "pulumi-nodejs:dynamic/flagstack:Secret";
export const SERVICE_TYPE = "pulumi-nodejs:dynamic/flagstack:Service";
export const DELIVERY_ENVIRONMENT_TYPE = "pulumi-nodejs:dynamic/flagstack:DeliveryEnvironment";
export const INFRASTRUCTURE_TYPE = "pulumi-nodejs:dynamic/flagstack:Infrastructure";
export const INPUT_SET_TYPE = "pulumi-nodejs:dynamic/flagstack:InputSet";
export const TRIGGER_TYPE = "pulumi-nodejs:dynamic/flagstack:Trigger";

/** The name part of each token, as passed to `dynamic.Resource`. */
export const typeName = (token: string): string => token.slice(token.lastIndexOf(":") + 1);
